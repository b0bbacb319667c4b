package compare

import (
	"strings"
	"testing"
)

func TestParseFailOn(t *testing.T) {
	g, err := ParseFailOn("creditsUsed:+20%, durationMs:+50%,toolCalls:mcp__tools__scrape:+3,outcome")
	if err != nil || len(g) != 4 || g[2].Metric != "toolCalls:mcp__tools__scrape" || g[2].Limit != 3 || g[2].Percent || !g[0].Percent ||
		g[1].Spec != "durationMs:+50%" || g[3].Metric != OutcomeGate {
		t.Fatalf("%+v %v", g, err)
	}
	for bad, why := range map[string]string{
		"creditsUsed":     "each item is METRIC",
		"creditsUsed:20%": "needs a sign",
		"nope:+1":         `unknown metric "nope" (durationMs, creditsUsed, tokensUsed, agents, toolCalls, errors, attention, toolCalls:<toolName>)`,
		"toolCalls:+x":    "is not a non-zero number",
		"creditsUsed:+0":  "is not a non-zero number",
		"toolCalls::+1":   "unknown metric",
		"a\x1b[2J:+1":     `"a:+1": unknown metric "a" (`,
	} {
		if _, err := ParseFailOn(bad); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: %v, want %q", bad, err, why)
		}
	}
	if g, err := ParseFailOn(" "); g != nil || err != nil {
		t.Fatalf("blank: %v %v", g, err)
	}
}

func TestCheck(t *testing.T) {
	g, err := ParseFailOn("creditsUsed:+20%,durationMs:+50%,toolCalls:mcp__tools__scrape:+3,outcome,errors:-1,toolCalls:x:+1%")
	if err != nil {
		t.Fatal(err)
	}
	pc := func(v float64) *float64 { return &v }
	strp := func(s string) *string { return &s }
	c := &Comparison{Baseline: &Side{Outcome: strp("succeeded")}, Candidate: &Side{Outcome: strp("failed")},
		Metrics: []Metric{{Name: "creditsUsed", Baseline: 100, Candidate: 121, Delta: 21, DeltaPercent: pc(21)},
			{Name: "durationMs", Baseline: 100, Candidate: 150, Delta: 50, DeltaPercent: pc(50)},
			{Name: "errors", Baseline: 3, Candidate: 1, Delta: -2},
			{Name: "toolCalls:mcp__tools__scrape", Baseline: 0, Candidate: 3, Delta: 3}}}
	c.Apply(g)
	if got := strings.Join(c.Crossed, " "); got != "creditsUsed:+20% outcome errors:-1" {
		t.Fatalf("crossed %v", got)
	}
	if u := g.Unused(c); len(u) != 1 || u[0].Tool != "x" || strings.Join(u[0].Called, ",") != "mcp__tools__scrape" {
		t.Fatalf("unused %+v", u)
	}
	if !g.Gated(OutcomeGate) || !g.Gated("errors") || g.Gated("agents") {
		t.Fatal("Gated")
	}
	c.Apply(nil)
	if c.Crossed == nil || len(c.Crossed) != 0 {
		t.Fatalf("no gates: %#v", c.Crossed)
	}
}
