package runs

import (
	"context"

	"github.com/firewatch/firewatch/ui/internal/program"
	"github.com/firewatch/firewatch/ui/screen"
)

// Frame is the screen's title.
func (m *Model) Frame() screen.Frame { return screen.Frame{Title: "firewatch: runs"} }

// RunOptions are the program's streams (nil: the process's; Config's
// Terminal, when set, is used instead).
type RunOptions = screen.Streams

// Run shows the screen until the user quits (Chosen == "", Interrupted
// when by Ctrl-C) or picks a run (Chosen is its id). Run it again with the
// same Model to come back: the rows, filter and selection are kept and the
// list is refreshed.
func Run(ctx context.Context, m *Model, o RunOptions) error {
	m.reopening = m.pages > 0
	m.Chosen, m.Interrupted = "", false
	life, end := context.WithCancel(ctx)
	defer end()
	m.life = life
	_, err := program.RunOn(ctx, m, program.IO{Terminal: m.cfg.Terminal, Streams: o, NoColor: m.cfg.NoColor})
	return err
}
