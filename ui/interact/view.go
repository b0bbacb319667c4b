package interact

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/text"
	fwscreen "github.com/firewatch/firewatch/ui/screen"
)

// View renders the screen.
func (m *Model) View() string { return m.render() }

// Frame is the window title: the console and the scrape's short id.
func (m *Model) Frame() fwscreen.Frame {
	return fwscreen.Frame{Title: "firewatch interact " + m.shortID()}
}

func (m *Model) shortID() string {
	id := m.cfg.ScrapeID
	if len(id) > 8 {
		id = id[:8]
	}
	return id
}

// Render is the screen as text (for tests and View).
func (m *Model) Render() string { return m.render() }

func (m *Model) render() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	lines := make([]string, 0, m.height)
	lines = append(lines, m.header())
	if m.overlay == overlayViewer {
		lines = append(lines, m.viewerLines()...)
	} else {
		body := m.scrollHeight()
		switch m.overlay {
		case overlayLinks:
			lines = append(lines, m.box(m.linksLines(), body)...)
		case overlayLeave:
			lines = append(lines, m.box(m.leaveLines(), body)...)
		case overlayHelp:
			lines = append(lines, m.box(m.helpLines(), body)...)
		default:
			lines = append(lines, m.scrollback(body)...)
		}
		lines = append(lines, m.statusLine())
		if m.overlay == overlaySearch {
			lines = append(lines, m.searchLine())
		} else {
			lines = append(lines, strings.Split(m.input.View(), "\n")...)
		}
	}
	lines = append(lines, m.footer())
	for len(lines) < m.height {
		lines = append(lines, "")
	}
	if len(lines) > m.height {
		lines = lines[len(lines)-m.height:]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > m.width {
			lines[i] = ansi.Truncate(l, m.width, "")
		}
	}
	return strings.Join(lines, "\n")
}

func (m *Model) inputHeight() int {
	if m.overlay == overlaySearch {
		return 1
	}
	return max(m.input.Height(), 1)
}

// scrollHeight is the scrollback's height.
func (m *Model) scrollHeight() int {
	return max(m.height-3-m.inputHeight(), 1)
}

func (m *Model) header() string {
	sess := "no session yet"
	if m.links[0] != "" || m.links[2] != "" {
		sess = "session open"
	}
	calls := ""
	if n := len(m.ex); n > 0 {
		calls = fmt.Sprintf(" · %d call%s", n, map[bool]string{true: "", false: "s"}[n == 1])
	}
	left := m.st.Bold.Render("firewatch interact") + " " + m.st.Accent.Render(m.shortID())
	right := m.st.Muted.Render(sess + calls + " · timeout " + fmt.Sprint(m.timeout) + "s")
	gap := m.width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return left
	}
	return left + strings.Repeat(" ", gap) + right
}

func (m *Model) statusLine() string {
	var s string
	switch {
	case m.status != "":
		s = m.status
	case m.running != nil:
		sp := m.sym.Spinner
		frame := ""
		if len(sp) > 0 {
			frame = sp[m.frame%len(sp)]
		}
		s = m.st.Running.Render(frame) + fmt.Sprintf(" call %d running %s (timeout %ds)", m.running.n, text.Duration(m.now().Sub(m.running.started)), m.running.timeout)
	case m.scroll > 0:
		s = fmt.Sprintf("scrolled up %d lines: ctrl+end for the latest", m.scroll)
	default:
		if m.promptMode {
			s = "prompt mode: an AI agent carries out the task in the page"
		} else {
			s = "code mode: " + m.language + " (ctrl+t changes it) · enter sends, alt+enter adds a line"
		}
	}
	s = ansi.Truncate(s, max(m.width-4, 1), m.sym.Ellipsis)
	rule := m.sym.Rule
	fill := m.width - ansi.StringWidth(s) - 4
	if fill < 0 {
		fill = 0
	}
	return m.st.Border.Render(rule+rule) + " " + s + " " + m.st.Border.Render(strings.Repeat(rule, fill))
}

func (m *Model) footer() string {
	if m.overlay == overlayViewer {
		return m.st.Muted.Render(ansi.Truncate("esc back · ↑/↓ pgup/pgdn g/G scroll · [ ] previous/next call · y copy · s save · ctrl+c leave", m.width, m.sym.Ellipsis))
	}
	return m.help.ShortHelpView(m.keys.ShortHelp())
}

// ---- the scrollback ----

