package compare

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
	"github.com/go-json-experiment/json/jsontext"

	cmp "github.com/firewatch/firewatch/compare"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/internal/cell"
	"github.com/firewatch/firewatch/ui/internal/scroll"
)

// View draws the screen: exactly height lines of width cells.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	out := m.header()
	out = append(out, m.tabsLine())
	bh := m.bodyHeight()
	var body []string
	switch {
	case m.help:
		body = m.helpLines()
	case m.tab == tabMetrics:
		body = m.metricsLines(bh)
	case m.tab == tabAgents:
		body = m.agentsLines(bh)
	case m.tab == tabSteps:
		body = m.stepsLines(bh)
	case m.tab == tabResult:
		body = m.resultLines(bh)
	}
	if len(body) > bh {
		body = body[:bh]
	}
	out = append(out, body...)
	for len(out) < h-1 {
		out = append(out, "")
	}
	out = append(out[:h-1], m.footer())
	for i, l := range out {
		if m.cfg.ASCII {
			// Our symbols and cut marks in ASCII (--ascii); what the
			// runs sent is left as it is, as everywhere.
			l = text.ASCII(l)
		}
		out[i] = cell.Fit(l, w, "")
	}
	return strings.Join(out, "\n")
}

// pad cuts a styled cell to w cells and pads it on the right.
func pad(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return cell.Fit(s, w, "")
}

// padLeft right-aligns a styled cell in w cells.
func padLeft(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return ansi.Truncate(s, w, "")
}

// cutLeft keeps the end of a plain, sanitised s in w cells: the end of a
// tool's or a metric's name is what tells it apart
// ("toolCalls:mcp__tools__scrape").
func (m *Model) cutLeft(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	e := m.sym.Ellipsis
	return e + ansi.TruncateLeft(s, ansi.StringWidth(s)-(w-ansi.StringWidth(e)), "")
}

// header is two lines: the baseline and the candidate.
func (m *Model) header() []string {
	return []string{m.sideLine("baseline ", m.c.Baseline), m.sideLine("candidate", m.c.Candidate)}
}

// sideLine is one run: label, id, outcome, model, then as much of the
// prompt as fits (its beginning).
func (m *Model) sideLine(label string, s *cmp.Side) string {
	// Both ids and badges as wide as the wider, so that what follows
	// lines up.
	iw := max(ansi.StringWidth(m.sideID(m.c.Baseline)), ansi.StringWidth(m.sideID(m.c.Candidate)), 8)
	ow := max(ansi.StringWidth(ansi.Strip(m.outcome(m.c.Baseline.Outcome, false))), ansi.StringWidth(ansi.Strip(m.outcome(m.c.Candidate.Outcome, false))))
	l := " " + m.st.Title.Render(label) + " " + m.st.Muted.Render(pad(m.sideID(s), iw)) + "  " + m.outcome(s.Outcome, true)
	l += strings.Repeat(" ", max(ow-ansi.StringWidth(ansi.Strip(m.outcome(s.Outcome, false))), 0))
	if mod := describe.OneLine(deref(s.Model), 20); mod != "" {
		l += "  " + mod
	}
	if p := deref(s.Prompt); p != "" {
		room := m.width - ansi.StringWidth(l) - 2
		if room >= 8 {
			l += "  " + m.st.Muted.Render(describe.OneLine(p, room))
		}
	}
	return l
}

// sideID is a run's short id, or when the run has none (a recording of
// nothing), the end of the file's name.
func (m *Model) sideID(s *cmp.Side) string {
	if id := describe.ShortID(deref(s.ID)); id != "" {
		return id
	}
	return m.cutLeft(describe.OneLine(s.Ref, 0), 24)
}

// outcome is an outcome's symbol and word in its colour (the words and
// levels of describe.Outcome, as everywhere in the UI); nil is a run that
// had not finished.
func (m *Model) outcome(o *string, badge bool) string {
	if o == nil {
		return m.st.Warn.Render(m.sym.Unfinished + " unfinished")
	}
	in := describe.Outcome(model.Outcome(*o))
	w := in.Symbol(m.sym) + " " + in.Word
	if badge {
		return m.badge(in.Level).Render(" " + w + " ")
	}
	return m.level(in.Level).Render(w)
}

