package cli

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui"
)

// This file is the one place where the command line meets the full-screen
// terminal UI (package ui).
//
// Contract for runTUI:
//   - w.Source.Follow(ctx, sink) delivers the updates (live polls or a replay);
//     call it once. It returns nil when the run finished and its tail
//     window closed, ctx's error (its cause: errTimeout or errInterrupted)
//     when ctx ended, or a *poller.Error at once on a refusal.
//   - Merge every Update's Poll into w.Store, from the UI's own goroutine
//     only: when runTUI returns, the command writes --summary from w.Store
//     and picks the exit code from it (w.ExitCode).
//   - w.Watcher (nil for a replay) has SetPaused, PollNow, SetLiveView
//     (a poller.Watcher, or an archiving.Shared whose polls may be another
//     process's);
//     w.Client (nil for a replay) has Cancel and Snapshot.
//   - w.Opts has Mouse, ExitOnFinish, ASCII, LiveView; w.Color says whether
//     colour is allowed (NO_COLOR / --no-color already taken into account).
//   - Return (0, endErr) to let the command map endErr with w.ExitCode:
//     nil (finished), errQuit (the user quit), the ctx cause, or the
//     source's *poller.Error. Return a non-zero code to force it.
//   - Leave a short summary in the scrollback after the alt screen closes.

// runTUI shows the watch in the full-screen UI, then leaves the plain
// output's closing block in the scrollback.
func runTUI(parent context.Context, w *watchSession) error {
	ctx, stop := context.WithCancel(parent)
	defer stop()

	// The UI merges the updates into w.Store on its goroutine; a source
	// that ends with an error (a refusal) sends it as a last update.
	updates, wait := w.follow(ctx, 64, true)

	var backend ui.Backend
	if w.Watcher != nil && w.Client != nil {
		backend = w.hub.Backend(&tuiBackend{w: w}, w.JobID)
	}
	cfg := ui.Config{
		JobID:        w.JobID,
		Store:        w.Store,
		Updates:      updates,
		Backend:      backend,
		Snapshots:    w.ArchiveSnapshot,
		NoColor:      !w.Color,
		ASCII:        w.Opts.ASCII,
		Mouse:        w.Opts.Mouse,
		ExitOnFinish: w.Opts.ExitOnFinish,
		SaveDir:      w.Opts.SaveDir,
		LiveView:     w.Opts.LiveView,
		BackToList:   w.BackToList,
		Notes:        w.Notes,
		Attention:    w.NewTracker(),
		Terminal:     w.hub.Terminal(),
		ReadOnly:     w.hub.ReadOnly(),
		RerunOf:      w.RerunOf,
	}
	cfg.Input, cfg.Output = w.streams.Input, w.streams.Output
	if w.Start != nil && backend != nil {
		cfg.Start = w.Start.StartAgent
	}
	cfg.Person, cfg.Role = w.hub.Person()
	cfg.Alerts, cfg.Watched = w.notify.forScreen(w)
	if w.Debug != nil {
		cfg.Debug = debugWriter{w.Debug}
	}
	// Quitting always works: after SIGINT/SIGTERM the UI has quitGrace to
	// stop before the terminal is given back and firewatch leaves.
	// A hub's session is not the process's terminal, and the hub ends it.
	uiDone := make(chan struct{})
	if w.hub == nil {
		go uiWatchdog(parent, uiDone, quitGrace, terminalRestorer(os.Stdin, os.Stdout), w.Stderr, os.Exit)
	}
	res, uiErr := ui.Run(parent, cfg)
	close(uiDone)
	w.Back, w.Interrupted, w.Next = res.Back, res.Interrupted, res
	w.notify.screenEnded(res.Focused, res.Back)

	// Stop the source (the user may quit before it ends) and see how it
	// ended.
	stop()
	for range updates {
	}
	se := wait()
	if errors.Is(se, context.Canceled) && parent.Err() == nil {
		se = nil // we stopped it
	}
	var pe *poller.Error
	var endErr error
	switch {
	case errors.As(se, &pe) && pe.Refusal():
		endErr = se
	case res.Quit:
		endErr = errQuit
	case uiErr != nil:
		endErr = uiErr
	default:
		endErr = se
	}

	// The short summary stays in the terminal's scrollback (not when going
	// back to the runs list: the run is still there).
	endErr = endCause(parent, endErr)
	if !res.Back && res.Started == "" && !res.Compare {
		watchprint.NewPlain(w.printed()).End(w.endNote(endErr, w.ExitCode(endErr)))
	}
	return endErr
}

// tuiBackend is what the UI may ask of the service.
type tuiBackend struct{ w *watchSession }

func (b *tuiBackend) Snapshot(ctx context.Context, snapshotID string) (string, error) {
	s, err := b.w.Client.Snapshot(ctx, b.w.JobID, snapshotID)
	if err != nil {
		return "", err
	}
	if b.w.keepSnapshot != nil {
		b.w.keepSnapshot(snapshotID, s.Content)
	}
	return s.Content, nil
}

// Cancel asks the service to cancel the run; an accepted cancel is
// recorded in the archive.
func (b *tuiBackend) Cancel(ctx context.Context) error {
	err := b.w.Client.Cancel(ctx, b.w.JobID)
	if err == nil && b.w.keepCancel != nil {
		b.w.keepCancel()
	}
	return err
}

func (b *tuiBackend) SetPaused(p bool)    { b.w.Watcher.SetPaused(p) }
func (b *tuiBackend) PollNow()            { b.w.Watcher.PollNow() }
func (b *tuiBackend) SetLiveView(on bool) { b.w.Watcher.SetLiveView(on) }

// debugWriter puts the UI's --debug lines into the command's debug log.
type debugWriter struct{ d *debugLog }

func (d debugWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		d.d.Printf("%s", line)
	}
	return len(p), nil
}

// resolveOutput turns --output auto into the mode to use: tui when stdout
// is a terminal, else plain.
func resolveOutput(mode string, stdoutTerminal bool) (string, error) {
	if mode == OutputAuto {
		if stdoutTerminal {
			return OutputTUI, nil
		}
		return OutputPlain, nil
	}
	return mode, nil
}
