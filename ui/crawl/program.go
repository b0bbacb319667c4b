package crawl

import (
	"context"
	"io"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/ui/internal/program"
)

// Screen is the crawl screen as a Bubble Tea program's root, in the alt
// screen.
type Screen struct{ M *Model }

// Init starts the watch.
func (s Screen) Init() tea.Cmd { return s.M.Init() }

// Update passes every message to the Model.
func (s Screen) Update(msg tea.Msg) (tea.Model, tea.Cmd) { return s, s.M.Update(msg) }

// View is the Model's view in the alt screen.
func (s Screen) View() tea.View {
	v := tea.NewView(s.M.View())
	v.AltScreen = true
	v.WindowTitle = "firewatch: crawl"
	v.ReportFocus = s.M.ReportFocus()
	return v
}

// RunOptions are the program's streams (nil: the process's; Config's
// Terminal, when set, is used instead).
type RunOptions struct {
	Input  io.Reader
	Output io.Writer
}

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
	_, interrupted, err := program.RunOn(ctx, Screen{M: m}, cfg.Terminal, ro.Input, ro.Output, 0, 0, cfg.NoColor)
	res := m.Result()
	if interrupted {
		res.Status = m.final
	}
	return res, err
}
