package ui

import (
	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
)

// artifactsPane lists the run's artifacts: kind, path, last change, item
// count, number of versions and the tool call that produced the latest
// one. Runs have few artifacts (each with many versions), so the list in
// scope is rebuilt when an artifact changes; which agents touched an
// artifact is kept from the deltas, never recounted from its versions.
type artifactsPane struct {
	nav
	scope    *scope
	agentsOf map[string]map[string]bool // artifact id → ids of agents that updated it
	rows     []*model.Artifact
}

func newArtifacts(e *env) *artifactsPane {
	p := &artifactsPane{nav: nav{box: box{env: e, dirty: true}}, scope: &scope{}, agentsOf: map[string]map[string]bool{}}
	p.count = func() int { return len(p.rows) }
	return p
}

func (p *artifactsPane) name() string { return "Artifacts" }
func (p *artifactsPane) info() string {
	if len(p.rows) == 0 {
		return ""
	}
	return describe.Count(len(p.rows), "artifact")
}

func (p *artifactsPane) helpKeys(k keyMap) []key.Binding {
	if k.noContent {
		return []key.Binding{k.Move, k.Enter, k.Result}
	}
	return k.offered([]key.Binding{k.Move, k.Enter, k.Result, k.Diff, k.Save})
}

func (p *artifactsPane) apply(d *model.Delta) {
	for _, e := range d.Events {
		if u, ok := e.Payload.(model.ArtifactUpdated); ok {
			m := p.agentsOf[u.Artifact.ArtifactID]
			if m == nil {
				m = map[string]bool{}
				p.agentsOf[u.Artifact.ArtifactID] = m
			}
			m[e.Agent.ID] = true
		}
	}
	if len(d.Artifacts) > 0 || d.TreeChanged {
		p.rebuild()
	}
}

func (p *artifactsPane) inScope(a *model.Artifact) bool {
	if !p.scope.q.artifact(a) {
		return false
	}
	if p.scope.agents == nil {
		return true
	}
	for id := range p.agentsOf[a.ID] {
		if p.scope.agents[id] {
			return true
		}
	}
	return false
}

func (p *artifactsPane) rebuild() {
	var sel *model.Artifact
	if p.sel < len(p.rows) {
		sel = p.rows[p.sel]
	}
	p.rows = p.rows[:0]
	for _, a := range p.env.store.Artifacts() {
		if p.inScope(a) {
			if a == sel {
				p.sel = len(p.rows)
			}
			p.rows = append(p.rows, a)
		}
	}
	p.fix(len(p.rows), p.h)
	p.dirty = true
}

func (p *artifactsPane) setScope(s *scope) { p.scope = s; p.rebuild() }
func (p *artifactsPane) tick()             {}

func (p *artifactsPane) selection() Selection {
	if p.sel < len(p.rows) {
		return Selection{Artifact: p.rows[p.sel]}
	}
	return Selection{}
}

func (p *artifactsPane) render() []string {
	focused := p.hasFocus
	return renderRows(&p.nav, p.rows, p.scope, focused, "artifacts", p.row)
}

func (p *artifactsPane) row(a *model.Artifact, selected bool) string {
	st := p.env.st
	v := a.Latest()
	name := a.Path
	if name == "" {
		name = a.ID
	}
	change := string(v.Ref.Change) + " " + p.env.clockTime(v.Event.OccurredAt)
	items := ""
	if v.Ref.HasItemCount {
		items = describe.Count(v.Ref.ItemCount, "item")
	}
	versions := describe.Count(len(a.Versions), "version")
	kindW, changeW := 9, 18
	// The path gets the room it needs first; the items, versions and
	// producing-tool columns follow while they fit (the same set for
	// every row, so the columns line up).
	nameW, cols := p.columns(kindW, changeW)
	// The producing call by its tool (enter shows its id).
	tool := ""
	if t := v.SourceToolCall; t != nil {
		tool = p.env.sym.Arrow + " " + describe.ShortToolName(t.Name)
		if t.Agent != nil {
			tool += " (" + t.Agent.Name + ")"
		}
	} else if id := v.Ref.SourceToolCallID; id != "" {
		tool = p.env.sym.Arrow + " " + describe.ShortID(id)
	}
	name = cutLeft(flat(name), nameW, p.env.sym.Ellipsis)
	rest := padRight(change, changeW)
	if cols > 0 {
		rest += " " + padLeft(items, 10)
	}
	if cols > 1 {
		rest += " " + padLeft(versions, 12)
	}
	if cols > 2 {
		rest += " " + tool
	}
	if selected {
		text := " " + padRight(string(a.Kind), kindW) + " " + padRight(name, nameW) + " " + rest
		return styled(st.Selected, text, p.w, p.env.ascii)
	}
	r := newRow(p.w, p.env.ascii)
	r.space(1)
	r.addFixed(st.Accent, string(a.Kind), kindW)
	r.space(1)
	// One style for the columns that change with each update: fewer style
	// changes to send when the row is redrawn.
	r.addFixed(st.Text, name, nameW)
	r.space(1)
	r.add(st.Text, rest)
	return r.String()
}

// columns is the path column's width and how many of the optional
// columns (items, versions, producing tool, in that order) fit beside the
// path the rows need (their longest, up to 32 cells).
func (p *artifactsPane) columns(kindW, changeW int) (nameW, cols int) {
	need := 10
	for _, a := range p.rows {
		n := a.Path
		if n == "" {
			n = a.ID
		}
		need = max(need, min(width(flat(n)), 32))
	}
	nameW = p.w - 1 - kindW - 1 - 1 - changeW
	for _, w := range []int{11, 13, 27} {
		if nameW-w < need {
			break
		}
		nameW -= w
		cols++
	}
	return max(nameW, 10), cols
}
