package comparetext

import (
	"strings"
	"testing"

	"github.com/firewatch/firewatch/compare"
)

func comparison() *compare.Comparison {
	ok, failed, pct := "succeeded", "failed", 50.0
	return &compare.Comparison{
		Baseline:  &compare.Side{Ref: "a|b", Outcome: &ok, Complete: true},
		Candidate: &compare.Side{Ref: "c\x1b[31m", Outcome: &failed},
		Metrics:   []compare.Metric{{Name: "creditsUsed", Baseline: 10, Candidate: 15, Delta: 5, DeltaPercent: &pct}},
		Crossed:   []string{"creditsUsed:+20%"},
	}
}

// The text is coloured only when asked (a rising metric, the thresholds),
// and nothing of a run's own reaches it raw: a side's reference is
// sanitised, a side known in part reads incomplete.
func TestText(t *testing.T) {
	t.Parallel()
	plain := Text(comparison(), false)
	if strings.Contains(plain, "\x1b") {
		t.Errorf("no colour asked, an escape written:\n%q", plain)
	}
	for _, want := range []string{"baseline  a|b  succeeded", "candidate c  incomplete", "+5", "+50.0%", "thresholds crossed: creditsUsed:+20%"} {
		if !strings.Contains(plain, want) {
			t.Errorf("no %q in:\n%s", want, plain)
		}
	}
	if col := Text(comparison(), true); !strings.Contains(col, "\x1b[33m      +5\x1b[0m") || !strings.Contains(col, "\x1b[31mthresholds crossed:\x1b[0m") {
		t.Errorf("colour asked, the delta or the gate not painted:\n%q", col)
	}
}

// The Markdown's table cells cannot be broken by a pipe in a reference.
func TestMarkdown(t *testing.T) {
	t.Parallel()
	md := Markdown(comparison())
	for _, want := range []string{"### firewatch compare: a\\|b → c", "Outcome: **succeeded** → **incomplete**", "| `creditsUsed` | 10 | 15 | +5 | +50.0% |", "**Thresholds crossed:** creditsUsed:+20%"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in:\n%s", want, md)
		}
	}
}
