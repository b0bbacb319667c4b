package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// source feeds a watch: the live poll loop (poller.Watcher.Run) or a replay.
// It calls sink from one goroutine, in order, and returns nil when the run
// has finished and nothing more will come, ctx's error when ctx ends first,
// or the error that stopped it (a *poller.Error for a refusal).
type source func(ctx context.Context, sink func(poller.Update)) error

// watchSession is one watch of one run, whatever shows it (plain, json or
// the terminal UI) and wherever the events come from (the service, the
// simulator of the demo, a recording).
type watchSession struct {
	JobID   string          // "" for a replay whose file does not say
	Client  *poller.Client  // nil for a replay
	Watcher *poller.Watcher // nil for a replay (pause, poll now, live view)
	Source  source
	// Store is the run as data. Whoever runs the source merges every
	// Update's Poll into it, from one goroutine, and the command writes
	// --summary and picks the exit code from it when watching ends.
	Store *model.Store

	Opts   *watchOptions
	Output string // the resolved mode: tui, plain or json
	Replay bool   // the events come from a recording
	// InputBytes is the size of the file a replay reads (0: not known):
	// the memory the terminal UI may take follows it from the start.
	InputBytes int64
	Color      bool // colour allowed (a terminal, no --no-color, no NO_COLOR)
	Width      int  // terminal width for plain output; 0 when stdout is not a terminal

	Stdout io.Writer
	Stderr io.Writer
	Debug  *debugLog

	// Tokens is the team's token balance, when the service gave it.
	Tokens *poller.TokenUsage

	// BackToList: the runs screen opened this watch (esc goes back to it);
	// Back: the user went back (cmd_runs.go).
	BackToList, Back bool

	// Attention follows the store for what needs a look (attention.go).
	Attention *attention.Tracker

	// Notes are lines for the terminal UI's footer from outside the watch
	// (the OTLP export's failure, cli/otlp.go); nil for none.
	Notes chan string

	// ArchiveSnapshot, set for a run read from the archive, gives its
	// snapshots to the terminal UI (cli/archive.go).
	ArchiveSnapshot func(ctx context.Context, snapshotID string) (string, error)

	// timeout is the cause set on the context when --timeout passes.
	timeout error
}

// recoveryNote is how long connection trouble must have lasted for its end
// to be reported.
const recoveryNote = 5 * time.Second

// errTimeout is the context cause when --timeout passes.
var errTimeout = errors.New("--timeout passed")

// errInterrupted is the context cause on SIGINT or SIGTERM.
var errInterrupted = errors.New("interrupted")

// errQuit is what the terminal UI returns when the user quits it.
var errQuit = errors.New("quit")

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
		var p printer
		if w.Output == OutputJSON {
			p = newJSONPrinter(w)
		} else {
			p = newPlainPrinter(w)
		}
		endErr = w.print(ctx, p)
		code = w.ExitCode(endErr)
		p.end(w.endNote(endErr, code))
	}
	w.Debug.Printf("watch ended: %v; exit %d", orNil(endErr), code)

	if err := w.writeSummary(); err != nil {
		if !errors.As(err, new(*outputError)) { // stdout's is said once, by outputs
			fmt.Fprintf(w.Stderr, "firewatch: %v\n", err)
		}
		code = outputCode(code, err)
	}
	if msg := w.endMessage(endErr, code); msg != "" {
		fmt.Fprintf(w.Stderr, "firewatch: %s\n", msg)
	}
	if code == ExitOK {
		return nil
	}
	return withCode(code, nil)
}

// ExitCode maps how watching ended to the exit code. A run that finished
// has its outcome's code however watching ended (an interrupt or the
// timeout during the tail window included).
func (w *watchSession) ExitCode(endErr error) int {
	var pe *poller.Error
	if errors.As(endErr, &pe) && pe.Refusal() {
		return ExitRejected
	}
	r := w.Store.Run()
	if r.State == model.StateFinished {
		return OutcomeCode(r.Outcome)
	}
	var ee *exitError
	if errors.As(endErr, &ee) {
		return ee.code
	}
	switch {
	case endErr == nil:
		// The source ended without the run finishing: a recording that
		// stops early. The outcome is unknown.
		return ExitFailed
	case errors.Is(endErr, errTimeout):
		return ExitTimeout
	case errors.Is(endErr, errQuit), errors.Is(endErr, errInterrupted), errors.Is(endErr, context.Canceled):
		return ExitInterrupted
	}
	return ExitFailed
}

