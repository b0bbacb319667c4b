package ui

import (
	"slices"
	"strconv"

	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/attn"
)

// toolsPane lists tool calls: the running ones first (oldest first, with a
// live elapsed time), then the finished and unfinished ones, the most
// recently ended first, with their durations; failed and unfinished calls
// are marked.
//
// Its index follows the deltas: a small set of running calls, and the
// ended calls in the order they ended (a sequence number each), per agent,
// so that a subtree's ended calls are a union addressed by rank, like the
// timeline's rows.
type toolsPane struct {
	nav
	scope *scope

	running []*model.ToolCall       // every running call, by start
	ended   []ended                 // every ended call, in the order it ended
	seq     map[*model.ToolCall]int // ended call → its index in ended; running → -1
	byAgent map[string][]ended      // ended calls in scope by agent (q applied)
	src     union[ended]            // the ended calls in scope
	runVis  []*model.ToolCall       // running calls in scope
	buf     []ended
	names   int // the widest tool name seen, in cells
}

type ended struct {
	t   *model.ToolCall
	seq int
}

func newTools(e *env) *toolsPane {
	p := &toolsPane{nav: nav{box: box{env: e, dirty: true}}, scope: &scope{}, seq: map[*model.ToolCall]int{}, byAgent: map[string][]ended{}}
	p.src.key = func(x ended) int { return x.seq }
	p.count = p.len
	return p
}

func (p *toolsPane) name() string { return "Tool calls" }

func (p *toolsPane) len() int { return len(p.runVis) + p.src.Len() }

func (p *toolsPane) info() string {
	if p.len() == 0 {
		return ""
	}
	return strconv.Itoa(len(p.runVis)) + " running · " + describe.Tokens(float64(p.src.Len())) + " done"
}

func (p *toolsPane) helpKeys(k keyMap) []key.Binding {
	return []key.Binding{k.Move, k.Enter, k.Copy, k.PageDown}
}

func (p *toolsPane) inScope(t *model.ToolCall) bool {
	return p.scope.hasAgent(t.AgentID) && p.scope.q.tool(t)
}

func (p *toolsPane) apply(d *model.Delta) {
	if len(d.ToolCalls) == 0 {
		return
	}
	var newlyEnded []*model.ToolCall
	for _, t := range d.ToolCalls {
		s, known := p.seq[t]
		if !known {
			p.names = max(p.names, width(describe.ToolName(t.Name)))
		}
		switch {
		case t.State == model.StateRunning && !known:
			p.seq[t] = -1
			p.running = append(p.running, t)
		case t.State != model.StateRunning && (!known || s == -1):
			if known {
				p.running = slices.DeleteFunc(p.running, func(x *model.ToolCall) bool { return x == t })
			}
			newlyEnded = append(newlyEnded, t)
		}
	}
	// Calls that ended in the same poll: in the order of their finishes.
	slices.SortStableFunc(newlyEnded, func(a, b *model.ToolCall) int { return endPos(a) - endPos(b) })
	for _, t := range newlyEnded {
		x := ended{t: t, seq: len(p.ended)}
		p.seq[t] = x.seq
		p.ended = append(p.ended, x)
		if p.scope.q.tool(t) {
			p.byAgent[t.AgentID] = append(p.byAgent[t.AgentID], x)
		}
	}
	p.rebuild()
	p.dirty = true
}

// endPos is where a call ended in the timeline: its finish, else its start.
func endPos(t *model.ToolCall) int {
	if t.Finished != nil {
		return t.Finished.Pos()
	}
	if t.Started != nil {
		return t.Started.Pos()
	}
	return 0
}

// rebuild points the union at the per-agent lists in scope, and filters
// the running calls. O(agents + running).
func (p *toolsPane) rebuild() {
	p.src.span = len(p.ended)
	p.src.lists = p.src.lists[:0]
	if p.scope.list == nil {
		if p.scope.q.empty() {
			p.src.lists = append(p.src.lists, p.ended)
		} else {
			for _, a := range p.env.store.Agents() {
				if l := p.byAgent[a.ID]; len(l) > 0 {
					p.src.lists = append(p.src.lists, l)
				}
			}
		}
	} else {
		for _, a := range p.scope.list {
			if l := p.byAgent[a.ID]; len(l) > 0 {
				p.src.lists = append(p.src.lists, l)
			}
		}
	}
	p.runVis = p.runVis[:0]
	for _, t := range p.running {
		if p.inScope(t) {
			p.runVis = append(p.runVis, t)
		}
	}
	p.fix(p.len(), p.h)
}

