package ui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
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

// stackBase is what every overlay opened over another keeps: the one to
// go back to on esc (nil: the main screen).
type stackBase struct{ back overlay }

func (s *stackBase) under() overlay     { return s.back }
func (s *stackBase) setUnder(o overlay) { s.back = o }

// stacked overlays go back to the overlay they were opened from.
type stacked interface {
	under() overlay
	setUnder(o overlay)
}

// liveOverlay is an overlay that shows live data: the root tells it about
// each merge and each clock tick.
type liveOverlay interface {
	apply(d *model.Delta)
	tick()
}

// notified overlays get the results of the commands they started
// (snapshots, diffs, markdown renders), wherever they are in the stack.
type notified interface {
	notify(msg tea.Msg) tea.Cmd
}

// detailView is the detail of one row: a few lines of fields at the top,
// then tabs (tab and shift+tab switch), each a body.
type detailView struct {
	stackBase
	e    *env
	name string

	head    textView // the fields at the top
	tabs    []detailTab
	cur     int
	w, h    int
	headMax int

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
	d.head.lines = lines
	d.head.wrapped = nil
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
	d.head.setSize(w, h)
	return d.sizeBody()
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
			d.e.flash = "s and d work in an artifact's details"
			return d, nil
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
	out = append(out, head[:n]...)
	if n < len(head) && n > 0 {
		// The head did not fit: say so on its last row.
		out[n-1] = styled(d.e.st.Muted, " "+d.e.sym.Ellipsis+" "+describe.Count(len(head)-n+1, "more line")+" (a taller terminal shows them)", d.w, d.e.ascii)
	}
	if len(d.tabs) == 0 {
		return out
	}
	out = append(out, d.tabBar())
	out = append(out, d.tabs[d.cur].body.view()...)
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
		bk = d.tabs[d.cur].body.keys(k)
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

// Fields.

// fields builds the lines of a detail: "label  value" rows, headings and
// text.
type fields struct {
	env   *env
	lines []textLine
}

const labelW = 13

func (f *fields) field(label, value string) {
	if value == "" {
		return
	}
	f.lines = append(f.lines, textLine{st: f.env.st.Text, text: padRight(label, labelW) + " " + value, hang: labelW + 1})
}

// badField is a field in the error style, wrapped like the others.
func (f *fields) badField(label, value string) {
	if value == "" {
		return
	}
	f.lines = append(f.lines, textLine{st: f.env.st.Bad, text: padRight(label, labelW) + " " + value, hang: labelW + 1})
}

// styledField is a one-line field whose value has its own style (a state,
// an error); it is cut, not wrapped, at the width.
func (f *fields) styledField(label string, st styleText) {
	if st.text == "" {
		return
	}
	text := " " + f.env.st.Text.Render(padRight(label, labelW)+" ") + st.st.Render(flat(st.text))
	f.lines = append(f.lines, textLine{text: text, styled: true})
}

func (f *fields) heading(s string) {
	f.lines = append(f.lines, textLine{}, textLine{st: f.env.st.Bold, text: s})
}

func (f *fields) text(s string) {
	for _, l := range strings.Split(strings.TrimRight(model.Sanitize(s), "\n"), "\n") {
		f.lines = append(f.lines, textLine{st: f.env.st.Text, text: "  " + l})
	}
}

func (f *fields) muted(s string) {
	f.lines = append(f.lines, textLine{st: f.env.st.Muted, text: s})
}

// when is a time in local time and relative to the run's start.
func (f *fields) when(t time.Time) string { return f.env.when(t) }

func (e *env) when(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	s := t.In(e.loc).Format("2006-01-02 15:04:05.000 MST")
	if start := e.store.Run().StartedAt; !start.IsZero() {
		rel := t.Sub(start)
		sign := "+"
		if rel < 0 {
			sign, rel = "-", -rel
		}
		s += "  (" + sign + text.Duration(rel) + " into the run)"
	}
	return s
}

func (e *env) agentName(id string) string {
	if a := e.store.Agent(id); a != nil && a.Name != "" {
		return a.Name + " (" + id + ")"
	}
	return id
}

func (f *fields) traceError(te *model.TraceError) {
	if te == nil {
		return
	}
	f.styledField("error", styleText{f.env.st.Bad, orDash(string(te.Code)) + " · source " + orDash(string(te.Source)) + " · " + retryable(te.Retryable)})
	if te.Message != "" {
		f.field("message", te.Message)
	}
}

type styleText struct {
	st   theme.Style
	text string
}

// Event.

func newEventDetail(e *env, ev *model.Event) overlay {
	d := newDetailView(e, "Event "+string(ev.Type))
	l := describe.Event(ev, e.store)
	d.setHead([]textLine{{st: e.st.Bold, text: e.text(l.Kind + "  " + flat(l.Detail))}})
	f := &fields{env: e}
	f.field("type", string(ev.Type))
	f.field("event id", ev.ID)
	f.field("run id", ev.RunID)
	f.field("schema", itoa(ev.SchemaVersion))
	f.field("occurred at", f.when(ev.OccurredAt))
	f.field("agent", e.agentName(ev.Agent.ID))
	f.field("role", string(ev.Agent.Role))
	if ev.Agent.ParentID != "" {
		f.field("parent", e.agentName(ev.Agent.ParentID))
	}
	f.field("sequence", itoa(int(ev.ProducerSequence))+" (producerSequence)")
	var payload jsontext.Value
	payloadName := ""
	switch p := ev.Payload.(type) {
	case model.ReasoningSummary:
		f.heading("Reasoning")
		f.text(p.Text)
	case model.ProgressReported:
		f.field("phase", string(p.Phase))
		f.field("message", p.Message)
	case model.ToolCallStarted:
		f.field("tool", p.ToolName)
		f.field("tool call id", p.ToolCallID)
		f.field("parameters", describe.JSON(p.Parameters, 200))
		payload, payloadName = p.Parameters, "Parameters"
	case model.ToolCallFinished:
		f.field("tool", p.ToolName)
		f.field("tool call id", p.ToolCallID)
		if t := e.store.ToolCall(p.ToolCallID); t != nil {
			if dur, ok := t.Duration(); ok {
				f.field("duration", text.Duration(dur))
			}
		}
		f.field("result", describe.JSON(p.Result, 200))
		payload, payloadName = p.Result, "Result"
	case model.ErrorOccurred:
		f.traceError(&p.Error)
	case model.RunFinished:
		f.field("outcome", string(p.Outcome))
		f.traceError(p.Error)
	case model.AgentFinished:
		f.field("outcome", string(p.Outcome))
		f.field("duration", text.Duration(time.Duration(p.DurationMs)*time.Millisecond))
		f.traceError(p.Error)
	case model.ArtifactUpdated:
		a := p.Artifact
		f.field("artifact", a.ArtifactID)
		f.field("kind", string(a.Kind))
		f.field("path", a.Path)
		f.field("change", string(a.Change))
		f.field("fields", strings.Join(a.ChangedFields, ", "))
		if a.HasItemCount {
			f.field("items", itoa(a.ItemCount))
		}
		f.field("snapshot id", a.SnapshotID)
		f.field("tool call", a.SourceToolCallID)
	case model.BrowserSessionStarted:
		f.field("session id", p.SessionID)
	case model.BrowserSessionFinished:
		f.field("session id", p.SessionID)
		f.field("duration", text.Duration(time.Duration(p.DurationMs)*time.Millisecond))
	case model.RunCancelRequested:
		f.field("reason", p.Reason)
	}
	f.lines = append(f.lines, textLine{})
	f.muted(" tab shows the raw event · y copies it")
	d.addTab("Fields", newTextBody(e, f.lines))
	if payloadName != "" {
		d.addTab(payloadName, newJSONBody(e, payload, strings.ToLower(payloadName)))
	}
	d.addTab("Raw event", newJSONBody(e, ev.Raw, "raw event"))
	d.copy = func() (string, string) { return string(ev.Raw), "the raw event JSON" }
	if s := sessionOf(e, ev); s != nil {
		d.link = func() (string, string) { return liveLink(s), "live-view link" }
	}
	return d
}

// sessionOf is the browser session a browser.session.* event is about.
func sessionOf(e *env, ev *model.Event) *model.BrowserSession {
	switch p := ev.Payload.(type) {
	case model.BrowserSessionStarted:
		return e.store.Session(p.SessionID)
	case model.BrowserSessionFinished:
		return e.store.Session(p.SessionID)
	}
	return nil
}

// liveLink is a session's live-view link, "" when the poll did not ask
// for it or the session is not open.
func liveLink(b *model.BrowserSession) string {
	if b == nil || b.Live == nil {
		return ""
	}
	return b.Live.LiveViewURL
}

// Tool call.

func newToolDetail(e *env, t *model.ToolCall) overlay {
	d := newDetailView(e, "Tool call "+t.Name)
	finished := false
	build := func() {
		f := &fields{env: e}
		f.field("tool", t.Name+" (call "+t.ID+")")
		f.field("agent", e.agentName(t.AgentID))
		state, stSt := string(t.State), e.st.Text
		switch {
		case t.Failed():
			state, stSt = e.sym.Failed+" failed", e.st.Bad
		case t.State == model.StateRunning:
			state, stSt = e.sym.Running+" running", e.st.Running
			if dur, ok := e.since(t.StartedAt()); ok {
				state += " for " + text.Elapsed(dur)
			}
		case t.State == model.StateUnfinished:
			state, stSt = e.sym.Unfinished+" unfinished: the run or its agent ended first", e.st.Warn
		case t.State == model.StateFinished:
			state, stSt = e.sym.Succeeded+" finished", e.st.Good
		}
		if dur, ok := t.Duration(); ok {
			state += " in " + text.Duration(dur)
		}
		f.styledField("state", styleText{stSt, state})
		f.field("started", f.when(t.StartedAt()))
		if t.Finished != nil {
			f.field("finished", f.when(t.FinishedAt()))
		}
		for _, en := range t.Errors {
			f.badField("error", flat(describe.Error(&en.Error)))
		}
		for _, a := range t.Artifacts {
			name := a.Path
			if name == "" {
				name = a.ID
			}
			f.field("artifact", name+" ("+string(a.Kind)+")")
		}
		d.setHead(f.lines)
		if t.Finished != nil && !finished {
			finished = true
			d.setTab(1, "Result", newJSONBody(e, t.Result, "result"))
			d.setTab(3, "Finish event", newJSONBody(e, t.Finished.Raw, "finish event"))
		}
	}
	d.addTab("Parameters", newJSONBody(e, t.Parameters, "parameters"))
	d.addTab("Result", newTextBody(e, []textLine{{st: e.st.Muted, text: "still running: the result comes with tool_call.finished"}}))
	if t.Started != nil {
		d.addTab("Start event", newJSONBody(e, t.Started.Raw, "start event"))
	} else {
		d.addTab("Start event", newTextBody(e, []textLine{{st: e.st.Muted, text: "no tool_call.started was seen for this call"}}))
	}
	d.addTab("Finish event", newTextBody(e, []textLine{{st: e.st.Muted, text: "not finished yet"}}))
	build()
	d.refresh = build
	d.concerns = func(delta *model.Delta) bool {
		for _, x := range delta.ToolCalls {
			if x == t {
				return true
			}
		}
		return delta.RunChanged || len(delta.Artifacts) > 0
	}
	d.ticks = func() bool { return t.State == model.StateRunning }
	d.copy = func() (string, string) { return t.ID, "tool call id" }
	return d
}

// Agent.

func newAgentDetail(e *env, a *model.Agent) overlay {
	d := newDetailView(e, "Agent "+a.Name)
	var errs []*model.ErrorEntry
	build := func() {
		f := &fields{env: e}
		f.field("agent", a.Name+" ("+a.ID+")")
		role := string(a.Role)
		if a.Parent != nil {
			role += ", under " + a.Parent.Name
		} else if a.ParentID != "" {
			role += ", parent " + a.ParentID + " never seen"
		}
		f.field("role", role)
		symbol, symSt := agentSymbol(a, e.st, e.sym)
		state := symbol + " running"
		if a.State == model.StateFinished {
			state = symbol + " " + orDash(string(a.Outcome))
		}
		switch {
		case a.HasDuration:
			state += " in " + text.Duration(time.Duration(a.DurationMs)*time.Millisecond)
		case a.State == model.StateRunning && e.store.Run().State == model.StateRunning:
			if dur, ok := e.since(a.StartedAt); ok {
				state += " for " + text.Elapsed(dur)
			}
		}
		f.styledField("state", styleText{symSt, state})
		f.field("started", f.when(a.StartedAt))
		if !a.FinishedAt.IsZero() {
			f.field("finished", f.when(a.FinishedAt))
		}
		f.traceError(a.Error)
		d.setHead(f.lines)
		errs = errs[:0]
		for _, en := range e.store.Errors() {
			if en.AgentID == a.ID {
				errs = append(errs, en)
			}
		}
		d.tabs[0].name = "Tool calls " + itoa(len(a.ToolCalls))
		d.tabs[1].name = "Sessions " + itoa(len(a.Sessions))
		d.tabs[2].name = "Errors " + itoa(len(errs))
		d.tabs[3].name = "Events " + itoa(len(a.Events))
		d.tabs[4].name = "Subagents " + itoa(len(a.Children))
	}
	st := e.st
	d.addTab("", &listBody{e: e, focused: true, empty: "no tool calls",
		n: func() int { return len(a.ToolCalls) },
		row: func(i, w int, sel bool) string {
			t := a.ToolCalls[len(a.ToolCalls)-1-i]
			return toolRow(e, t, w, sel)
		},
		open: func(i int) Selection { return Selection{ToolCall: a.ToolCalls[len(a.ToolCalls)-1-i]} },
		copy: func(i int) (string, string) { return a.ToolCalls[len(a.ToolCalls)-1-i].ID, "tool call id" },
	})
	d.addTab("", &listBody{e: e, focused: true, empty: "no browser sessions",
		n: func() int { return len(a.Sessions) },
		row: func(i, w int, sel bool) string {
			b := a.Sessions[i]
			symbol, symSt, state := sessionState(e, b)
			r := newRow(w, e.ascii)
			if sel {
				return styled(st.Selected, " "+symbol+" "+padRight(describe.ShortID(b.ID), 9)+padRight(state, 22)+liveLink(b), w, e.ascii)
			}
			r.space(1).add(symSt, symbol).space(1)
			r.addFixed(st.Muted, describe.ShortID(b.ID), 9)
			r.addFixed(symSt, state, 22)
			r.add(st.Accent, liveLink(b))
			return r.String()
		},
		open: func(i int) Selection { return Selection{Session: a.Sessions[i]} },
		copy: func(i int) (string, string) {
			if l := liveLink(a.Sessions[i]); l != "" {
				return l, "live-view link"
			}
			return a.Sessions[i].ID, "browser session id"
		},
	})
	d.addTab("", &listBody{e: e, focused: true, empty: "no errors",
		n: func() int { return len(errs) },
		row: func(i, w int, sel bool) string {
			en := errs[i]
			text := " " + e.clockTime(en.Event.OccurredAt) + " " + flat(describe.Error(&en.Error))
			if sel {
				return styled(st.Selected, text, w, e.ascii)
			}
			return styled(st.Bad, text, w, e.ascii)
		},
		open: func(i int) Selection { return Selection{Event: errs[i].Event} },
		copy: func(i int) (string, string) { return string(errs[i].Event.Raw), "the raw event JSON" },
	})
	d.addTab("", &listBody{e: e, focused: true, empty: "no events",
		n: func() int { return len(a.Events) },
		row: func(i, w int, sel bool) string {
			ev := a.Events[i]
			l := describe.Event(ev, e.store)
			if sel {
				return styled(st.Selected, " "+e.clockTime(ev.OccurredAt)+" "+padRight(e.text(l.Kind), kindW)+" "+e.text(l.Detail), w, e.ascii)
			}
			ks, ds := levelStyles(st, l.Level)
			r := newRow(w, e.ascii)
			r.space(1)
			r.addCol(st.Text, e.clockTime(ev.OccurredAt), timeW)
			r.addCol(ks, e.text(l.Kind), kindW)
			r.add(ds, e.text(l.Detail))
			return r.String()
		},
		open: func(i int) Selection { return Selection{Event: a.Events[i]} },
		copy: func(i int) (string, string) { return string(a.Events[i].Raw), "the raw event JSON" },
	})
	d.addTab("", &listBody{e: e, focused: true, empty: "no subagents",
		n: func() int { return len(a.Children) },
		row: func(i, w int, sel bool) string {
			c := a.Children[i]
			symbol, symSt := agentSymbol(c, st, e.sym)
			dur := ""
			if c.HasDuration {
				dur = text.Duration(time.Duration(c.DurationMs) * time.Millisecond)
			}
			if sel {
				return styled(st.Selected, " "+symbol+" "+padRight(c.Name, 24)+" "+padLeft(dur, 8)+"  "+itoa(len(c.ToolCalls))+" tool calls", w, e.ascii)
			}
			r := newRow(w, e.ascii)
			r.space(1).add(symSt, symbol).space(1)
			r.addCol(e.agentStyle(c.ID), c.Name, 24)
			r.addFixed(st.Muted, padLeft(dur, 8), 8)
			r.space(2).add(st.Muted, describe.Count(len(c.ToolCalls), "tool call"))
			return r.String()
		},
		open: func(i int) Selection { return Selection{Agent: a.Children[i]} },
		copy: func(i int) (string, string) { return a.Children[i].ID, "agent id" },
	})
	build()
	d.refresh = build
	d.concerns = func(delta *model.Delta) bool {
		for _, x := range delta.Agents {
			if x == a {
				return true
			}
		}
		return delta.TreeChanged || delta.RunChanged || len(delta.Errors) > 0
	}
	d.ticks = func() bool { return a.State == model.StateRunning }
	d.copy = func() (string, string) { return a.ID, "agent id" }
	return d
}

// toolRow is a tool call as a row of a list: state, name, duration, start
// time and its parameters.
func toolRow(e *env, t *model.ToolCall, w int, selected bool) string {
	st, sym := e.st, e.sym
	symbol, symSt := sym.Succeeded, st.Good
	dur := ""
	switch t.State {
	case model.StateRunning:
		symbol, symSt = sym.Running, st.Running
		if d, ok := e.since(t.StartedAt()); ok {
			dur = text.Elapsed(d)
		}
	case model.StateUnfinished:
		symbol, symSt, dur = sym.Unfinished, st.Warn, "unfinished"
	default:
		if d, ok := t.Duration(); ok {
			dur = text.Duration(d)
		}
	}
	if t.Failed() {
		symbol, symSt = sym.Failed, st.Bad
	}
	params := e.text(describe.JSON(t.Parameters, 120))
	if selected {
		return styled(st.Selected, " "+symbol+" "+e.clockTime(t.StartedAt())+" "+padRight(shortTool(t.Name), 18)+" "+padLeft(dur, 10)+"  "+params, w, e.ascii)
	}
	r := newRow(w, e.ascii)
	r.space(1).add(symSt, symbol).space(1)
	r.addCol(st.Muted, e.clockTime(t.StartedAt()), timeW)
	r.addCol(st.Text, shortTool(t.Name), 18)
	r.addFixed(st.Text, padLeft(dur, 10), 10)
	r.space(2)
	r.add(st.Muted, params)
	return r.String()
}

// sessionState is a session's symbol, its style and a few words.
func sessionState(e *env, b *model.BrowserSession) (string, theme.Style, string) {
	st, sym := e.st, e.sym
	switch b.State {
	case model.StateRunning:
		s := "open"
		if t := startOf(b); !t.IsZero() {
			s += " since " + e.clockTime(t)
		}
		return sym.Session, st.Running, s
	case model.StateUnfinished:
		return sym.Unfinished, st.Warn, "unfinished"
	}
	s := "closed"
	if b.HasDuration {
		s += " after " + text.Duration(time.Duration(b.DurationMs)*time.Millisecond)
	}
	return sym.Pending, st.Muted, s
}

// Browser session.

func newSessionDetail(e *env, b *model.BrowserSession, live *model.LiveSession) overlay {
	id := ""
	if b != nil {
		id = b.ID
	} else {
		id = live.ID
	}
	d := newDetailView(e, "Browser session "+describe.ShortID(id))
	current := func() *model.LiveSession {
		if b != nil {
			return b.Live
		}
		return live
	}
	var fieldsBody *textBody
	build := func() {
		f := &fields{env: e}
		f.field("session id", id)
		if b != nil {
			f.field("agent", e.agentName(b.AgentID))
			symbol, symSt, state := sessionState(e, b)
			f.styledField("state", styleText{symSt, symbol + " " + state})
			if b.Started != nil {
				f.field("opened", f.when(b.Started.OccurredAt))
			}
			if b.Finished != nil {
				f.field("closed", f.when(b.Finished.OccurredAt))
			}
			if b.HasDuration {
				f.field("duration", text.Duration(time.Duration(b.DurationMs)*time.Millisecond))
			} else if b.State == model.StateRunning {
				if dur, ok := e.since(startOf(b)); ok {
					f.field("open for", text.Elapsed(dur))
				}
			}
		} else {
			f.field("agent", "(the trace has not mentioned this session yet)")
		}
		switch lv := current(); {
		case lv != nil:
			f.styledField("live view", styleText{e.st.Accent, lv.LiveViewURL})
			if lv.ViewportWidth > 0 || lv.ViewportHeight > 0 {
				f.field("viewport", itoa(lv.ViewportWidth)+"x"+itoa(lv.ViewportHeight))
			}
			f.lines = append(f.lines, textLine{})
			f.muted(" o opens the live view in a browser (or copies it where there is none) · y copies it")
		case !e.liveView:
			f.field("live view", "not asked for: l turns live view on (the next poll asks the trace for links)")
		case b != nil && b.State == model.StateRunning:
			f.field("live view", "not in the last poll's active sessions yet")
		default:
			f.field("live view", "none: the session is closed")
		}
		if fieldsBody == nil {
			fieldsBody = newTextBody(e, f.lines)
		} else {
			fieldsBody.tv.lines, fieldsBody.tv.wrapped = f.lines, nil
			fieldsBody.tv.clamp()
		}
	}
	build()
	d.addTab("Session", fieldsBody)
	if b != nil && b.Started != nil {
		d.addTab("Start event", newJSONBody(e, b.Started.Raw, "start event"))
	}
	if b != nil && b.Finished != nil {
		d.addTab("Finish event", newJSONBody(e, b.Finished.Raw, "finish event"))
	}
	d.refresh = build
	d.concerns = func(delta *model.Delta) bool {
		if delta.LiveSessions || delta.RunChanged {
			return true
		}
		for _, x := range delta.Sessions {
			if x == b {
				return true
			}
		}
		return false
	}
	d.ticks = func() bool { return b != nil && b.State == model.StateRunning }
	d.link = func() (string, string) {
		if lv := current(); lv != nil {
			return lv.LiveViewURL, "live-view link"
		}
		return "", ""
	}
	d.copy = func() (string, string) {
		if lv := current(); lv != nil && lv.LiveViewURL != "" {
			return lv.LiveViewURL, "live-view link"
		}
		return id, "browser session id"
	}
	return d
}