func (m *Model) level(l describe.Level) theme.Style {
	switch l {
	case describe.Good:
		return m.st.Good
	case describe.Warn:
		return m.st.Warn
	case describe.Bad:
		return m.st.Bad
	case describe.Dim:
		return m.st.Muted
	}
	return m.st.Text
}

func (m *Model) badge(l describe.Level) theme.Style {
	switch l {
	case describe.Good:
		return m.st.BadgeGood
	case describe.Warn:
		return m.st.BadgeWarn
	case describe.Bad:
		return m.st.BadgeBad
	}
	return m.st.BadgeRunning
}

// tabsLine is the tabs, the current one marked, and the gate's verdict.
func (m *Model) tabsLine() string {
	var parts []string
	for i, n := range tabNames {
		label := strconv.Itoa(i+1) + " " + n
		if tab(i) == m.tab {
			parts = append(parts, m.st.TitleFocus.Render("["+label+"]"))
		} else {
			parts = append(parts, m.st.Muted.Render(" "+label+" "))
		}
	}
	l := " " + strings.Join(parts, " ")
	var gate string
	switch {
	case len(m.c.Crossed) > 0:
		gate = m.st.Bad.Render(m.sym.Error + " " + describe.Count(len(m.c.Crossed), "threshold") + " crossed")
	case len(m.cfg.Gates) > 0:
		gate = m.st.Good.Render(m.sym.OK + " no threshold crossed")
	}
	if gate != "" {
		if room := m.width - ansi.StringWidth(l) - ansi.StringWidth(gate) - 1; room >= 2 {
			l += strings.Repeat(" ", room) + gate
		} else {
			l += "  " + gate
		}
	}
	return l
}

// footer is the keys that work now; when they do not fit, the ones
// before "? keys" and "q quit" go first, the last of them first.
func (m *Model) footer() string {
	var parts []string
	for _, b := range m.ShortHelp() {
		h := b.Help()
		parts = append(parts, m.st.Key.Render(h.Key)+" "+m.st.Muted.Render(h.Desc))
	}
	l := " " + strings.Join(parts, "  ")
	for len(parts) > 3 && ansi.StringWidth(l) > m.width {
		parts = append(parts[:len(parts)-3], parts[len(parts)-2:]...)
		l = " " + strings.Join(parts, "  ")
	}
	return l
}

// helpLines is the keys of this tab, the screen's then the tab's; side by
// side when one column would not fit the body.
func (m *Model) helpLines() []string {
	title := " " + m.st.Title.Render("Keys") + m.st.Muted.Render(" (this tab; ? or esc closes)")
	groups := m.FullHelp()
	col := func(g []key.Binding) []string {
		var out []string
		for _, b := range g {
			h := b.Help()
			out = append(out, m.st.Key.Render(pad(h.Key, 10))+" "+h.Desc)
		}
		return out
	}
	n := 1 + len(groups) - 1
	for _, g := range groups {
		n += len(g)
	}
	out := []string{title}
	if n <= m.bodyHeight() || len(groups) < 2 {
		for i, g := range groups {
			if i > 0 {
				out = append(out, "")
			}
			for _, l := range col(g) {
				out = append(out, "   "+l)
			}
		}
		return out
	}
	left, right := col(groups[0]), col(groups[1])
	w := max((m.width-4)/2, 10)
	for i := range max(len(left), len(right)) {
		var l, r string
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		out = append(out, "   "+pad(l, w)+" "+r)
	}
	return out
}

// ---- metrics ----

// metric columns: baseline, candidate, delta, delta %, gate.
const (
	colValue = 11
	colDelta = 9
	colPct   = 8
	colGate  = 10
)

