package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/internal/scroll"
)

// textView is a scrollable overlay of prepared lines: the help and the
// minimal details. Lines are styled text; each is cut or padded to the
// width when drawn.
type textView struct {
	stackBase
	name  string
	lines []textLine
	off   int
	w, h  int
	ascii bool
	// wrapped caches lines wrapped to w.
	wrapped  []string
	wrappedW int
	closeOn  []key.Binding // extra keys that close it (? for help)
}

// textLine is one logical line: plain text in a style (wrapped to the
// width), or a pre-styled line drawn as it is (cut to the width).
type textLine struct {
	st     theme.Style
	text   string
	styled bool
	hang   int // continuation lines start at this column
}

func (v *textView) title() string { return v.name }

func (v *textView) setSize(w, h int) tea.Cmd {
	if w != v.w {
		v.wrapped = nil
	}
	v.w, v.h = w, h
	v.clamp()
	return nil
}

func (v *textView) layout() []string {
	if v.wrapped != nil && v.wrappedW == v.w {
		return v.wrapped
	}
	v.wrapped = v.wrapped[:0]
	for _, l := range v.lines {
		if l.styled {
			text := l.text
			if v.ascii {
				text = asciiOnly(text)
			}
			v.wrapped = append(v.wrapped, padStyled(text, v.w))
			continue
		}
		text := l.text
		if v.ascii {
			text = asciiOnly(text)
		}
		indent := len(text) - len(strings.TrimLeft(text, " "))
		if l.hang > 0 {
			indent = l.hang
		}
		indent = min(indent, v.w/2)
		for i, p := range wrapHang(flat(text), max(1, v.w-2), max(1, v.w-2-indent)) {
			if i > 0 {
				p = strings.Repeat(" ", indent) + p
			}
			v.wrapped = append(v.wrapped, styled(l.st, " "+p, v.w, v.ascii))
		}
	}
	v.wrappedW = v.w
	return v.wrapped
}

func (v *textView) clamp() {
	v.off = scroll.Clamp(v.off, len(v.layout()), v.h)
}

func (v *textView) update(msg tea.Msg, k keyMap) (overlay, tea.Cmd) {
	if press, ok := msg.(tea.KeyPressMsg); ok && (key.Matches(press, k.Back) || key.Matches(press, v.closeOn...)) {
		return v.back, nil
	}
	v.off, _ = scroll.Move(msg, k.scrolling(), v.off, max(1, v.h-1), len(v.layout()))
	v.clamp()
	return v, nil
}

func (v *textView) render() []string {
	all := v.layout()
	end := min(len(all), v.off+v.h)
	return all[v.off:end]
}

func (v *textView) helpKeys(k keyMap) []key.Binding {
	back := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back"))
	return []key.Binding{k.Move, k.PageDown, back}
}

// padStyled cuts or pads an already styled line to w cells.
func padStyled(s string, w int) string {
	sw := ansi.StringWidthWc(s)
	if sw > w {
		return ansi.TruncateWc(s, w, "")
	}
	return s + blank(w-sw)
}
