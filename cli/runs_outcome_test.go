package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/sim"
)

// A run cancelled through firewatch, which the service reports as failed:
// runs -o json adds "outcome":"cancelled" beside the service's untouched
// "status":"failed", and runs -o plain prints cancelled; a failure the
// archive does not hold is failed in both.
func TestRunsPrintTheOutcomeFirewatchKnows(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioFailure, sim.ScenarioFailure}, Speed: 1000})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	waitSimFinished(t, srv)
	cancelled, failed := srv.Jobs[0].ID, srv.Jobs[1].ID
	db := filepath.Join(t.TempDir(), "a.db")
	st, err := archive.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	// What firewatch records of a run it cancelled: the trace's outcome.
	err = st.ReplaceRun(ctx, &archive.Run{Service: srv.URL, ID: cancelled, Status: "failed", Outcome: "cancelled",
		Complete: true, Events: 9, CancelRequested: true, CancelledBy: "alice"}, nil, nil)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"runs", "--api-url", srv.URL, "--api-key", srv.Key, "--archive", db}
	out, errOut, code := run(t, ctx, append(args, "-o", "json")...)
	if code != 0 {
		t.Fatalf("runs -o json: exit %d\n%s", code, errOut)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct{ ID, Status, Outcome string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		want := map[string]string{cancelled: "cancelled", failed: "failed"}[r.ID]
		if want == "" {
			continue
		}
		seen[r.ID] = true
		if r.Status != "failed" || r.Outcome != want {
			t.Errorf("run %s: status %q, outcome %q; want the service's failed and outcome %q:\n%s", r.ID, r.Status, r.Outcome, want, line)
		}
	}
	if len(seen) != 2 {
		t.Fatalf("runs -o json listed %v of the two runs:\n%s", seen, out)
	}
	out, errOut, code = run(t, ctx, append(args, "-o", "plain")...)
	if code != 0 {
		t.Fatalf("runs -o plain: exit %d\n%s", code, errOut)
	}
	for id, want := range map[string]string{cancelled: "cancelled", failed: "failed"} {
		var row string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, id) {
				row = l
			}
		}
		if f := strings.Fields(row); len(f) == 0 || f[0] != want {
			t.Errorf("runs -o plain: the row of %s is %q, want %s:\n%s", id, row, want, out)
		}
	}
}