func (m *Model) metricsLines(h int) []string {
	gateW := 0
	if len(m.cfg.Gates) > 0 || len(m.c.Crossed) > 0 {
		gateW = colGate
	}
	fixed := func() int { return 1 + 2*(colValue+1) + colDelta + 1 + colPct + 1 + gateW }
	names := make([]string, len(m.c.Metrics))
	widest := func() int {
		w := len("outcome")
		for _, n := range names {
			w = max(w, ansi.StringWidth(n))
		}
		return w
	}
	for i, x := range m.c.Metrics {
		names[i] = describe.OneLine(x.Name, 200)
	}
	// Narrow: first the gate column says "!" instead of "! crossed", then
	// the tools' metrics take their own names (toolCalls:scrape, as the
	// steps show them), then names are cut from the left.
	compactGate := gateW > 0 && widest()+1 > m.width-fixed()
	if compactGate {
		gateW = 3
	}
	if widest()+1 > m.width-fixed() {
		for i, n := range names {
			if t, ok := strings.CutPrefix(n, "toolCalls:"); ok {
				names[i] = "toolCalls:" + describe.ShortToolName(t)
			}
		}
	}
	nameW := max(min(widest()+1, m.width-fixed()), 10)
	row := func(name, b, c, d, p, g string) string {
		l := " " + pad(name, nameW) + padLeft(b, colValue) + " " + padLeft(c, colValue) + " " + padLeft(d, colDelta) + " " + padLeft(p, colPct)
		if gateW > 0 {
			l += "  " + g
		}
		return l
	}
	head := m.st.Muted.Render(row("METRIC", "BASELINE", "CANDIDATE", "DELTA", "DELTA %", "GATE"))
	rows := []string{m.outcomeRow(row, compactGate)}
	for i, x := range m.c.Metrics {
		rows = append(rows, m.metricRow(x, m.cutLeft(names[i], nameW-1), compactGate, row))
	}
	top := scroll.Clamp(m.metricTop, len(rows), h-1)
	out := []string{head}
	return append(out, rows[top:min(len(rows), top+h-1)]...)
}

func (m *Model) outcomeRow(row func(name, b, c, d, p, g string) string, compactGate bool) string {
	bo, co := m.c.Baseline.Outcome, m.c.Candidate.Outcome
	d := m.st.Muted.Render("same")
	if deref(bo) != deref(co) || (bo == nil) != (co == nil) {
		d = m.st.Warn.Render("changed")
	}
	return row("outcome", m.outcome(bo, false), m.outcome(co, false), d, "", m.gateCell(cmp.OutcomeGate, compactGate))
}

// gateCell is a metric's gate: crossed, ok when --fail-on names it and it
// is not crossed; compact says "!" for crossed.
func (m *Model) gateCell(name string, compact bool) string {
	switch {
	case m.crossed[name] && compact:
		return m.st.Bad.Render(m.sym.Error)
	case m.crossed[name]:
		return m.st.Bad.Render(m.sym.Error + " crossed")
	case m.cfg.Gates.Gated(name):
		return m.st.Muted.Render("ok")
	}
	return ""
}

func (m *Model) metricRow(x cmp.Metric, name string, compactGate bool, row func(name, b, c, d, p, g string) string) string {
	d, p := figure(x.Name, x.Delta, true), m.sym.Ellipsis
	if x.DeltaPercent != nil {
		p = strconv.FormatFloat(*x.DeltaPercent, 'f', 1, 64) + "%"
		if *x.DeltaPercent > 0 {
			p = "+" + p
		}
	} else if x.Delta == 0 {
		p = ""
	}
	// More of every metric is worse, but agents: more of them is neither.
	style := m.st.Muted
	switch {
	case x.Delta == 0:
	case x.Name == "agents":
		style = m.st.Accent
	case x.Delta > 0:
		style = m.st.Bad
	default:
		style = m.st.Good
	}
	if m.crossed[x.Name] {
		name = m.st.Bold.Render(name)
	}
	return row(name, figure(x.Name, x.Baseline, false), figure(x.Name, x.Candidate, false), style.Render(d), style.Render(p), m.gateCell(x.Name, compactGate))
}

