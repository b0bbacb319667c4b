// Package compare is two runs set side by side: the data `firewatch compare`
// prints as JSON and markdown and its screen (ui/compare) draws. It is
// built once, by Build, from each run's store and summary figures: metrics
// (baseline, candidate, delta, delta %), agents aligned by name and role,
// each aligned agent's tool calls aligned step by step, and the final
// results diffed as JSON (with linediff, whose Result the screen's diff view
// shows). The --fail-on gate is here too (gate.go): its grammar, its check
// and the list of metrics it knows, for the command and the screen alike.
//
// Pure: no I/O, no clock, no terminal, nothing of the UI.
package compare

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/linediff"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// Side is one run of a comparison, as the JSON names it: its figures as
// firewatch's record of the run has them (null when not known).
type Side struct {
	Ref     string  `json:"ref"`
	ID      *string `json:"id"`
	Outcome *string `json:"outcome"`
	Prompt  *string `json:"prompt"`
	Model   *string `json:"model"`
	// MaxCredits is the run's cap; BilledCredits what the service bills
	// (model.BillOf: null while the outcome is not known).
	MaxCredits    *float64 `json:"maxCredits"`
	BilledCredits *float64 `json:"billedCredits"`
	// Complete is false for a run known only in part (a watch left
	// early): its figures are what was read, not final ones.
	Complete bool `json:"complete"`
}

// Metric is one row of the metrics table.
type Metric struct {
	Name         string   `json:"name"`
	Baseline     float64  `json:"baseline"`
	Candidate    float64  `json:"candidate"`
	Delta        float64  `json:"delta"`
	DeltaPercent *float64 `json:"deltaPercent"`
}

// AgentSide is an aligned agent in one run.
type AgentSide struct {
	ID         string  `json:"id"`
	ToolCalls  int     `json:"toolCalls"`
	Outcome    *string `json:"outcome"`
	DurationMs *int64  `json:"durationMs"`
	// Credits is the agent's estimated share of the run's credits
	// (attention.EstimateCredits), null when none was reported.
	Credits *float64 `json:"credits"`
}

// Agent is an agent aligned by name and role; a side is nil when that run
// has no such agent.
type Agent struct {
	Name      string     `json:"name"`
	Role      string     `json:"role"`
	Baseline  *AgentSide `json:"baseline"`
	Candidate *AgentSide `json:"candidate"`
}

// Call is a tool call of a step: its name and parameters (redacted).
type Call struct {
	ToolName   string         `json:"toolName"`
	Parameters jsontext.Value `json:"parameters"`
}

// Step changes.
const (
	Same    = "same"
	Changed = "changed"
	Added   = "added"
	Removed = "removed"
)

// Step is one aligned pair of tool calls of an agent.
type Step struct {
	Agent     string `json:"agent"`
	Step      int    `json:"step"`
	Change    string `json:"change"` // Same, Changed, Added, Removed
	Baseline  *Call  `json:"baseline"`
	Candidate *Call  `json:"candidate"`
	// AgentIndex is the step's agent in Comparison.Agents (two agents may
	// share a name with different roles).
	AgentIndex int `json:"-"`
}

// Result is the final results' diff.
type Result struct {
	Same    bool     `json:"same"`
	Added   int      `json:"added"`
	Removed int      `json:"removed"`
	Diff    []string `json:"diff"` // "+ line", "- line", "  line", "… n unchanged lines"
	// Computed is the diff the lines were written from, for the diff view.
	Computed linediff.Result `json:"-"`
}

// Comparison is two runs compared.
type Comparison struct {
	Baseline  *Side    `json:"baseline"`
	Candidate *Side    `json:"candidate"`
	Metrics   []Metric `json:"metrics"`
	Agents    []Agent  `json:"agents"`
	Steps     []Step   `json:"steps"`
	Result    *Result  `json:"result"`
	// Crossed are the --fail-on thresholds the candidate crossed, as
	// given ("creditsUsed:+20%", "outcome").
	Crossed []string `json:"crossed"`
}

