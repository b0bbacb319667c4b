// Package waterfall is a time-axis view of a run, like a tracing tool's:
// one row per agent, tool call and browser session, nested like the agent
// tree (an agent, then its tool calls and sessions by start time, then its
// child agents), with a bar from start to end coloured by state (running,
// finished, failed, unfinished) and drawn by kind (agents ━, tool calls █,
// browser sessions ▒), the duration after the bar, and a ruler with tick
// labels in ms, s, m or h from the run's start.
//
// It has no clock: the caller passes "now" (SetNow) on its ticks, and
// running bars grow to it. Rows are rebuilt only when the store changed
// (Changed with each merge's Delta, or Invalidate); each View reads the
// store only for the visible rows, so a run of thousands of calls draws as
// fast as a small one.
//
// Keys (KeyMap): ↑/k ↓/j select a row, pgup/pgdn, g/G; + / - zoom in and
// out around the middle of the window, ←/h →/l move along time, 0 fits the
// whole run again; enter reports an OpenMsg with the selected row's Target.
// At the fitted zoom the window always holds the whole run and follows it as
// it grows.
package waterfall

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/internal/scroll"
)

// Styles are the looks of the waterfall's parts.
type Styles struct {
	// Bars and state symbols by state.
	Running, Finished, Failed, Unfinished lipgloss.Style
	// Labels by kind.
	Agent, Tool, Session lipgloss.Style
	Duration             lipgloss.Style // "12.3s" beside a bar
	Ruler                lipgloss.Style // tick labels and the axis
	Selected             lipgloss.Style // the selected row's label
	Note                 lipgloss.Style // "no agents yet", off-window arrows
}

// DefaultStyles uses the 16 ANSI colours.
func DefaultStyles() Styles {
	return Styles{
		Running:    lipgloss.NewStyle().Foreground(lipgloss.Yellow),
		Finished:   lipgloss.NewStyle().Foreground(lipgloss.Green),
		Failed:     lipgloss.NewStyle().Foreground(lipgloss.Red),
		Unfinished: lipgloss.NewStyle().Foreground(lipgloss.BrightBlack),
		Agent:      lipgloss.NewStyle().Bold(true),
		Session:    lipgloss.NewStyle().Foreground(lipgloss.Cyan),
		Duration:   lipgloss.NewStyle().Faint(true),
		Ruler:      lipgloss.NewStyle().Faint(true),
		Selected:   lipgloss.NewStyle().Reverse(true),
		Note:       lipgloss.NewStyle().Faint(true).Italic(true),
	}
}

// PlainStyles has no colour, attributes only (NO_COLOR); the state symbol
// before each label carries the state.
func PlainStyles() Styles {
	return Styles{
		Running:    lipgloss.NewStyle().Bold(true),
		Failed:     lipgloss.NewStyle().Bold(true),
		Unfinished: lipgloss.NewStyle().Faint(true),
		Agent:      lipgloss.NewStyle().Bold(true),
		Duration:   lipgloss.NewStyle().Faint(true),
		Ruler:      lipgloss.NewStyle().Faint(true),
		Selected:   lipgloss.NewStyle().Reverse(true),
		Note:       lipgloss.NewStyle().Italic(true),
	}
}

// symbols drawn by the waterfall.
type symbols struct {
	state                  [4]string // by State
	bar                    [3]string // by Kind
	axis, tick             string
	before, after          string // a bar outside the window
	ellipsis, times, arrow string
}

var (
	unicodeSymbols = symbols{
		state: [4]string{Running: "●", Finished: "✓", Failed: "✗", Unfinished: "◌"},
		bar:   [3]string{KindAgent: "━", KindTool: "█", KindSession: "▒"},
		axis:  "─", tick: "┬", before: "◂", after: "▸", ellipsis: "…", times: "×", arrow: "→",
	}
	// The states' symbols are text's fallbacks, as everywhere else.
	asciiSymbols = symbols{
		state: [4]string{Running: text.Fallback("●"), Finished: text.Fallback("✓"), Failed: text.Fallback("✗"), Unfinished: text.Fallback("◌")},
		bar:   [3]string{KindAgent: "=", KindTool: "#", KindSession: "%"},
		axis:  "-", tick: "+", before: "<", after: ">", ellipsis: "...", times: "x", arrow: "->",
	}
)

