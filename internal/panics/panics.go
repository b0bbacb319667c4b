// Package panics keeps a panic to the work it happened in: a hub's session
// (or the hub's follower of one run) gives its context a Handler, and the
// goroutines that work for it run their code through Catch, which recovers
// a panic, tells the handler (which logs it and ends that session only)
// and returns it as an error. Without a handler, Catch recovers nothing: a
// panic in a command run from a shell ends firewatch as it always did.
//
// recover only works on the goroutine that panicked, so every goroutine a
// session starts that runs code of firewatch's (a source's reader, a
// poller's side request) needs its own Catch; Bubble Tea recovers the
// panics of its program and its commands itself and reports them with
// tea.ErrProgramPanic, which the screens pass on with Report.
package panics

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync/atomic"
)

// Error is a recovered panic: its value and the stack of the goroutine
// that panicked.
type Error struct {
	Value any
	Stack []byte
}

func (e *Error) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Where is where the panic happened: the first frames below the panic,
// innermost first, on one line ("model.(*Store).Merge (store.go:12) <
// ..."), for a log line.
func (e *Error) Where() string {
	lines := strings.Split(string(e.Stack), "\n")
	// After "panic(...)" and its file line come the frame that panicked
	// and its callers, each a function line then a tab and its file line.
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") {
			start = i + 2
		}
	}
	if start < 0 {
		start = 1
	}
	var frames []string
	for i := start; i+1 < len(lines) && len(frames) < 4; i += 2 {
		fn := lines[i]
		if strings.HasPrefix(fn, "created by ") {
			break // the goroutine's start, not a caller
		}
		if j := strings.LastIndex(fn, "("); j > 0 {
			fn = fn[:j]
		}
		if k := strings.LastIndex(fn, "/"); k >= 0 {
			fn = fn[k+1:]
		}
		file := strings.TrimSpace(lines[i+1])
		if j := strings.LastIndex(file, " +0x"); j > 0 {
			file = file[:j]
		}
		if k := strings.LastIndex(file, "/"); k >= 0 {
			file = file[k+1:]
		}
		if fn == "" {
			break
		}
		frames = append(frames, fn+" ("+file+")")
	}
	return strings.Join(frames, " < ")
}

// Handler is told every panic Catch recovers under a context; it may be
// told more than one (two goroutines of a session), from any goroutine.
type Handler func(*Error)

type handlerKey struct{}

// WithHandler is ctx with h told the panics recovered under it.
func WithHandler(ctx context.Context, h Handler) context.Context {
	return context.WithValue(ctx, handlerKey{}, h)
}

func handlerOf(ctx context.Context) Handler {
	h, _ := ctx.Value(handlerKey{}).(Handler)
	return h
}

// Catch runs f. Under a context with a Handler, a panic in f is recovered,
// told to the handler and returned; without one it is not recovered.
func Catch(ctx context.Context, f func()) (perr *Error) {
	h := handlerOf(ctx)
	if h == nil {
		f()
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			perr = &Error{Value: r, Stack: debug.Stack()}
			h(perr)
		}
	}()
	f()
	return nil
}

// Go runs f on a new goroutine, through Catch.
func Go(ctx context.Context, f func()) {
	go func() { Catch(ctx, f) }()
}

// Report tells ctx's handler of a panic recovered elsewhere (Bubble Tea's)
// and reports whether there was one to tell.
func Report(ctx context.Context, value any) bool {
	h := handlerOf(ctx)
	if h == nil {
		return false
	}
	h(&Error{Value: value})
	return true
}

// testHook is a test's hook (SetTesting).
var testHook atomic.Pointer[func(ctx context.Context, where string)]

// SetTesting sets a test's hook: Hook calls it with a name where
// firewatch's code runs for a session ("stream": a watch's source), so
// that a test can make one session's goroutine panic there. Nil removes
// it; outside tests there is none.
func SetTesting(f func(ctx context.Context, where string)) {
	if f == nil {
		testHook.Store(nil)
		return
	}
	testHook.Store(&f)
}

// Hook calls the test's hook, when one is set.
func Hook(ctx context.Context, where string) {
	if f := testHook.Load(); f != nil {
		(*f)(ctx, where)
	}
}
