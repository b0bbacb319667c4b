package ui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/screen"
)

// Layout. The root does all the arithmetic and hands each pane its box.
//
// Full (from fullMinW x fullMinH):
//
//	header (2 lines) and phase bar
//	end-of-run banner (once finished)
//	Agents | Browser sessions   (both per agent)
//	Tool calls                  (full width)
//	Timeline                    (full width, the rest of the height)
//	Artifacts                   (full width)
//	footer
//
// This is shaped by what a slow link pays for. The panes whose rows move
// span the full width: Bubble Tea's renderer then moves their rows with
// the terminal's scroll region instead of redrawing them (rows of a pane
// beside another are never whole identical lines, so they cannot be
// scrolled). The timeline scrolls as it follows; in Tool calls the
// finished calls move down a row whenever a call starts or ends, and with
// enough of them on screen (three or more) the move is a scroll too.
//
// Compact (from compactMinW x compactMinH): a two-line header, a tab bar
// with one pane at a time, the footer. Below that, a note says which size
// is needed.
const (
	layoutFull = iota
	layoutCompact
	layoutSmall
)

const (
	fullMinW, fullMinH       = 100, 30
	compactMinW, compactMinH = 60, 16
)

type rect struct{ x, y, w, h int }

func (r rect) has(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

func (m *Model) layoutKind() int {
	switch {
	case m.width >= fullMinW && m.height >= fullMinH:
		return layoutFull
	case m.width >= compactMinW && m.height >= compactMinH:
		return layoutCompact
	}
	return layoutSmall
}

// frame is the vertical arithmetic of a layout.
type frame struct {
	kind           int
	headerH        int
	bannerH        int
	bodyY, bodyH   int
	aH, bH, tH, cH int // full layout: band heights, rule line included
	wl             int // full layout: width of the agents pane
}

func (m *Model) frame() frame {
	f := frame{kind: m.layoutKind()}
	switch f.kind {
	case layoutFull:
		f.headerH = 3
	case layoutCompact:
		f.headerH = 3 // two header lines and the tab bar
	default:
		return f
	}
	f.bannerH = m.bannerHeight(f.kind)
	f.bodyY = f.headerH + f.bannerH
	f.bodyH = m.height - f.bodyY - 1
	if f.kind == layoutFull {
		// The panes keep their places when the run ends: the banner is
		// drawn at the top of the timeline's band (over an overlay, above
		// it), so nothing moves but the timeline's oldest rows, which it
		// covers; a slow link pays for the banner's lines alone.
		h := f.bodyH + f.bannerH
		f.aH = clamp(h/5+1, 5, 12)
		f.bH = clamp(h/5, 4, 12)
		f.cH = clamp(h/12+1, 3, 7)
		f.tH = h - f.aH - f.bH - f.cH
		f.wl = clamp(m.width*40/100, 32, 60)
	}
	return f
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }

// paneRects are the boxes of the panes' rows (title lines excluded), in
// pane order; a pane not on screen has an empty box.
func (m *Model) paneRects() []rect {
	f := m.frame()
	r := make([]rect, len(m.panes))
	switch f.kind {
	case layoutFull:
		y := f.headerH
		r[paneAgents] = rect{0, y + 1, f.wl, f.aH - 1}
		r[paneSessions] = rect{f.wl + 1, y + 1, m.width - f.wl - 1, f.aH - 1}
		y += f.aH
		r[paneTools] = rect{0, y + 1, m.width, f.bH - 1}
		y += f.bH
		r[paneTimeline] = rect{0, y + 1 + f.bannerH, m.width, f.tH - 1 - f.bannerH}
		y += f.tH
		r[paneArtifacts] = rect{0, y + 1, m.width, f.cH - 1}
	case layoutCompact:
		r[m.focus] = rect{0, f.bodyY, m.width, f.bodyH}
	}
	return r
}

func (m *Model) paneAt(x, y int) (int, bool) {
	for i, r := range m.paneRects() {
		if r.has(x, y) {
			return i, true
		}
	}
	return 0, false
}

// View renders the screen.
func (m *Model) View() string { return m.render() }

// Frame is the window title (the run's short id and state), the mouse
// when --mouse asked for it, and focus reports while notifications are
// asked for (Config.Alerts).
func (m *Model) Frame() screen.Frame {
	return screen.Frame{Title: m.windowTitle(), Mouse: m.mouse, ReportFocus: m.alerts.ReportFocus()}
}

// windowTitle is "firewatch 1a2b3c4d running": sanitised, no server text
// beyond the run id.
func (m *Model) windowTitle() string {
	return asciiOnly(flat(text.Sanitize("firewatch " + m.shortID() + " " + m.stateWord())))
}

func (m *Model) render() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	f := m.frame()
	if f.kind == layoutSmall {
		return m.renderSmall()
	}
	lines := make([]string, 0, m.height)
	if f.kind == layoutFull {
		lines = append(lines, m.headerLines(false)...)
		lines = append(lines, m.phaseBar())
	} else {
		lines = append(lines, m.headerLines(true)...)
		lines = append(lines, m.tabBar())
	}
	if f.kind != layoutFull || m.overlay != nil {
		lines = append(lines, m.banner(f)...)
	}
	if m.overlay != nil {
		lines = append(lines, m.overlayLines(f)...)
	} else if f.kind == layoutFull {
		lines = append(lines, m.fullBody(f)...)
	} else {
		lines = append(lines, m.focused().render()...)
	}
	lines = append(lines, m.footer())
	for len(lines) < m.height {
		lines = append(lines, blank(m.width))
	}
	return strings.Join(lines[:m.height], "\n")
}