// KeyMap holds the waterfall's bindings.
type KeyMap struct {
	scroll.Keys     // HalfUp and HalfDown are off: a page is what the view shows
	ZoomIn, ZoomOut key.Binding
	Earlier, Later  key.Binding
	Fit             key.Binding
	Open            key.Binding
}

// DefaultKeyMap: ↑/k ↓/j, pgup/pgdn, g/G, + / -, ←/h →/l, 0, enter.
func DefaultKeyMap() KeyMap {
	sk := scroll.DefaultKeys()
	sk.HalfUp.SetEnabled(false)
	sk.HalfDown.SetEnabled(false)
	sk.Top.SetHelp("g", "first")
	sk.Bottom.SetHelp("G", "last")
	return KeyMap{
		Keys:    sk,
		ZoomIn:  key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "zoom in")),
		ZoomOut: key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "zoom out")),
		Earlier: key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "earlier")),
		Later:   key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "later")),
		Fit:     key.NewBinding(key.WithKeys("0"), key.WithHelp("0", "whole run")),
		Open:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
	}
}

// OpenMsg asks the program to open the detail of a row (enter).
type OpenMsg struct{ Target Target }

// Model is the waterfall.
type Model struct {
	KeyMap KeyMap
	st     *state
}

type state struct {
	store  *model.Store
	styles Styles
	sym    symbols
	now    time.Time

	rows  []row
	dirty bool
	first time.Time // earliest row start at the last rebuild
	last  time.Time // latest known row end at the last rebuild

	cursor, offset int
	selected       Target
	hasSelected    bool

	width, height int

	fit   bool
	start time.Duration // window start, from the time origin
	span  time.Duration // window length (when not fitted)

	paints map[*lipgloss.Style]paint
}

// Option configures New.
type Option func(*state)

// WithASCII draws bars, symbols and the ruler in ASCII.
func WithASCII(ascii bool) Option {
	return func(s *state) {
		if ascii {
			s.sym = asciiSymbols
		}
	}
}

// New returns the waterfall of store.
func New(store *model.Store, styles Styles, opts ...Option) Model {
	st := &state{store: store, styles: styles, sym: unicodeSymbols, dirty: true, fit: true}
	for _, o := range opts {
		o(st)
	}
	km := DefaultKeyMap()
	if st.sym.axis == asciiSymbols.axis {
		rep := strings.NewReplacer("↑", "up", "↓", "down", "←", "left", "→", "right")
		for _, b := range []*key.Binding{&km.Up, &km.Down, &km.Earlier, &km.Later} {
			h := b.Help()
			b.SetHelp(rep.Replace(h.Key), h.Desc)
		}
	}
	return Model{KeyMap: km, st: st}
}

// SetSize sets the box the waterfall draws in.
func (m *Model) SetSize(width, height int) {
	m.st.width, m.st.height = max(width, 0), max(height, 0)
	m.clamp()
}

// SetNow sets the time running bars grow to.
func (m *Model) SetNow(now time.Time) { m.st.now = now }

// Changed tells the waterfall what a merge changed; it rebuilds its rows
// (on the next Update or View) only when agents, tool calls, sessions or
// the run changed.
func (m *Model) Changed(d model.Delta) {
	if d.TreeChanged || d.RunChanged || len(d.Agents) > 0 || len(d.ToolCalls) > 0 || len(d.Sessions) > 0 {
		m.st.dirty = true
	}
}

// Invalidate makes the next Update or View rebuild the rows.
func (m *Model) Invalidate() { m.st.dirty = true }

// Len is the number of rows.
func (m Model) Len() int { return len(m.rowsNow()) }

// Cursor is the selected row; Offset the first row on screen.
func (m Model) Cursor() int { return m.st.cursor }
func (m Model) Offset() int { return m.st.offset }

// Selected is the selected row's target; ok is false when there are no
// rows.
func (m Model) Selected() (t Target, ok bool) {
	rows := m.rowsNow()
	if len(rows) == 0 {
		return Target{}, false
	}
	return rows[m.st.cursor].target(), true
}

// Select moves the selection to the row of t, if there is one.
func (m *Model) Select(t Target) bool {
	for i, r := range m.rowsNow() {
		if r.target() == t {
			m.st.cursor = i
			m.remember()
			m.clamp()
			return true
		}
	}
	return false
}

