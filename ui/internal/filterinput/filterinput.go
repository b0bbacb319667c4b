// Package filterinput is the one way a screen's "/" filter takes keys while
// it is being typed: text (printable only, at most MaxRunes), backspace,
// enter (keep it) and esc (drop it).
package filterinput

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/text"
)

// MaxRunes is the longest filter.
const MaxRunes = 80

// Edit applies one key to filter and reports whether typing goes on. Keys
// that are not text leave the filter as it is; ctrl+c is the caller's.
func Edit(filter string, msg tea.KeyPressMsg) (next string, typing bool) {
	switch msg.String() {
	case "enter":
		return filter, false
	case "esc":
		return "", false
	case "backspace":
		if r := []rune(filter); len(r) > 0 {
			filter = string(r[:len(r)-1])
		}
		return filter, true
	}
	t := msg.Text
	if t == "" && msg.String() == "space" {
		t = " "
	}
	if t == "" || len([]rune(filter))+len([]rune(t)) > MaxRunes || !text.IsSafe(t) || strings.ContainsAny(t, "\n\t") {
		return filter, true
	}
	return filter + t, true
}
