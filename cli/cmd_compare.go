package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/diff"
)

// firewatch compare A B: two runs side by side, and a regression gate.

type compareOptions struct {
	FailOn string
}

func (a *app) compareCommand() *cobra.Command {
	o := &watchOptions{}
	co := &compareOptions{}
	cmd := &cobra.Command{
		Use:   "compare BASELINE CANDIDATE",
		Short: "Two runs side by side: metrics, agents, tool calls, results; a regression gate",
		Long: `Compare two runs: job ids (from the archive, else the service) or recording
files (an existing file or - is a file, otherwise a UUID is a job id).

It shows a metrics table (baseline, candidate, delta, delta %) for the
duration, credits, tokens, agents, tool calls (in all and per tool), errors and
attention items, and the outcomes; the agents aligned by name and role, each
agent's tool calls aligned step by step (added, removed, changed
parameters); and the final results diffed as JSON.

--output json gives {baseline, candidate, metrics, agents, steps, result};
--output md a table for a pull request comment.

--fail-on makes it a regression gate: a comma-separated list of
  METRIC:+N%   the candidate is more than N% above the baseline
  METRIC:+N    the candidate is more than N above the baseline
  METRIC:-N% / METRIC:-N   ... below it
  outcome      the candidate's outcome differs from the baseline's and is not succeeded
with the JSON's metric names (durationMs, creditsUsed, tokensUsed, agents,
toolCalls, errors, attention, toolCalls:<toolName>). A percentage of a
baseline of 0 is crossed by any change in its direction.

Exit codes: 0 no threshold crossed, 1 a threshold crossed, 2 bad usage or an
unreadable (or newer) archive or file, 6 the service refused an id, 8 the
output could not be written. Never 1 for anything but a crossed threshold.`,
		Example: `  firewatch compare $YESTERDAY $TODAY
  firewatch compare base.ndjson $JOB --output md > comment.md
  firewatch compare $BASE $CAND --fail-on creditsUsed:+20%,durationMs:+50%,toolCalls:mcp__tools__scrape:+3,outcome`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return badUsage("compare takes two runs (BASELINE CANDIDATE), got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// A regression gate: exitcode.go gives 1 only to a crossed
			// threshold.
			return runE(gateErr(a.compare(cmd, o, co, args[0], args[1])))
		},
	}
	cmd.Flags().StringVar(&co.FailOn, "fail-on", "", "thresholds that make it exit 1 (see above)")
	o.register(cmd, flagsOutput)
	return cmd
}

// compareSide is one run of a comparison.
type compareSide struct {
	Ref     string  `json:"ref"`
	ID      *string `json:"id"`
	Outcome *string `json:"outcome"`
	Prompt  *string `json:"prompt"`
	Model   *string `json:"model"`
	store   *model.Store
	sum     fullSummary
	result  []byte
	from    string
	sec     *text.Secrets // the app's: what the comparison prints is redacted with it
}

type compareMetric struct {
	Name         string   `json:"name"`
	Baseline     float64  `json:"baseline"`
	Candidate    float64  `json:"candidate"`
	Delta        float64  `json:"delta"`
	DeltaPercent *float64 `json:"deltaPercent"`
}

type compareAgentSide struct {
	ID         string  `json:"id"`
	ToolCalls  int     `json:"toolCalls"`
	Outcome    *string `json:"outcome"`
	DurationMs *int64  `json:"durationMs"`
}

type compareAgent struct {
	Name      string            `json:"name"`
	Role      string            `json:"role"`
	Baseline  *compareAgentSide `json:"baseline"`
	Candidate *compareAgentSide `json:"candidate"`
}

type compareCall struct {
	ToolName   string         `json:"toolName"`
	Parameters jsontext.Value `json:"parameters"`
}

