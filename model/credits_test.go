package model

import (
	"slices"
	"testing"
	"time"
)

// Each rise of creditsUsed is kept once, on the trace's clock: the newest
// occurredAt once the merge that brought it is done.
func TestCreditHistory(t *testing.T) {
	e1 := ev("e1", orch, 1, 0, "run.started")
	e2 := ev("e2", orch, 2, 4000, "reasoning.summary", "text", "a")
	e3 := ev("e3", orch, 3, 9000, "reasoning.summary", "text", "b")
	credits := func(c float64, events ...any) []byte { return bodyWith(map[string]any{"creditsUsed": c}, events...) }
	s := ingest(t,
		credits(0),         // before any event: no rise from nothing
		credits(3, e1),     // at 0 s
		credits(3, e1),     // the same: nothing
		credits(8, e1, e2), // at 4 s
		credits(5, e1, e2), // lower: ignored
		credits(9, e1, e2), // same time, higher: replaces
		credits(12, e1, e2, e3),
	)
	want := []CreditPoint{{t0, 3}, {t0.Add(4 * time.Second), 9}, {t0.Add(9 * time.Second), 12}}
	got := s.CreditHistory()
	if !slices.EqualFunc(got, want, func(a, b CreditPoint) bool { return a.At.Equal(b.At) && a.Credits == b.Credits }) {
		t.Errorf("history %v, want %v", got, want)
	}
	if !s.Newest().Equal(t0.Add(9 * time.Second)) {
		t.Errorf("newest %v", s.Newest())
	}
}
