package compare

import (
	"context"

	"github.com/firewatch/firewatch/ui/internal/program"
	"github.com/firewatch/firewatch/ui/screen"
)

// Frame is the screen's title, and the mouse when --mouse asked for it.
func (m *Model) Frame() screen.Frame {
	return screen.Frame{Title: "firewatch: compare", Mouse: m.cfg.Mouse}
}

// RunOptions are the program's streams (nil: the process's) and, for an
// output that is not a terminal, its size.
type RunOptions = screen.Streams

// Run shows the screen until the user leaves it: q, or Ctrl-C
// (Result.Interrupted).
func Run(ctx context.Context, cfg Config, o ...RunOptions) (Result, error) {
	m := New(cfg)
	var ro RunOptions
	if len(o) > 0 {
		ro = o[0]
	}
	interrupted, err := program.RunOn(ctx, m, program.IO{Terminal: cfg.Terminal, Streams: ro, NoColor: cfg.NoColor})
	res := m.Result()
	res.Interrupted = res.Interrupted || interrupted
	return res, err
}
