package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestResolveOutputWithoutUI pins the behaviour while the full-screen UI
// does not exist. The UI engineer replaces it with the real rules when
// cli/tui.go calls ui.Run.
func TestResolveOutputWithoutUI(t *testing.T) {
	if tuiAvailable {
		t.Skip("the UI exists")
	}
	for _, tc := range []struct {
		mode     string
		terminal bool
		want     string
		note     bool
		err      bool
	}{
		{OutputAuto, false, OutputPlain, false, false},
		{OutputAuto, true, OutputPlain, true, false},
		{OutputPlain, true, OutputPlain, false, false},
		{OutputJSON, true, OutputJSON, false, false},
		{OutputTUI, true, "", false, true},
		{OutputTUI, false, "", false, true},
	} {
		var errOut bytes.Buffer
		w := &watchSession{Stderr: &errOut}
		got, err := resolveOutput(w, tc.mode, tc.terminal)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("%s on a terminal=%v: %q, %v", tc.mode, tc.terminal, got, err)
		}
		if err != nil && (codeOf(err) != ExitUsage || !strings.Contains(err.Error(), "not available yet")) {
			t.Errorf("%s: error %v (exit %d)", tc.mode, err, codeOf(err))
		}
		if note := strings.Contains(errOut.String(), "not available yet"); note != tc.note {
			t.Errorf("%s on a terminal=%v: note %q", tc.mode, tc.terminal, errOut.String())
		}
	}
}