// rowsNow rebuilds the rows when the store changed, keeping the selection
// on the same target.
func (m Model) rowsNow() []row {
	st := m.st
	if !st.dirty {
		return st.rows
	}
	st.rows = buildRows(st.store, st.rows)
	st.dirty = false
	st.first, st.last = time.Time{}, time.Time{}
	runEnd := st.store.Run().FinishedAt
	for _, r := range st.rows {
		sp := r.spanOf(time.Time{}, runEnd)
		if !sp.start.IsZero() && (st.first.IsZero() || sp.start.Before(st.first)) {
			st.first = sp.start
		}
		if sp.end.After(st.last) {
			st.last = sp.end
		}
	}
	if st.hasSelected {
		for i, r := range st.rows {
			if r.target() == st.selected {
				st.cursor = i
				break
			}
		}
	}
	m.clamp()
	return st.rows
}

func (m Model) remember() {
	st := m.st
	if st.cursor < len(st.rows) {
		st.selected, st.hasSelected = st.rows[st.cursor].target(), true
	}
}

// bodyHeight is the rows under the two ruler lines.
func (m Model) bodyHeight() int { return max(m.st.height-2, 0) }

func (m Model) clamp() {
	st := m.st
	st.cursor, st.offset = scroll.Follow(st.cursor, st.offset, len(st.rows), m.bodyHeight())
}

// origin and full are the time axis: it starts at the run's start (else
// the earliest row) and ends at the run's end, the latest known end, or
// now while the run is running, whichever is latest.
func (m Model) axis() (origin time.Time, full time.Duration) {
	st := m.st
	run := st.store.Run()
	origin = run.StartedAt
	if origin.IsZero() || (!st.first.IsZero() && st.first.Before(origin)) {
		origin = st.first
	}
	end := st.last
	if run.FinishedAt.After(end) {
		end = run.FinishedAt
	}
	if run.State != model.StateFinished && st.now.After(end) {
		end = st.now
	}
	// The one bound on a duration from occurredAt (model.Span): an end
	// that cannot be trusted (a time in 9999) gives way to now, and then
	// to the shortest axis, never to a negative or centuries-long one.
	d, ok := model.Span(origin, end)
	if !ok {
		d, _ = model.Span(origin, st.now)
	}
	full = max(d, 10*time.Millisecond)
	return origin, full
}

// window is the visible part of the axis.
func (m Model) window(full time.Duration) (start, span time.Duration) {
	st := m.st
	if st.fit || st.span >= full {
		return 0, full
	}
	return min(max(st.start, 0), full-st.span), st.span
}

// minSpan is the shortest window zooming reaches.
const minSpan = 10 * time.Millisecond

// Zoom zooms in (in true) or out around the middle of the window.
func (m *Model) Zoom(in bool) {
	st := m.st
	_, full := m.axis()
	start, span := m.window(full)
	mid := start + span/2
	if in {
		if span/2 < minSpan {
			return
		}
		span /= 2
	} else {
		span *= 2
	}
	if span >= full {
		st.fit = true
		return
	}
	st.fit, st.span = false, span
	st.start = min(max(mid-span/2, 0), full-span)
}

// Pan moves the window along time by a quarter of its length (dir -1 or 1).
func (m *Model) Pan(dir int) {
	st := m.st
	_, full := m.axis()
	if st.fit {
		return
	}
	start, span := m.window(full)
	st.start = min(max(start+time.Duration(dir)*span/4, 0), full-span)
}

// Update handles the KeyMap's keys and the mouse wheel.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	m.rowsNow()
	st := m.st
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		k := m.KeyMap
		h := max(m.bodyHeight(), 1)
		switch {
		case key.Matches(msg, k.Up):
			st.cursor--
		case key.Matches(msg, k.Down):
			st.cursor++
		case key.Matches(msg, k.PageUp):
			st.cursor -= h
			st.offset -= h
		case key.Matches(msg, k.PageDown):
			st.cursor += h
			st.offset += h
		case key.Matches(msg, k.Top):
			st.cursor = 0
		case key.Matches(msg, k.Bottom):
			st.cursor = len(st.rows) - 1
		case key.Matches(msg, k.ZoomIn):
			m.Zoom(true)
		case key.Matches(msg, k.ZoomOut):
			m.Zoom(false)
		case key.Matches(msg, k.Earlier):
			m.Pan(-1)
		case key.Matches(msg, k.Later):
			m.Pan(1)
		case key.Matches(msg, k.Fit):
			st.fit = true
		case key.Matches(msg, k.Open):
			if t, ok := m.Selected(); ok {
				return m, func() tea.Msg { return OpenMsg{Target: t} }
			}
			return m, nil
		default:
			return m, nil
		}
		m.clamp()
		m.remember()
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			st.cursor -= 3
			st.offset -= 3
		case tea.MouseWheelDown:
			st.cursor += 3
			st.offset += 3
		}
		m.clamp()
		m.remember()
	}
	return m, nil
}

