package interact

import (
	"context"
	"errors"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
)

// Run shows the console until the person leaves; ctx ending (Ctrl-C from
// outside, a signal) ends it too, with ctx's cause.
func Run(ctx context.Context, cfg Config) (Result, error) {
	m := New(cfg)
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if cfg.Input != nil {
		opts = append(opts, tea.WithInput(cfg.Input))
	}
	if cfg.Output != nil {
		opts = append(opts, tea.WithOutput(cfg.Output))
		if f, ok := cfg.Output.(*os.File); !ok || !term.IsTerminal(f.Fd()) {
			w, h := cfg.Width, cfg.Height
			if w <= 0 || h <= 0 {
				w, h = 80, 24
			}
			opts = append(opts, tea.WithWindowSize(w, h))
		}
	}
	if cfg.NoColor {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	final, err := tea.NewProgram(m, opts...).Run()
	res := Result{}
	if fm, ok := final.(*Model); ok {
		res = fm.Result()
	}
	if err != nil {
		if ctx.Err() != nil {
			return res, context.Cause(ctx)
		}
		if errors.Is(err, tea.ErrInterrupted) {
			return res, nil
		}
		return res, err
	}
	return res, nil
}
