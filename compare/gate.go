package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// The metrics of a comparison, by their JSON names: every one a --fail-on
// threshold may name, with ToolMetricPrefix+toolName for each tool.
const (
	MetricDuration   = "durationMs"
	MetricCredits    = "creditsUsed"
	MetricTokens     = "tokensUsed"
	MetricAgents     = "agents"
	MetricToolCalls  = "toolCalls"
	MetricErrors     = "errors"
	MetricAttention  = "attention"
	ToolMetricPrefix = "toolCalls:"
)

// Metrics are the metrics every comparison has, in the table's order.
var Metrics = []string{MetricDuration, MetricCredits, MetricTokens, MetricAgents, MetricToolCalls, MetricErrors, MetricAttention}

// OutcomeGate is the --fail-on item that compares the outcomes.
const OutcomeGate = "outcome"

// Gate is one --fail-on threshold: the candidate crosses it when its
// Metric is more than Limit above the baseline's (below, for a negative
// Limit), in percent of the baseline when Percent; or, for OutcomeGate,
// when its outcome differs from the baseline's and is not succeeded.
type Gate struct {
	Spec    string // as given: "creditsUsed:+20%"
	Metric  string // the metric's name, or OutcomeGate
	Limit   float64
	Percent bool
}

// Gates are --fail-on's thresholds, in the order given.
type Gates []Gate

// GateMetric is the metric a --fail-on item ("creditsUsed:+20%",
// "toolCalls:mcp__tools__scrape:+3") is about: what is before its last
// colon; OutcomeGate for "outcome"; "" when it names none.
func GateMetric(spec string) string {
	if spec == OutcomeGate {
		return OutcomeGate
	}
	i := strings.LastIndexByte(spec, ':')
	if i <= 0 {
		return ""
	}
	return spec[:i]
}

// ParseFailOn reads --fail-on: a comma-separated list of METRIC:+N%,
// METRIC:+N, METRIC:-N%, METRIC:-N (the threshold is after the last colon,
// so a tool's name may hold colons) or outcome. "" is no gate. Its errors
// say which item is wrong and why, in words for the person who typed it.
func ParseFailOn(s string) (Gates, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out Gates
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == OutcomeGate {
			out = append(out, Gate{Spec: item, Metric: OutcomeGate})
			continue
		}
		name := GateMetric(item)
		if name == "" {
			return nil, fmt.Errorf("--fail-on %q: each item is METRIC:+N%%, METRIC:+N, METRIC:-N%%, METRIC:-N or outcome", text.Sanitize(item))
		}
		th := item[len(name)+1:]
		if !slices.Contains(Metrics, name) && !(strings.HasPrefix(name, ToolMetricPrefix) && len(name) > len(ToolMetricPrefix)) {
			return nil, fmt.Errorf("--fail-on %q: unknown metric %q (%s, %s<toolName>)", text.Sanitize(item), text.Sanitize(name), strings.Join(Metrics, ", "), ToolMetricPrefix)
		}
		g := Gate{Spec: item, Metric: name}
		if th == "" || (th[0] != '+' && th[0] != '-') {
			return nil, fmt.Errorf("--fail-on %q: the threshold needs a sign (+20%% or -5)", text.Sanitize(item))
		}
		if strings.HasSuffix(th, "%") {
			g.Percent, th = true, strings.TrimSuffix(th, "%")
		}
		v, err := strconv.ParseFloat(th, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
			return nil, fmt.Errorf("--fail-on %q: %q is not a non-zero number", text.Sanitize(item), text.Sanitize(th))
		}
		g.Limit = v
		out = append(out, g)
	}
	return out, nil
}

// Check returns the thresholds c crosses, as given ("creditsUsed:+20%"):
// the candidate's metric more than the limit past the baseline's (a
// percentage of a baseline of 0 is crossed by any change in its
// direction; a tool neither run called is 0 against 0), or for outcome,
// OutcomeCrossed.
func (gs Gates) Check(c *Comparison) []string {
	var crossed []string
	for _, g := range gs {
		if g.Metric == OutcomeGate {
			if OutcomeCrossed(deref(c.Baseline.Outcome), deref(c.Candidate.Outcome)) {
				crossed = append(crossed, g.Spec)
			}
			continue
		}
		m := Metric{Name: g.Metric}
		if i := slices.IndexFunc(c.Metrics, func(x Metric) bool { return x.Name == g.Metric }); i >= 0 {
			m = c.Metrics[i]
		}
		d := m.Delta
		if g.Percent {
			switch {
			case m.Baseline == 0 && d == 0:
				continue
			case m.Baseline == 0:
				d = math.Inf(int(math.Copysign(1, d)))
			default:
				d = d / math.Abs(m.Baseline) * 100
			}
		}
		if g.Limit > 0 && d > g.Limit || g.Limit < 0 && d < g.Limit {
			crossed = append(crossed, g.Spec)
		}
	}
	return crossed
}

// Unused is a threshold on a tool neither run called.
type Unused struct {
	Gate Gate
	Tool string
	// Called are the tools the runs did call, sorted.
	Called []string
}

// Unused are the thresholds on a tool neither run of c called: such a
// threshold crosses only when a candidate calls the tool, so a misspelt
// name would make the gate pass for ever. The command warns of them; a
// gate on a tool the baseline does not use (to catch a candidate that
// starts using it) makes sense, so they are not errors.
func (gs Gates) Unused(c *Comparison) []Unused {
	var called []string
	for _, m := range c.Metrics {
		if tool, ok := strings.CutPrefix(m.Name, ToolMetricPrefix); ok {
			called = append(called, tool)
		}
	}
	var out []Unused
	for _, g := range gs {
		if tool, ok := strings.CutPrefix(g.Metric, ToolMetricPrefix); ok && !slices.Contains(called, tool) {
			out = append(out, Unused{Gate: g, Tool: tool, Called: called})
		}
	}
	return out
}

// Gated reports whether a threshold names metric (OutcomeGate for the
// outcome).
func (gs Gates) Gated(metric string) bool {
	return slices.ContainsFunc(gs, func(g Gate) bool { return g.Metric == metric })
}

// OutcomeCrossed reports whether the candidate's outcome crosses the
// outcome gate: it differs from the baseline's and is not succeeded.
func OutcomeCrossed(baseline, candidate string) bool {
	return baseline != candidate && candidate != string(model.OutcomeSucceeded)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Apply sets c.Crossed to the thresholds of gs that c crosses (empty, not
// null, when none).
func (c *Comparison) Apply(gs Gates) {
	c.Crossed = gs.Check(c)
	if c.Crossed == nil {
		c.Crossed = []string{}
	}
}
