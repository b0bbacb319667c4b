package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/firewatch/firewatch/cli/internal/exitcode"
	"github.com/firewatch/firewatch/cli/internal/hubsvc"
	"github.com/firewatch/firewatch/cli/internal/outputs"
	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui"
	"github.com/firewatch/firewatch/ui/screen"
)

// watchSession is one watch of one run, whatever shows it (plain, json or
// the terminal UI) and wherever the events come from (the service, the
// simulator of the demo, a recording). Its parts: the feed (where the
// events come from), the display (where and how they are shown), the
// run's state, and the link to the runs screen.
type watchSession struct {
	Opts *watchOptions
	feed
	display
	follow.Run
	listLink
	notify *notifyWatch     // --notify and its kin (notify.go); nil: none
	out    *outputs.Outputs // what the watch writes besides stderr (newSession)
}

// feed is where a watch's events come from.
type feed struct {
	JobID   string         // "" for a replay whose file does not say
	Client  *poller.Client // nil for a replay
	Watcher controls       // nil for a replay (pause, poll now, live view)
	Source  follow.Source
	Replay  bool // the events come from a recording
	// InputBytes is the size of the file a replay reads (0: not known):
	// the memory the terminal UI may take follows it from the start.
	InputBytes int64
	// ArchiveSnapshot, set for a run read from the archive, gives its
	// snapshots to the terminal UI (cli/archive.go).
	ArchiveSnapshot func(ctx context.Context, snapshotID string) (string, error)
	// keepSnapshot, set when a live watch is archived, is given every
	// snapshot the terminal UI fetched (archiving.SnapshotKeeper).
	keepSnapshot func(snapshotID, content string)
	// keepCancel, set when a live watch is archived, records a cancel the
	// service accepted.
	keepCancel func()
	// resultOf gives the run's result for --result once it succeeded
	// (result.go); nil when it cannot be known.
	resultOf resultSource
}

// controls are what the terminal UI may ask of a live watch's polls: a
// poller.Watcher's, or an archiving.Shared's (whose polls may be another
// process's).
type controls interface {
	SetPaused(bool)
	PollNow()
	SetLiveView(bool)
}

// display is where and how a watch is shown (newSession sets it up).
type display struct {
	Output  string // the resolved mode: tui, plain or json
	Color   bool   // colour allowed (a terminal, no --no-color, no NO_COLOR)
	Width   int    // terminal width for plain output; 0 when stdout is not a terminal
	Stdout  io.Writer
	Stderr  io.Writer
	Debug   *debugLog
	Secrets *text.Secrets // redacted by every printer of server JSON (the app's)
	// Notes are lines for the terminal UI's footer from outside the watch
	// (a retry's wait, the OTLP export's failure); nil unless the UI shows
	// the watch.
	Notes chan string
	// screen is where the terminal UI reads and draws outside a hub
	// (app.screenStreams; a hub session's is its Terminal).
	streams screen.Streams
}

// listLink ties a watch to the runs screen (cmd_runs.go) that opened it.
type listLink struct {
	BackToList bool // esc goes back to the runs screen
	Back       bool // the user went back
	// Interrupted: the user left with Ctrl-C, which ends the runs screen
	// with 130 (q with 0).
	Interrupted bool
	// hub is the hub's session the watch is shown to (nil: none).
	hub *hubsvc.Session
	// Start is what R and F on the run's screen start a run with (nil:
	// watchLive's client); RerunOf is the run this one reruns (= compares
	// them once it ends).
	Start   *screenStarts
	RerunOf string
	// Next is how the run's screen ended for the shell: a run R or F
	// started, or = (ui.Result's Started..., Compare).
	Next ui.Result
}

// follow is the watch's update loop (follow.Stream), with the memory the
// watch may take following what the store holds (follow.Budget).
func (w *watchSession) follow(ctx context.Context, buf int, errAsUpdate bool) (updates <-chan poller.Update, wait func() error) {
	src := w.Source
	if w.hub == nil {
		// The process's limit: a hub's sessions share the process.
		src = follow.NewBudget(w.InputBytes).Tap(src)
	}
	return follow.Stream(ctx, src, buf, errAsUpdate)
}

// note puts a line in the terminal UI's footer, unless the footer is
// behind (then the line goes: a newer one follows).
func (w *watchSession) note(line string) {
	select {
	case w.Notes <- line:
	default:
	}
}

