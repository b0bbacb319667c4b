// Package diff is the scrollable view of a line diff (package linediff's
// Result): lines marked +, - or unchanged, runs of unchanged lines folded
// into "⋯ 40 unchanged lines", a summary ("+12 −3 lines"), rendering only
// the visible rows.
//
// Keys: ↑/k ↓/j, pgup/pgdn, ctrl+u/ctrl+d, g/G, n / N next and previous
// change. The Model implements help.KeyMap.
package diff

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/linediff"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/internal/scroll"
)

// Styles are the looks of the diff's parts.
type Styles struct {
	Insert  lipgloss.Style // added lines, marker included
	Delete  lipgloss.Style // removed lines
	Equal   lipgloss.Style // unchanged lines
	Gap     lipgloss.Style // "⋯ 40 unchanged lines"
	Summary lipgloss.Style // the header: "+12 −3 lines"
	Note    lipgloss.Style
}

// DefaultStyles uses the 16 ANSI colours.
func DefaultStyles() Styles {
	return Styles{
		Insert:  lipgloss.NewStyle().Foreground(lipgloss.Green),
		Delete:  lipgloss.NewStyle().Foreground(lipgloss.Red),
		Gap:     lipgloss.NewStyle().Foreground(lipgloss.BrightBlack).Italic(true),
		Summary: lipgloss.NewStyle().Bold(true),
		Note:    lipgloss.NewStyle().Foreground(lipgloss.Yellow).Italic(true),
	}
}

// PlainStyles has no colour, attributes only (NO_COLOR): the +/- markers
// carry the meaning, removed lines are struck through where supported.
func PlainStyles() Styles {
	return Styles{
		Insert:  lipgloss.NewStyle().Bold(true),
		Delete:  lipgloss.NewStyle().Faint(true),
		Gap:     lipgloss.NewStyle().Italic(true),
		Summary: lipgloss.NewStyle().Bold(true),
		Note:    lipgloss.NewStyle().Italic(true),
	}
}

// KeyMap holds the diff view's bindings.
type KeyMap struct {
	scroll.Keys
	NextChange, PrevChange key.Binding
}

// DefaultKeyMap: arrows and j/k, PgUp/PgDn, ctrl+u/ctrl+d, g/G, n/N.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Keys:       scroll.DefaultKeys(),
		NextChange: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next change")),
		PrevChange: key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous change")),
	}
}

// Model is a scrollable view of a Result.
type Model struct {
	KeyMap KeyMap
	st     *state
}

type state struct {
	res    linediff.Result
	styles Styles
	ascii  bool
	label  string

	width, height int
	offset        int

	rows      []row // laid out for rowsWidth
	rowsWidth int
}

// row is one screen row: a part of a diff line.
type row struct {
	line int // index in res.Lines
	a, b int // the part of its text
	cont bool
}

// Option configures New.
type Option func(*state)

// WithASCII draws "..." and "-" instead of "⋯" and "−".
func WithASCII(ascii bool) Option { return func(s *state) { s.ascii = ascii } }

// WithLabel adds what is compared to the header: "v2 → v3".
func WithLabel(label string) Option { return func(s *state) { s.label = text.Sanitize(label) } }

// New returns the view of r.
func New(r linediff.Result, styles Styles, opts ...Option) Model {
	st := &state{res: r, styles: styles, rowsWidth: -1}
	for _, o := range opts {
		o(st)
	}
	km := DefaultKeyMap()
	if st.ascii {
		rep := strings.NewReplacer("↑", "up", "↓", "down")
		for _, b := range []*key.Binding{&km.Up, &km.Down} {
			h := b.Help()
			b.SetHelp(rep.Replace(h.Key), h.Desc)
		}
	}
	return Model{KeyMap: km, st: st}
}

// Result is the diff shown.
func (m Model) Result() linediff.Result { return m.st.res }

// SetSize sets the box the view draws in.
func (m *Model) SetSize(width, height int) {
	m.st.width, m.st.height = max(width, 0), max(height, 0)
	m.clamp()
}

// Offset is the first visible row; Len the number of rows.
func (m Model) Offset() int { return m.st.offset }
func (m Model) Len() int    { return len(m.rows()) }

// headerHeight is the rows the summary and the note take.
func (m Model) header() []string {
	st := m.st
	h := st.res.Summary(st.ascii)
	if st.label != "" {
		h = st.label + ": " + h
	}
	out := []string{st.styles.Summary.Render(ansi.Truncate(h, st.width, ""))}
	if st.res.Note != "" {
		out = append(out, st.styles.Note.Render(ansi.Truncate(st.res.Note, st.width, "")))
	}
	return out
}

