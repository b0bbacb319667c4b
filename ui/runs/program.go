package runs

import (
	"context"
	"io"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/ui/internal/program"
)

// Screen is the runs screen as a Bubble Tea program's root: the Model in
// the alt screen.
type Screen struct {
	M      *Model
	reopen bool
}

// Init starts the first load, or the refresh of a screen coming back.
func (s Screen) Init() tea.Cmd {
	if s.reopen {
		return s.M.Reopen()
	}
	return s.M.Init()
}

// Update passes every message to the Model.
func (s Screen) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	return s, s.M.Update(msg)
}

// View is the Model's view in the alt screen.
func (s Screen) View() tea.View {
	v := tea.NewView(s.M.View())
	v.AltScreen = true
	v.WindowTitle = "firewatch: runs"
	return v
}

// RunOptions are the program's streams (nil: the process's; Config's
// Terminal, when set, is used instead).
type RunOptions struct {
	Input  io.Reader
	Output io.Writer
}

// Run shows the screen until the user quits (Chosen == "", Interrupted
// when by Ctrl-C) or picks a run (Chosen is its id). Run it again with the same Model to come back: the
// rows, filter and selection are kept and the list is refreshed.
func Run(ctx context.Context, m *Model, o RunOptions) error {
	reopen := m.pages > 0
	m.Chosen, m.Interrupted = "", false
	life, end := context.WithCancel(ctx)
	defer end()
	m.life = life
	_, _, err := program.RunOn(ctx, Screen{M: m, reopen: reopen}, m.cfg.Terminal, o.Input, o.Output, 0, 0, m.cfg.NoColor)
	return err
}
