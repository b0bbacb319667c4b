package ui

import (
	"slices"
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// sessionsPane lists browser sessions per agent (agents in tree order,
// open sessions first), with the live-view link and viewport when the
// watch asks for them (--live-view). Live sessions the trace never
// mentioned are listed at the end.
type sessionsPane struct {
	nav
	scope *scope
	rows  []sessionRow
	open  int
}

type sessionRow struct {
	b    *model.BrowserSession // nil for a live session unknown to the trace
	live *model.LiveSession
}

func newSessions(e *env) *sessionsPane {
	p := &sessionsPane{nav: nav{box: box{env: e, dirty: true}}, scope: &scope{}}
	p.count = func() int { return len(p.rows) }
	return p
}

func (p *sessionsPane) name() string { return "Browser sessions" }
func (p *sessionsPane) info() string {
	if len(p.rows) == 0 {
		return ""
	}
	return strconv.Itoa(p.open) + " open · " + strconv.Itoa(len(p.rows)-p.open) + " closed"
}

func (p *sessionsPane) helpKeys(k keyMap) []key.Binding {
	if k.replay {
		return []key.Binding{k.Move, k.Enter, k.Open}
	}
	return k.offered([]key.Binding{k.Move, k.Enter, k.Open, k.LiveView})
}

func (p *sessionsPane) apply(d *model.Delta) {
	if len(d.Sessions) > 0 || d.LiveSessions || d.TreeChanged {
		p.rebuild()
	}
}

func (p *sessionsPane) rebuild() {
	var sel *model.BrowserSession
	if p.sel < len(p.rows) {
		sel = p.rows[p.sel].b
	}
	s := p.env.store
	order := map[string]int{}
	for i, a := range s.Agents() {
		order[a.ID] = i
	}
	p.rows, p.open = p.rows[:0], 0
	known := map[string]bool{}
	for _, b := range s.Sessions() {
		known[b.ID] = true
		if !p.scope.hasAgent(b.AgentID) || !p.scope.q.session(b) {
			continue
		}
		p.rows = append(p.rows, sessionRow{b: b, live: b.Live})
		if b.State == model.StateRunning {
			p.open++
		}
	}
	slices.SortStableFunc(p.rows, func(x, y sessionRow) int {
		if c := order[x.b.AgentID] - order[y.b.AgentID]; c != 0 {
			return c
		}
		return openRank(x.b) - openRank(y.b)
	})
	if p.env.liveView && p.scope.agents == nil {
		live := s.LiveSessions()
		for i := range live {
			if !known[live[i].ID] && p.scope.q.in(live[i].ID) {
				p.rows = append(p.rows, sessionRow{live: &live[i]})
				p.open++
			}
		}
	}
	for i, r := range p.rows {
		if sel != nil && r.b == sel {
			p.sel = i
		}
	}
	p.fix(len(p.rows), p.h)
	p.dirty = true
}

func openRank(b *model.BrowserSession) int {
	if b.State == model.StateRunning {
		return 0
	}
	return 1
}

func (p *sessionsPane) setScope(s *scope) { p.scope = s; p.rebuild() }
func (p *sessionsPane) tick()             {}

func (p *sessionsPane) selection() Selection {
	if p.sel < len(p.rows) {
		if r := p.rows[p.sel]; r.b != nil {
			return Selection{Session: r.b}
		} else if r.live != nil {
			return Selection{Live: r.live}
		}
	}
	return Selection{}
}

func (p *sessionsPane) render() []string {
	focused := p.hasFocus
	return renderRows(&p.nav, p.rows, p.scope, focused, "browser sessions", p.row)
}

func (p *sessionsPane) row(sr sessionRow, selected bool) string {
	st, sym := p.env.st, p.env.sym
	symbol, symSt := sym.Session, st.Running
	agent, id, state := "", "", "open"
	b := sr.b
	if b != nil {
		id = describe.ShortID(b.ID)
		if b.Agent != nil {
			agent = b.Agent.Name
		}
		switch b.State {
		case model.StateRunning:
			// Since when, not for how long: this pane sits beside the
			// agents, and two clocks on one line would make each tick
			// rewrite the line between them.
			if t := startOf(b); !t.IsZero() {
				state = "open " + p.env.clockTime(t)
			}
		case model.StateUnfinished:
			symbol, symSt, state = sym.Unfinished, st.Warn, "unfinished"
		default:
			symbol, symSt, state = sym.Pending, st.Muted, "closed"
			if b.HasDuration {
				state += " " + text.Duration(time.Duration(b.DurationMs)*time.Millisecond)
			}
		}
	} else {
		id, agent = describe.ShortID(sr.live.ID), "(not in trace)"
	}
	live := ""
	if p.env.liveView && sr.live != nil {
		live = sr.live.LiveViewURL
		if sr.live.ViewportWidth > 0 && sr.live.ViewportHeight > 0 {
			live += " " + strconv.Itoa(sr.live.ViewportWidth) + "x" + strconv.Itoa(sr.live.ViewportHeight)
		}
	}
	agentW := min(20, max(8, p.w/4))
	if selected {
		text := " " + symbol + " " + padRight(agent, agentW) + " " + padRight(id, 8) + " " + padRight(state, 14) + " " + live
		return styled(st.Selected, text, p.w, p.env.ascii)
	}
	r := newRow(p.w, p.env.ascii)
	r.space(1)
	r.add(symSt, symbol)
	r.space(1)
	r.addFixed(p.env.agentStyle(agentID(b)), agent, agentW)
	r.space(1)
	r.addFixed(st.Muted, id, 8)
	r.space(1)
	r.addFixed(symSt, state, 14)
	r.space(1)
	r.add(st.Accent, live)
	return r.String()
}

func startOf(b *model.BrowserSession) time.Time {
	if b.Started == nil {
		return time.Time{}
	}
	return b.Started.OccurredAt
}

func agentID(b *model.BrowserSession) string {
	if b == nil {
		return ""
	}
	return b.AgentID
}
