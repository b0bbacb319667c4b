package interact

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/ui/internal/program"
)

// Run shows the console until the person leaves; ctx ending (Ctrl-C from
// outside, a signal) ends it too, with ctx's cause.
//
// Its output is guarded: the first write that failed is Result.OutputErr.
func Run(ctx context.Context, cfg Config) (Result, error) {
	m := New(cfg)
	out, failed := program.Guard(cfg.Output)
	opts := program.Options(ctx, cfg.Input, out, cfg.Width, cfg.Height, cfg.NoColor)
	final, _, err := program.Run(ctx, tea.NewProgram(m, opts...))
	res := Result{}
	if fm, ok := final.(*Model); ok {
		res = fm.Result()
	}
	res.OutputErr = failed()
	return res, err
}
