package waterfall

import (
	"slices"
	"time"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
)

// Kind is what a row stands for.
type Kind int8

const (
	KindAgent Kind = iota
	KindTool
	KindSession
)

func (k Kind) String() string {
	switch k {
	case KindTool:
		return "tool call"
	case KindSession:
		return "browser session"
	}
	return "agent"
}

// State is a row's state, which picks its bar's style.
type State int8

const (
	Running State = iota
	Finished
	Failed     // a failed or refused agent, a tool call that reported an error
	Unfinished // the run (or its agent) ended first; also a cancelled agent
)

// Target is what a row stands for: enter opens its detail.
type Target struct {
	Kind Kind
	ID   string // agent id, tool call id or browser session id
}

// row is one line of the waterfall: a pointer into the store, read when
// the row is drawn so that its bar is always current.
type row struct {
	kind    Kind
	depth   int
	agent   *model.Agent
	tool    *model.ToolCall
	session *model.BrowserSession
}

func (r row) target() Target {
	switch r.kind {
	case KindTool:
		return Target{KindTool, r.tool.ID}
	case KindSession:
		return Target{KindSession, r.session.ID}
	}
	return Target{KindAgent, r.agent.ID}
}

// buildRows lays the store out in tree order: each agent, then its tool
// calls and browser sessions by start time, then its child agents.
func buildRows(s *model.Store, rows []row) []row {
	rows = rows[:0]
	var walk func(a *model.Agent, depth int)
	seen := map[*model.Agent]bool{}
	walk = func(a *model.Agent, depth int) {
		if seen[a] {
			return
		}
		seen[a] = true
		rows = append(rows, row{kind: KindAgent, depth: depth, agent: a})
		first := len(rows)
		for _, t := range a.ToolCalls {
			rows = append(rows, row{kind: KindTool, depth: depth + 1, agent: a, tool: t})
		}
		for _, b := range a.Sessions {
			rows = append(rows, row{kind: KindSession, depth: depth + 1, agent: a, session: b})
		}
		slices.SortStableFunc(rows[first:], func(x, y row) int {
			return x.startKey().Compare(y.startKey())
		})
		for _, c := range a.Children {
			walk(c, depth+1)
		}
	}
	for _, a := range s.Roots() {
		walk(a, 0)
	}
	return rows
}

// startKey orders a row's siblings: by start, else finish, time.
func (r row) startKey() time.Time {
	switch r.kind {
	case KindTool:
		if t := r.tool.StartedAt(); !t.IsZero() {
			return t
		}
		return r.tool.FinishedAt()
	case KindSession:
		if r.session.Started != nil && !r.session.Started.OccurredAt.IsZero() {
			return r.session.Started.OccurredAt
		}
		if r.session.Finished != nil {
			return r.session.Finished.OccurredAt
		}
		return time.Time{}
	}
	return r.agent.StartedAt
}

// span is a row's time extent and state as of now. end is zero when
// unknown; running rows end at now.
type span struct {
	start, end time.Time
	state      State
}

// spanOf reads a row's bar from the store. runEnd is when the run
// finished (zero while it runs).
func (r row) spanOf(now, runEnd time.Time) span {
	// cutShort is where a row that can no longer finish ends: when its
	// agent or the run finished.
	cutShort := func(a *model.Agent) time.Time {
		if a != nil && !a.FinishedAt.IsZero() {
			return a.FinishedAt
		}
		if !runEnd.IsZero() {
			return runEnd
		}
		if a != nil && a.LastEvent != nil {
			return a.LastEvent.OccurredAt
		}
		return time.Time{}
	}
	switch r.kind {
	case KindTool:
		t := r.tool
		sp := span{start: t.StartedAt(), end: t.FinishedAt()}
		switch t.State {
		case model.StateRunning:
			sp.state, sp.end = Running, now
		case model.StateUnfinished:
			sp.state, sp.end = Unfinished, cutShort(t.Agent)
		default:
			sp.state = Finished
			if t.Failed() {
				sp.state = Failed
			}
		}
		if sp.start.IsZero() {
			sp.start = sp.end
		}
		return sp
	case KindSession:
		b := r.session
		var sp span
		if b.Started != nil {
			sp.start = b.Started.OccurredAt
		}
		switch b.State {
		case model.StateRunning:
			sp.state, sp.end = Running, now
		case model.StateUnfinished:
			sp.state, sp.end = Unfinished, cutShort(b.Agent)
		default:
			sp.state = Finished
			if b.Finished != nil {
				sp.end = b.Finished.OccurredAt
			}
			if sp.end.IsZero() && b.HasDuration && !sp.start.IsZero() {
				sp.end = sp.start.Add(time.Duration(b.DurationMs) * time.Millisecond)
			}
		}
		if sp.start.IsZero() {
			sp.start = sp.end
		}
		return sp
	}
	a := r.agent
	sp := span{start: a.StartedAt}
	switch {
	case a.State == model.StateFinished:
		sp.end = a.FinishedAt
		if sp.end.IsZero() && a.HasDuration && !sp.start.IsZero() {
			sp.end = sp.start.Add(time.Duration(a.DurationMs) * time.Millisecond)
		}
		switch a.Outcome {
		case model.OutcomeSucceeded:
			sp.state = Finished
		case model.OutcomeCancelled:
			sp.state = Unfinished
		default:
			sp.state = Failed
		}
	case !runEnd.IsZero():
		sp.state, sp.end = Unfinished, cutShort(nil)
	default:
		sp.state, sp.end = Running, now
	}
	return sp
}

// label is the row's name: the agent's name (else id), the tool's name
// without its MCP namespace (mcp__tools__scrape is "scrape": the label
// column is narrow), "browser <session id's first 8 characters>".
func (r row) label() string {
	switch r.kind {
	case KindTool:
		if r.tool.Name != "" {
			return describe.ShortToolName(r.tool.Name)
		}
		return "tool " + r.tool.ID
	case KindSession:
		id := r.session.ID
		if len(id) > 8 {
			id = id[:8]
		}
		return "browser " + id
	}
	if r.agent.Name != "" {
		return r.agent.Name
	}
	return r.agent.ID
}
