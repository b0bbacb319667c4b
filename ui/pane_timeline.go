package ui

import (
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/theme"
)

// timelinePane shows one row per event in timeline order: time, agent,
// kind and the essential detail (describe.Event, like the plain output).
// The selected row unfolds to show its whole text (a reasoning summary,
// a long message). It follows new events while at the bottom; moving up
// stops following and the title counts what arrived since.
//
// Its index is never a scan of the timeline per frame or per key. The rows
// in scope are the union of per-agent lists, each already in timeline
// order: the agents' own event slices (no filter), or per-agent lists of
// the events matching the filter, kept up to date from each Delta. The
// union is addressed by rank (see union), so a key costs the same at
// 100 000 events as at 1 000.
type timelinePane struct {
	box
	list

	scope   *scope
	matches map[string][]*model.Event // by agent id; only while a filter is set
	mq      query                     // the query matches was built for
	src     union[*model.Event]

	follow  bool
	seenLen int          // rows in scope when following stopped
	selEv   *model.Event // the selected event, to keep it across merges

	expand bool // the selected row unfolds (the pane has the focus)
	buf    []*model.Event

	// rows caches the rendered rows (unselected, unmarked) of the events
	// drawn since the last merge: moving the selection redraws two rows,
	// not the page. A merge can change how an event reads (a late start
	// gives a finish its duration), so it empties the cache.
	rows map[*model.Event]string
}

func newTimeline(e *env) *timelinePane {
	t := &timelinePane{box: box{env: e, dirty: true}, follow: true, scope: &scope{}}
	t.src.key = func(e *model.Event) int { return e.Pos() }
	t.rebuild()
	return t
}

func (t *timelinePane) name() string { return "Timeline" }

func (t *timelinePane) len() int { return t.src.Len() }

func (t *timelinePane) info() string {
	n := t.len()
	s := describe.Count(n, "event")
	if !t.scope.q.empty() || t.scope.agents != nil {
		s += " in view"
	}
	if t.follow {
		return s + " · following"
	}
	if nb := n - t.seenLen; nb > 0 {
		return s + " · " + describe.Tokens(float64(nb)) + " new below " + t.env.sym.Down + " (f follows)"
	}
	return s + " · not following (f follows)"
}

func (t *timelinePane) helpKeys(k keyMap) []key.Binding {
	return []key.Binding{k.Move, k.Enter, k.Follow, k.Errors, k.Bottom}
}

// rebuild points the union at the lists for the current scope. O(agents).
func (t *timelinePane) rebuild() {
	s := t.env.store
	t.src.span = s.Len()
	t.src.lists = t.src.lists[:0]
	agents := t.scope.list
	if agents == nil {
		if t.scope.q.empty() {
			t.src.lists = append(t.src.lists, s.Timeline())
			return
		}
		agents = s.Agents()
	}
	for _, a := range agents {
		var l []*model.Event
		if t.scope.q.empty() {
			l = a.Events
		} else {
			l = t.matches[a.ID]
		}
		if len(l) > 0 {
			t.src.lists = append(t.src.lists, l)
		}
	}
}

// rematch rebuilds the per-agent lists of matching events: one pass over
// the timeline when the filter changes (or over the previous matches when
// the new query only adds to the old one).
func (t *timelinePane) rematch() {
	q := t.scope.q
	if q.empty() {
		t.matches, t.mq = nil, q
		return
	}
	old := t.matches
	narrower := old != nil && q.fold == t.mq.fold && strings.HasPrefix(q.text, t.mq.text)
	t.matches = make(map[string][]*model.Event)
	if narrower {
		for id, l := range old {
			var kept []*model.Event
			for _, e := range l {
				if q.event(e) {
					kept = append(kept, e)
				}
			}
			if len(kept) > 0 {
				t.matches[id] = kept
			}
		}
	} else {
		for _, e := range t.env.store.Timeline() {
			if q.event(e) {
				t.matches[e.Agent.ID] = append(t.matches[e.Agent.ID], e)
			}
		}
	}
	t.mq = q
}

func (t *timelinePane) setScope(s *scope) {
	prev := t.selEv
	qChanged := s.q != t.scope.q
	t.scope = s
	if qChanged {
		t.rematch()
	}
	t.rebuild()
	t.dirty = true
	n := t.len()
	if t.follow || prev == nil {
		t.toEnd()
		return
	}
	// Stay on the selected event, or the nearest one after it.
	t.sel = t.src.Rank(prev.Pos())
	t.seenLen = n
	t.settle()
}

func (t *timelinePane) apply(d *model.Delta) {
	if len(d.Events) == 0 {
		return
	}
	t.dropRows()
	if !t.scope.q.empty() {
		for _, e := range d.Events {
			if t.scope.q.event(e) {
				t.insertMatch(e)
			}
		}
	}
	t.rebuild()
	t.dirty = true
	if t.follow {
		t.toEnd()
		return
	}
	if t.selEv != nil {
		// Late events can land before the selection: keep the same event
		// selected and the view where it was.
		oldSel := t.sel
		t.sel = t.src.Rank(t.selEv.Pos())
		t.off += t.sel - oldSel
	}
	t.settle()
}

