package compare

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func calls(spec ...string) []Call {
	var out []Call
	for _, s := range spec {
		name, params, _ := strings.Cut(s, " ")
		out = append(out, Call{ToolName: name, Parameters: jsontext.Value(params)})
	}
	return out
}

// TestAlignSteps: calls are aligned by tool name; aligned calls with other
// parameters (key order aside) are changed; the rest added or removed.
func TestAlignSteps(t *testing.T) {
	x := calls(`search {"q":"a","limit":5}`, `scrape {"url":"u1"}`, `scrape {"url":"u2"}`, `extract {}`)
	y := calls(`search {"limit":5,"q":"a"}`, `scrape {"url":"u1/"}`, `map {}`, `extract {}`)
	got := alignSteps("a", x, y)
	var changes []string
	for i, s := range got {
		if s.Step != i+1 || s.Agent != "a" {
			t.Fatalf("step %d: %+v", i, s)
		}
		changes = append(changes, s.Change)
	}
	if want := "same changed added removed same"; strings.Join(changes, " ") != want {
		t.Fatalf("changes %v, want %s", changes, want)
	}
	if got[2].Candidate.ToolName != "map" || got[3].Baseline.ToolName != "scrape" {
		t.Fatalf("added/removed: %+v %+v", got[2], got[3])
	}
	if len(alignSteps("a", nil, nil)) != 0 {
		t.Fatal("steps from no calls")
	}
}

func TestStepsOf(t *testing.T) {
	c := &Comparison{Agents: make([]Agent, 3), Steps: []Step{{AgentIndex: 0, Step: 1}, {AgentIndex: 0, Step: 2}, {AgentIndex: 2, Step: 1}}}
	if n := len(c.StepsOf(0)); n != 2 {
		t.Fatalf("agent 0: %d steps", n)
	}
	if n := len(c.StepsOf(1)); n != 0 {
		t.Fatalf("agent 1: %d steps", n)
	}
	if s := c.StepsOf(2); len(s) != 1 || s[0].AgentIndex != 2 {
		t.Fatalf("agent 2: %+v", s)
	}
}

func TestGateMetric(t *testing.T) {
	for spec, want := range map[string]string{
		"creditsUsed:+20%":                "creditsUsed",
		"toolCalls:mcp__tools__scrape:+3": "toolCalls:mcp__tools__scrape",
		"outcome":                         OutcomeGate,
		"nonsense":                        "",
	} {
		if got := GateMetric(spec); got != want {
			t.Errorf("GateMetric(%q) = %q, want %q", spec, got, want)
		}
	}
	if !OutcomeCrossed("succeeded", "failed") || OutcomeCrossed("failed", "succeeded") || OutcomeCrossed("failed", "failed") {
		t.Fatal("OutcomeCrossed")
	}
}
