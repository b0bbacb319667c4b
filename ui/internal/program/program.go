// Package program runs firewatch's full screens (the watch UI, the runs
// screen and history, crawl, compare, the interact console), each a
// screen.Screen, through one function, RunOn: where they read and write
// (the process's terminal, other streams, or a hub session's terminal), the
// size to assume when the output is not a terminal, colour, suspending
// with Ctrl-Z, signals, and how a program ended.
package program

import (
	"context"
	"errors"
	"io"
	"strconv"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"

	"github.com/firewatch/firewatch/internal/panics"
	"github.com/firewatch/firewatch/ui/internal/suspend"
	"github.com/firewatch/firewatch/ui/remote"
	"github.com/firewatch/firewatch/ui/screen"
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
	return ended(ctx)(p.Run())
}

// ended reads how a program run with ctx ended, as Run returns it.
func ended(ctx context.Context) func(tea.Model, error) (tea.Model, bool, error) {
	return func(final tea.Model, err error) (tea.Model, bool, error) {
		interrupted := false
		if err != nil && ctx.Err() == nil && errors.Is(err, syscall.EIO) {
			// The terminal went away (its other side closed): reading it
			// failed, and the kernel's SIGHUP, sent at the same moment, is
			// on its way to the signal context that ends ctx. The two race;
			// what ended the program is the hang-up, for this screen as for
			// one the signal reached first.
			select {
			case <-ctx.Done():
			case <-time.After(HangupWait):
			}
		}
		switch {
		case err == nil:
		case ctx.Err() != nil:
			err = context.Cause(ctx)
		case errors.Is(err, tea.ErrInterrupted):
			interrupted, err = true, nil
		}
		return final, interrupted, err
	}
}

// HangupWait bounds how long a program whose terminal failed with EIO
// waits for the SIGHUP that comes with it.
const HangupWait = 2 * time.Second

// IO is where a screen's program reads and draws.
type IO struct {
	// Terminal, when set, is a remote session's terminal (package remote);
	// the streams are then unused.
	Terminal *remote.Terminal
	screen.Streams
	NoColor bool // no colour
}

// RunOn runs the screen s until it quits: on o.Terminal when it is set,
// else on o's streams as Options says. Every full screen is run through
// here, in screen.Root. It returns what Run does, the final model aside
// (it is s).
//
// On a remote terminal the program reads its own Keys, draws on its
// output at its size (each resize reaches it), takes TERM, COLORTERM,
// NO_COLOR and the rest of its environment from it, never from the
// process, and cannot be suspended: Ctrl-Z would stop the process, and
// every session with it.
func RunOn(ctx context.Context, s screen.Screen, o IO) (interrupted bool, err error) {
	root := screen.Root{S: s}
	t := o.Terminal
	if t == nil {
		_, interrupted, err = Run(ctx, tea.NewProgram(root, Options(ctx, o.Input, o.Output, o.Width, o.Height, o.NoColor)...))
		return interrupted, err
	}
	keys := t.Keys()
	defer keys.Close()
	w, h := t.Size()
	profile := t.Profile()
	if o.NoColor && profile > colorprofile.Ascii {
		profile = colorprofile.Ascii
	}
	p := tea.NewProgram(root, tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithFPS(FPS()),
		tea.WithInput(keys), tea.WithOutput(t.Out()), tea.WithEnvironment(t.Env()), tea.WithWindowSize(w, h),
		tea.WithColorProfile(profile), tea.WithFilter(endKeys(keys)))
	detach := t.Attach(p, w, h)
	defer detach()
	final, err := p.Run()
	if errors.Is(err, tea.ErrProgramPanic) {
		// Bubble Tea recovered it (and wrote its trace to the process's
		// stderr): the session that ran the program ends, not the hub.
		panics.Report(ctx, "the screen's program panicked (Bubble Tea's trace is on the hub's stderr)")
	}
	_, interrupted, err = ended(ctx)(final, err)
	return interrupted, err
}

// endKeys is the filter of a program on a remote terminal: it drops a
// request to suspend, and closes the program's keys as soon as it is to
// end. Bubble Tea stops reading only once it has shut down, and a key
// typed meanwhile would reach a program that never handles it: closed
// here, the keys typed after the one that ended a screen are the next
// screen's.
func endKeys(keys io.Closer) func(tea.Model, tea.Msg) tea.Msg {
	return func(m tea.Model, msg tea.Msg) tea.Msg {
		switch msg.(type) {
		case tea.QuitMsg, tea.InterruptMsg:
			keys.Close()
		}
		return noSuspend(m, msg)
	}
}

// noSuspend drops a request to suspend: a remote session's program runs in
// a process that serves others.
func noSuspend(_ tea.Model, msg tea.Msg) tea.Msg {
	if _, ok := msg.(tea.SuspendMsg); ok {
		return nil
	}
	return msg
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
