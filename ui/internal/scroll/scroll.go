// Package scroll holds the arithmetic of the terminal UI's scrolling views:
// the first visible line kept in range, a cursor kept on screen, and the
// keys and mouse wheel that move a view by lines and pages.
package scroll

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"strings"
)

// Clamp returns offset, the first visible of n lines in a window of h,
// kept in [0, n-h]: no scrolling past the last full window.
func Clamp(offset, n, h int) int {
	return min(max(offset, 0), max(n-h, 0))
}

// Follow keeps cursor on one of n rows and offset so that the cursor is
// within a window of h rows (at least one), then clamps offset.
func Follow(cursor, offset, n, h int) (int, int) {
	cursor = min(max(cursor, 0), max(n-1, 0))
	h = max(h, 1)
	if cursor < offset {
		offset = cursor
	}
	if cursor >= offset+h {
		offset = cursor - h + 1
	}
	return cursor, Clamp(offset, n, h)
}

// Keys are the bindings that scroll a view. A zero Binding matches no key.
type Keys struct {
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	HalfUp, HalfDown key.Binding
	Top, Bottom      key.Binding
}

// Wheel is how many lines a turn of the mouse wheel scrolls.
const Wheel = 3

// Move returns offset moved as msg asks: a key of k moves it one line, a
// page of page lines, half a page (at least one line) or to either end
// (Bottom to n); the mouse wheel moves it Wheel lines. The caller clamps
// the result. ok is false, and offset is returned as it is, for any other
// message.
func Move(msg tea.Msg, k Keys, offset, page, n int) (_ int, ok bool) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Up):
			return offset - 1, true
		case key.Matches(msg, k.Down):
			return offset + 1, true
		case key.Matches(msg, k.PageUp):
			return offset - page, true
		case key.Matches(msg, k.PageDown):
			return offset + page, true
		case key.Matches(msg, k.HalfUp):
			return offset - max(page/2, 1), true
		case key.Matches(msg, k.HalfDown):
			return offset + max(page/2, 1), true
		case key.Matches(msg, k.Top):
			return 0, true
		case key.Matches(msg, k.Bottom):
			return n, true
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			return offset - Wheel, true
		case tea.MouseWheelDown:
			return offset + Wheel, true
		}
	}
	return offset, false
}

// DefaultKeys are the one set of scroll bindings every scrolling view of
// the UI starts from: arrows and j/k, PgUp/PgDn, ctrl+u/ctrl+d, g/G (and
// home/end).
func DefaultKeys() Keys {
	return Keys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		HalfUp:   key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "half page up")),
		HalfDown: key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "half page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
	}
}

// ASCIIHelp rewrites the arrows of a binding's help label in ASCII.
func ASCIIHelp(b *key.Binding) {
	h := b.Help()
	b.SetHelp(asciiArrows.Replace(h.Key), h.Desc)
}

var asciiArrows = strings.NewReplacer("↑", "up", "↓", "down", "←", "left", "→", "right")
