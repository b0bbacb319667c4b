package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/sim"
)

// threadIDOf is the thread the service says run id is in.
func threadIDOf(t *testing.T, srv *sim.Server, id string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/v2/agent/"+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+srv.Key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var st struct {
		ThreadID string `json:"threadId"`
	}
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil || st.ThreadID == "" {
		t.Fatalf("the status of %s names no thread: %v", id, err)
	}
	return st.ThreadID
}

// A follow-up the service refuses for its thread, or for a run it does not
// know, exits 6 with words that say why and what to do, and starts nothing.
func TestFollowUpRefusals(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	on := startSim(t, sim.Options{Speed: sim.MaxSpeed, Seed: 52})
	off := startSim(t, sim.Options{Speed: sim.MaxSpeed, Seed: 53, NoThreads: true})
	for _, srv := range []*sim.Server{on, off} {
		if err := srv.WaitFinished(ctx, srv.Jobs[0].ID); err != nil {
			t.Fatal(err)
		}
	}
	on.ExpireThread(threadIDOf(t, on, on.Jobs[0].ID))
	for _, c := range []struct {
		name string
		srv  *sim.Server
		id   string
		says []string
	}{
		{"an expired thread", on, on.Jobs[0].ID, []string{"has expired", "firewatch run", "firewatch rerun"}},
		{"threads off", off, off.Jobs[0].ID, []string{"threads turned off", "firewatch run"}},
		{"a run the service does not know", on, "0190f000-0000-7000-8000-000000000000", []string{"404"}},
	} {
		before := len(c.srv.Starts())
		out, errOut, code := run(t, ctx, "follow-up", c.id, "Now the free tiers", "-o", "plain",
			"--api-url", c.srv.URL, "--api-key", c.srv.Key, "--archive", "off")
		if code != ExitRejected {
			t.Errorf("%s: exit %d, want %d: %s", c.name, code, ExitRejected, errOut)
		}
		for _, s := range c.says {
			if !strings.Contains(errOut, s) {
				t.Errorf("%s: stderr does not say %q:\n%s", c.name, s, errOut)
			}
		}
		for _, s := range c.srv.Starts()[before:] {
			if s.ID != "" {
				t.Errorf("%s: run %s started", c.name, s.ID)
			}
		}
		if out != "" || strings.Contains(errOut, c.srv.Key) {
			t.Errorf("%s: stdout %q, or the key on stderr", c.name, out)
		}
	}
}