// insertMatch puts a new matching event into its agent's list, in
// timeline order (new events nearly always go at the end), once.
func (t *timelinePane) insertMatch(e *model.Event) {
	l := t.matches[e.Agent.ID]
	p := e.Pos()
	if n := len(l); n == 0 || l[n-1].Pos() < p {
		t.matches[e.Agent.ID] = append(l, e)
		return
	}
	i := sort.Search(len(l), func(i int) bool { return l[i].Pos() >= p })
	if l[i] == e {
		return // held already (a shared run's whole change)
	}
	l = append(l, nil)
	copy(l[i+1:], l[i:])
	l[i] = e
	t.matches[e.Agent.ID] = l
}

func (t *timelinePane) tick() {}

// Navigation.

func (t *timelinePane) move(delta int) {
	if delta == 0 || t.len() == 0 {
		return
	}
	t.sel += delta
	if t.sel >= t.len()-1 {
		t.toEnd()
		return
	}
	t.unfollow()
	t.settle()
}

func (t *timelinePane) home() {
	t.unfollow()
	t.sel = 0
	t.settle()
}

func (t *timelinePane) end() { t.toEnd() }

// toEnd selects the last row and follows.
func (t *timelinePane) toEnd() {
	t.follow = true
	t.sel = t.len() - 1
	t.seenLen = t.len()
	t.settle()
}

func (t *timelinePane) unfollow() {
	if t.follow {
		t.follow = false
		t.seenLen = t.len()
	}
}

// toggleFollow turns following on or off (the f key).
func (t *timelinePane) toggleFollow() {
	if t.follow {
		t.unfollow()
		t.dirty = true
		return
	}
	t.toEnd()
}

func (t *timelinePane) step(dir int) bool {
	n := t.len()
	if n == 0 {
		return false
	}
	// Every row in view matches the filter: the next match is the next
	// row, wrapping around.
	t.sel = ((t.sel+dir)%n + n) % n
	if t.sel == n-1 {
		t.toEnd()
	} else {
		t.unfollow()
		t.settle()
	}
	return true
}

// selectEvent moves the selection to e if it is in view.
func (t *timelinePane) selectEvent(e *model.Event) bool {
	r := t.src.Rank(e.Pos())
	if got, ok := t.src.At(r); !ok || got != e {
		return false
	}
	t.sel = r
	if r == t.len()-1 {
		t.toEnd()
	} else {
		t.unfollow()
		t.settle()
	}
	return true
}

// inView reports whether event e is a row of the pane.
func (t *timelinePane) inView(e *model.Event) bool {
	return t.scope.hasAgent(e.Agent.ID) && t.scope.q.event(e)
}

// nextError selects the next (dir > 0) or previous error in view after
// the selection. Errors are in timeline order in the store: a binary
// search, then a walk over the errors only.
func (t *timelinePane) nextError(dir int) bool {
	errs := t.env.store.Errors()
	if len(errs) == 0 {
		return false
	}
	cur := -1
	if t.selEv != nil {
		cur = t.selEv.Pos()
	}
	if dir > 0 {
		i := sort.Search(len(errs), func(i int) bool { return errs[i].Event.Pos() > cur })
		for ; i < len(errs); i++ {
			if t.inView(errs[i].Event) && t.selectEvent(errs[i].Event) {
				return true
			}
		}
		return false
	}
	i := sort.Search(len(errs), func(i int) bool { return errs[i].Event.Pos() >= cur }) - 1
	if t.selEv == nil {
		i = len(errs) - 1
	}
	for ; i >= 0; i-- {
		if t.inView(errs[i].Event) && t.selectEvent(errs[i].Event) {
			return true
		}
	}
	return false
}

func (t *timelinePane) selection() Selection {
	if t.selEv == nil {
		return Selection{}
	}
	return Selection{Event: t.selEv}
}

// settle clamps the cursor, keeps the selected row (with its unfolded
// lines) on screen, and remembers the selected event.
func (t *timelinePane) settle() {
	n := t.len()
	t.dirty = true
	if n == 0 {
		t.sel, t.off, t.selEv = 0, 0, nil
		return
	}
	t.sel = max(0, min(t.sel, n-1))
	t.selEv, _ = t.src.At(t.sel)
	h := max(1, t.h)
	extra := 0
	if t.expand && !t.follow {
		extra = max(0, min(len(t.unfold(t.selEv))-1, h-1))
	}
	if t.follow || t.sel > t.off+h-1-extra {
		// Following keeps the last row at the bottom.
		t.off = t.sel - (h - 1 - extra)
	}
	if t.sel < t.off {
		t.off = t.sel
	}
	// Never leave blank rows at the bottom while there are rows above.
	t.off = max(0, min(t.off, n-h+extra))
}

// dropRows empties the row cache.
func (t *timelinePane) dropRows() { clear(t.rows) }

func (t *timelinePane) setSize(w, h int) tea.Cmd {
	if w != t.w {
		t.dropRows()
	}
	if w != t.w || h != t.h {
		t.box.setSize(w, h)
		t.settle()
	}
	return nil
}

