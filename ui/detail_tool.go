package ui

import (
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

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
	// Named as the timeline names tools (the tool calls pane too).
	nameW := min(28, max(18, w/4))
	name := toolCell(t.Name, nameW, e.sym.Ellipsis)
	if selected {
		return styled(st.Selected, " "+symbol+" "+e.clockTime(t.StartedAt())+" "+padRight(name, nameW)+" "+padLeft(dur, 10)+"  "+params, w, e.ascii)
	}
	r := newRow(w, e.ascii)
	r.space(1).add(symSt, symbol).space(1)
	r.addCol(st.Muted, e.clockTime(t.StartedAt()), timeW)
	r.addCol(st.Text, name, nameW)
	r.addFixed(st.Text, padLeft(dur, 10), 10)
	r.space(2)
	r.add(st.Muted, params)
	return r.String()
}