func (m *Model) renderSmall() string {
	msg := "firewatch needs a terminal of at least " + strconv.Itoa(compactMinW) + "x" + strconv.Itoa(compactMinH) +
		" (this one is " + strconv.Itoa(m.width) + "x" + strconv.Itoa(m.height) + ")"
	parts := wrap(msg, max(1, m.width-2), 0, "")
	lines := make([]string, m.height)
	top := max(0, (m.height-len(parts))/2)
	for i := range lines {
		lines[i] = blank(m.width)
		if j := i - top; j >= 0 && j < len(parts) {
			lines[i] = styled(m.env.st.Warn, " "+parts[j], m.width, m.env.ascii)
		}
	}
	return strings.Join(lines, "\n")
}

// fullBody is the panes of the full layout.
func (m *Model) fullBody(f frame) []string {
	st, sym := m.env.st, m.env.sym
	var lines []string
	wr := m.width - f.wl - 1
	sep := st.Border.Render(sym.Vertical)
	// Band A: Agents | Browser sessions.
	lines = append(lines, m.rule(paneAgents, f.wl, sym.Tee)+m.rule(paneSessions, wr, ""))
	left := m.agents.render()
	right := m.sessions.render()
	for i := 0; i < f.aH-1; i++ {
		lines = append(lines, left[i]+sep+right[i])
	}
	// Full-width panes.
	for _, band := range []struct {
		i, h int
	}{{paneTools, f.bH}, {paneTimeline, f.tH}, {paneArtifacts, f.cH}} {
		mark, junction := -1, ""
		if band.i == paneTools {
			mark, junction = f.wl, sym.BottomTee
		}
		lines = append(lines, m.ruleAt(band.i, m.width, mark, junction))
		if band.i == paneTimeline {
			lines = append(lines, m.banner(f)...)
		}
		lines = append(lines, m.panes[band.i].render()...)
	}
	return lines
}

// rule is a pane's title line: "─ Title  info ─────", in the focus colour
// when the pane has the focus; end is the junction drawn in its last cell.
func (m *Model) rule(i, w int, end string) string {
	return m.ruleAt(i, w, -1, end)
}

// ruleAt draws pane i's title rule of width w (plus end, one cell, when
// given); at column mark (≥ 0) it draws junction instead of the rule.
func (m *Model) ruleAt(i, w, mark int, junction string) string {
	st, sym := m.env.st, m.env.sym
	p := m.panes[i]
	focused := m.focus == i && m.overlay == nil
	ruleSt, titleSt := st.Border, st.Title
	if focused {
		ruleSt, titleSt = st.RuleFocus, st.TitleFocus
	}
	title := " " + p.name() + " "
	info := p.info()
	if m.scopeA != nil && i != paneAgents {
		info = strings.TrimSpace(info + " · " + m.scopeA.Name)
	}
	var b strings.Builder
	used := 0
	put := func(s theme.Style, text string) {
		if m.env.ascii {
			text = asciiOnly(text)
		}
		b.WriteString(s.Render(text))
		used += width(text)
	}
	put(ruleSt, sym.Rule)
	put(titleSt, title)
	if info != "" && used+width(info)+3 < w {
		put(st.Muted, cut(m.env.text(info), w-used-3, sym.Ellipsis)+" ")
	}
	if mark >= 0 && mark > used && mark < w {
		put(ruleSt, strings.Repeat(sym.Rule, mark-used))
		put(ruleSt, junction)
		junction = ""
	}
	if end := w - used; end > 0 {
		put(ruleSt, strings.Repeat(sym.Rule, end))
	}
	if junction != "" && mark < 0 {
		b.WriteString(st.Border.Render(junction))
	}
	return b.String()
}

