package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/internal/sshtest"
	"github.com/firewatch/firewatch/sim"
)

// An operator's R through the hub: the rerun is watched in the session,
// and = once it has ended opens the compare screen of the two runs on the
// session's terminal (it opened on the hub's own), q there comes back to
// the list.
func TestHubRerunCompare(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 400, Seed: 47})
	waitSimFinished(t, srv)
	orig := srv.Jobs[0].ID
	h := startCLIHub(t, srv.URL, srv.Key, "--interval", "100ms")
	s := sshtest.OpenScreen(t, h.login(t, h.alice), 120, 40, "LANG=C.UTF-8")
	s.WaitFor("1 of 1 loaded")
	s.Press("R")
	s.WaitFor("edit its request")
	s.Press("\t\t\t\x7f\x7f\x7f\x7f\x7f\x7f\x7flow\r")
	rerun := lowEffortStart(t, srv)
	if err := srv.WaitFinished(context.Background(), rerun); err != nil {
		t.Fatal(err)
	}
	s.WaitFor(rerun[:8])
	s.WaitFor("= compare with the original")
	s.Press("=")
	s.WaitFor("creditsUsed")
	if txt := s.Text(); !strings.Contains(txt, orig[:8]) || !strings.Contains(txt, rerun[:8]) {
		t.Fatalf("the compare screen does not name both runs:\n%s", txt)
	}
	s.Press("q")
	s.WaitFor("enter open")
	s.WaitFor("alice · operator")
	s.Press("q")
	if code := s.Exit(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// lowEffortStart waits for the one start the rerun form sends (an effort
// changed to low) and returns its run's id.
func lowEffortStart(t *testing.T, srv *sim.Server) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(srv.Starts()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	starts := srv.Starts()
	if len(starts) != 1 || !strings.Contains(string(starts[0].Body), `"effort":"low"`) {
		t.Fatalf("starts: %+v", starts)
	}
	return starts[0].ID
}
