package ui

import (
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/theme"
)

// lineInput is the one-line editor of the `/` filter: type, backspace,
// left/right, home/end (ctrl+a/ctrl+e), ctrl+u clears, ctrl+w deletes a
// word. Its cursor does not blink, so typing a filter starts no timer.
type lineInput struct {
	value []rune
	pos   int
	limit int
}

func (in *lineInput) Value() string { return string(in.value) }

func (in *lineInput) SetValue(s string) {
	in.value = []rune(s)
	if in.limit > 0 && len(in.value) > in.limit {
		in.value = in.value[:in.limit]
	}
	in.pos = len(in.value)
}

// Update edits the value with a key; it reports whether the key was used.
func (in *lineInput) Update(msg tea.KeyPressMsg) bool {
	switch msg.String() {
	case "backspace", "ctrl+h":
		if in.pos > 0 {
			in.value = append(in.value[:in.pos-1], in.value[in.pos:]...)
			in.pos--
		}
	case "delete", "ctrl+d":
		if in.pos < len(in.value) {
			in.value = append(in.value[:in.pos], in.value[in.pos+1:]...)
		}
	case "left", "ctrl+b":
		in.pos = max(0, in.pos-1)
	case "right", "ctrl+f":
		in.pos = min(len(in.value), in.pos+1)
	case "home", "ctrl+a":
		in.pos = 0
	case "end", "ctrl+e":
		in.pos = len(in.value)
	case "ctrl+u":
		in.value, in.pos = in.value[:0], 0
	case "ctrl+w":
		i := in.pos
		for i > 0 && unicode.IsSpace(in.value[i-1]) {
			i--
		}
		for i > 0 && !unicode.IsSpace(in.value[i-1]) {
			i--
		}
		in.value = append(in.value[:i], in.value[in.pos:]...)
		in.pos = i
	case "space":
		in.insert([]rune{' '})
	default:
		if msg.Text == "" {
			return false
		}
		var rs []rune
		for _, r := range msg.Text {
			if unicode.IsPrint(r) {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			return false
		}
		in.insert(rs)
	}
	return true
}

func (in *lineInput) insert(rs []rune) {
	if in.limit > 0 && len(in.value)+len(rs) > in.limit {
		rs = rs[:max(0, in.limit-len(in.value))]
	}
	v := make([]rune, 0, len(in.value)+len(rs))
	v = append(v, in.value[:in.pos]...)
	v = append(v, rs...)
	v = append(v, in.value[in.pos:]...)
	in.value = v
	in.pos += len(rs)
}

// render draws "/value" with the cursor as a reversed cell, in at most w
// cells (scrolled to keep the cursor visible).
func (in *lineInput) render(r *row, prompt string, st, cursor theme.Style, w int) {
	start := 0
	if in.pos >= w-len(prompt)-1 {
		start = in.pos - (w - len(prompt) - 2)
	}
	r.add(st, prompt)
	before := string(in.value[start:in.pos])
	r.add(st, before)
	at := " "
	if in.pos < len(in.value) {
		at = string(in.value[in.pos])
	}
	r.add(cursor, at)
	if in.pos+1 <= len(in.value) {
		r.add(st, string(in.value[min(in.pos+1, len(in.value)):]))
	}
}