// run watches to the end, prints, writes the summary and returns the exit
// code as an error (nil for 0).
func (w *watchSession) run(ctx context.Context) error {
	if w.Opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, w.Opts.Timeout, errTimeout)
		defer cancel()
	}
	w.Debug.Printf("watch: job %s, output %s, interval %s, tail %d, timeout %s", orNone(w.JobID), w.Output, w.Opts.Interval, w.Opts.Tail, w.Opts.Timeout)

	var endErr error
	var code int
	switch w.Output {
	case OutputTUI:
		endErr = endCause(ctx, runTUI(ctx, w))
		code = w.ExitCode(endErr)
	default:
		var p watchprint.Printer
		if w.Output == OutputJSON {
			p = watchprint.NewJSON(w.printed())
		} else {
			p = watchprint.NewPlain(w.printed())
		}
		endErr = w.print(ctx, p)
		code = w.ExitCode(endErr)
		p.End(w.endNote(endErr, code))
	}
	w.Debug.Printf("watch ended: %v; exit %d", orNil(endErr), code)

	end := &exitcode.WatchEnd{Run: w.Store.Run(), Err: endErr}
	for _, write := range []func() error{w.writeSummary, func() error { return w.writeResult(ctx) }} {
		if end.Output != nil {
			break
		}
		if err := write(); err != nil {
			if !errors.As(err, new(*outputError)) { // stdout's is said once, by outputs
				fmt.Fprintf(w.Stderr, "firewatch: %v\n", err)
			}
			end.Output = err
			code = codeOf(end)
		}
	}
	if msg := w.endMessage(endErr, code); msg != "" {
		fmt.Fprintf(w.Stderr, "firewatch: %s\n", msg)
	}
	if codeOf(end) == codeOf(nil) {
		return nil
	}
	return end
}

// ExitCode is the exit code for how watching ended (internal/exitcode decides).
func (w *watchSession) ExitCode(endErr error) int { return exitcode.WatchCode(w.Store.Run(), endErr) }

// endCause turns a context error into its cause (timeout or interrupt).
func endCause(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		if c := context.Cause(ctx); c != nil {
			return c
		}
	}
	return err
}

// printed is what the plain and JSON printers show of the watch, and where.
func (w *watchSession) printed() watchprint.Watch {
	return watchprint.Watch{Run: &w.Run, JobID: w.JobID, Stdout: w.Stdout, Stderr: w.Stderr, Debug: w.Debug,
		Secrets: w.Secrets, Width: w.Width, Color: w.Color, ASCII: w.Opts.ASCII, Remote: w.hub != nil}
}

// endNote says, in the plain output's closing block, why watching stopped
// when the run had not finished.
func (w *watchSession) endNote(endErr error, code int) string {
	if w.Store.Run().State == model.StateFinished {
		return ""
	}
	switch {
	case timedOut(code):
		return "gave up after --timeout " + w.Opts.Timeout.String()
	case interrupted(code):
		return "interrupted"
	case rejected(code):
		return watchprint.NoteRefused
	}
	if endErr == nil {
		if w.Replay {
			return w.replayed() + " ends before the run finished"
		}
		return "watching stopped before the run finished"
	}
	return "watching failed"
}

// replayed names what a replay plays: a run read from the archive (which
// sets ArchiveSnapshot), else a recording.
func (w *watchSession) replayed() string {
	if w.ArchiveSnapshot != nil {
		return "what the archive holds of the run"
	}
	return "the recording"
}

// endMessage is the line for stderr at the end, "" when there is nothing to
// add to the output.
func (w *watchSession) endMessage(endErr error, code int) string {
	var pe *poller.Error
	switch {
	case errors.As(endErr, &pe) && pe.Refusal():
		return pe.Error()
	case errors.As(endErr, new(*outputError)):
		return "" // said once, by outputs
	case w.Store.Run().State == model.StateFinished:
		return ""
	case timedOut(code):
		return fmt.Sprintf("gave up after --timeout %s; the run has not finished", w.Opts.Timeout)
	case interrupted(code):
		return ""
	case endErr == nil && w.Replay:
		return w.replayed() + " ends before the run finished; its outcome is unknown"
	case endErr != nil:
		return endErr.Error()
	}
	return ""
}

// writeSummary writes --summary, when asked for. It is called when
// watching ends, whatever the reason.
func (w *watchSession) writeSummary() error {
	if w.Opts.Summary == "" {
		return nil
	}
	sum := w.Summary()
	if w.Opts.Summary == "-" {
		b, err := sum.Marshal(false)
		if err != nil {
			return err
		}
		_, err = w.Stdout.Write(append(b, '\n'))
		return err
	}
	b, err := sum.Marshal(true)
	if err != nil {
		return err
	}
	if err := os.WriteFile(w.Opts.Summary, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("--summary: %w", err)
	}
	w.Debug.Printf("summary written to %s", w.Opts.Summary)
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func orNil(err error) any {
	if err == nil {
		return "finished"
	}
	return err
}
