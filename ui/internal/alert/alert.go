// Package alert writes the desktop notifications of package notify
// through a full-screen program (never around it, where the bytes would
// race the renderer's), and only while the terminal is not focused: the
// program asks the terminal to report focus (tea.View.ReportFocus) and a
// notification arriving while it last said it was focused is dropped.
// A terminal that never reports focus is taken as not focused: the user
// asked for the notifications, and firewatch cannot tell they are
// looking.
package alert

import tea "charm.land/bubbletea/v2"

// Gate is one program's notifications. A nil *Gate does nothing.
type Gate struct {
	ch      <-chan string
	focused bool // the terminal's last report
	known   bool // it has reported
}

// Msg is one sequence to write.
type Msg string

// New returns the gate of the sequences on ch; nil when ch is nil.
func New(ch <-chan string) *Gate {
	if ch == nil {
		return nil
	}
	return &Gate{ch: ch}
}

// Wait waits for the next sequence (call it from Init).
func (g *Gate) Wait() tea.Cmd {
	if g == nil {
		return nil
	}
	ch := g.ch
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return nil
		}
		return Msg(s)
	}
}

// Update takes the focus reports and the sequences; ok is false for any
// other message.
func (g *Gate) Update(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	if g == nil {
		return nil, false
	}
	switch msg := msg.(type) {
	case tea.FocusMsg:
		g.focused, g.known = true, true
		return nil, true
	case tea.BlurMsg:
		g.focused, g.known = false, true
		return nil, true
	case Msg:
		if g.Focused() {
			return g.Wait(), true // the user is looking at the screen
		}
		return tea.Batch(tea.Raw(string(msg)), g.Wait()), true
	}
	return nil, false
}

// ReportFocus is the view's ReportFocus: on while there is a gate.
func (g *Gate) ReportFocus() bool { return g != nil }

// Focused reports whether the terminal last said it was focused.
func (g *Gate) Focused() bool { return g != nil && g.known && g.focused }
