package ui

import (
	"strings"
	"time"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

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
		if a.Parent == nil && a.ParentID == "" {
			// Last: on a short terminal the agent's own state stays in view.
			requestFields(f, e.store.Request())
		}
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

// requestFields are what the run was asked to do, on its root agent's
// detail: the prompt (cut to a few lines), model and effort, urls and cap,
// as far as firewatch knows them.
func requestFields(f *fields, q model.Request) {
	f.field("asked", describe.OneLine(q.Prompt, maxPromptShown))
	m := q.Model
	if q.Effort != "" {
		m += " / effort " + q.Effort
	}
	f.field("model", strings.TrimPrefix(m, " / "))
	var urls []string
	for i, u := range q.URLs {
		if i == maxURLsShown {
			urls = append(urls, "and "+itoa(len(q.URLs)-i)+" more")
			break
		}
		urls = append(urls, describe.OneLine(u, 200))
	}
	f.field("urls", strings.Join(urls, " "))
	if q.MaxCredits > 0 {
		f.field("cap", describe.Credits(q.MaxCredits))
	}
}

// The prompt and urls shown in a detail's head: enough to recognise the
// run, not the whole 10 000 characters.
const (
	maxPromptShown = 200
	maxURLsShown   = 5
)
