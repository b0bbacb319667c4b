package scroll

import (
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

func TestClamp(t *testing.T) {
	for _, c := range []struct{ off, n, h, want int }{
		{0, 0, 10, 0},
		{5, 0, 10, 0},
		{-3, 100, 10, 0},
		{50, 100, 10, 50},
		{95, 100, 10, 90},
		{5, 8, 10, 0}, // fewer lines than the window
	} {
		if got := Clamp(c.off, c.n, c.h); got != c.want {
			t.Errorf("Clamp(%d, %d, %d) = %d, want %d", c.off, c.n, c.h, got, c.want)
		}
	}
}

func TestFollow(t *testing.T) {
	for _, c := range []struct{ cur, off, n, h, wantCur, wantOff int }{
		{0, 0, 0, 10, 0, 0},
		{5, 3, 0, 10, 0, 0},       // no rows
		{-1, 0, 100, 10, 0, 0},    // above the first row
		{200, 0, 100, 10, 99, 90}, // past the last row
		{5, 10, 100, 10, 5, 5},    // above the window: the window follows
		{25, 10, 100, 10, 25, 16}, // below it
		{15, 10, 100, 10, 15, 10}, // inside: nothing moves
		{3, 0, 100, 0, 3, 3},      // a window of no rows counts as one
	} {
		cur, off := Follow(c.cur, c.off, c.n, c.h)
		if cur != c.wantCur || off != c.wantOff {
			t.Errorf("Follow(%d, %d, %d, %d) = %d, %d, want %d, %d", c.cur, c.off, c.n, c.h, cur, off, c.wantCur, c.wantOff)
		}
	}
}

func TestMove(t *testing.T) {
	k := Keys{
		Up:       key.NewBinding(key.WithKeys("up")),
		Down:     key.NewBinding(key.WithKeys("down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup")),
		PageDown: key.NewBinding(key.WithKeys("pgdown")),
		HalfUp:   key.NewBinding(key.WithKeys("ctrl+u")),
		HalfDown: key.NewBinding(key.WithKeys("ctrl+d")),
		Top:      key.NewBinding(key.WithKeys("g")),
		Bottom:   key.NewBinding(key.WithKeys("G")),
	}
	for _, c := range []struct {
		name string
		msg  tea.Msg
		page int
		want int
		ok   bool
	}{
		{"up", tea.KeyPressMsg{Code: tea.KeyUp}, 10, 49, true},
		{"down", tea.KeyPressMsg{Code: tea.KeyDown}, 10, 51, true},
		{"page up", tea.KeyPressMsg{Code: tea.KeyPgUp}, 10, 40, true},
		{"page down", tea.KeyPressMsg{Code: tea.KeyPgDown}, 10, 60, true},
		{"half up", tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}, 10, 45, true},
		{"half down", tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}, 10, 55, true},
		{"half of one line", tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}, 1, 51, true},
		{"top", tea.KeyPressMsg{Code: 'g', Text: "g"}, 10, 0, true},
		{"bottom", tea.KeyPressMsg{Code: 'G', Text: "G"}, 10, 100, true},
		{"wheel up", tea.MouseWheelMsg{Button: tea.MouseWheelUp}, 10, 47, true},
		{"wheel down", tea.MouseWheelMsg{Button: tea.MouseWheelDown}, 10, 53, true},
		{"wheel left", tea.MouseWheelMsg{Button: tea.MouseWheelLeft}, 10, 50, false},
		{"other key", tea.KeyPressMsg{Code: 'x', Text: "x"}, 10, 50, false},
		{"other message", tea.WindowSizeMsg{Width: 80, Height: 24}, 10, 50, false},
	} {
		got, ok := Move(c.msg, k, 50, c.page, 100)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: Move = %d, %v, want %d, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	// A zero binding matches nothing.
	if got, ok := Move(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}, Keys{Up: k.Up}, 50, 10, 100); ok || got != 50 {
		t.Errorf("ctrl+u with no HalfUp binding: Move = %d, %v, want 50, false", got, ok)
	}
}