// figure is a metric's value for people: a duration, credits with up to
// two decimals, counts with thousands separators; signed for a delta.
func figure(name string, v float64, signed bool) string {
	sign := ""
	if signed && v > 0 {
		sign = "+"
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "?"
	}
	switch name {
	case "durationMs":
		return sign + text.Duration(time.Duration(v)*time.Millisecond)
	case "creditsUsed":
		if v != math.Trunc(v) {
			s := strconv.FormatFloat(v, 'f', 2, 64)
			return sign + strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
	}
	return sign + describe.Tokens(v)
}

// ---- agents ----

// agentRows is the rows the agents list takes in the agents tab (its
// head included): at most half the body, the selected agent's steps below.
func (m *Model) agentRows() int {
	bh := m.bodyHeight()
	return max(min(len(m.c.Agents)+1, bh/2), 2)
}

func (m *Model) agentsLines(h int) []string {
	if len(m.c.Agents) == 0 {
		return []string{" " + m.st.Muted.Render("neither run has agents")}
	}
	w := m.width
	// The sides as wide as their cells with the outcome's word (at most
	// 36); when the names need the room, down to the cells without it
	// (the symbol and its colour say the outcome), then the names are cut.
	nameNeed, full, short := 12, 12, 12
	for _, a := range m.c.Agents {
		nameNeed = max(nameNeed, ansi.StringWidth(agentName(a)))
		for _, as := range []*cmp.AgentSide{a.Baseline, a.Candidate} {
			if as == nil {
				continue
			}
			_, _, facts, word := m.agentParts(as)
			full = max(full, 2+ansi.StringWidth(facts+" "+word))
			short = max(short, 2+ansi.StringWidth(facts))
		}
	}
	avail := w - 20 // the margin, the gaps and the steps' counts
	sideW := min(full, 36)
	if nameNeed+2*sideW > avail {
		sideW = max(min(sideW, (avail-nameNeed)/2), min(short, sideW), 12)
	}
	nameW := max(min(avail-2*sideW, nameNeed), 8)
	row := func(name, b, c, s string) string {
		return " " + pad(name, nameW) + "  " + pad(b, sideW) + "  " + pad(c, sideW) + "  " + s
	}
	out := []string{m.st.Muted.Render(row("AGENT (ROLE)", "BASELINE", "CANDIDATE", "STEPS"))}
	rows := m.agentRows() - 1
	m.agent, m.agentTop = scroll.Follow(m.agent, m.agentTop, len(m.c.Agents), rows)
	for i := m.agentTop; i < min(len(m.c.Agents), m.agentTop+rows); i++ {
		a := m.c.Agents[i]
		name := describe.Truncate(agentName(a), nameW)
		l := row(name, m.agentCell(a.Baseline, sideW), m.agentCell(a.Candidate, sideW), m.stepCounts(m.c.StepsOf(i)))
		if i == m.agent {
			l = m.st.Selected.Render(ansi.Strip(cell.Fit(l, w, "")))
		}
		out = append(out, l)
	}
	// The selected agent's steps fill the rest.
	if rest := h - len(out) - 1; rest >= 3 {
		out = append(out, m.st.Border.Render(strings.Repeat(m.sym.Rule, w)))
		out = append(out, m.stepTable(rest, false)...)
	}
	return out
}

// agentName is "name (role)".
func agentName(a cmp.Agent) string {
	name := describe.OneLine(a.Name, 60)
	if r := describe.OneLine(a.Role, 20); r != "" {
		name += " (" + r + ")"
	}
	return name
}

// agentCell is an aligned agent in one run: symbol, calls, duration and
// outcome word, cut from the right (the symbol and its colour say the
// outcome already).
func (m *Model) agentCell(a *cmp.AgentSide, w int) string {
	sym, st, facts, word := m.agentParts(a)
	if a == nil {
		return m.st.Muted.Render(describe.Truncate(facts, w))
	}
	t := facts + " " + word
	if ansi.StringWidth(t) > w-2 && ansi.StringWidth(facts) <= w-2 {
		t = facts // the word goes whole
	}
	return st.Render(sym) + " " + describe.Truncate(t, w-2)
}

// agentParts are an agent cell's symbol and its style, its facts (calls,
// duration) and its outcome word; for an agent the run does not have,
// facts says so.
func (m *Model) agentParts(a *cmp.AgentSide) (string, theme.Style, string, string) {
	if a == nil {
		return "", m.st.Muted, "— not in this run", ""
	}
	sym, word, st := m.sym.Running, "running", m.st.Running
	if a.Outcome != nil {
		in := describe.Outcome(model.Outcome(*a.Outcome))
		sym, word, st = in.Symbol(m.sym), in.Word, m.level(in.Level)
	}
	facts := describe.Count(a.ToolCalls, "call")
	if a.DurationMs != nil {
		facts += " " + text.Duration(time.Duration(*a.DurationMs)*time.Millisecond)
	}
	return sym, st, facts, word
}

// stepCounts is "=5 ~2 +1 -0": same, changed, added and removed steps.
func (m *Model) stepCounts(steps []cmp.Step) string {
	var n [4]int
	for _, s := range steps {
		switch s.Change {
		case cmp.Same:
			n[0]++
		case cmp.Changed:
			n[1]++
		case cmp.Added:
			n[2]++
		case cmp.Removed:
			n[3]++
		}
	}
	return m.st.Muted.Render("="+strconv.Itoa(n[0])) + " " + m.st.Warn.Render("~"+strconv.Itoa(n[1])) + " " +
		m.st.Good.Render("+"+strconv.Itoa(n[2])) + " " + m.st.Bad.Render("-"+strconv.Itoa(n[3]))
}

// ---- steps ----

// stepRows is the rows of steps the steps tab shows: the agent's line and
// the columns' head take two, when there is room for a step besides.
func (m *Model) stepRows() int {
	if bh := m.bodyHeight(); bh >= 4 {
		return bh - 2
	} else {
		return bh
	}
}

func (m *Model) stepsLines(h int) []string {
	if len(m.c.Agents) == 0 {
		return []string{" " + m.st.Muted.Render("neither run has agents")}
	}
	a := m.c.Agents[m.agent]
	title := " " + m.st.Title.Render("agent ") + describe.OneLine(a.Name, 40)
	if r := describe.OneLine(a.Role, 20); r != "" {
		title += m.st.Muted.Render(" (" + r + ")")
	}
	title += m.st.Muted.Render("  "+strconv.Itoa(m.agent+1)+"/"+strconv.Itoa(len(m.c.Agents))) + "  " + m.stepCounts(m.steps)
	if m.params != nil && m.step < len(m.steps) {
		s := m.steps[m.step]
		title += m.st.Muted.Render("  step " + strconv.Itoa(s.Step))
		return append([]string{title}, strings.Split(m.params.View(), "\n")...)
	}
	if h < 4 {
		// Short: the steps alone, the selected one in view.
		return m.stepTable(h, true)
	}
	return append([]string{title}, m.stepTable(h-1, true)...)
}

// stepTable is the columns' head and the steps of the selected agent in
// h rows; with cursor, the selected step is marked and kept in view.
func (m *Model) stepTable(h int, cursor bool) []string {
	w := m.width
	numW := 4
	cellW := max((w-numW-2-3)/2, 8)
	row := func(n, mark, b, c string) string {
		return padLeft(n, numW) + " " + mark + " " + pad(b, cellW) + m.st.Border.Render(" "+m.sym.Vertical+" ") + c
	}
	var out []string
	if h >= 3 {
		out = append(out, m.st.Muted.Render(row("#", " ", "BASELINE", "CANDIDATE")))
	}
	if len(m.steps) == 0 {
		return append(out, " "+m.st.Muted.Render("no tool calls in either run"))
	}
	rows := max(h-len(out), 1)
	top := 0
	if cursor {
		m.step, m.stepTop = scroll.Follow(m.step, m.stepTop, len(m.steps), rows)
		top = m.stepTop
	}
	for i := top; i < min(len(m.steps), top+rows); i++ {
		s := m.steps[i]
		var mark string
		var st theme.Style
		switch s.Change {
		case cmp.Changed:
			mark, st = "~", m.st.Warn
		case cmp.Added:
			mark, st = "+", m.st.Good
		case cmp.Removed:
			mark, st = "-", m.st.Bad
		default:
			mark, st = "=", m.st.Muted
		}
		sh := m.shown[i]
		changed := s.Change == cmp.Changed
		l := row(strconv.Itoa(s.Step), st.Render(mark), m.callCell(s.Baseline, sh.b, sh.c, changed, sh.more, cellW), m.callCell(s.Candidate, sh.c, sh.b, changed, sh.more, cellW))
		if cursor && i == m.step {
			l = m.st.Selected.Render(ansi.Strip(cell.Fit(l, w, "")))
		}
		out = append(out, l)
	}
	return out
}

// shownParams is what a step's two cells show: each call's parameters, or
// for a changed step only the members that differ (more: others are the
// same).
type shownParams struct {
	b, c jsontext.Value
	more bool
}

// shownOf works out, once per agent, what each step's cells show, so that
// drawing a frame parses no JSON.
func shownOf(steps []cmp.Step) []shownParams {
	out := make([]shownParams, len(steps))
	for i, s := range steps {
		sh := &out[i]
		sh.b, sh.c = paramsOf(s.Baseline), paramsOf(s.Candidate)
		if s.Change == cmp.Changed {
			sh.b, sh.c, sh.more = changedMembers(sh.b, sh.c)
		}
	}
	return out
}

func paramsOf(c *cmp.Call) jsontext.Value {
	if c == nil {
		return nil
	}
	return c.Parameters
}

// callCell is a call: its tool's name (its end kept) and its parameters
// in describe's key=value form; for a changed step only the members that
// differ, "…" when others are the same, and when the two differ past the
// room, their common beginning cut so that the difference shows
// (url="…/pricing" against url="…/pricing/v2").
func (m *Model) callCell(c *cmp.Call, params, other jsontext.Value, changed, more bool, w int) string {
	if c == nil {
		return ""
	}
	name := m.cutLeft(describe.OneLine(describe.ShortToolName(c.ToolName), 0), max(w/2, 8))
	room := w - ansi.StringWidth(name) - 1
	if room < 4 {
		return name
	}
	p := describe.OneLine(describe.JSON(params, 4*w), 4*w)
	if changed && other != nil {
		o := describe.OneLine(describe.JSON(other, 4*w), 4*w)
		if n := commonPrefix(p, o); n+8 > room && n > room/2 {
			cut := commonPrefix(p[:n-room/2], p) // on a rune boundary
			keep := ""
			if eq := strings.IndexByte(p, '='); eq > 0 && eq < min(cut, 33) && !strings.ContainsAny(p[:eq], " {[\"") {
				keep = p[:eq+1] // the member's name: url=…
			}
			p = keep + m.sym.Ellipsis + p[cut:]
		}
	}
	if more {
		p += " " + m.sym.Ellipsis
	}
	return name + " " + m.st.Muted.Render(describe.Truncate(p, room))
}

// commonPrefix is the length in bytes of the longest common beginning of
// a and b, ending on a rune boundary.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	return n
}

