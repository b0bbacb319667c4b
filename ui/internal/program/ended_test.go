package program

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// A terminal that goes away fails the program's read with EIO and sends
// SIGHUP, which ends ctx (cli's signal context): whichever comes first,
// the program ended by the hang-up, not by a failure of its own (exit 130,
// not 1). Without a signal, the error is the program's after HangupWait.
func TestTerminalGoneEndsWithTheHangUp(t *testing.T) {
	hangup := errors.New("SIGHUP")
	readErr := fmt.Errorf("program was killed: %w", &os.PathError{Op: "read", Path: "/dev/stdin", Err: syscall.EIO})
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		go func() {
			time.Sleep(50 * time.Millisecond) // the signal, a moment after the read failed
			cancel(hangup)
		}()
		if _, interrupted, err := ended(ctx)(nil, readErr); err != hangup || interrupted {
			t.Fatalf("%v %v, want the hang-up", err, interrupted)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if _, _, err := ended(context.Background())(nil, readErr); err != readErr || time.Since(start) != HangupWait {
			t.Fatalf("%v after %v", err, time.Since(start))
		}
	})
	other := errors.New("some other failure")
	if _, _, err := ended(context.Background())(nil, other); err != other {
		t.Fatal(err)
	}
}
