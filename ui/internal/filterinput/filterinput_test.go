package filterinput

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestEdit(t *testing.T) {
	key := func(s string) tea.KeyPressMsg {
		switch s {
		case "enter":
			return tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			return tea.KeyPressMsg{Code: tea.KeyEscape}
		case "backspace":
			return tea.KeyPressMsg{Code: tea.KeyBackspace}
		case "space":
			return tea.KeyPressMsg{Code: tea.KeySpace}
		}
		return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
	}
	for _, c := range []struct {
		keys   []string
		want   string
		typing bool
	}{
		{[]string{"p", "r", "i"}, "pri", true},
		{[]string{"p", "space", "x", "backspace"}, "p ", true},
		{[]string{"a", "enter"}, "a", false},
		{[]string{"a", "esc"}, "", false},
		{[]string{"backspace"}, "", true},
		{[]string{"\x1b", "\u202e", "\t", "é"}, "é", true},
	} {
		f, typing := "", true
		for _, k := range c.keys {
			f, typing = Edit(f, key(k))
		}
		if f != c.want || typing != c.typing {
			t.Errorf("%q: %q typing %v, want %q %v", c.keys, f, typing, c.want, c.typing)
		}
	}
	f := strings.Repeat("x", MaxRunes)
	if got, _ := Edit(f, key("y")); got != f {
		t.Errorf("past %d runes: %d", MaxRunes, len(got))
	}
}
