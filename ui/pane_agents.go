package ui

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/attn"
)

// agentsPane is the tree of the orchestrator and its subagents. The
// selected agent scopes the other panes to its subtree; the root shows
// everything.
type agentsPane struct {
	nav
	rows    []agentRow
	selA    *model.Agent
	q       query
	running int
}

type agentRow struct {
	a      *model.Agent
	prefix string
}

func newAgents(e *env) *agentsPane {
	p := &agentsPane{nav: nav{box: box{env: e, dirty: true}}}
	p.count = func() int { return len(p.rows) }
	p.moved = func() {
		if len(p.rows) > 0 {
			p.selA = p.rows[p.sel].a
		}
	}
	return p
}

func (p *agentsPane) name() string { return "Agents" }

func (p *agentsPane) info() string {
	if len(p.rows) == 0 {
		return ""
	}
	s := describe.Count(len(p.rows), "agent")
	if p.running > 0 {
		s += " · " + strconv.Itoa(p.running) + " running"
	}
	return s
}

func (p *agentsPane) helpKeys(k keyMap) []key.Binding {
	return []key.Binding{k.Move, k.Enter}
}

// rebuildTree lays the tree out again (new agents, moved agents).
func (p *agentsPane) rebuildTree() {
	p.rows = p.rows[:0]
	var walk func(a *model.Agent, lead string, last, root bool)
	walk = func(a *model.Agent, lead string, last, root bool) {
		prefix := ""
		next := ""
		if !root {
			if last {
				prefix, next = lead+p.env.sym.TreeLast, lead+p.env.sym.TreeSpace
			} else {
				prefix, next = lead+p.env.sym.TreeBranch, lead+p.env.sym.TreePipe
			}
		}
		p.rows = append(p.rows, agentRow{a: a, prefix: prefix})
		for i, c := range a.Children {
			walk(c, next, i == len(a.Children)-1, false)
		}
	}
	for _, r := range p.env.store.Roots() {
		walk(r, "", true, true)
	}
	p.sel = 0
	for i, r := range p.rows {
		if r.a == p.selA {
			p.sel = i
		}
	}
	if p.selA == nil && len(p.rows) > 0 {
		p.selA = p.rows[0].a
	}
	p.fix(len(p.rows), p.h)
	p.dirty = true
}

func (p *agentsPane) apply(d *model.Delta) {
	if d.TreeChanged {
		p.rebuildTree()
	}
	if len(d.Agents) > 0 || d.TreeChanged || d.RunChanged {
		p.running = 0
		for _, r := range p.rows {
			if r.a.State == model.StateRunning {
				p.running++
			}
		}
		p.dirty = true
	}
}

func (p *agentsPane) setScope(s *scope) {
	if s.q != p.q {
		p.q = s.q
		p.dirty = true
	}
}

func (p *agentsPane) tick() {
	if p.running > 0 {
		p.dirty = true
	}
}

// step moves to the next agent whose name matches the filter.
func (p *agentsPane) step(dir int) bool {
	n := len(p.rows)
	if n == 0 || p.q.empty() {
		return false
	}
	for i := 1; i <= n; i++ {
		j := ((p.sel+dir*i)%n + n) % n
		if p.q.agent(p.rows[j].a) {
			p.sel = j
			p.settle()
			return true
		}
	}
	return false
}

func (p *agentsPane) selection() Selection {
	if p.selA == nil {
		return Selection{}
	}
	return Selection{Agent: p.selA}
}

// selected is the agent that scopes the other panes, nil for everything.
func (p *agentsPane) selected() *model.Agent {
	if p.selA == nil || p.selA == p.env.store.Root() {
		return nil
	}
	return p.selA
}

func (p *agentsPane) render() []string {
	focused := p.hasFocus
	return p.cached(focused, func() []string {
		if len(p.rows) == 0 {
			return p.placeholder("no agents yet")
		}
		// The name column has a fixed width for the pane's width: a new
		// agent with a longer name must not shift every row.
		left := clamp(p.w-22, 12, 30)
		var lines []string
		end := min(len(p.rows), p.off+p.h)
		for i := p.off; i < end; i++ {
			lines = append(lines, p.row(p.rows[i], left, focused && i == p.sel, !focused && i == p.sel))
		}
		return lines
	})
}

