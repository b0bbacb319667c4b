package cli

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The watchdog does nothing while the UI runs or when it stops in time, and
// restores the terminal and exits 130 when it does not.
func TestUIWatchdog(t *testing.T) {
	for _, tc := range []struct {
		name      string
		interrupt bool
		stops     bool
		wantExit  int
	}{
		{"no interrupt, UI quits", false, true, -1},
		{"interrupt, UI stops in time", true, true, -1},
		{"interrupt, UI stuck", true, false, ExitInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			restored, exited := false, -1
			var errOut strings.Builder
			finished := make(chan struct{})
			go func() {
				uiWatchdog(ctx, done, 10*time.Millisecond, func() { restored = true }, &errOut, func(c int) { exited = c })
				close(finished)
			}()
			if tc.interrupt {
				cancel()
			}
			if tc.stops {
				close(done)
			}
			<-finished
			if exited != tc.wantExit || restored != (tc.wantExit >= 0) {
				t.Fatalf("exit %d, restored %v", exited, restored)
			}
			if tc.wantExit >= 0 && !strings.Contains(errOut.String(), "did not stop") {
				t.Fatalf("stderr %q", errOut.String())
			}
		})
	}
}