func (m Model) bodyHeight() int { return max(m.st.height-len(m.header()), 0) }

// marker is the column before each line.
const markerWidth = 2

// rows lays out the lines for the width: long lines wrap.
func (m Model) rows() []row {
	st := m.st
	if st.rowsWidth == st.width {
		return st.rows
	}
	st.rows = st.rows[:0]
	room := max(st.width-markerWidth, 8)
	for i, l := range st.res.Lines {
		if l.Op == linediff.Gap || ansi.StringWidth(l.Text) <= room {
			st.rows = append(st.rows, row{line: i, a: 0, b: len(l.Text)})
			continue
		}
		off := 0
		for k, part := range strings.Split(ansi.Hardwrap(l.Text, room, true), "\n") {
			end := min(off+len(part), len(l.Text))
			st.rows = append(st.rows, row{line: i, a: off, b: end, cont: k > 0})
			off = end
		}
	}
	st.rowsWidth = st.width
	return st.rows
}

func (m Model) clamp() {
	st := m.st
	st.offset = scroll.Clamp(st.offset, len(m.rows()), m.bodyHeight())
}

// Update handles the KeyMap's keys and the mouse wheel.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	st := m.st
	switch msg.(type) {
	case tea.KeyPressMsg, tea.MouseWheelMsg:
		k := m.KeyMap
		off, moved := scroll.Move(msg, k.Keys, st.offset, max(m.bodyHeight(), 1), len(m.rows()))
		if press, ok := msg.(tea.KeyPressMsg); ok && !moved {
			switch {
			case key.Matches(press, k.NextChange):
				off = m.change(1)
			case key.Matches(press, k.PrevChange):
				off = m.change(-1)
			}
		}
		st.offset = off
		m.clamp()
	}
	return m, nil
}

// change returns the offset that puts the start of the next (dir 1) or
// previous (dir -1) block of changed lines at the top; the offset stays
// when there is none.
func (m Model) change(dir int) int {
	rows := m.rows()
	changed := func(i int) bool {
		op := m.st.res.Lines[rows[i].line].Op
		return op == linediff.Insert || op == linediff.Delete
	}
	start := func(i int) bool { return changed(i) && (i == 0 || !changed(i-1)) }
	for i := m.st.offset + dir; i >= 0 && i < len(rows); i += dir {
		if start(i) {
			return i
		}
	}
	return m.st.offset
}

// View renders the header and the visible rows: at most Height lines, none
// wider than Width.
func (m Model) View() string {
	st := m.st
	if st.width <= 0 || st.height <= 0 {
		return ""
	}
	rows := m.rows()
	m.clamp()
	out := m.header()
	if len(out) > st.height {
		out = out[:st.height]
	}
	end := min(st.offset+st.height-len(out), len(rows))
	for i := st.offset; i < end; i++ {
		out = append(out, m.renderRow(rows[i]))
	}
	return strings.Join(out, "\n")
}

func (m Model) renderRow(r row) string {
	st := m.st
	l := st.res.Lines[r.line]
	var marker string
	var style *lipgloss.Style
	switch l.Op {
	case linediff.Gap:
		dots := "⋯"
		if st.ascii {
			dots = "..."
		}
		unit := " unchanged lines"
		if l.Skipped == 1 {
			unit = " unchanged line"
		}
		return st.styles.Gap.Render(ansi.Truncate(dots+" "+strconv.Itoa(l.Skipped)+unit, st.width, ""))
	case linediff.Insert:
		marker, style = "+ ", &st.styles.Insert
	case linediff.Delete:
		marker, style = "- ", &st.styles.Delete
	default:
		marker, style = "  ", &st.styles.Equal
	}
	if r.cont {
		marker = "  "
	}
	text := marker + l.Text[r.a:r.b]
	if ansi.StringWidth(text) > st.width {
		text = ansi.Truncate(text, st.width, "")
	}
	return style.Render(text)
}

// ShortHelp returns the keys that work in the view (help.KeyMap).
func (m Model) ShortHelp() []key.Binding {
	k := m.KeyMap
	return []key.Binding{k.Up, k.Down, k.PageDown, k.NextChange, k.PrevChange}
}

// FullHelp returns the keys that work in the view (help.KeyMap).
func (m Model) FullHelp() [][]key.Binding {
	k := m.KeyMap
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom}, {k.NextChange, k.PrevChange}}
}
