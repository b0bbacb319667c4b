package crawl

import (
	"fmt"
	"strings"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/ui/internal/cell"
)

// Drawing: the screen is the header, the list (or a page, the question,
// the keys), and the footer; every line cut or padded to the width.

// View draws the screen: exactly height lines of width cells.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	var out []string
	out = append(out, m.header()...)
	if m.page != nil {
		out = append(out[:min(len(out), 2)], m.page.render(w, h-3)...)
	} else if m.question != nil {
		out = append(out, m.question.Lines(m.st, w)...)
	} else if m.showHelp {
		out = append(out, m.helpLines()...)
	} else {
		out = append(out, m.listLines(h-len(out)-1)...)
	}
	for len(out) < h-1 {
		out = append(out, "")
	}
	out = out[:h-1]
	out = append(out, m.footer())
	for i, l := range out {
		out[i] = cell.Fit(l, w, "")
	}
	return strings.Join(out, "\n")
}

func (m *Model) footer() string {
	if m.flash != "" {
		return " " + m.st.Accent.Render(describe.OneLine(m.flash, max(m.width-2, 1)))
	}
	var parts []string
	for _, b := range m.ShortHelp() {
		h := b.Help()
		parts = append(parts, m.st.Key.Render(h.Key)+" "+m.st.Muted.Render(h.Desc))
	}
	return " " + strings.Join(parts, "  ")
}

func (m *Model) helpLines() []string {
	out := []string{"", " " + m.st.Title.Render("Keys")}
	for _, g := range m.FullHelp() {
		for _, b := range g {
			h := b.Help()
			out = append(out, "   "+m.st.Key.Render(cell.Fit(h.Key, 10, "…"))+" "+h.Desc)
		}
	}
	return out
}

func codeText(n int) string {
	if n == 0 {
		return "---"
	}
	return fmt.Sprint(n)
}