// lines renders e at the width (cached while it is finished).
func (m *Model) exLines(e *exchange) []string {
	if !e.running && e.lines != nil && e.w == m.width && e.h == m.scrollHeight() {
		return e.lines
	}
	l := m.renderExchange(e)
	if !e.running {
		e.lines, e.w, e.h = l, m.width, m.scrollHeight()
	}
	return l
}

// scrollBy scrolls up by d lines (down when negative), within the
// scrollback.
func (m *Model) scrollBy(d int) {
	total := 0
	for _, e := range m.ex {
		total += len(m.exLines(e))
	}
	m.scroll = min(max(m.scroll+d, 0), max(total-m.scrollHeight(), 0))
}

// scrollback is the visible window: the exchanges are walked from the
// newest, and only those that reach the window are rendered.
func (m *Model) scrollback(h int) []string {
	if len(m.ex) == 0 {
		l := m.welcome()
		if len(l) > h {
			l = l[:h]
		}
		for len(l) < h {
			l = append(l, "")
		}
		return l
	}
	need := h + m.scroll
	var chunks [][]string
	got := 0
	for i := len(m.ex) - 1; i >= 0 && got < need; i-- {
		l := m.exLines(m.ex[i])
		chunks = append(chunks, l)
		got += len(l)
	}
	out := make([]string, 0, got)
	for i := len(chunks) - 1; i >= 0; i-- {
		out = append(out, chunks[i]...)
	}
	end := len(out) - m.scroll
	if end < 0 {
		end = 0
	}
	start := max(end-h, 0)
	return m.pad(out[start:end], h)
}

func (m *Model) pad(l []string, h int) []string {
	out := make([]string, 0, h)
	for i := 0; i < h-len(l); i++ {
		out = append(out, "")
	}
	if len(l) > h {
		l = l[len(l)-h:]
	}
	return append(out, l...)
}

func (m *Model) welcome() []string {
	w := m.width
	t := func(s string) string { return ansi.Truncate(s, w, m.sym.Ellipsis) }
	return []string{
		t(m.st.Bold.Render("The browser of scrape " + m.cfg.ScrapeID)),
		t(m.st.Muted.Render("The session starts, at the page the scrape left, with the first call; it is billed while it runs.")),
		"",
		t("Code (" + m.language + "), for example:"),
		t("  " + m.st.Accent.Render(examples[m.language][0]) + m.st.Muted.Render("   "+examples[m.language][1])),
		t("  " + m.st.Muted.Render(examples[m.language][2])),
		t("A prompt (tab), for example: " + m.st.Accent.Render("click the pricing tab and list the plans")),
		"",
		t(m.st.Muted.Render("ctrl+l shows the live view links · f1 all keys · ctrl+c leaves (and asks about the session)")),
	}
}

// examples per language: the first, more, the other languages.
var examples = map[string][3]string{
	"node":   {"await page.title()", "console.log(page.url())   await page.click('#pricing-tab')", "python: print(await page.title())   bash: snapshot, get title, click text=Docs"},
	"python": {"print(await page.title())", "print(page.url)   await page.click('#pricing-tab')", "node: await page.title()   bash: snapshot, get title, click text=Docs"},
	"bash":   {"snapshot", "get title   get url   click text=Docs   open https://example.com", "node: await page.title()   python: print(await page.title())"},
}

