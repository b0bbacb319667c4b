package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
)

// newDetail is what enter opens for a row (in a pane, in the waterfall, in
// another detail's list): the detail view of its kind.
//
//   - an event: every field, times in local time and since the run's
//     start, the payload (a tool call's parameters or result as JSON), and
//     the raw event as JSON;
//   - a tool call: agent, name, start, finish, duration, then tabs with
//     its parameters and result (highlighted, folded where large) and both
//     raw events;
//   - an artifact: its version history and the content of the selected
//     version (see artifactView);
//   - an agent: its duration and outcome, then its tool calls, browser
//     sessions, errors, events and subagents, each row openable;
//   - a browser session: agent, times, live-view link and viewport, and
//     its raw events.
func newDetail(e *env, sel Selection) overlay {
	switch {
	case sel.Event != nil:
		return newEventDetail(e, sel.Event)
	case sel.ToolCall != nil:
		return newToolDetail(e, sel.ToolCall)
	case sel.Agent != nil:
		return newAgentDetail(e, sel.Agent)
	case sel.Artifact != nil:
		return newArtifactView(e, sel.Artifact)
	case sel.Session != nil:
		return newSessionDetail(e, sel.Session, nil)
	case sel.Live != nil:
		return newSessionDetail(e, nil, sel.Live)
	}
	return nil
}

// detailView is the detail of one row: a few lines of fields at the top,
// then tabs (tab and shift+tab switch), each a body.
type detailView struct {
	stackBase
	e    *env
	name string

	head textView // the fields at the top
	tabs []detailTab
	cur  int
	w, h int

	// refresh rebuilds the head (and what else changed) from live data;
	// concerns says whether a merge changed what the detail shows; ticks
	// says whether the head shows a live duration.
	refresh  func()
	concerns func(d *model.Delta) bool
	ticks    func() bool

	// copy and link are what y and o act on when the tab's body has
	// nothing more precise.
	copy func() (text, what string)
	link func() (url, what string)
}

type detailTab struct {
	name   string
	body   body
	bw, bh int // the size body was last given
}

func newDetailView(e *env, name string) *detailView {
	return &detailView{e: e, name: name, head: textView{ascii: e.ascii}}
}

func (d *detailView) title() string { return d.name }

func (d *detailView) addTab(name string, b body) {
	d.tabs = append(d.tabs, detailTab{name: name, body: b})
}

// setTab replaces tab i's body (a call that finished while shown).
func (d *detailView) setTab(i int, name string, b body) {
	if i < len(d.tabs) {
		d.tabs[i] = detailTab{name: name, body: b}
	}
}

func (d *detailView) setHead(lines []textLine) {
	d.head.setLines(lines)
}

// headRows is the number of rows the head takes: at most two fifths of
// the height, so that the tab's body keeps the most room.
func (d *detailView) headRows() int {
	n := len(d.head.layout())
	if n == 0 {
		return 0
	}
	return min(n, max(2, d.h*2/5))
}

func (d *detailView) setSize(w, h int) tea.Cmd {
	d.w, d.h = w, h
	return tea.Batch(d.head.setSize(w, h), d.sizeBody())
}

// sizeBody gives the current tab its box, when it changed.
func (d *detailView) sizeBody() tea.Cmd {
	if len(d.tabs) == 0 || d.w <= 0 {
		return nil
	}
	t := &d.tabs[d.cur]
	bw, bh := d.w, max(1, d.h-d.headRows()-1)
	if t.bw == bw && t.bh == bh {
		return nil
	}
	t.bw, t.bh = bw, bh
	return t.body.setSize(bw, bh)
}

func (d *detailView) update(msg tea.Msg, k keyMap) (overlay, tea.Cmd) {
	dk := d.e.dk
	var b body
	if len(d.tabs) > 0 {
		b = d.tabs[d.cur].body
	}
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(km, dk.Back):
			return d.back, nil
		case key.Matches(km, dk.NextTab), key.Matches(km, dk.PrevTab):
			if n := len(d.tabs); n > 1 {
				dir := 1
				if key.Matches(km, dk.PrevTab) {
					dir = -1
				}
				d.cur = ((d.cur+dir)%n + n) % n
				return d, d.sizeBody()
			}
			return d, nil
		case key.Matches(km, k.Copy):
			text, what := "", ""
			if b != nil {
				text, what = b.copyText()
			}
			if text == "" && d.copy != nil {
				text, what = d.copy()
			}
			return d, d.e.copy(text, what)
		case key.Matches(km, k.Open):
			if d.link == nil {
				return d, d.e.open("", "")
			}
			url, what := d.link()
			return d, d.e.open(url, what)
		case key.Matches(km, k.Save), key.Matches(km, k.Diff):
			return d, flash("s and d work in an artifact's details")
		}
	}
	if b == nil {
		return d, nil
	}
	return d, b.update(msg, k)
}

func (d *detailView) apply(delta *model.Delta) {
	if d.refresh != nil && d.concerns != nil && d.concerns(delta) {
		d.refresh()
	}
}

func (d *detailView) tick() {
	if d.refresh != nil && d.ticks != nil && d.ticks() {
		d.refresh()
	}
}

func (d *detailView) render() []string {
	out := make([]string, 0, d.h)
	head := d.head.layout()
	n := d.headRows()
	out = append(out, d.head.rowsAt(0, n)...)
	if n < len(head) && n > 0 {
		// The head did not fit: say so on its last row.
		out[n-1] = styled(d.e.st.Muted, " "+d.e.sym.Ellipsis+" "+describe.Count(len(head)-n+1, "more line")+" (a taller terminal shows them)", d.w, d.e.ascii)
	}
	if len(d.tabs) == 0 {
		return out
	}
	out = append(out, d.tabBar())
	out = append(out, d.tabs[d.cur].body.render()...)
	if len(out) > d.h {
		out = out[:d.h]
	}
	return out
}

// tabBar is "─ Parameters ─ Result ─ Start event ─────": the current tab
// stands out.
func (d *detailView) tabBar() string {
	st, sym := d.e.st, d.e.sym
	r := newRow(d.w, d.e.ascii)
	r.add(st.Border, sym.Rule)
	for i, t := range d.tabs {
		if i == d.cur {
			r.add(st.TitleFocus, " "+t.name+" ")
		} else {
			r.add(st.Muted, " "+t.name+" ")
		}
		r.add(st.Border, sym.Rule)
	}
	r.add(st.Border, strings.Repeat(sym.Rule, max(0, r.left())))
	return r.String()
}

// helpKeys: the body's first two keys, the detail's own, then the rest
// of the body's (the footer drops what does not fit from the end).
func (d *detailView) helpKeys(k keyMap) []key.Binding {
	var bk []key.Binding
	if len(d.tabs) > 0 {
		bk = d.tabs[d.cur].body.helpKeys(k)
	}
	n := min(2, len(bk))
	out := append([]key.Binding{}, bk[:n]...)
	if len(d.tabs) > 1 {
		out = append(out, d.e.dk.NextTab)
	}
	out = append(out, d.e.dk.Copy)
	if d.link != nil {
		if url, _ := d.link(); url != "" {
			out = append(out, d.e.dk.OpenLink)
		}
	}
	out = append(out, d.e.dk.Back)
	return append(out, bk[n:]...)
}