func (p *toolsPane) setScope(s *scope) {
	qChanged := s.q != p.scope.q
	p.scope = s
	if qChanged {
		// One pass over the ended calls when the filter changes.
		p.byAgent = map[string][]ended{}
		for _, x := range p.ended {
			if s.q.tool(x.t) {
				p.byAgent[x.t.AgentID] = append(p.byAgent[x.t.AgentID], x)
			}
		}
	}
	p.sel, p.off = 0, 0
	p.rebuild()
	p.dirty = true
}

func (p *toolsPane) tick() {
	if len(p.runVis) > 0 && p.off < len(p.runVis) {
		p.dirty = true
	}
}

// at is the call on row i: running calls, then ended ones newest first.
func (p *toolsPane) at(i int) *model.ToolCall {
	if i < len(p.runVis) {
		return p.runVis[i]
	}
	r := p.src.Len() - 1 - (i - len(p.runVis))
	x, ok := p.src.At(r)
	if !ok {
		return nil
	}
	return x.t
}

func (p *toolsPane) selection() Selection {
	if t := p.at(p.sel); t != nil {
		return Selection{ToolCall: t}
	}
	return Selection{}
}

func (p *toolsPane) render() []string {
	focused := p.hasFocus
	return p.cached(focused, func() []string {
		n := p.len()
		if n == 0 {
			if p.scope.q.empty() && p.scope.agents == nil {
				return p.placeholder("no tool calls yet")
			}
			return p.placeholder("no tool calls match")
		}
		var lines []string
		end := min(n, p.off+p.h)
		i := p.off
		for ; i < end && i < len(p.runVis); i++ {
			lines = append(lines, p.row(p.runVis[i], focused && i == p.sel))
		}
		if i < end {
			// Ended calls newest first: ranks count down from the top row.
			e := p.src.Len() - 1 - (end - 1 - len(p.runVis))
			s := p.src.Len() - 1 - (i - len(p.runVis))
			p.buf = p.src.Window(p.buf[:0], e, s-e+1)
			for j := len(p.buf) - 1; j >= 0; j, i = j-1, i+1 {
				lines = append(lines, p.row(p.buf[j].t, focused && i == p.sel))
			}
		}
		return lines
	})
}

func (p *toolsPane) row(t *model.ToolCall, selected bool) string {
	st, sym := p.env.st, p.env.sym
	symbol, symSt := sym.Running, st.Running
	var dur string
	switch t.State {
	case model.StateRunning:
		if d, ok := p.env.since(t.StartedAt()); ok {
			dur = text.Elapsed(d)
		}
	case model.StateUnfinished:
		symbol, symSt = sym.Unfinished, st.Warn
		dur = "unfinished"
	default:
		symbol, symSt = sym.Succeeded, st.Good
		if d, ok := t.Duration(); ok {
			dur = text.Duration(d)
		}
	}
	if t.Failed() {
		symbol, symSt = sym.Failed, st.Bad
	}
	agent := ""
	if t.Agent != nil {
		agent = t.Agent.Name
	}
	// What a running call works on (its parameters) matters while it
	// runs; once it ended the timeline has it, and a finished row only
	// says when it failed and why. Short finished rows keep the pane cheap
	// to redraw as it reorders.
	detail := ""
	switch {
	case len(t.Errors) > 0:
		detail = describe.Error(&t.Errors[len(t.Errors)-1].Error)
	case t.State == model.StateRunning:
		detail = describe.JSON(t.Parameters, 72)
	}
	detail = p.env.text(detail)
	if mark := attn.CallMark(p.env.attn, t.ID); mark != "" { // slow, repeated, failing
		detail = "[" + mark + "] " + detail
	}
	// Tools are named as the timeline names them, in a column as wide as
	// the widest name seen (a quarter of the pane at most).
	nameW := min(max(p.names, 10), max(10, p.w/4))
	agentW := min(18, max(8, p.w/5))
	name := toolCell(t.Name, nameW, p.env.sym.Ellipsis)
	if selected {
		text := " " + symbol + " " + padRight(name, nameW) + " " + padRight(cut(agent, agentW, p.env.sym.Ellipsis), agentW) + " " + padLeft(dur, 10) + "  " + detail
		return styled(st.Selected, text, p.w, p.env.ascii)
	}
	r := newRow(p.w, p.env.ascii)
	r.space(1)
	r.add(symSt, symbol)
	r.space(1)
	r.addFixed(st.Text, name, nameW)
	r.space(1)
	r.addFixed(st.Text, agent, agentW)
	r.space(1)
	// Rows here are redrawn whenever the pane reorders (nearly every
	// poll): only the state symbol and an error carry a style, each style
	// change costs bytes on the wire.
	durSt := st.Text
	if t.State == model.StateUnfinished {
		durSt = st.Warn
	}
	r.addFixed(durSt, padLeft(dur, 10), 10)
	r.space(2)
	detailSt := st.Text
	if len(t.Errors) > 0 {
		detailSt = st.Bad
	}
	r.add(detailSt, detail)
	return r.String()
}
