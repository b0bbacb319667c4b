package interact

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/ui/internal/program"
)

// Run shows the console until the person leaves; ctx ending (Ctrl-C from
// outside, a signal) ends it too, with ctx's cause.
func Run(ctx context.Context, cfg Config) (Result, error) {
	m := New(cfg)
	opts := program.Options(ctx, cfg.Input, cfg.Output, cfg.Width, cfg.Height, cfg.NoColor)
	final, _, err := program.Run(ctx, tea.NewProgram(m, opts...))
	res := Result{}
	if fm, ok := final.(*Model); ok {
		res = fm.Result()
	}
	return res, err
}
