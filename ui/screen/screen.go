// Package screen is the one wrapper every full screen of firewatch runs in
// (the watch screen, the runs screen and history, crawl, compare, the
// interact console): a Screen follows the UI's component contract (Init,
// an Update that returns a command, a View that only draws) and says how
// the terminal shows it (Frame); Root makes it Bubble Tea's model, in the
// alternate screen. ui/internal/program runs a Root on the process's
// terminal or a hub session's.
package screen

import (
	"io"

	tea "charm.land/bubbletea/v2"
)

// Screen is a full screen.
type Screen interface {
	Init() tea.Cmd
	Update(tea.Msg) tea.Cmd
	// View draws the whole screen: exactly its height in lines of its
	// width.
	View() string
	// Frame is how the terminal shows it now.
	Frame() Frame
}

// Frame is what a screen asks of the terminal besides its content.
type Frame struct {
	Title       string // the window title (no text from the server beyond an id)
	Mouse       bool   // cell-motion mouse events (--mouse); off keeps text selection working
	ReportFocus bool   // focus and blur reports (notifications wait for a blur)
}

// Root is a Screen as Bubble Tea's model: its content in the alternate
// screen, framed as it says.
type Root struct{ S Screen }

// Init is the screen's.
func (r Root) Init() tea.Cmd { return r.S.Init() }

// Update passes every message to the screen.
func (r Root) Update(msg tea.Msg) (tea.Model, tea.Cmd) { return r, r.S.Update(msg) }

// View is the screen's content in the alternate screen.
func (r Root) View() tea.View {
	f := r.S.Frame()
	v := tea.NewView(r.S.View())
	v.AltScreen = true
	v.WindowTitle = f.Title
	if f.Mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.ReportFocus = f.ReportFocus
	return v
}

// Streams are where a screen reads and draws instead of the process's
// terminal (nil: the process's), and its size when Output is not a
// terminal (80x24 when unset).
type Streams struct {
	Input         io.Reader
	Output        io.Writer
	Width, Height int
}