// tabBar is the compact layout's pane switcher.
func (m *Model) tabBar() string {
	st := m.env.st
	r := newRow(m.width, m.env.ascii)
	for i, p := range m.panes {
		name := shortName(p)
		if i == m.focus {
			r.add(st.TitleFocus, " "+name+" ")
		} else {
			r.add(st.Muted, " "+name+" ")
		}
	}
	info := m.focused().info()
	if m.scopeA != nil && m.focus != paneAgents {
		info = strings.TrimSpace(info + " · " + m.scopeA.Name)
	}
	if info != "" {
		info = cut(m.env.text(info), max(0, r.left()-2), m.env.sym.Ellipsis)
		r.addRight(st.Muted, info+" ")
	}
	return r.String()
}

func shortName(p pane) string {
	switch p.(type) {
	case *toolsPane:
		return "Tools"
	case *sessionsPane:
		return "Sessions"
	}
	return p.name()
}

// overlayLines is the overlay (help, details) in place of the panes.
func (m *Model) overlayLines(f frame) []string {
	st, sym := m.env.st, m.env.sym
	h := f.bodyH - 1
	title := " " + m.overlay.title() + " "
	r := newRow(m.width, m.env.ascii)
	r.add(st.RuleFocus, sym.Rule)
	r.add(st.TitleFocus, title)
	r.add(st.RuleFocus, strings.Repeat(sym.Rule, max(0, r.left())))
	lines := []string{r.String()}
	body := m.overlay.render()
	for i := 0; i < h; i++ {
		if i < len(body) {
			lines = append(lines, body[i])
		} else {
			lines = append(lines, blank(m.width))
		}
	}
	return lines
}

// footer is the focused pane's keys (or the overlay's), the filter input
// while it is typed, or a short message after an action.
func (m *Model) footer() string {
	st := m.env.st
	w := m.width
	if m.filtering {
		r := newRow(w, m.env.ascii)
		r.space(1)
		hint := "enter: keep · esc: clear"
		m.input.render(r, "/", st.Accent, st.Selected, max(10, w-width(hint)-4))
		r.addRight(st.Muted, hint+" ")
		return r.String()
	}
	r := newRow(w, m.env.ascii)
	r.space(1)
	if m.env.flash != "" {
		r.add(st.Accent, m.env.flash)
		r.space(2)
	} else if !m.scope.q.empty() {
		r.add(st.Match, "/"+m.scope.q.text)
		r.add(st.Muted, " (n/N, esc clears)")
		r.space(2)
	}
	k := m.keys
	bindings := m.focused().helpKeys(k)
	if m.overlay != nil {
		bindings = m.overlay.helpKeys(k)
	} else {
		if m.rerunOf != "" && m.env.store.Run().State == model.StateFinished {
			// The rerun has ended: its one key to the comparison comes first.
			bindings = append([]key.Binding{k.Compare}, bindings...)
		}
		bindings = append(bindings, k.NextPane, k.Filter, k.Waterfall)
	}
	// "? help · q quit" always shows, at the right; the focused pane's
	// keys fill the room before it.
	tailKeys := []key.Binding{k.Help, k.Quit}
	if m.backToList && m.overlay == nil {
		// Opened from the runs list: esc goes back to it.
		tailKeys = []key.Binding{key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "runs")), k.Help, k.Quit}
	}
	tail := m.shortHelp(tailKeys, w)
	tailW := width(stripStyle(tail))
	head := m.shortHelp(bindings, r.left()-tailW-3)
	r.raw(head, width(stripStyle(head)))
	if r.left() >= tailW+1 {
		r.space(r.left() - tailW - 1)
		r.raw(tail, tailW)
	}
	return r.String()
}

// shortHelp renders bindings as "key desc · key desc" in at most w cells,
// dropping the ones that do not fit.
func (m *Model) shortHelp(bindings []key.Binding, w int) string {
	st := m.env.st
	sep := " · "
	if m.env.ascii {
		sep = " | "
	}
	var b strings.Builder
	used := 0
	for _, kb := range bindings {
		if !kb.Enabled() {
			continue
		}
		h := kb.Help()
		item := width(h.Key) + 1 + width(h.Desc)
		s := 0
		if used > 0 {
			s = width(sep)
		}
		if used+s+item > w {
			break
		}
		if s > 0 {
			b.WriteString(st.Muted.Render(sep))
		}
		b.WriteString(st.Key.Render(h.Key))
		b.WriteString(" ")
		b.WriteString(st.Muted.Render(h.Desc))
		used += s + item
	}
	return b.String()
}

// stripStyle removes SGR sequences from a string we styled ourselves.
func stripStyle(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