// renderExchange draws one exchange.
func (m *Model) renderExchange(e *exchange) []string {
	m.rendered++
	w := max(m.width, 10)
	cut := func(s string) string {
		s = text.ExpandTabs(s)
		if ansi.StringWidth(s) > w-2 {
			s = ansi.Truncate(s, w-2, m.sym.Ellipsis)
		}
		return s
	}
	var out []string
	label := e.language
	if e.prompt {
		label = "prompt"
	}
	head := fmt.Sprintf("[%d] %s> ", e.n, label)
	sent := strings.Split(e.sent, "\n")
	for i, l := range sent {
		if i == maxSentLines {
			out = append(out, m.st.Muted.Render(fmt.Sprintf("%s… %d more lines", strings.Repeat(" ", len(head)), len(sent)-maxSentLines)))
			break
		}
		l = text.ExpandTabs(l)
		prefix := strings.Repeat(" ", len(head))
		if i == 0 {
			prefix = head
		}
		s := prefix + l
		if ansi.StringWidth(s) > w {
			s = ansi.Truncate(s, w, m.sym.Ellipsis)
		}
		if i == 0 {
			out = append(out, m.st.Accent.Render(head)+m.st.Bold.Render(strings.TrimPrefix(s, head)))
		} else {
			out = append(out, m.st.Bold.Render(s))
		}
	}
	// The outputs show as many last lines as the scrollback has room for
	// beside what was sent, the "more" line and the end line (a 16-line
	// snapshot is shown whole when 16 lines fit), at least minTail.
	show := max(minTail, m.scrollHeight()-len(out)-3)
	shown := func(t output) []string { return t.tail[max(len(t.tail)-show, 0):] }
	more := func(t output, what string) {
		n := len(shown(t))
		if t.lines <= n && len(t.whole) > 4096 {
			out = append(out, m.st.Muted.Render(cut(fmt.Sprintf("  %s of %s, lines cut at the screen's width: ctrl+o opens the whole, ctrl+s saves it", text.Size(len(t.whole)), what))))
		}
		if t.lines > n {
			out = append(out, m.st.Muted.Render(cut(fmt.Sprintf("  … %d earlier lines of %s (%s): ctrl+o opens the whole, ctrl+s saves it",
				t.lines-n, what, text.Size(len(t.whole))))))
		}
	}
	if e.output.whole != "" {
		more(e.output, "the answer")
		for _, l := range shown(e.output) {
			for _, wl := range strings.Split(ansi.Wrap(text.ExpandTabs(l), w-2, ""), "\n") {
				out = append(out, "  "+wl)
			}
		}
	}
	if e.stdout.whole != "" {
		more(e.stdout, "stdout")
		for _, l := range shown(e.stdout) {
			out = append(out, "  "+cut(l))
		}
	}
	if e.stderr.whole != "" {
		more(e.stderr, "stderr")
		for _, l := range shown(e.stderr) {
			out = append(out, m.st.Warn.Render("! "+cut(l)))
		}
	}
	var end string
	switch {
	case e.running:
		sp := m.sym.Spinner
		frame := "*"
		if len(sp) > 0 {
			frame = sp[m.frame%len(sp)]
		}
		end = m.st.Running.Render(frame + " running " + text.Duration(m.now().Sub(e.started)))
	case e.err != "":
		end = m.st.Bad.Render(m.sym.Failed + " " + e.err)
	case e.killed:
		end = m.st.Bad.Render(fmt.Sprintf("%s killed after %ds (the timeout)", m.sym.Failed, e.timeout)) + m.st.Muted.Render(" · "+text.Duration(e.dur))
	case e.exception != "":
		s := m.sym.Failed + " exception: " + e.exception
		if e.exitCode != nil {
			s += fmt.Sprintf(" · exit %d", *e.exitCode)
		}
		end = m.st.Bad.Render(s) + m.st.Muted.Render(" · "+text.Duration(e.dur))
	case e.exitCode != nil && *e.exitCode != 0:
		end = m.st.Bad.Render(fmt.Sprintf("%s exit %d", m.sym.Failed, *e.exitCode)) + m.st.Muted.Render(" · "+text.Duration(e.dur))
	case e.prompt:
		end = m.st.Good.Render(m.sym.Succeeded+" done") + m.st.Muted.Render(" · "+text.Duration(e.dur))
	default:
		code := 0
		if e.exitCode != nil {
			code = *e.exitCode
		}
		end = m.st.Good.Render(fmt.Sprintf("%s exit %d", m.sym.Succeeded, code)) + m.st.Muted.Render(" · "+text.Duration(e.dur))
	}
	if e.err != "" {
		for _, l := range strings.Split(ansi.Wrap(ansi.Strip(end), w-2, ""), "\n") {
			out = append(out, "  "+m.st.Bad.Render(l))
		}
	} else {
		out = append(out, "  "+ansi.Truncate(end, w-2, m.sym.Ellipsis))
	}
	return append(out, "")
}

// ---- overlays ----

// box centres lines in h rows (cut to fit).
func (m *Model) box(l []string, h int) []string {
	for i, s := range l {
		l[i] = ansi.Truncate(s, m.width, m.sym.Ellipsis)
	}
	if len(l) > h {
		l = l[:h]
	}
	top := (h - len(l)) / 2
	out := make([]string, 0, h)
	for range top {
		out = append(out, "")
	}
	out = append(out, l...)
	for len(out) < h {
		out = append(out, "")
	}
	return out
}