// setFocus expands the selected row's detail while the pane has the focus.
func (t *timelinePane) setFocus(focused bool) {
	t.box.setFocus(focused)
	if focused != t.expand {
		t.expand = focused
		t.settle()
	}
}

// Columns: time, agent, kind, detail.
const (
	timeW = 8
	kindW = describe.KindWidth
)

func (t *timelinePane) detailX() int { return 1 + timeW + 1 + t.agentColumn() + 1 + kindW + 1 }

// agentColumn is the width of the agent column: fixed for a pane width,
// so that a new agent with a long name never shifts every row (a shift
// rewrites the whole pane on the wire).
func (t *timelinePane) agentColumn() int {
	return clamp(t.w*9/40, 12, 20)
}

// unfold is the whole detail of the selected event, wrapped to the
// detail column: one line when it fits.
func (t *timelinePane) unfold(e *model.Event) []string {
	if e == nil {
		return nil
	}
	dw := t.w - t.detailX()
	if dw < 10 {
		return []string{""}
	}
	var full string
	switch p := e.Payload.(type) {
	case model.ReasoningSummary:
		full = p.Text
	case model.ProgressReported:
		full = string(p.Phase) + ": " + p.Message
	default:
		full = describe.Event(e, t.env.store).Detail
	}
	full = t.env.text(full)
	if width(flat(full)) <= dw && !strings.Contains(strings.TrimSpace(full), "\n") {
		return []string{""}
	}
	max := max(1, t.h-1)
	tail := t.env.sym.Ellipsis + " enter shows all"
	return wrap(strings.TrimSpace(full), dw, max, " "+tail)
}

func (t *timelinePane) render() []string {
	focused := t.hasFocus
	return t.cached(focused, func() []string {
		n := t.len()
		if n == 0 {
			if t.scope.q.empty() && t.scope.agents == nil {
				return t.placeholder("waiting for the first events" + t.env.sym.Ellipsis)
			}
			return t.placeholder("no events match")
		}
		t.buf = t.src.Window(t.buf[:0], t.off, t.h)
		lines := make([]string, 0, t.h)
		for i, e := range t.buf {
			if len(lines) >= t.h {
				break
			}
			selected := focused && t.off+i == t.sel
			switch {
			case selected && t.follow:
				// Following, the newest row is only marked in the
				// gutter: a bar that moved with every poll would repaint
				// a whole row each time.
				lines = append(lines, t.row(e, true))
			case selected:
				lines = append(lines, t.selectedRows(e, t.h-len(lines))...)
			default:
				lines = append(lines, t.row(e, false))
			}
		}
		return lines
	})
}

func (t *timelinePane) row(e *model.Event, marked bool) string {
	if !marked {
		if r, ok := t.rows[e]; ok {
			return r
		}
	}
	r := t.drawRow(e, marked)
	if !marked {
		if t.rows == nil || len(t.rows) > 4096 {
			t.rows = make(map[*model.Event]string)
		}
		t.rows[e] = r
	}
	return r
}

func (t *timelinePane) drawRow(e *model.Event, marked bool) string {
	st := t.env.st
	l := describe.Event(e, t.env.store)
	r := newRow(t.w, t.env.ascii)
	if marked {
		r.add(st.Accent, t.env.sym.PhaseArrow)
	} else {
		r.space(1)
	}
	// Each column carries the space after it in its own style, so a row
	// switches style only where the colour really changes.
	r.addCol(st.Text, t.env.clockTime(e.OccurredAt), timeW)
	r.addCol(t.env.agentStyle(e.Agent.ID), e.Agent.Name, t.agentColumn())
	ks, ds := levelStyles(st, l.Level)
	r.addCol(ks, t.env.text(l.Kind), kindW)
	r.add(ds, t.env.text(l.Detail))
	return r.String()
}

// selectedRows is the selected event: its row in the selection style,
// then the rest of its text unfolded under the detail column.
func (t *timelinePane) selectedRows(e *model.Event, room int) []string {
	st := t.env.st
	l := describe.Event(e, t.env.store)
	more := t.unfold(e)
	head := " " + t.env.clockTime(e.OccurredAt) + " " + padRight(e.Agent.Name, t.agentColumn()) + " " + padRight(t.env.text(l.Kind), kindW) + " "
	first := t.env.text(l.Detail)
	if len(more) > 1 {
		first = more[0]
	}
	out := []string{styled(st.Selected, head+first, t.w, t.env.ascii)}
	indent := blank(t.detailX())
	for _, m := range more[min(1, len(more)):] {
		if len(out) >= room {
			break
		}
		out = append(out, styled(st.Selected, indent+m, t.w, t.env.ascii))
	}
	return out
}

// levelStyles are the kind and detail styles of a describe level.
func levelStyles(st *theme.Styles, l describe.Level) (kind, detail theme.Style) {
	switch l {
	case describe.Good:
		return st.Good, st.Text
	case describe.Warn:
		return st.Warn, st.Warn
	case describe.Bad:
		return st.Bad, st.Bad
	case describe.Dim:
		return st.Muted, st.Muted
	}
	return st.Text, st.Text
}