type compareStep struct {
	Agent     string       `json:"agent"`
	Step      int          `json:"step"`
	Change    string       `json:"change"` // same, changed, added, removed
	Baseline  *compareCall `json:"baseline"`
	Candidate *compareCall `json:"candidate"`
}

type compareResult struct {
	Same    bool     `json:"same"`
	Added   int      `json:"added"`
	Removed int      `json:"removed"`
	Diff    []string `json:"diff"` // "+ line", "- line", "  line", "… n unchanged"
}

type comparison struct {
	Baseline  *compareSide    `json:"baseline"`
	Candidate *compareSide    `json:"candidate"`
	Metrics   []compareMetric `json:"metrics"`
	Agents    []compareAgent  `json:"agents"`
	Steps     []compareStep   `json:"steps"`
	Result    *compareResult  `json:"result"`
	Crossed   []string        `json:"crossed"`
}

func (a *app) compare(cmd *cobra.Command, o *watchOptions, co *compareOptions, refA, refB string) error {
	md := o.Output == "md"
	if md {
		o.Output = OutputPlain
	}
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	if md {
		o.Output = "md"
	}
	gates, err := parseFailOn(co.FailOn)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	base, err := a.loadSide(ctx, refA)
	if err != nil {
		return err
	}
	cand, err := a.loadSide(ctx, refB)
	if err != nil {
		return err
	}
	c := buildComparison(base, cand)
	c.Crossed = gates.check(c)
	if c.Crossed == nil {
		c.Crossed = []string{}
	}
	var out []byte
	switch o.Output {
	case OutputJSON:
		out, err = json.Marshal(c, json.Deterministic(true), jsontext.WithIndent("  "))
		if err != nil {
			return err
		}
		out, _ = a.secrets.RedactJSON(out)
		out = append(out, '\n')
	case "md":
		out = []byte(a.secrets.Redact(c.markdown()))
	default:
		termOut, _ := isTerminal(a.stdout)
		out = []byte(a.secrets.Redact(c.screen(termOut && !o.NoColor && !noColorEnv())))
	}
	if _, err := a.print.Write(out); err != nil {
		return err // said and coded by Execute (exit 8)
	}
	if len(c.Crossed) > 0 {
		fmt.Fprintf(a.stderr, "firewatch: compare: crossed %s\n", strings.Join(c.Crossed, ", "))
		return &thresholdCrossed{c.Crossed}
	}
	return nil
}

// loadSide reads one run: a file, or a job id from the archive, else the
// service.
func (a *app) loadSide(ctx context.Context, ref string) (*compareSide, error) {
	s := &compareSide{Ref: ref, sec: a.secrets}
	var rec []byte
	if isJobArg(ref) {
		id := strings.ToLower(ref)
		r, b, err := a.jobFromArchive(ctx, poller.ResolveBaseURL(""), id)
		switch {
		case err == nil:
			rec, s.from = b, "archive"
			s.result = r.Result
			s.Prompt, s.Model = strOrNil(a.secrets.Sanitize(r.Prompt)), strOrNil(a.secrets.Sanitize(r.Model))
		case isArchiveNotFound(err):
			b, err := a.fetchRecording(ctx, poller.ResolveBaseURL(""), id)
			if err != nil {
				return nil, err
			}
			rec, s.from = b, "service"
		default:
			return nil, err
		}
	} else {
		in, name, closeIn, err := a.openRecording(ref)
		if err != nil {
			return nil, err
		}
		rec, err = io.ReadAll(in)
		closeIn()
		if err != nil {
			return nil, badUsage("%s: %v", text.Sanitize(name), err)
		}
		s.from = "file"
	}
	w := &watchSession{Opts: &watchOptions{}, runState: runState{Store: model.NewStore()}}
	w.Store.SetSecrets(a.secrets)
	err := poller.Replay(ctx, bytes.NewReader(rec), poller.ReplayOptions{Instant: true}, func(u poller.Update) {
		if u.Poll != nil {
			d := w.Store.Merge(u.Poll)
			w.tracker().Update(d, time.Now())
		}
	})
	if err != nil {
		return nil, badUsage("%s: %v", text.Sanitize(ref), err)
	}
	s.store, s.sum = w.Store, w.summary()
	if id := w.Store.Run().ID; id != "" {
		s.ID = &id
	}
	if s.sum.Outcome != nil {
		oc := string(*s.sum.Outcome)
		s.Outcome = &oc
	}
	return s, nil
}

