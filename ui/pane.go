package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/model"
)

// Selection is what the focused pane has selected; at most one field is
// set. It is what enter opens (see detail.go) and what y and o act on.
type Selection struct {
	Event    *model.Event
	Agent    *model.Agent
	ToolCall *model.ToolCall
	Artifact *model.Artifact
	Session  *model.BrowserSession
	// Live is a session of the poll's activeBrowserSessions the trace has
	// not mentioned (yet).
	Live *model.LiveSession
}

// Empty reports whether nothing is selected.
func (s Selection) Empty() bool {
	return s.Event == nil && s.Agent == nil && s.ToolCall == nil && s.Artifact == nil && s.Session == nil && s.Live == nil
}

// scope is what the panes show: the selected agent's subtree (nil: every
// agent) and the `/` filter.
type scope struct {
	agents map[string]bool // agent ids of the subtree; nil = all
	list   []*model.Agent  // the same agents, in tree order; nil = all
	q      query
}

func (s *scope) hasAgent(id string) bool { return s.agents == nil || s.agents[id] }

// pane is one of the five panes. The root model owns the layout and gives
// each pane its box with setSize; a pane never measures the terminal. It
// renders exactly h lines of exactly w cells, only the rows that are
// visible, and supplies its own help bindings for the footer.
type pane interface {
	// component: setSize from relayout, render draws its box.
	component
	name() string
	// info is the short text after the title: counts, follow state.
	info() string
	// setFocus says whether the pane has the focus (its cursor shows);
	// the root calls it from relayout with the sizes.
	setFocus(focused bool)

	// Navigation. move is by rows (a page is ±h).
	move(delta int)
	home()
	end()
	// step moves to the next (dir > 0) or previous row that matches the
	// filter, wrapping around; false when none does.
	step(dir int) bool
	selection() Selection
	height() int
	// rowDelta is the move that selects the row shown at screen row i.
	rowDelta(i int) int

	// Data.
	apply(d *model.Delta)
	setScope(s *scope)
	// tick is the 1 s clock: a pane with live durations on screen marks
	// itself for redraw.
	tick()
}

// list is the cursor and scroll offset of a pane's rows.
type list struct {
	sel, off int
}

func (l *list) rowDelta(i int) int { return l.off + i - l.sel }

// fix keeps sel in [0, n) and visible in a window of h rows.
func (l *list) fix(n, h int) {
	if n <= 0 {
		l.sel, l.off = 0, 0
		return
	}
	l.sel = max(0, min(l.sel, n-1))
	if h <= 0 {
		return
	}
	if l.sel < l.off {
		l.off = l.sel
	}
	if l.sel >= l.off+h {
		l.off = l.sel - h + 1
	}
	l.off = max(0, min(l.off, n-h))
	if l.off < 0 {
		l.off = 0
	}
}

// cycle moves sel dir rows on, round from the last of n rows to the first
// and back, and keeps it visible in h rows; false, and nothing moved, when
// there are no rows.
func (l *list) cycle(dir, n, h int) bool {
	if n == 0 {
		return false
	}
	l.sel = ((l.sel+dir)%n + n) % n
	l.fix(n, h)
	return true
}

// nav is the navigation of a pane whose rows are a plain list: the cursor
// (list) over count() rows in its box. Panes embed it instead of spelling
// move, home, end, step and setSize out each; moved, when set, is told
// after each move (the agents pane keeps its selected agent there).
type nav struct {
	box
	list
	count func() int
	moved func()
}

func (n *nav) setSize(w, h int) tea.Cmd {
	n.box.setSize(w, h)
	n.fix(n.count(), h)
	return nil
}

func (n *nav) move(delta int) { n.sel += delta; n.settle() }
func (n *nav) home()          { n.sel = 0; n.settle() }
func (n *nav) end()           { n.sel = n.count() - 1; n.settle() }

func (n *nav) settle() {
	n.fix(n.count(), n.h)
	if n.moved != nil {
		n.moved()
	}
	n.dirty = true
}

// step moves to the next (dir > 0) or previous row, wrapping around.
func (n *nav) step(dir int) bool {
	if !n.cycle(dir, n.count(), n.h) {
		return false
	}
	n.dirty = true
	return true
}

// box is the common state of a pane: its size, its focus and a render
// cache.
type box struct {
	env      *env
	w, h     int
	hasFocus bool // as the root set it
	dirty    bool
	lines    []string
	focus    bool // as last drawn
}

func (b *box) setSize(w, h int) tea.Cmd {
	if w != b.w || h != b.h {
		b.w, b.h, b.dirty = w, h, true
	}
	return nil
}

func (b *box) setFocus(f bool) { b.hasFocus = f }

func (b *box) height() int { return b.h }

// cached returns the last render unless something changed.
func (b *box) cached(focused bool, draw func() []string) []string {
	if b.dirty || b.lines == nil || focused != b.focus || len(b.lines) != b.h {
		b.focus = focused
		b.lines = draw()
		b.dirty = false
		// Always exactly h lines.
		for len(b.lines) < b.h {
			b.lines = append(b.lines, blank(b.w))
		}
		b.lines = b.lines[:b.h]
	}
	return b.lines
}

// placeholder is a pane's text when it has no rows.
func (b *box) placeholder(text string) []string {
	lines := make([]string, 0, b.h)
	if b.h > 0 {
		lines = append(lines, styled(b.env.st.Muted, " "+text, b.w, b.env.ascii))
	}
	return lines
}

// renderRows is the render of a pane whose rows are a plain list: only the
// rows in the visible window, the selected one marked when focused; with
// no rows, "no <noun> yet" (or "no <noun> match" when a scope or filter
// hides them).
func renderRows[T any](n *nav, rows []T, sc *scope, focused bool, noun string, row func(T, bool) string) []string {
	return n.cached(focused, func() []string {
		if len(rows) == 0 {
			if sc.q.empty() && sc.agents == nil {
				return n.placeholder("no " + noun + " yet")
			}
			return n.placeholder("no " + noun + " match")
		}
		lines := make([]string, 0, max(0, min(len(rows)-n.off, n.h)))
		for i := n.off; i < min(len(rows), n.off+n.h); i++ {
			lines = append(lines, row(rows[i], focused && i == n.sel))
		}
		return lines
	})
}
