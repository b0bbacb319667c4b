package crawl

import (
	"context"

	"github.com/firewatch/firewatch/ui/internal/program"
	"github.com/firewatch/firewatch/ui/screen"
)

// Frame is the screen's title; focus is reported while notifications are
// asked for (Config.Alerts).
func (m *Model) Frame() screen.Frame {
	return screen.Frame{Title: "firewatch: crawl", ReportFocus: m.alerts.ReportFocus()}
}

// RunOptions are the program's streams (nil: the process's; Config's
// Terminal, when set, is used instead).
type RunOptions = screen.Streams

// Run shows the screen until the user leaves it; the temporary file of
// the pages is gone when it returns.
func Run(ctx context.Context, cfg Config, o ...RunOptions) (Result, error) {
	m, err := New(cfg)
	if err != nil {
		return Result{}, err
	}
	defer m.Close()
	var ro RunOptions
	if len(o) > 0 {
		ro = o[0]
	}
	interrupted, err := program.RunOn(ctx, m, program.IO{Terminal: cfg.Terminal, Streams: ro, NoColor: cfg.NoColor})
	res := m.Result()
	if interrupted {
		res.Status = m.final
	}
	return res, err
}