// Run is what a side is built from: its store (agents, tool calls) and the
// figures of its summary.
type Run struct {
	Store       *model.Store
	DurationMs  *int64
	CreditsUsed float64
	TokensUsed  float64
	Agents      int
	ToolCalls   int
	Errors      int
	Attention   int
	Result      []byte        // the final result (JSON), nil when unknown
	Secrets     *text.Secrets // redacts the parameters shown (nil: none known)
	// CreditsByAgent is each agent's estimated credits, by agent id.
	CreditsByAgent map[string]float64
}

func (r *Run) toolCounts() map[string]int {
	m := map[string]int{}
	for _, tc := range r.Store.ToolCalls() {
		m[tc.Name]++
	}
	return m
}

// Build compares two runs.
func Build(b, c *Side, rb, rc *Run) *Comparison {
	cmp := &Comparison{Baseline: b, Candidate: c}
	dur := func(r *Run) float64 {
		if r.DurationMs != nil {
			return float64(*r.DurationMs)
		}
		return 0
	}
	add := func(name string, x, y float64) {
		m := Metric{Name: name, Baseline: x, Candidate: y, Delta: y - x}
		if x != 0 {
			p := math.Round((y-x)/math.Abs(x)*10000) / 100
			m.DeltaPercent = &p
		}
		cmp.Metrics = append(cmp.Metrics, m)
	}
	add(MetricDuration, dur(rb), dur(rc))
	add(MetricCredits, rb.CreditsUsed, rc.CreditsUsed)
	add(MetricTokens, rb.TokensUsed, rc.TokensUsed)
	add(MetricAgents, float64(rb.Agents), float64(rc.Agents))
	add(MetricToolCalls, float64(rb.ToolCalls), float64(rc.ToolCalls))
	add(MetricErrors, float64(rb.Errors), float64(rc.Errors))
	add(MetricAttention, float64(rb.Attention), float64(rc.Attention))
	bt, ct := rb.toolCounts(), rc.toolCounts()
	var names []string
	for n := range bt {
		names = append(names, n)
	}
	for n := range ct {
		if _, ok := bt[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		add(ToolMetricPrefix+n, float64(bt[n]), float64(ct[n]))
	}

	// Agents aligned by name and role, in the baseline's order then the
	// candidate's new ones.
	type key struct{ name, role string }
	side := func(r *Run, ag *model.Agent) *AgentSide {
		n := 0
		for _, tc := range r.Store.ToolCalls() {
			if tc.AgentID == ag.ID {
				n++
			}
		}
		as := &AgentSide{ID: ag.ID, ToolCalls: n}
		if ag.State == model.StateFinished {
			oc := string(ag.Outcome)
			as.Outcome = &oc
		}
		if ag.HasDuration {
			d := ag.DurationMs
			as.DurationMs = &d
		}
		if c, ok := r.CreditsByAgent[ag.ID]; ok {
			as.Credits = &c
		}
		return as
	}
	idx := map[key]int{}
	for _, ag := range rb.Store.Agents() {
		k := key{ag.Name, string(ag.Role)}
		if _, ok := idx[k]; ok {
			continue
		}
		idx[k] = len(cmp.Agents)
		cmp.Agents = append(cmp.Agents, Agent{Name: text.Sanitize(ag.Name), Role: string(ag.Role), Baseline: side(rb, ag)})
	}
	for _, ag := range rc.Store.Agents() {
		k := key{ag.Name, string(ag.Role)}
		if i, ok := idx[k]; ok {
			if cmp.Agents[i].Candidate == nil {
				cmp.Agents[i].Candidate = side(rc, ag)
			}
			continue
		}
		idx[k] = len(cmp.Agents)
		cmp.Agents = append(cmp.Agents, Agent{Name: text.Sanitize(ag.Name), Role: string(ag.Role), Candidate: side(rc, ag)})
	}
	if cmp.Agents == nil {
		cmp.Agents = []Agent{}
	}

	// Each aligned agent's tool calls, step by step.
	calls := func(r *Run, id string) []Call {
		var out []Call
		for _, tc := range r.Store.ToolCalls() {
			if tc.AgentID == id {
				p, _ := r.Secrets.RedactJSON(tc.Parameters)
				out = append(out, Call{ToolName: text.Sanitize(tc.Name), Parameters: jsontext.Value(p)})
			}
		}
		return out
	}
	cmp.Steps = []Step{}
	for i, ag := range cmp.Agents {
		var x, y []Call
		if ag.Baseline != nil {
			x = calls(rb, ag.Baseline.ID)
		}
		if ag.Candidate != nil {
			y = calls(rc, ag.Candidate.ID)
		}
		steps := alignSteps(ag.Name, x, y)
		for k := range steps {
			steps[k].AgentIndex = i
		}
		cmp.Steps = append(cmp.Steps, steps...)
	}

	if rb.Result != nil && rc.Result != nil {
		r := linediff.Compute(model.KindJSON, string(rb.Result), string(rc.Result), linediff.DefaultContext)
		cr := &Result{Same: r.Same(), Added: r.Added, Removed: r.Removed, Diff: []string{}, Computed: r}
		for _, l := range r.Lines {
			switch l.Op {
			case linediff.Insert:
				cr.Diff = append(cr.Diff, "+ "+l.Text)
			case linediff.Delete:
				cr.Diff = append(cr.Diff, "- "+l.Text)
			case linediff.Gap:
				cr.Diff = append(cr.Diff, fmt.Sprintf("… %d unchanged lines", l.Skipped))
			default:
				cr.Diff = append(cr.Diff, "  "+l.Text)
			}
		}
		cmp.Result = cr
	}
	return cmp
}

// alignSteps aligns two tool-call sequences by tool name (a longest common
// subsequence); aligned calls whose parameters differ are "changed".
func alignSteps(agent string, x, y []Call) []Step {
	n, m := len(x), len(y)
	if n*m > 4_000_000 { // past that, step by step by position
		var out []Step
		for i := range max(n, m) {
			var a, b *Call
			if i < n {
				a = &x[i]
			}
			if i < m {
				b = &y[i]
			}
			out = append(out, stepOf(agent, i+1, a, b))
		}
		return out
	}
	l := make([][]int32, n+1)
	for i := range l {
		l[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i].ToolName == y[j].ToolName {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var out []Step
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i].ToolName == y[j].ToolName:
			out = append(out, stepOf(agent, len(out)+1, &x[i], &y[j]))
			i, j = i+1, j+1
		case j < m && (i == n || l[i][j+1] >= l[i+1][j]):
			out = append(out, stepOf(agent, len(out)+1, nil, &y[j]))
			j++
		default:
			out = append(out, stepOf(agent, len(out)+1, &x[i], nil))
			i++
		}
	}
	return out
}

func stepOf(agent string, n int, a, b *Call) Step {
	s := Step{Agent: agent, Step: n, Baseline: a, Candidate: b}
	switch {
	case a == nil:
		s.Change = Added
	case b == nil:
		s.Change = Removed
	case a.ToolName != b.ToolName || !JSONEqual(a.Parameters, b.Parameters):
		s.Change = Changed
	default:
		s.Change = Same
	}
	return s
}

// JSONEqual reports whether two JSON values are equal once canonicalised
// (byte equality when either is not JSON).
func JSONEqual(a, b jsontext.Value) bool {
	x, y := jsontext.Value(bytes.Clone(a)), jsontext.Value(bytes.Clone(b))
	if x.Canonicalize() != nil || y.Canonicalize() != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(x, y)
}

// StepsOf is the steps of the agent at index i of c.Agents.
func (c *Comparison) StepsOf(i int) []Step {
	lo, _ := slices.BinarySearchFunc(c.Steps, i, func(s Step, i int) int { return s.AgentIndex - i })
	hi := lo
	for hi < len(c.Steps) && c.Steps[hi].AgentIndex == i {
		hi++
	}
	return c.Steps[lo:hi]
}
