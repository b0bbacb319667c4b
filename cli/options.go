package cli

import (
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/text"
)

// Output modes.
const (
	OutputAuto  = "auto"
	OutputTUI   = "tui"
	OutputPlain = "plain"
	OutputJSON  = "json"
)

var outputModes = []string{OutputAuto, OutputTUI, OutputPlain, OutputJSON}

// MinInterval is the shortest --interval accepted.
const MinInterval = 100 * time.Millisecond

// watchOptions are the flags of watch, demo and replay (each command
// registers the ones that make sense for it).
type watchOptions struct {
	// connection (watch)
	APIURL string
	APIKey string

	// polling (watch, demo)
	Interval time.Duration
	Tail     int
	LiveView bool
	Record   string
	Timeout  time.Duration

	// output (all three)
	Output  string
	Summary string
	Result  string // --result (watch, run, replay: result.go)
	NoColor bool
	ASCII   bool
	Debug   string

	// for the terminal UI
	Mouse        bool
	ExitOnFinish bool
	SaveDir      string

	// Heartbeat is how long the output stays silent before it says the run
	// is still going.
	Heartbeat time.Duration

	// attention (see attention.go): --stall, --max-credits, and the
	// maxCredits of a run firewatch started itself (firewatch run sets
	// it; 0 when firewatch did not start the run).
	Stall             time.Duration
	MaxCredits        float64
	StartedMaxCredits float64
	timeScale         float64 // the demo's --speed: the trace's clock runs that much faster

	// OTLP is the OpenTelemetry export (--otlp, cli/otlp.go).
	OTLP otlpOptions
	// Notify is --notify and its kin (cli/notify.go).
	Notify notifyOptions
}

const (
	defaultInterval  = 2 * time.Second
	defaultTail      = 3
	defaultHeartbeat = 30 * time.Second
)

// flag groups a command can ask for.
type flagSet uint

const (
	flagsConnection flagSet = 1 << iota // --api-url, --api-key
	flagsPolling                        // --interval, --tail, --live-view, --record, --timeout
	flagsOutput                         // --output, --summary, --no-color, --ascii, --debug, --mouse, --exit-on-finish
	flagsOTLP                           // --otlp, --otlp-endpoint, --otlp-content
	flagsNotify                         // --notify, --notify-command, --notify-url, --notify-on
	flagsNotifyDemo                     // the same for demo: nothing without --notify
)

func (o *watchOptions) register(cmd *cobra.Command, which flagSet) {
	f := cmd.Flags()
	if which&flagsConnection != 0 {
		f.StringVar(&o.APIURL, "api-url", "", "service base URL (default $FIRECRAWL_API_URL, else https://api.firecrawl.dev)")
		f.StringVar(&o.APIKey, "api-key", "", "API key; prefer $FIRECRAWL_API_KEY, which stays out of the process list and shell history")
	}
	if which&flagsPolling != 0 {
		f.DurationVar(&o.Interval, "interval", defaultInterval, "time between polls of the trace (at least 100ms)")
		f.IntVar(&o.Tail, "tail", defaultTail, "after the run finishes, stop once this many polls in a row bring nothing new")
		f.BoolVar(&o.LiveView, "live-view", false, "ask for the browser sessions' live-view links")
		f.StringVar(&o.Record, "record", "", "write what was received to `FILE` (NDJSON) for firewatch replay")
		f.DurationVar(&o.Timeout, "timeout", 0, "give up after this long if the run has not finished (exit 7); 0 waits for ever")
	}
	if which&flagsOutput != 0 {
		f.StringVarP(&o.Output, "output", "o", OutputAuto, "output: auto (tui on a terminal, else plain), tui, plain or json")
		f.StringVar(&o.Summary, "summary", "", "write the run's summary as JSON to `FILE` when watching ends (- for stdout, last)")
		f.BoolVar(&o.NoColor, "no-color", false, "no colour (also when NO_COLOR is set)")
		f.BoolVar(&o.ASCII, "ascii", false, "ASCII symbols only")
		f.StringVar(&o.Debug, "debug", "", "write a log of what happened to `FILE` (never the key)")
		f.BoolVar(&o.Mouse, "mouse", false, "terminal UI: turn on the mouse (wheel and click); off keeps text selection working")
		f.BoolVar(&o.ExitOnFinish, "exit-on-finish", false, "terminal UI: leave once the run has finished and its tail window closed")
		f.StringVar(&o.SaveDir, "save-dir", "", "terminal UI: where s saves an artifact's content (default: the current directory)")
		f.DurationVar(&o.Heartbeat, "heartbeat", defaultHeartbeat, "say the run is still going after this long without events (plain and JSON output)")
		_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(outputModes, cobra.ShellCompDirectiveNoFileComp))
		o.registerAttention(f)
	}
	if which&flagsOTLP != 0 {
		o.OTLP.register(cmd)
	}
	if which&(flagsNotify|flagsNotifyDemo) != 0 {
		o.Notify.register(cmd.Flags(), which&flagsNotifyDemo != 0)
	}
}

// checkInterval is --interval's rule, for every command that polls.
func checkInterval(d time.Duration) error {
	if d < MinInterval {
		return badUsage("--interval %s is too short: the minimum is %s", d, MinInterval)
	}
	return nil
}

// check validates flag values (exit 2 on a bad one).
func (o *watchOptions) check(f *pflag.FlagSet) error {
	if f.Lookup("interval") != nil {
		if err := checkInterval(o.Interval); err != nil {
			return err
		}
	}
	if f.Lookup("tail") != nil && o.Tail < 1 {
		return badUsage("--tail %d: it must be at least 1", o.Tail)
	}
	if f.Lookup("timeout") != nil && o.Timeout < 0 {
		return badUsage("--timeout %s: it must not be negative", o.Timeout)
	}
	if f.Lookup("output") != nil {
		o.Output = strings.ToLower(strings.TrimSpace(o.Output))
		ok := false
		for _, m := range outputModes {
			ok = ok || o.Output == m
		}
		if !ok {
			return badUsage("--output %q: it must be one of %s", o.Output, strings.Join(outputModes, ", "))
		}
	}
	if f.Lookup("heartbeat") != nil && o.Heartbeat <= 0 {
		return badUsage("--heartbeat must be positive")
	}
	if err := o.checkAttention(f); err != nil {
		return err
	}
	if err := o.Notify.check(f); err != nil {
		return err
	}
	if o.Record != "" && o.Record == o.Summary {
		return badUsage("--record and --summary name the same file %q", o.Record)
	}
	if o.Result != "" && o.Result != "-" && (o.Result == o.Summary || o.Result == o.Record) {
		return badUsage("--result names the same file %q as --summary or --record", o.Result)
	}
	if f.Lookup("otlp") != nil {
		if err := o.OTLP.check(false); err != nil {
			return err
		}
	}
	if o.SaveDir != "" {
		if fi, err := os.Stat(o.SaveDir); err != nil || !fi.IsDir() {
			return badUsage("--save-dir %q: not a directory firewatch can save into", o.SaveDir)
		}
	}
	return nil
}

func plural(n int, one, many string) string { return text.Plural(n, one, many) }