func (s *compareSide) toolCounts() map[string]int {
	m := map[string]int{}
	for _, tc := range s.store.ToolCalls() {
		m[tc.Name]++
	}
	return m
}

func buildComparison(b, c *compareSide) *comparison {
	cmp := &comparison{Baseline: b, Candidate: c}
	dur := func(s *compareSide) float64 {
		if s.sum.DurationMs != nil {
			return float64(*s.sum.DurationMs)
		}
		return 0
	}
	add := func(name string, x, y float64) {
		m := compareMetric{Name: name, Baseline: x, Candidate: y, Delta: y - x}
		if x != 0 {
			p := math.Round((y-x)/math.Abs(x)*10000) / 100
			m.DeltaPercent = &p
		}
		cmp.Metrics = append(cmp.Metrics, m)
	}
	add("durationMs", dur(b), dur(c))
	add("creditsUsed", b.sum.CreditsUsed, c.sum.CreditsUsed)
	add("tokensUsed", b.sum.TokensUsed, c.sum.TokensUsed)
	add("agents", float64(len(b.sum.Agents)), float64(len(c.sum.Agents)))
	add("toolCalls", float64(len(b.sum.ToolCalls)), float64(len(c.sum.ToolCalls)))
	add("errors", float64(len(b.sum.Errors)), float64(len(c.sum.Errors)))
	add("attention", float64(len(b.sum.Attention)), float64(len(c.sum.Attention)))
	bt, ct := b.toolCounts(), c.toolCounts()
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
		add("toolCalls:"+n, float64(bt[n]), float64(ct[n]))
	}

	// Agents aligned by name and role, in the baseline's order then the
	// candidate's new ones.
	type key struct{ name, role string }
	side := func(s *compareSide, ag *model.Agent) *compareAgentSide {
		n := 0
		for _, tc := range s.store.ToolCalls() {
			if tc.AgentID == ag.ID {
				n++
			}
		}
		as := &compareAgentSide{ID: ag.ID, ToolCalls: n}
		if ag.State == model.StateFinished {
			oc := string(ag.Outcome)
			as.Outcome = &oc
		}
		if ag.HasDuration {
			d := ag.DurationMs
			as.DurationMs = &d
		}
		return as
	}
	idx := map[key]int{}
	for _, ag := range b.store.Agents() {
		k := key{ag.Name, string(ag.Role)}
		if _, ok := idx[k]; ok {
			continue
		}
		idx[k] = len(cmp.Agents)
		cmp.Agents = append(cmp.Agents, compareAgent{Name: text.Sanitize(ag.Name), Role: string(ag.Role), Baseline: side(b, ag)})
	}
	for _, ag := range c.store.Agents() {
		k := key{ag.Name, string(ag.Role)}
		if i, ok := idx[k]; ok {
			if cmp.Agents[i].Candidate == nil {
				cmp.Agents[i].Candidate = side(c, ag)
			}
			continue
		}
		idx[k] = len(cmp.Agents)
		cmp.Agents = append(cmp.Agents, compareAgent{Name: text.Sanitize(ag.Name), Role: string(ag.Role), Candidate: side(c, ag)})
	}
	if cmp.Agents == nil {
		cmp.Agents = []compareAgent{}
	}

	// Each aligned agent's tool calls, step by step.
	calls := func(s *compareSide, id string) []compareCall {
		var out []compareCall
		for _, tc := range s.store.ToolCalls() {
			if tc.AgentID == id {
				p, _ := s.sec.RedactJSON(tc.Parameters)
				out = append(out, compareCall{ToolName: text.Sanitize(tc.Name), Parameters: jsontext.Value(p)})
			}
		}
		return out
	}
	cmp.Steps = []compareStep{}
	for _, ag := range cmp.Agents {
		var x, y []compareCall
		if ag.Baseline != nil {
			x = calls(b, ag.Baseline.ID)
		}
		if ag.Candidate != nil {
			y = calls(c, ag.Candidate.ID)
		}
		cmp.Steps = append(cmp.Steps, alignSteps(ag.Name, x, y)...)
	}

	if b.result != nil && c.result != nil {
		r := diff.Compute(model.KindJSON, string(b.result), string(c.result), diff.DefaultContext)
		cr := &compareResult{Same: r.Same(), Added: r.Added, Removed: r.Removed, Diff: []string{}}
		for _, l := range r.Lines {
			switch l.Op {
			case diff.Insert:
				cr.Diff = append(cr.Diff, "+ "+l.Text)
			case diff.Delete:
				cr.Diff = append(cr.Diff, "- "+l.Text)
			case diff.Gap:
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
func alignSteps(agent string, x, y []compareCall) []compareStep {
	n, m := len(x), len(y)
	if n*m > 4_000_000 { // past that, step by step by position
		var out []compareStep
		for i := range max(n, m) {
			var a, b *compareCall
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
	var out []compareStep
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

func stepOf(agent string, n int, a, b *compareCall) compareStep {
	s := compareStep{Agent: agent, Step: n, Baseline: a, Candidate: b}
	switch {
	case a == nil:
		s.Change = "added"
	case b == nil:
		s.Change = "removed"
	case a.ToolName != b.ToolName || !jsonEqual(a.Parameters, b.Parameters):
		s.Change = "changed"
	default:
		s.Change = "same"
	}
	return s
}

func jsonEqual(a, b jsontext.Value) bool {
	x, y := jsontext.Value(bytes.Clone(a)), jsontext.Value(bytes.Clone(b))
	if x.Canonicalize() != nil || y.Canonicalize() != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(x, y)
}

// gate is one --fail-on threshold.
type gate struct {
	spec    string
	metric  string // "" for outcome
	limit   float64
	percent bool
}

type gates []gate

// parseFailOn reads --fail-on: METRIC:+N%, METRIC:+N, METRIC:-N%, METRIC:-N
// or outcome, comma-separated; the threshold is after the last colon.
func parseFailOn(s string) (gates, error) {
	var out gates
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	known := map[string]bool{"durationMs": true, "creditsUsed": true, "tokensUsed": true, "agents": true, "toolCalls": true, "errors": true, "attention": true}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "outcome" {
			out = append(out, gate{spec: item})
			continue
		}
		i := strings.LastIndexByte(item, ':')
		if i <= 0 {
			return nil, badUsage("--fail-on %q: each item is METRIC:+N%%, METRIC:+N, METRIC:-N%%, METRIC:-N or outcome", text.Sanitize(item))
		}
		name, th := item[:i], item[i+1:]
		if !known[name] && !(strings.HasPrefix(name, "toolCalls:") && len(name) > len("toolCalls:")) {
			return nil, badUsage("--fail-on %q: unknown metric %q (durationMs, creditsUsed, tokensUsed, agents, toolCalls, errors, attention, toolCalls:<toolName>)", text.Sanitize(item), text.Sanitize(name))
		}
		g := gate{spec: item, metric: name}
		if th == "" || (th[0] != '+' && th[0] != '-') {
			return nil, badUsage("--fail-on %q: the threshold needs a sign (+20%% or -5)", text.Sanitize(item))
		}
		if strings.HasSuffix(th, "%") {
			g.percent, th = true, strings.TrimSuffix(th, "%")
		}
		v, err := strconv.ParseFloat(th, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
			return nil, badUsage("--fail-on %q: %q is not a non-zero number", text.Sanitize(item), text.Sanitize(th))
		}
		g.limit = v
		out = append(out, g)
	}
	return out, nil
}

// check returns the thresholds c crosses.
func (gs gates) check(c *comparison) []string {
	var crossed []string
	for _, g := range gs {
		if g.metric == "" {
			b, cand := deref(c.Baseline.Outcome), deref(c.Candidate.Outcome)
			if b != cand && cand != string(model.OutcomeSucceeded) {
				crossed = append(crossed, g.spec)
			}
			continue
		}
		var m *compareMetric
		for i := range c.Metrics {
			if c.Metrics[i].Name == g.metric {
				m = &c.Metrics[i]
			}
		}
		if m == nil {
			// A tool neither run called: 0 against 0.
			m = &compareMetric{Name: g.metric}
		}
		d := m.Delta
		if g.percent {
			switch {
			case m.Baseline == 0 && d == 0:
				continue
			case m.Baseline == 0:
				d = math.Inf(int(math.Copysign(1, d)))
			default:
				d = d / math.Abs(m.Baseline) * 100
			}
		}
		if g.limit > 0 && d > g.limit || g.limit < 0 && d < g.limit {
			crossed = append(crossed, g.spec)
		}
	}
	return crossed
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func fmtNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func fmtDelta(m compareMetric) (string, string) {
	d := fmtNum(m.Delta)
	if m.Delta > 0 {
		d = "+" + d
	}
	p := "—"
	if m.DeltaPercent != nil {
		p = strconv.FormatFloat(*m.DeltaPercent, 'f', 1, 64) + "%"
		if *m.DeltaPercent > 0 {
			p = "+" + p
		}
	}
	return d, p
}

func sideName(s *compareSide) string {
	if s.ID != nil {
		return describe.ShortID(*s.ID)
	}
	return text.Sanitize(s.Ref)
}

// markdown is the comparison for a pull request comment.
func (c *comparison) markdown() string {
	var b strings.Builder
	esc := func(s string) string { return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s) }
	fmt.Fprintf(&b, "### firewatch compare: %s → %s\n\n", esc(sideName(c.Baseline)), esc(sideName(c.Candidate)))
	fmt.Fprintf(&b, "Outcome: **%s** → **%s**\n\n", esc(orDash(deref(c.Baseline.Outcome))), esc(orDash(deref(c.Candidate.Outcome))))
	b.WriteString("| metric | baseline | candidate | delta | delta % |\n|---|--:|--:|--:|--:|\n")
	for _, m := range c.Metrics {
		d, p := fmtDelta(m)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", esc(m.Name), fmtNum(m.Baseline), fmtNum(m.Candidate), d, p)
	}
	counts := map[string]int{}
	for _, s := range c.Steps {
		counts[s.Change]++
	}
	fmt.Fprintf(&b, "\nTool-call steps: %d same, %d changed, %d added, %d removed.\n", counts["same"], counts["changed"], counts["added"], counts["removed"])
	if c.Result != nil {
		if c.Result.Same {
			b.WriteString("\nResult: no changes.\n")
		} else {
			fmt.Fprintf(&b, "\nResult: +%d −%d lines.\n", c.Result.Added, c.Result.Removed)
		}
	}
	if len(c.Crossed) > 0 {
		fmt.Fprintf(&b, "\n**Thresholds crossed:** %s\n", esc(strings.Join(c.Crossed, ", ")))
	}
	return b.String()
}

// screen is the comparison for a terminal: the metrics table, the agents,
// the steps that differ and the result's diff.
func (c *comparison) screen(color bool) string {
	var b strings.Builder
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	fmt.Fprintf(&b, "baseline  %s  %s  %s\n", sideName(c.Baseline), orDash(deref(c.Baseline.Outcome)), runsFirst(c.Baseline.Prompt))
	fmt.Fprintf(&b, "candidate %s  %s  %s\n\n", sideName(c.Candidate), orDash(deref(c.Candidate.Outcome)), runsFirst(c.Candidate.Prompt))
	nameW := len("metric")
	for _, m := range c.Metrics {
		nameW = max(nameW, describe.Width(describe.OneLine(m.Name, 40)))
	}
	row := func(name, x, y, d, p string) {
		fmt.Fprintf(&b, "%s%s %9s %9s %8s %8s\n", name, strings.Repeat(" ", nameW-describe.Width(name)), x, y, d, p)
	}
	row("metric", "baseline", "candidate", "delta", "delta %")
	for _, m := range c.Metrics {
		d, p := fmtDelta(m)
		if m.Delta > 0 {
			d, p = paint("33", fmt.Sprintf("%8s", d)), paint("33", fmt.Sprintf("%8s", p))
		}
		row(describe.OneLine(m.Name, 40), fmtNum(m.Baseline), fmtNum(m.Candidate), d, p)
	}
	b.WriteString("\nagents (by name and role)\n")
	for _, ag := range c.Agents {
		bs, cs := "—", "—"
		if ag.Baseline != nil {
			bs = fmt.Sprintf("%d calls %s", ag.Baseline.ToolCalls, orDash(deref(ag.Baseline.Outcome)))
		}
		if ag.Candidate != nil {
			cs = fmt.Sprintf("%d calls %s", ag.Candidate.ToolCalls, orDash(deref(ag.Candidate.Outcome)))
		}
		fmt.Fprintf(&b, "  %-20s %-12s %-21s %s\n", describe.OneLine(ag.Name, 20), describe.OneLine(ag.Role, 12), bs, cs)
	}
	b.WriteString("\ntool calls that differ\n")
	shown := 0
	for _, s := range c.Steps {
		if s.Change == "same" {
			continue
		}
		shown++
		if shown > 40 {
			continue
		}
		var line string
		switch s.Change {
		case "added":
			line = paint("32", fmt.Sprintf("  + %s #%d %s %s", describe.OneLine(s.Agent, 20), s.Step, s.Candidate.ToolName, describe.OneLine(string(s.Candidate.Parameters), 60)))
		case "removed":
			line = paint("31", fmt.Sprintf("  - %s #%d %s %s", describe.OneLine(s.Agent, 20), s.Step, s.Baseline.ToolName, describe.OneLine(string(s.Baseline.Parameters), 60)))
		default:
			line = paint("33", fmt.Sprintf("  ~ %s #%d %s %s → %s", describe.OneLine(s.Agent, 20), s.Step, s.Candidate.ToolName,
				describe.OneLine(string(s.Baseline.Parameters), 40), describe.OneLine(string(s.Candidate.Parameters), 40)))
		}
		b.WriteString(line + "\n")
	}
	if shown == 0 {
		b.WriteString("  none: the same tools in the same order with the same parameters\n")
	} else if shown > 40 {
		fmt.Fprintf(&b, "  … and %d more (--output json has them all)\n", shown-40)
	}
	if c.Result != nil {
		b.WriteString("\nresult\n")
		if c.Result.Same {
			b.WriteString("  no changes\n")
		}
		for _, l := range c.Result.Diff {
			switch {
			case strings.HasPrefix(l, "+"):
				l = paint("32", l)
			case strings.HasPrefix(l, "-"):
				l = paint("31", l)
			}
			b.WriteString("  " + l + "\n")
		}
	}
	if len(c.Crossed) > 0 {
		fmt.Fprintf(&b, "\n%s %s\n", paint("31", "thresholds crossed:"), strings.Join(c.Crossed, ", "))
	}
	return b.String()
}

func runsFirst(p *string) string {
	if p == nil {
		return ""
	}
	return describe.OneLine(*p, 44)
}
