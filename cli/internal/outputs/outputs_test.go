package outputs

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/firewatch/firewatch/cli/internal/exitcode"
)

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// TestStdoutFailureEndsWatching: stdout's first failure ends the watch's
// context with it as the cause, later writes return it without writing,
// and Finish says it once and makes the code 8.
func TestStdoutFailureEndsWatching(t *testing.T) {
	var stderr bytes.Buffer
	o := &Outputs{Stderr: &stderr}
	ctx, stop := o.Context(context.Background())
	defer stop(nil)
	g := o.Guarded("stdout", failingWriter{syscall.EPIPE})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { _, _ = g.Write([]byte("x")) })
	}
	wg.Wait()
	var oe *exitcode.OutputError
	if !errors.As(context.Cause(ctx), &oe) || oe.Name != "stdout" {
		t.Fatalf("cause %v", context.Cause(ctx))
	}
	if stderr.Len() != 0 {
		t.Errorf("said before the end: %q", stderr.String())
	}
	err := o.Finish(&exitcode.WatchEnd{Run: nil, Err: nil})
	if got := strings.Count(stderr.String(), "stdout: cannot write: the reader went away (closed pipe); watching stopped"); got != 1 {
		t.Errorf("said %d times: %q", got, stderr.String())
	}
	if !errors.As(err, new(*exitcode.OutputsFailed)) {
		t.Errorf("Finish = %v", err)
	}
}

// TestDeferredUntilFinish: with the terminal UI up, a --record failure is
// kept and said at Finish.
func TestDeferredUntilFinish(t *testing.T) {
	var stderr bytes.Buffer
	o := &Outputs{Stderr: &stderr, Defer: true}
	_, _ = o.Guarded("--record", failingWriter{errors.New("disk full")}).Write([]byte("x"))
	if stderr.Len() != 0 {
		t.Fatalf("said while the UI is up: %q", stderr.String())
	}
	_ = o.Finish(nil)
	if want := "firewatch: --record: cannot write: disk full; the recording stops here\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

// TestWriteGuardKeepsFirstError: nothing is written after a failure.
func TestWriteGuardKeepsFirstError(t *testing.T) {
	boom := errors.New("boom")
	g := &WriteGuard{W: failingWriter{boom}}
	if _, err := g.Write([]byte("a")); err != boom {
		t.Fatalf("Write = %v", err)
	}
	if g.Failed() != boom {
		t.Errorf("Failed = %v", g.Failed())
	}
}
