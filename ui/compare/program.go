package compare

import (
	"context"
	"io"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/ui/internal/program"
)

// Screen is the compare screen as a Bubble Tea program's root, in the alt
// screen.
type Screen struct{ M *Model }

// Init does nothing: the comparison is ready.
func (s Screen) Init() tea.Cmd { return s.M.Init() }

// Update passes every message to the Model.
func (s Screen) Update(msg tea.Msg) (tea.Model, tea.Cmd) { return s, s.M.Update(msg) }

// View is the Model's view in the alt screen.
func (s Screen) View() tea.View {
	v := tea.NewView(s.M.View())
	v.AltScreen = true
	v.WindowTitle = "firewatch: compare"
	if s.M.cfg.Mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	return v
}

// RunOptions are the program's streams (nil: the process's) and, for an
// output that is not a terminal, its size.
type RunOptions struct {
	Input         io.Reader
	Output        io.Writer
	Width, Height int
}

// Run shows the screen until the user leaves it: q, or Ctrl-C
// (Result.Interrupted).
func Run(ctx context.Context, cfg Config, o ...RunOptions) (Result, error) {
	m := New(cfg)
	var ro RunOptions
	if len(o) > 0 {
		ro = o[0]
	}
	opts := program.Options(ctx, ro.Input, ro.Output, ro.Width, ro.Height, cfg.NoColor)
	_, interrupted, err := program.Run(ctx, tea.NewProgram(Screen{M: m}, opts...))
	res := m.Result()
	res.Interrupted = res.Interrupted || interrupted
	return res, err
}