// changedMembers keeps, of two objects, the members whose values differ
// (in the order sent); more reports that others were left out. Other
// values are returned as they are.
func changedMembers(a, b jsontext.Value) (jsontext.Value, jsontext.Value, bool) {
	if len(a)+len(b) > 1<<16 {
		return a, b, false // big parameters are shown as they are, not picked apart
	}
	ma, oka := members(a)
	mb, okb := members(b)
	if !oka || !okb {
		return a, b, false
	}
	keep := func(x, y []member) (jsontext.Value, int) {
		var buf bytes.Buffer
		buf.WriteByte('{')
		n, same := 0, 0
		for _, mx := range x {
			eq := false
			for _, my := range y {
				if my.name == mx.name {
					eq = cmp.JSONEqual(mx.value, my.value)
					break
				}
			}
			if eq {
				same++
				continue
			}
			if n > 0 {
				buf.WriteByte(',')
			}
			buf.Write(mx.rawName)
			buf.WriteByte(':')
			buf.Write(mx.value)
			n++
		}
		buf.WriteByte('}')
		return buf.Bytes(), same
	}
	ka, sa := keep(ma, mb)
	kb, sb := keep(mb, ma)
	return ka, kb, sa+sb > 0
}

type member struct {
	name    string
	rawName []byte
	value   jsontext.Value
}

// members is an object's members, at most 256 (ok false for anything
// else, or an object that does not decode).
func members(v jsontext.Value) ([]member, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || v[0] != '{' {
		return nil, false
	}
	dec := jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if _, err := dec.ReadToken(); err != nil {
		return nil, false
	}
	var out []member
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil || tok.Kind() != '"' {
			return nil, false
		}
		name := tok.String()
		val, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		raw, err := jsontext.AppendQuote(nil, name)
		if err != nil {
			return nil, false
		}
		out = append(out, member{name: name, rawName: raw, value: bytes.Clone(val)})
		if len(out) > 256 {
			return nil, false
		}
	}
	return out, true
}

// ---- result ----

func (m *Model) resultLines(h int) []string {
	if !m.hasResult {
		return []string{
			" " + m.st.Muted.Render("No final results to compare: one of the runs, or both, has none."),
			" " + m.st.Muted.Render("A run's result comes with it from the archive when firewatch archive fetched"),
			" " + m.st.Muted.Render("it with its status; a --record file holds the trace only."),
		}
	}
	m.result.SetSize(m.width, h)
	return strings.Split(m.result.View(), "\n")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
