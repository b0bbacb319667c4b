package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/cli/internal/otlplive"
	"github.com/firewatch/firewatch/export"
	"github.com/firewatch/firewatch/follow"
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

// live starts the export of a watch (nil when --otlp is off) and makes its
// source feed it. The watch's store and pace are not touched: the export
// keeps its own store on its own goroutine.
//
// archived (nil: never) says, when watching is over, whether the watch
// archives the run.
func (x *otlpOptions) live(w *watchSession, secrets *text.Secrets, archived func() bool) (*otlplive.Export, error) {
	if !x.Enabled {
		return nil, nil
	}
	// The terminal UI shows a failure in its footer; stderr gets it once
	// the screen is back.
	le, err := otlplive.Start(export.Options{
		Endpoint: x.url, JobID: w.JobID, Content: x.Content, Secrets: secrets, Version: Version(), Request: w.Store.Request(),
		// The run span carries the figures of the record firewatch export
		// reads later: it is sent at the end (Finish), when watching is
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
	}, w.Stderr, w.Output == OutputTUI, w.Notes)
	if err != nil {
		return nil, err
	}
	w.Source = le.Tap(w.Source)
	w.Debug.Printf("otlp: exporting to %s (content %v)", x.url, x.Content)
	return le, nil
}