func (m *Model) linksLines() []string {
	out := []string{m.st.Bold.Render("The session's links") + m.st.Muted.Render("   ↑/↓ select · y copy · o open · esc close"), ""}
	wrap := func(s string, indent int) []string {
		var l []string
		for _, x := range strings.Split(ansi.Hardwrap(s, max(m.width-indent, 10), true), "\n") {
			l = append(l, strings.Repeat(" ", indent)+x)
		}
		return l
	}
	for i, name := range linkNames {
		cur := "  "
		if i == m.linkSel {
			cur = m.st.Accent.Render(m.sym.Arrow + " ")
		}
		l := m.links[i]
		if l == "" {
			l = "(not sent)"
		}
		row := fmt.Sprintf("%-22s %s", name, l)
		if ansi.StringWidth(row)+2 <= m.width {
			if i == m.linkSel {
				row = m.st.Selected.Render(row)
			}
			out = append(out, cur+row)
		} else {
			// Too narrow: the link on lines of its own, whole.
			if i == m.linkSel {
				name = m.st.Selected.Render(name)
			}
			out = append(out, cur+name)
			out = append(out, wrap(l, 4)...)
		}
		if i == 1 {
			for _, w := range wrapWords(m.width, m.sym.Warn+" whoever has this link controls the browser: clicks, typing, navigation. Share it with care.", 4) {
				out = append(out, m.st.Warn.Render(w))
			}
		}
	}
	return out
}

// wrapWords wraps s at spaces to width, with an indent of 4.
func wrapWords(width int, s string, _ int) []string {
	var l []string
	for _, x := range strings.Split(ansi.Wrap(s, max(width-4, 10), ""), "\n") {
		l = append(l, "    "+x)
	}
	return l
}

func (m *Model) leaveLines() []string {
	out := []string{m.st.Bold.Render("Leave the console?"), ""}
	if m.running != nil {
		out = append(out, m.st.Warn.Render(fmt.Sprintf("call %d is still running; leaving abandons its answer", m.running.n)), "")
	}
	out = append(out,
		m.st.Key.Render("s")+"    stop the browser session (DELETE) and leave",
		m.st.Key.Render("k")+"    keep it and leave: it stays open, billed, until the service times it out",
		m.st.Key.Render("esc")+"  stay here",
		m.st.Muted.Render("ctrl+c again leaves at once: an open session is stopped"),
	)
	if m.stopping {
		out = append(out, "", m.st.Running.Render("stopping the session…"))
	}
	if m.leaveErr != "" {
		out = append(out, "", m.st.Bad.Render("not stopped: ")+m.leaveErr, m.st.Muted.Render("s tries again; k leaves it running"))
	}
	return out
}

func (m *Model) helpLines() []string {
	out := []string{m.st.Bold.Render("Keys") + m.st.Muted.Render("   any key closes"), ""}
	for _, g := range m.keys.FullHelp() {
		for _, b := range g {
			h := b.Help()
			out = append(out, fmt.Sprintf("  %s  %s", m.st.Key.Render(fmt.Sprintf("%-18s", h.Key)), h.Desc))
		}
		out = append(out, "")
	}
	out = append(out, m.st.Muted.Render("In the output viewer: ↑/↓ pgup/pgdn g/G scroll, [ ] other calls, y copy, s save, esc back."))
	return out
}

func (m *Model) searchLine() string {
	found := m.st.Muted.Render("type to search the history · ctrl+r older · enter use · esc cancel")
	if m.query != "" {
		if m.searchHit >= 0 {
			found = strings.ReplaceAll(m.history[m.searchHit].text, "\n", " ⏎ ")
			found = text.ExpandTabs(found)
		} else {
			found = m.st.Bad.Render("no match")
		}
	}
	return ansi.Truncate(m.st.Key.Render("search: ")+m.query+m.st.Muted.Render(" → ")+found, m.width, m.sym.Ellipsis)
}

func (m *Model) viewerLines() []string {
	h := max(m.height-2, 1)
	e := m.ex[m.viewerEx]
	n := e.stdout.lines + e.stderr.lines + e.output.lines
	title := m.st.Bold.Render(fmt.Sprintf("output of call %d", e.n)) + m.st.Muted.Render(fmt.Sprintf(" · %d line%s, %s", n, map[bool]string{true: "", false: "s"}[n == 1], text.Size(len(e.stdout.whole)+len(e.stderr.whole)+len(e.output.whole))))
	out := []string{ansi.Truncate(title, m.width, m.sym.Ellipsis)}
	body := strings.Split(m.viewer.View(), "\n")
	if len(body) > h-1 {
		body = body[:h-1]
	}
	out = append(out, body...)
	for len(out) < h {
		out = append(out, "")
	}
	return out
}
