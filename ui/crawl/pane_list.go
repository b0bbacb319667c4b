package crawl

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/internal/cell"
)

// The list of pages: column heads and the visible rows.

// listLines draws the column heads and the visible rows in h lines.
func (m *Model) listLines(h int) []string {
	w := m.width
	if h <= 0 {
		return nil
	}
	titleW := min(40, max(w/4, 10))
	urlW := max(w-titleW-20, 10)
	head := m.st.Muted.Render(" CODE  " + cell.Fit("SIZE", 8, "…") + "  " + cell.Fit("TITLE", titleW, "…") + "  URL")
	if m.filter != "" || m.typing {
		cur := ""
		if m.typing {
			cur = "▏"
		}
		head = " " + m.st.Key.Render("/") + m.filter + cur + m.st.Muted.Render(fmt.Sprintf("  %d of %d", m.shown(), len(m.rows)))
	}
	out := []string{head}
	rows := h - 1
	n := m.shown()
	m.top = followTop(m.sel, m.top, n, rows)
	for i := m.top; i < n && len(out) < h; i++ {
		r := m.rowAt(i)
		var l string
		switch r.kind {
		case kindFailed:
			l = " " + m.st.Bad.Render(cell.Fit(m.sym.Error+" ERR", 5, "…")) + "  " + cell.Fit("", 8, "…") + "  " +
				m.st.Bad.Render(cell.Fit(describe.OneLine(r.err, titleW), titleW, "…")) + "  " + describe.OneLine(r.url, urlW)
		case kindRobots:
			l = " " + m.st.Warn.Render(cell.Fit("ROBOT", 5, "…")) + "  " + cell.Fit("", 8, "…") + "  " +
				m.st.Muted.Render(cell.Fit("blocked by robots.txt", titleW, "…")) + "  " + describe.OneLine(r.url, urlW)
		default:
			code := cell.Fit(codeText(int(r.code)), 5, "…")
			cs := m.st.Good
			if r.code >= 400 {
				cs = m.st.Bad
			}
			l = " " + cs.Render(code) + "  " + cell.Fit(text.Size(int(r.size)), 8, "…") + "  " + cell.Fit(describe.OneLine(r.title, titleW), titleW, "…") +
				"  " + m.st.Muted.Render(describe.OneLine(r.url, urlW))
		}
		if i == m.sel {
			l = m.st.Selected.Render(ansi.Strip(cell.Fit(l, w, "")))
		}
		out = append(out, l)
	}
	if n == 0 {
		msg := "no pages yet"
		if m.filter != "" {
			msg = "no page matches the filter"
		}
		out = append(out, "   "+m.st.Muted.Render(msg))
	}
	return out
}

func followTop(sel, top, n, h int) int {
	h = max(h, 1)
	if sel < top {
		top = sel
	}
	if sel >= top+h {
		top = sel - h + 1
	}
	return min(max(top, 0), max(n-h, 0))
}
