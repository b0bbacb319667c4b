package interact

import (
	"context"

	"github.com/firewatch/firewatch/ui/internal/program"
	fwscreen "github.com/firewatch/firewatch/ui/screen"
)

// Run shows the console until the person leaves; ctx ending (Ctrl-C from
// outside, a signal) ends it too, with ctx's cause.
//
// Its output is guarded: the first write that failed is Result.OutputErr.
func Run(ctx context.Context, cfg Config) (Result, error) {
	m := New(cfg)
	out, failed := program.Guard(cfg.Output)
	_, err := program.RunOn(ctx, m, program.IO{Streams: fwscreen.Streams{Input: cfg.Input, Output: out, Width: cfg.Width, Height: cfg.Height}, NoColor: cfg.NoColor})
	res := m.Result()
	res.OutputErr = failed()
	return res, err
}