// ShortHelp returns the keys that work in the waterfall (help.KeyMap).
func (m Model) ShortHelp() []key.Binding {
	k := m.KeyMap
	return []key.Binding{k.Up, k.Down, k.ZoomIn, k.ZoomOut, k.Earlier, k.Later, k.Open}
}

// FullHelp returns the keys that work in the waterfall (help.KeyMap).
func (m Model) FullHelp() [][]key.Binding {
	k := m.KeyMap
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {k.ZoomIn, k.ZoomOut, k.Earlier, k.Later, k.Fit, k.Open}}
}

// labelWidth is the width of the label column.
func labelWidth(width int) int { return min(max(width*3/10, 14), 36) }

// View renders the ruler and the visible rows: at most Height lines, none
// wider than Width.
func (m Model) View() string {
	st := m.st
	if st.width <= 0 || st.height <= 0 {
		return ""
	}
	rows := m.rowsNow()
	m.clamp()
	lw := labelWidth(st.width)
	bw := st.width - lw - 1
	if bw < 4 {
		return ansi.Truncate(st.styles.Note.Render("too narrow for the waterfall"), st.width, "")
	}
	origin, full := m.axis()
	start, span := m.window(full)

	var out []string
	out = append(out, m.ruler(lw, bw, start, span, full)...)
	if len(rows) == 0 {
		out = append(out, st.styles.Note.Render(ansi.Truncate("no agents yet", st.width, "")))
		return strings.Join(out[:min(len(out), st.height)], "\n")
	}
	runEnd := st.store.Run().FinishedAt
	now := st.now
	if now.IsZero() {
		now = origin.Add(full)
	}
	end := min(st.offset+m.bodyHeight(), len(rows))
	for i := st.offset; i < end; i++ {
		r := rows[i]
		sp := r.spanOf(now, runEnd)
		out = append(out, strings.TrimRight(m.label(r, sp, lw, i == st.cursor)+" "+m.bar(r, sp, origin, start, span, bw), " "))
	}
	return strings.Join(out[:min(len(out), st.height)], "\n")
}

// ruler returns the tick labels line and the axis line.
func (m Model) ruler(lw, bw int, start, span, full time.Duration) []string {
	st := m.st
	head := "time"
	if !st.fit && span < full {
		z := float64(full) / float64(span)
		if z >= 10 {
			head = "time " + st.sym.times + strconv.Itoa(int(z+0.5))
		} else {
			head = "time " + st.sym.times + strconv.FormatFloat(float64(int(z*10+0.5))/10, 'f', -1, 64)
		}
	}
	step := tickStep(span, max(bw/10, 1))
	labels := []byte(strings.Repeat(" ", bw))
	axis := make([]string, bw)
	for i := range axis {
		axis[i] = st.sym.axis
	}
	first := (start + step - 1) / step * step
	used := -1 // last column a label covers
	for t := first; t <= start+span; t += step {
		col := int(int64(t-start) * int64(bw) / int64(span))
		if col >= bw {
			break
		}
		axis[col] = st.sym.tick
		text := tickLabel(t, step)
		if col > used && col+len(text) <= bw {
			copy(labels[col:], text)
			used = col + len(text)
		}
	}
	pad := func(s string) string {
		s = ansi.Truncate(s, lw, "")
		return s + strings.Repeat(" ", lw-ansi.StringWidth(s))
	}
	r := &st.styles.Ruler
	return []string{
		st.render(r, strings.TrimRight(pad(head)+" "+string(labels), " ")),
		st.render(r, strings.Repeat(" ", lw)+" "+strings.Join(axis, "")),
	}
}

// label renders the label column of a row.
func (m Model) label(r row, sp span, lw int, selected bool) string {
	st := m.st
	indent := min(r.depth*2, lw/3)
	text := st.sym.state[sp.state] + " " + r.label()
	room := lw - indent
	if ansi.StringWidth(text) > room {
		text = ansi.Truncate(text, room, st.sym.ellipsis)
	}
	pad := strings.Repeat(" ", max(room-ansi.StringWidth(text), 0))
	if selected {
		return strings.Repeat(" ", indent) + st.styles.Selected.Render(text+pad)
	}
	style := &st.styles.Tool
	switch r.kind {
	case KindAgent:
		style = &st.styles.Agent
	case KindSession:
		style = &st.styles.Session
	}
	sym, name, _ := strings.Cut(text, " ")
	return strings.Repeat(" ", indent) + st.render(m.stateStyle(sp.state), sym) + " " + st.render(style, name) + pad
}

