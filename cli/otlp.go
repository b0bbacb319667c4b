package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/export"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
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
	f.BoolVar(&x.Content, "otlp-content", false, "include tool parameters and results in the spans (they can be large and private)")
}

// check validates the flags (exit 2) and resolves the endpoint.
func (x *otlpOptions) check(always bool) error {
	if x.Endpoint != "" || always {
		x.Enabled = true
	}
	if x.Content && !x.Enabled {
		return usageErrorf("--otlp-content needs --otlp or --otlp-endpoint")
	}
	if !x.Enabled {
		return nil
	}
	u, err := export.ResolveEndpoint(x.Endpoint)
	if err != nil {
		return usageErrorf("%v", err)
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
func (x *otlpOptions) live(w *watchSession, key string) (*liveExport, error) {
	if !x.Enabled {
		return nil, nil
	}
	le := &liveExport{stderr: w.Stderr, defer_: w.Output == OutputTUI}
	if le.defer_ {
		// The terminal UI shows the failure in its footer; stderr gets it
		// once the screen is back.
		w.Notes = make(chan string, 1)
		le.notes = w.Notes
	}
	l, err := export.NewLive(export.Options{
		Endpoint: x.url, JobID: w.JobID, Content: x.Content, Secret: key, Version: Version(),
		OnError: le.failed,
	})
	if err != nil {
		return nil, err
	}
	le.l = l
	src := w.Source
	w.Source = func(ctx context.Context, sink func(poller.Update)) error {
		return src(ctx, func(u poller.Update) {
			le.l.Feed(u.Poll)
			sink(u)
		})
	}
	w.Debug.Printf("otlp: exporting to %s (content %v)", x.url, x.Content)
	return le, nil
}

// failed reports the first failed export once, unless the terminal UI is
// up (then finish does).
func (le *liveExport) failed(err error) {
	if le.defer_ {
		select {
		case le.notes <- "OTLP export failed (the watch goes on): " + model.Sanitize(err.Error()):
		default:
		}
		return
	}
	le.mu.Lock()
	defer le.mu.Unlock()
	le.reported = true
	fmt.Fprintf(le.stderr, "firewatch: OTLP export failed (the watch goes on): %s\n", model.Sanitize(err.Error()))
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
		fmt.Fprintf(le.stderr, "firewatch: OTLP export to %s failed: %d spans not delivered: %s\n", st.Endpoint, st.Failed, model.Sanitize(st.Err.Error()))
	case st.Err == nil && st.Spans > 0:
		// The trace id finds the run in the backend.
		fmt.Fprintf(le.stderr, "firewatch: OTLP: %d spans sent to %s (trace id %s)\n", st.Spans, st.Endpoint, st.TraceID)
	}
}

func (a *app) exportCommand() *cobra.Command {
	x := &otlpOptions{}
	cmd := &cobra.Command{
		Use:   "export FILE",
		Short: "Send a recorded run to an OpenTelemetry backend over OTLP/HTTP",
		Long: `Send a run as OpenTelemetry spans over OTLP/HTTP (protobuf): a file written by
--record, or a saved trace body (- for stdin). The same spans as --otlp sends
live, with the same trace and span ids, so sending a run twice does not
duplicate it in a backend that de-duplicates.

The endpoint: --otlp-endpoint, else OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else
OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces), else http://localhost:4318.
Headers (authentication) come from OTEL_EXPORTER_OTLP_HEADERS.`,
		Example: `  firewatch export run.ndjson                        # to a local Jaeger or collector
  OTEL_EXPORTER_OTLP_ENDPOINT=https://api.honeycomb.io \
  OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=$HONEYCOMB_KEY firewatch export run.ndjson`,
		Args: exactlyOne("a FILE (a --record file or a saved trace body; - for stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.export(cmd, x, args[0])) },
	}
	x.registerTarget(cmd)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%v", err) })
	return cmd
}

func (a *app) export(cmd *cobra.Command, x *otlpOptions, file string) error {
	if err := x.check(true); err != nil {
		return err
	}
	s, name, err := a.loadRun(cmd.Context(), file)
	if err != nil {
		return err
	}
	if s.Len() == 0 {
		return usageErrorf("%s holds no trace events: nothing to export", name)
	}
	ex, err := export.New(export.Options{Endpoint: x.url, Content: x.Content, Version: Version()})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
	defer cancel()
	st := ex.Close(ctx, s)
	if st.Err != nil {
		return fmt.Errorf("OTLP export to %s: %d spans not delivered: %s", st.Endpoint, st.Failed, st.Err)
	}
	fmt.Fprintf(a.stdout, "exported %d spans of run %s to %s (trace id %s)\n", st.Spans, s.Run().ID, st.Endpoint, st.TraceID)
	return nil
}

// loadRun reads a recording or saved trace body (- for stdin) into a
// store; a file it cannot read is a usage error.
func (a *app) loadRun(ctx context.Context, file string) (*model.Store, string, error) {
	in, name, closeIn, err := a.openRecording(file)
	if err != nil {
		return nil, file, err
	}
	defer closeIn()
	s, err := export.Load(ctx, in)
	if err != nil {
		return nil, name, withCode(ExitUsage, fmt.Errorf("%s: %w", name, err))
	}
	return s, name, nil
}

// openRecording opens a recording or saved trace body, stdin for "-"; a
// file it cannot open is a usage error. name is what messages call it.
func (a *app) openRecording(file string) (in io.Reader, name string, closeIn func(), err error) {
	if file == "-" {
		return a.stdin, "stdin", func() {}, nil
	}
	if isJobArg(file) { // FILE or JOB_ID: cli/archive.go
		return a.openJob(file)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, file, nil, usageErrorf("cannot read the recording: %v", err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, file, nil, usageErrorf("cannot read the recording: %s is a directory", file)
	}
	return f, file, func() { f.Close() }, nil
}
