package cli

import (
	"context"
	"errors"
	"fmt"
)

// This file is the one place where the command line meets the full-screen
// terminal UI (issue 6). The UI engineer replaces the bodies below.
//
// Contract for runTUI:
//   - w.Source(ctx, sink) delivers the updates (live polls or a replay);
//     call it once. It returns nil when the run finished and its tail
//     window closed, ctx's error (its cause: errTimeout or errInterrupted)
//     when ctx ended, or a *poller.Error at once on a refusal.
//   - Merge every Update's Poll into w.Store, from the UI's own goroutine
//     only: when runTUI returns, the command writes --summary from w.Store
//     and picks the exit code from it (w.ExitCode).
//   - w.Watcher (nil for a replay) has SetPaused, PollNow, SetLiveView;
//     w.Client (nil for a replay) has Cancel and Snapshot.
//   - w.Opts has Mouse, ExitOnFinish, ASCII, LiveView; w.Color says whether
//     colour is allowed (NO_COLOR / --no-color already taken into account).
//   - Return (0, endErr) to let the command map endErr with w.ExitCode:
//     nil (finished), errQuit (the user quit), the ctx cause, or the
//     source's *poller.Error. Return a non-zero code to force it.
//   - Leave a short summary in the scrollback after the alt screen closes.

// errTUIUnavailable is returned while the UI does not exist yet.
var errTUIUnavailable = errors.New("the full-screen UI is not available yet; use --output plain or --output json")

// tuiAvailable reports whether --output tui can be honoured.
const tuiAvailable = false

// runTUI shows the watch in the full-screen UI.
func runTUI(ctx context.Context, w *watchSession) (exitCode int, err error) {
	return ExitUsage, errTUIUnavailable
}

// resolveOutput turns --output auto into the mode to use: tui when stdout
// is a terminal, else plain. Until the UI exists, auto on a terminal falls
// back to plain with a note on stderr, and tui is refused (exit 2).
func resolveOutput(w *watchSession, mode string, stdoutTerminal bool) (string, error) {
	switch mode {
	case OutputAuto:
		if !stdoutTerminal {
			return OutputPlain, nil
		}
		if !tuiAvailable {
			fmt.Fprintln(w.Stderr, "firewatch: the full-screen UI is not available yet; showing plain output")
			return OutputPlain, nil
		}
		return OutputTUI, nil
	case OutputTUI:
		if !tuiAvailable {
			return "", usageErrorf("%v", errTUIUnavailable)
		}
	}
	return mode, nil
}
