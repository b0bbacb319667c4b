// Package program holds what firewatch's full-screen programs (the watch
// UI, the runs screen, the interact console) share when they start: where
// they read and write, the size to assume when the output is not a
// terminal, colour, and suspending with Ctrl-Z.
package program

import (
	"context"
	"errors"
	"io"
	"strconv"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"

	"github.com/firewatch/firewatch/ui/internal/suspend"
)

// Run runs p, started with ctx, with Ctrl-Z and an outside SIGTSTP
// suspending it like any shell job (the terminal restored; SIGCONT resumes
// and redraws; see package suspend). One listener at a time: each screen's
// program is run through here, and the screens run one after another.
//
// It returns the final model and what ended the program: interrupted when
// Ctrl-C reached Bubble Tea (err is then nil), ctx's cause when ctx ended
// first, or the program's own error.
func Run(ctx context.Context, p *tea.Program) (final tea.Model, interrupted bool, err error) {
	stop := suspend.Listen(p)
	defer stop()
	final, err = p.Run()
	switch {
	case err == nil:
	case ctx.Err() != nil:
		err = context.Cause(ctx)
	case errors.Is(err, tea.ErrInterrupted):
		interrupted, err = true, nil
	}
	return final, interrupted, err
}

// Suspend is the command a screen returns for its suspend key.
var Suspend tea.Cmd = suspend.Request

// SuspendKeys are the keys that suspend, for every screen's KeyMap.
var SuspendKeys = []string{"ctrl+z"}

// fps overrides the frame rate in a measurement build:
// go build -ldflags "-X github.com/firewatch/firewatch/ui/internal/program.fps=N"
// (scripts/fpsbench.sh compares frame rates that way).
var fps string

// FPS is the renderer's frame-rate cap. Bubble Tea's frame ticker wakes the
// process this often even when idle, and a key's effect is drawn on the next
// frame; 20 is the lowest rate whose key-to-pane time in tmux stays under
// 50 ms (median), at a third of the idle wake-ups of the default 60
// (docs/performance.md, scripts/fpsbench.sh).
func FPS() int {
	if n, err := strconv.Atoi(fps); err == nil && n > 0 {
		return n
	}
	return 20
}

// Options are the program's options: ctx ends it; in and out replace the
// process's terminal when non-nil; an out that is not a terminal gets the
// size w x h (80x24 when unset); noColor sends no colour.
//
// SIGINT and SIGTERM are the caller's: ctx ends on them (cli's signal
// context), and Bubble Tea's own handler is off. Its goroutine sends a
// QuitMsg without watching the context, so when ctx ended first it blocked
// for ever and Run, which waits for it, never returned.
func Options(ctx context.Context, in io.Reader, out io.Writer, w, h int, noColor bool) []tea.ProgramOption {
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithFPS(FPS())}
	if in != nil {
		opts = append(opts, tea.WithInput(in))
	}
	if out != nil {
		opts = append(opts, tea.WithOutput(out))
		// A terminal, also behind Guard (term.File, as Bubble Tea asks).
		if f, ok := out.(term.File); !ok || !term.IsTerminal(f.Fd()) {
			if w <= 0 || h <= 0 {
				w, h = 80, 24
			}
			opts = append(opts, tea.WithWindowSize(w, h))
		}
	}
	if noColor {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	return opts
}
