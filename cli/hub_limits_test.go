package cli

import (
	"strings"
	"testing"

	"github.com/firewatch/firewatch/internal/sshtest"
	"github.com/firewatch/firewatch/sim"
)

// -h and --help over the hub print the command's help and exit 0, as on
// the command line, whatever else the line says; nothing runs.
func TestHubCommandHelp(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{History: 1})
	h := startCLIHub(t, srv.URL, srv.Key)
	c := h.login(t, h.bob)
	for _, tc := range []struct{ line, usage string }{
		{"runs --help", "firewatch runs"},
		{"watch -h", "firewatch watch"},
		{"history -o json --help", "firewatch history"},
		{"watch --record out.json -h", "firewatch watch"},
	} {
		out, errOut, code := sshtest.Run(t, c, tc.line)
		if code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, tc.usage) || strings.Contains(errOut, "help requested") {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", tc.line, code, out, errOut)
		}
	}
}

// One person's sessions are bounded by --max-person-sessions, and the
// flags are checked.
func TestHubPersonSessionsFlag(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--max-person-sessions", "9", "--max-sessions", "8"}, {"--max-startups", "0"}} {
		var stderr sshtest.Buffer
		code := Execute(t.Context(), append([]string{"hub", "--authorized-keys", "/nonexistent"}, args...), strings.NewReader(""), &stderr, &stderr)
		if code != ExitUsage || !strings.Contains(stderr.String(), args[0]) {
			t.Errorf("%q: exit %d, %s", args, code, stderr.String())
		}
	}
	srv := startSim(t, sim.Options{History: 1})
	h := startCLIHub(t, srv.URL, srv.Key, "--max-sessions", "8", "--max-person-sessions", "1")
	c := h.login(t, h.bob)
	// A terminal session stays until it is left.
	screen := sshtest.OpenScreen(t, c, 80, 24, "LANG=C.UTF-8")
	defer screen.Sess.Close()
	h.log.WaitLine(t, "login bob (viewer", "the runs screen")
	if _, errOut, code := sshtest.Run(t, c, "runs"); code != 1 || !strings.Contains(errOut, "you already have 1 session(s) open, the most one person may") {
		t.Errorf("bob's second session: exit %d, %s", code, errOut)
	}
	alice := h.login(t, h.alice)
	if _, errOut, code := sshtest.Run(t, alice, "runs"); code != 0 {
		t.Errorf("alice: exit %d, %s", code, errOut)
	}
}