// endCause turns a context error into its cause (timeout or interrupt).
func endCause(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		if c := context.Cause(ctx); c != nil {
			return c
		}
	}
	return err
}

const noteRefused = "the service refused the request"

// endNote says, in the plain output's closing block, why watching stopped
// when the run had not finished.
func (w *watchSession) endNote(endErr error, code int) string {
	if w.Store.Run().State == model.StateFinished {
		return ""
	}
	switch code {
	case ExitTimeout:
		return "gave up after --timeout " + w.Opts.Timeout.String()
	case ExitInterrupted:
		return "interrupted"
	case ExitRejected:
		return noteRefused
	}
	if endErr == nil {
		if w.Replay {
			return "the recording ends before the run finished"
		}
		return "watching stopped before the run finished"
	}
	return "watching failed"
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
	case code == ExitTimeout:
		return fmt.Sprintf("gave up after --timeout %s; the run has not finished", w.Opts.Timeout)
	case code == ExitInterrupted:
		return ""
	case endErr == nil && w.Replay:
		return "the recording ends before the run finished; its outcome is unknown"
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
	sum := w.summary()
	if w.Opts.Summary == "-" {
		b, err := marshalSummary(sum, false)
		if err != nil {
			return err
		}
		_, err = w.Stdout.Write(append(b, '\n'))
		return err
	}
	b, err := marshalSummary(sum, true)
	if err != nil {
		return err
	}
	if err := os.WriteFile(w.Opts.Summary, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("--summary: %w", err)
	}
	w.Debug.Printf("summary written to %s", w.Opts.Summary)
	return nil
}

// printer shows a watch without the terminal UI.
type printer interface {
	// events shows events new to the store, in the order first seen.
	events(evs []*model.Event)
	// health shows a change of the connection's health.
	health(msg string)
	// heartbeat says the run is still going after a quiet while.
	heartbeat(idle time.Duration)
	// end shows the closing block; note says why watching stopped when
	// the run has not finished.
	end(note string)
}

// print runs the source and feeds the printer. The store is only touched
// here, on this goroutine; the source's sink hands updates over a channel,
// so that a heartbeat can be printed while the source waits.
func (w *watchSession) print(ctx context.Context, p printer) error {
	updates, wait := w.follow(ctx, 16, false)

	hb := w.Opts.Heartbeat
	if hb <= 0 {
		hb = defaultHeartbeat
	}
	tick := time.NewTicker(max(min(hb/4, time.Second), 10*time.Millisecond))
	defer tick.Stop()
	lastEvent := time.Now()    // for "last event 45s ago"
	lastOutput := time.Now()   // for the heartbeat's quiet period
	var troubleSince time.Time // the first failure of the current streak
	handle := func(u poller.Update) {
		if u.Poll != nil {
			d := w.Store.Merge(u.Poll)
			if len(d.Events) > 0 {
				p.events(d.Events)
				lastEvent, lastOutput = time.Now(), time.Now()
			}
			w.attend(p, &d, time.Now())
			reportBad(w, p, d)
			w.Debug.Printf("poll: %d new events, %d late, credits %v", len(d.Events), d.Late, w.Store.Run().CreditsUsed)
		}
		if u.Tokens != nil {
			w.Tokens = u.Tokens
		}
		if u.Err != nil {
			if troubleSince.IsZero() {
				troubleSince = time.Now()
			}
			msg := describe.OneLine(u.Health.Reason, 200)
			if msg == "" {
				msg = describe.OneLine(u.Health.String(), 200)
			}
			if msg == "" {
				msg = describe.OneLine(u.Err.Error(), 200)
			}
			w.Debug.Printf("trouble: %s (%v)", msg, u.Err)
			p.health(msg)
		} else if !troubleSince.IsZero() && u.Poll != nil {
			// Say so when the trouble lasted; a blip that was retried
			// at once needs no second line.
			d := time.Since(troubleSince)
			troubleSince = time.Time{}
			w.Debug.Printf("connection ok again after %s", d)
			if d >= recoveryNote {
				p.health("connection ok again after " + text.Duration(d.Truncate(100*time.Millisecond)))
			}
		}
	}
	for {
		select {
		case u, ok := <-updates:
			if !ok {
				return endCause(ctx, wait())
			}
			handle(u)
		case now := <-tick.C:
			if troubleSince.IsZero() { // no news is not quiet when polls fail
				w.attend(p, nil, now)
			}
			if now.Sub(lastOutput) >= hb {
				p.heartbeat(now.Sub(lastEvent))
				lastOutput = now
			}
		}
	}
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
