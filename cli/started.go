package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"

	"github.com/firewatch/firewatch/poller"
)

// Something billed that firewatch starts (a run, a crawl, a browser
// session) is never lost: once the service has answered with its id, the
// id goes to stderr and the debug log before anything else is written, so
// that a stdout that fails (exit 8) or a signal still leaves it where a
// person or a script finds it. When the request fails in a way that may
// have started it anyway (an answer without a usable id, a 5xx, no answer
// in time, an interrupt after the request went out), the error says so:
// a script that retries on failure must look first.

// started says that what (e.g. "run") with id has started.
func (a *app) started(what, id string, debug *debugLog) {
	a.startedOn(a.stderr, what, id, debug)
}

// startedOn is started with stderr's line written to errw (a heldWriter
// while a full screen holds the terminal); the debug log has it at once.
func (a *app) startedOn(errw io.Writer, what, id string, debug *debugLog) {
	debug.Printf("started %s %s", what, id)
	fmt.Fprintf(errw, "firewatch: started %s %s\n", what, id)
}

// heldWriter keeps what is written while a full screen holds the terminal
// that w writes to (stderr on the console's terminal would be drawn over)
// and writes it through once release is called; from then on it writes
// through at once.
type heldWriter struct {
	mu   sync.Mutex
	w    io.Writer
	held bool
	buf  bytes.Buffer
}

func (h *heldWriter) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held {
		return h.buf.Write(b)
	}
	return h.w.Write(b)
}

// release writes out what was held.
func (h *heldWriter) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held {
		h.held = false
		_, _ = h.w.Write(h.buf.Bytes())
		h.buf.Reset()
	}
}

// maybeStartedError is a request to start something billed that failed
// in a way that may have started it.
type maybeStartedError struct {
	what, check string
	err         error
}

func (e *maybeStartedError) Error() string {
	return fmt.Sprintf("%v; a %s may have started all the same: look with %s before starting another", e.err, e.what, e.check)
}
func (e *maybeStartedError) Unwrap() error { return e.err }

// startFailed is the error of a request that was to start what; check is
// the command that lists them (e.g. "firewatch runs"). A refusal or a
// request never sent is returned as it is; any other failure may have
// started it, and says so (on stderr and the debug log at once when the
// failure is an interrupt, which prints nothing else).
func (a *app) startFailed(ctx context.Context, what, check string, err error, debug *debugLog) error {
	if err == nil || !mayHaveStarted(err) {
		return err
	}
	ms := &maybeStartedError{what: what, check: check, err: err}
	debug.Printf("%s", ms)
	if ctx.Err() != nil {
		fmt.Fprintf(a.stderr, "firewatch: interrupted while starting a %s: it may have started all the same; look with %s before starting another\n", what, check)
		return context.Cause(ctx)
	}
	return ms
}

// mayHaveStarted reports whether a failed start request may have started
// what it asked for: it reached the service and no refusal came back.
func mayHaveStarted(err error) bool {
	var pe *poller.Error
	var fe *poller.FieldError
	switch {
	case errors.As(err, &fe):
		return false // refused before any request
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return true
	case !errors.As(err, &pe):
		return false
	}
	switch pe.Kind {
	case poller.KindMalformed, poller.KindServer, poller.KindTimeout:
		return true
	case poller.KindNetwork:
		// Refused or unresolved: the request never reached anyone.
		var dns *net.DNSError
		return !errors.Is(err, syscall.ECONNREFUSED) && !errors.As(err, &dns)
	}
	return false
}