func (m Model) stateStyle(s State) *lipgloss.Style {
	st := m.st
	switch s {
	case Running:
		return &st.styles.Running
	case Failed:
		return &st.styles.Failed
	case Unfinished:
		return &st.styles.Unfinished
	}
	return &st.styles.Finished
}

// bar renders the bar area of a row: the bar from start to end in the
// window, the duration after it (or before it, or over its end, when
// there is no room).
func (m Model) bar(r row, sp span, origin time.Time, start, span time.Duration, bw int) string {
	st := m.st
	if sp.start.IsZero() {
		return st.render(&st.styles.Note, ansi.Truncate("no time", bw, ""))
	}
	// Columns are rounded to the nearest cell, so that bars of equal
	// length are drawn equally long wherever they start.
	col := func(t time.Time) int {
		x := int64(t.Sub(origin)-start) * int64(bw)
		c := x / int64(span)
		if r := x % int64(span); 2*r >= int64(span) {
			c++
		} else if -2*r > int64(span) {
			c--
		}
		return int(c)
	}
	c0 := col(sp.start)
	c1 := c0 + 1
	if !sp.end.IsZero() {
		c1 = max(col(sp.end), c0+1)
	}
	// Entirely outside the window: an arrow on its side.
	if c1 <= 0 {
		return st.render(&st.styles.Note, st.sym.before) + strings.Repeat(" ", bw-ansi.StringWidth(st.sym.before))
	}
	if c0 >= bw {
		return strings.Repeat(" ", bw-ansi.StringWidth(st.sym.after)) + st.render(&st.styles.Note, st.sym.after)
	}
	c0, c1 = max(c0, 0), min(c1, bw)
	dur := ""
	if d, ok := model.Span(sp.start, sp.end); ok {
		dur = text.Duration(d)
	}
	var b strings.Builder
	switch {
	case dur != "" && c1+1+len(dur) <= bw: // after the bar
		b.WriteString(strings.Repeat(" ", c0))
		b.WriteString(st.render(m.stateStyle(sp.state), strings.Repeat(st.sym.bar[r.kind], c1-c0)))
		b.WriteString(" ")
		b.WriteString(st.render(&st.styles.Duration, dur))
		b.WriteString(strings.Repeat(" ", bw-c1-1-len(dur)))
	case dur != "" && c0-1-len(dur) >= 0: // before it
		b.WriteString(strings.Repeat(" ", c0-1-len(dur)))
		b.WriteString(st.render(&st.styles.Duration, dur))
		b.WriteString(" ")
		b.WriteString(st.render(m.stateStyle(sp.state), strings.Repeat(st.sym.bar[r.kind], c1-c0)))
		b.WriteString(strings.Repeat(" ", bw-c1))
	case dur != "" && c1-c0 >= len(dur)+4: // at the end of the bar, over it
		b.WriteString(strings.Repeat(" ", c0))
		b.WriteString(st.render(m.stateStyle(sp.state), strings.Repeat(st.sym.bar[r.kind], c1-c0-len(dur)-1)))
		b.WriteString(" ")
		b.WriteString(st.render(&st.styles.Duration, dur))
	default:
		b.WriteString(strings.Repeat(" ", c0))
		b.WriteString(st.render(m.stateStyle(sp.state), strings.Repeat(st.sym.bar[r.kind], c1-c0)))
		b.WriteString(strings.Repeat(" ", bw-c1))
	}
	return b.String()
}

// paint is a style's SGR before and after a text, computed once per style:
// drawing is then concatenation, not a lipgloss.Render call per piece.
type paint struct{ pre, post string }

func (st *state) render(s *lipgloss.Style, text string) string {
	if text == "" {
		return ""
	}
	p, ok := st.paints[s]
	if !ok {
		const marker = "\uE000"
		out := s.Render(marker)
		if i := strings.Index(out, marker); i >= 0 {
			p = paint{out[:i], out[i+len(marker):]}
		}
		if st.paints == nil {
			st.paints = map[*lipgloss.Style]paint{}
		}
		st.paints[s] = p
	}
	return p.pre + text + p.post
}
