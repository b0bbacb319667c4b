package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/model"
)

// overlay is a view that takes the place of the panes until it closes:
// the `?` help, the details of a row, the waterfall, the cancel
// confirmation. It gets every key (but ctrl+c, q, c and ?) and the mouse;
// the results of its commands come through notified. Overlays stack: one
// opened over another goes back to it on esc (stacked).
type overlay interface {
	// component: setSize is called from Update after every message.
	component
	title() string
	// update returns the overlay to show next: nil closes it.
	update(msg tea.Msg, k keyMap) (overlay, tea.Cmd)
}

// push opens o over what is shown.
func (m *Model) push(o overlay) {
	if o == nil {
		return
	}
	if s, ok := o.(stacked); ok {
		s.setUnder(m.overlay)
	}
	m.overlay = o
}

// stackBase is what every overlay opened over another keeps: the one to
// go back to on esc (nil: the main screen).
type stackBase struct{ back overlay }

func (s *stackBase) under() overlay { return s.back }

func (s *stackBase) setUnder(o overlay) { s.back = o }

// stacked overlays go back to the overlay they were opened from.
type stacked interface {
	under() overlay
	setUnder(o overlay)
}

// liveOverlay is an overlay that shows live data: the root tells it about
// each merge and each clock tick.
type liveOverlay interface {
	apply(d *model.Delta)
	tick()
}

// notified overlays get the results of the commands they started
// (snapshots, diffs, markdown renders), wherever they are in the stack.
type notified interface {
	notify(msg tea.Msg) tea.Cmd
}
