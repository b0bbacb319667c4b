// Package otlplive exports one watch as OpenTelemetry spans while it runs
// (--otlp): fed from the watch's source, on its own store and goroutine
// (export.Live), its failures said once, on stderr or in the terminal UI's
// footer.
package otlplive

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/firewatch/firewatch/export"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// flush bounds the wait for the last spans when a watch ends;
// flushFailing once the endpoint has failed already.
const (
	flush        = 3 * time.Second
	flushFailing = time.Second
)

// Export is the export of one watch.
type Export struct {
	l      *export.Live
	stderr io.Writer
	defer_ bool          // report failures at the end (the terminal UI owns the screen)
	notes  chan<- string // the terminal UI's footer, when it is up

	mu       sync.Mutex
	reported bool
}

// Start starts the export with o (its OnError is the export's own).
// Failures are said on stderr; when tui (the terminal UI owns the
// screen), in its footer (notes) and on stderr at Finish.
func Start(o export.Options, stderr io.Writer, tui bool, notes chan<- string) (*Export, error) {
	e := &Export{stderr: stderr, defer_: tui}
	if tui {
		e.notes = notes
	}
	o.OnError = e.failed
	l, err := export.NewLive(o)
	if err != nil {
		return nil, err
	}
	e.l = l
	return e, nil
}

// Tap is src, feeding the export every update it gives.
func (e *Export) Tap(src follow.Source) follow.Source {
	return follow.Tap(src, func(u poller.Update) {
		if u.Request != nil {
			e.l.SetRequest(*u.Request)
		}
		e.l.Feed(u.Poll)
	})
}

// failed reports the first failed export once, unless the terminal UI is
// up (then Finish does).
func (e *Export) failed(err error) {
	if e.defer_ {
		select {
		case e.notes <- "OTLP export failed (the watch goes on): " + text.Sanitize(err.Error()):
		default:
		}
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reported = true
	fmt.Fprintf(e.stderr, "firewatch: OTLP export failed (the watch goes on): %s\n", text.Sanitize(err.Error()))
}

// Finish sends the last spans (bounded by flush) and reports a failure
// that was not reported yet. A nil e does nothing.
func (e *Export) Finish() {
	if e == nil {
		return
	}
	wait := flush
	if e.l.Failing() {
		wait = flushFailing
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	st := e.l.Close(ctx)
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case st.Err != nil && !e.reported:
		fmt.Fprintf(e.stderr, "firewatch: OTLP export to %s failed: %d spans not delivered: %s\n", st.Endpoint, st.Failed, text.Sanitize(st.Err.Error()))
	case st.Err == nil && st.Spans > 0:
		// The trace id finds the run in the backend.
		fmt.Fprintf(e.stderr, "firewatch: OTLP: %d spans sent to %s (trace id %s)\n", st.Spans, st.Endpoint, st.TraceID)
	}
}
