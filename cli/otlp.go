package cli

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/export"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// otlpOptions are the OpenTelemetry flags: a group that watch, demo,
// replay (and run) register with register and start with live.
type otlpOptions struct {
	Enabled  bool
	Endpoint string
	Content  bool

	url string // resolved by check
}

// otlpFlush bounds the wait for the last spans when a watch ends;
// otlpFlushFailing once the endpoint has failed already.
const (
	otlpFlush        = 3 * time.Second
	otlpFlushFailing = time.Second
)

func (x *otlpOptions) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&x.Enabled, "otlp", false, "export the run as OpenTelemetry spans over OTLP/HTTP (to $OTEL_EXPORTER_OTLP_ENDPOINT, else localhost:4318)")
	x.registerTarget(cmd)
}

// registerTarget adds --otlp-endpoint and --otlp-content (firewatch
// export has only these).
func (x *otlpOptions) registerTarget(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&x.Endpoint, "otlp-endpoint", "", "OTLP/HTTP base `URL` (/v1/traces is added unless it ends so); implies --otlp; default $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or $OTEL_EXPORTER_OTLP_ENDPOINT")
	f.BoolVar(&x.Content, "otlp-content", false, "include the prompt, tool parameters and results in the spans (they can be large and private)")
}

// check validates the flags (exit 2) and resolves the endpoint.
func (x *otlpOptions) check(always bool) error {
	if x.Endpoint != "" || always {
		x.Enabled = true
	}
	if x.Content && !x.Enabled {
		return badUsage("--otlp-content needs --otlp or --otlp-endpoint")
	}
	if !x.Enabled {
		return nil
	}
	u, err := export.ResolveEndpoint(x.Endpoint)
	if err != nil {
		return badUsage("%v", err)
	}
	x.url = u
	return nil
}

// liveExport is the export of one watch, fed from its source.
type liveExport struct {
	l      *export.Live
	stderr io.Writer
	defer_ bool          // report failures at the end (the terminal UI owns the screen)
	notes  chan<- string // the terminal UI's footer, when it is up

	mu       sync.Mutex
	reported bool
}

// live starts the export of a watch (nil when --otlp is off) and makes its
// source feed it. The watch's store and pace are not touched: the export
// keeps its own store on its own goroutine.
//
// archived (nil: never) says, when watching is over, whether the watch
// archives the run.
func (x *otlpOptions) live(w *watchSession, secrets *text.Secrets, archived func() bool) (*liveExport, error) {
	if !x.Enabled {
		return nil, nil
	}
	le := &liveExport{stderr: w.Stderr, defer_: w.Output == OutputTUI}
	if le.defer_ {
		// The terminal UI shows the failure in its footer; stderr gets it
		// once the screen is back.
		le.notes = w.Notes
	}
	l, err := export.NewLive(export.Options{
		Endpoint: x.url, JobID: w.JobID, Content: x.Content, Secrets: secrets, Version: Version(), Request: w.Store.Request(),
		OnError: le.failed,
		// The run span carries the figures of the record firewatch export
		// reads later: it is sent at the end (finish), when watching is
		// over. A run the watch archives: the watch's record, which the
		// archive keeps. Otherwise export derives them from a replay of
		// the recording, events alone: so does the live export from the
		// polls it was fed, not from the watch's tracker, whose wall clock
		// (a stall raised while polls were slow, the demo's --speed
		// scale, --stall) the recording does not hold.
		FactsOf: func(replayed *follow.Run) *export.Facts {
			run := replayed
			if archived != nil && archived() {
				run = &w.Run
			}
			f := archiving.FiguresOf(archiving.RecordOf(run), time.Now())
			return f.Facts()
		},
	})
	if err != nil {
		return nil, err
	}
	le.l = l
	w.Source = follow.Tap(w.Source, func(u poller.Update) {
		if u.Request != nil {
			le.l.SetRequest(*u.Request)
		}
		le.l.Feed(u.Poll)
	})
	w.Debug.Printf("otlp: exporting to %s (content %v)", x.url, x.Content)
	return le, nil
}

// failed reports the first failed export once, unless the terminal UI is
// up (then finish does).
func (le *liveExport) failed(err error) {
	if le.defer_ {
		select {
		case le.notes <- "OTLP export failed (the watch goes on): " + text.Sanitize(err.Error()):
		default:
		}
		return
	}
	le.mu.Lock()
	defer le.mu.Unlock()
	le.reported = true
	fmt.Fprintf(le.stderr, "firewatch: OTLP export failed (the watch goes on): %s\n", text.Sanitize(err.Error()))
}

// finish sends the last spans (bounded by otlpFlush) and reports a
// failure that was not reported yet.
func (le *liveExport) finish() {
	if le == nil {
		return
	}
	wait := otlpFlush
	if le.l.Failing() {
		wait = otlpFlushFailing
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	st := le.l.Close(ctx)
	le.mu.Lock()
	defer le.mu.Unlock()
	switch {
	case st.Err != nil && !le.reported:
		fmt.Fprintf(le.stderr, "firewatch: OTLP export to %s failed: %d spans not delivered: %s\n", st.Endpoint, st.Failed, text.Sanitize(st.Err.Error()))
	case st.Err == nil && st.Spans > 0:
		// The trace id finds the run in the backend.
		fmt.Fprintf(le.stderr, "firewatch: OTLP: %d spans sent to %s (trace id %s)\n", st.Spans, st.Endpoint, st.TraceID)
	}
}
