package e2e

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/sim"
)

// TestHubKeepsItsArchive: a hub with an archive and nobody watching
// completes the team's runs on its own once they are over: the twenty
// finished runs of the list and the live one once it ends. history -o
// json has every run complete and cost no unknown run, without an
// archive command.
var firstPass = regexp.MustCompile(`the hub completed (\d+) runs of the \d+ its pass saw`)

func TestHubKeepsItsArchive(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, History: 20, Speed: 50})
	env := simEnv(srv, "FIREWATCH_ARCHIVE="+filepath.Join(t.TempDir(), "a.db"))
	h := startTeamHub(t, env)
	want := len(srv.Jobs) + 20
	var last result
	complete := func() (n int) {
		last = runFW(t, env, 20*time.Second, "history", "-o", "json")
		for _, line := range strings.Split(strings.TrimSpace(last.stdout), "\n") {
			var r struct {
				ID       string `json:"id"`
				Complete bool   `json:"complete"`
			}
			if json.Unmarshal([]byte(line), &r) == nil && r.Complete {
				n++
			} else if testing.Verbose() {
				t.Logf("not complete: %s", line)
			}
		}
		return n
	}
	deadline := time.Now().Add(30 * time.Second)
	for complete() < want {
		if time.Now().After(deadline) {
			t.Fatalf("history: fewer than %d runs complete within 30s:\n%s\nthe hub's log:\n%s", want, last, tailOf(h.p.stderr.String()))
		}
		time.Sleep(200 * time.Millisecond)
	}
	c := runFW(t, env, 20*time.Second, "cost", "-o", "json")
	var cost struct {
		Total struct {
			Runs        int `json:"runs"`
			UnknownRuns int `json:"unknownRuns"`
		} `json:"total"`
	}
	if c.code != 0 || json.Unmarshal([]byte(c.stdout), &cost) != nil || cost.Total.Runs != want || cost.Total.UnknownRuns != 0 {
		t.Fatalf("cost: want %d runs, none unknown: %s", want, c)
	}
	// The live run may end before the first pass is over, so that pass
	// completes the twenty finished runs or all of them.
	log := h.p.stderr.String()
	if m := firstPass.FindStringSubmatch(log); m == nil || (m[1] != "20" && m[1] != strconv.Itoa(want)) {
		t.Errorf("the hub's log does not say its first pass completed the twenty finished runs:\n%s", tailOf(log))
	}
}