func (p *agentsPane) row(ar agentRow, left int, selected, marked bool) string {
	st, sym := p.env.st, p.env.sym
	a := ar.a
	symbol, symSt := agentSymbol(a, st, sym)
	dur := ""
	switch {
	case a.HasDuration:
		dur = text.Duration(time.Duration(a.DurationMs) * time.Millisecond)
	case a.State == model.StateRunning:
		if d, ok := p.env.since(a.StartedAt); ok && p.env.store.Run().State == model.StateRunning {
			dur = text.Elapsed(d)
		}
	}
	act, actSt := agentActivity(a, st, sym)
	errs := ""
	if a.Errors > 0 {
		errs = sym.Error + strconv.Itoa(a.Errors)
	}
	// Stalled, looping, with the errors at the right; the
	// estimated credits sit by the duration, which changes as often.
	if marks := attn.AgentFlags(p.env.attn, a.ID, sym); marks != "" {
		errs = strings.TrimSpace(marks + " " + errs)
	}
	if p.env.store.Run().HasCredits {
		c := attn.AgentCredits(p.env.attn, a.ID, sym)
		dur = padLeft(dur, 6) + " " + padRight(c, max(5, width(c))) // ≈1,234 is not cut
	}
	durW := max(6, width(dur))
	// The name gives way to the duration and the credits: a four-digit
	// estimate must not be cut at the pane's edge.
	nameW := max(0, min(left-width(ar.prefix)-2, p.w-width(ar.prefix)-4-durW))
	if selected {
		// One style for the whole row: cheap, and readable without colour.
		text := " " + ar.prefix + symbol + " " + padRight(a.Name, nameW) + " " + padLeft(dur, durW) + " " + act
		if errs != "" {
			text = padRight(text, p.w-width(errs)-1) + " " + errs
		}
		return styled(st.Selected, text, p.w, p.env.ascii)
	}
	r := newRow(p.w, p.env.ascii)
	if marked {
		r.add(st.Accent, ">")
	} else {
		r.space(1)
	}
	r.add(st.Border, ar.prefix)
	r.add(symSt, symbol)
	r.space(1)
	nameSt := p.env.agentStyle(a.ID)
	if !p.q.empty() && p.q.agent(a) {
		nameSt = st.Match
	}
	r.addCol(nameSt, a.Name, max(0, nameW-1))
	durSt := st.Muted
	if a.State == model.StateRunning {
		durSt = st.Text // redrawn every second: no style to repaint
	}
	r.addFixed(durSt, padLeft(dur, durW), durW)
	r.space(1)
	if errs != "" {
		r.addFixed(actSt, act, max(0, r.left()-len(errs)-1))
		r.addRight(st.Bad, errs)
	} else {
		r.add(actSt, act)
	}
	return r.String()
}

// agentSymbol is an agent's state symbol and its style.
func agentSymbol(a *model.Agent, st *theme.Styles, sym theme.Symbols) (string, theme.Style) {
	if a.State != model.StateFinished {
		return sym.Running, st.Running
	}
	return outcomeSymbol(a.Outcome, st, sym)
}

func outcomeSymbol(o model.Outcome, st *theme.Styles, sym theme.Symbols) (string, theme.Style) {
	in := describe.Outcome(o)
	kind, _ := levelStyles(st, in.Level)
	return in.Symbol(sym), kind
}

// agentActivity is what an agent is doing now: its running tool and open
// browser session, or how it ended when that was not a success.
func agentActivity(a *model.Agent, st *theme.Styles, sym theme.Symbols) (string, theme.Style) {
	if a.State == model.StateFinished {
		// The symbol says how it ended.
		return "", st.Text
	}
	var parts []string
	if a.RunningTools > 0 {
		// The newest running call; running calls sit at the end.
		for i, n := len(a.ToolCalls)-1, 0; i >= 0 && n < 64; i, n = i-1, n+1 {
			if t := a.ToolCalls[i]; t.State == model.StateRunning {
				name := describe.ShortToolName(t.Name)
				if a.RunningTools > 1 {
					name += " +" + strconv.Itoa(a.RunningTools-1)
				}
				parts = append(parts, sym.PhaseArrow+" "+name)
				break
			}
		}
	}
	if a.OpenSessions > 0 {
		s := sym.Session + " browsing"
		if a.OpenSessions > 1 {
			s += " x" + strconv.Itoa(a.OpenSessions)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " "), st.Running
}
