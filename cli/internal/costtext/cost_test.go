package costtext

import (
	"fmt"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
)

// cost applies the one billing rule: billed unless failed; a run whose
// outcome is not known (known only in part, or only from the service's
// status word) is counted apart, never guessed.
func TestCostBuckets(t *testing.T) {
	day := func(d int) *time.Time { t := time.Date(2026, 11, d, 12, 0, 0, 0, time.UTC); return &t }
	f := func(v float64) *float64 { return &v }
	list := []archive.Run{
		{ID: "a", CreatedAt: day(16), Status: "completed", Outcome: "succeeded", Complete: true, CreditsUsed: f(0.1), Model: "spark-1"},
		{ID: "b", CreatedAt: day(16), Status: "failed", Outcome: "failed", Complete: true, CreditsUsed: f(0.2), Model: "spark-1"},
		{ID: "c", CreatedAt: day(17), Status: "cancelled", Outcome: "cancelled", Complete: true, CreditsUsed: f(0.3), Label: "x"},
		{ID: "d", CreatedAt: day(17), Status: "failed", Outcome: "credit_limit_reached", Complete: true, CreditsUsed: f(150)},
		{ID: "e", CreatedAt: day(18), Status: "processing", CreditsUsed: f(46), Events: 40},      // a watch left early
		{ID: "f", CreatedAt: day(18), Status: "failed", CreditsUsed: f(9)},                       // the service's word only
		{ID: "g", CreatedAt: day(23), Status: "completed", Outcome: "succeeded", Complete: true}, // no figure
	}
	rep := Build("week", list, time.Now())
	if len(rep.Buckets) != 2 || rep.Buckets[0].Key != "2026-W47" || rep.Buckets[1].Key != "2026-W48" {
		t.Fatalf("%+v", rep.Buckets)
	}
	var sum, billed float64
	for _, b := range rep.Buckets {
		sum += b.CreditsUsed
		billed += b.BilledCredits
	}
	want := Total{Runs: 7, CreditsUsed: 205.6, BilledCredits: 150.4, FailedRuns: 1, FailedCredits: 0.2, UnknownRuns: 2, UnknownCredits: 55}
	if rep.Total != want || sum != rep.Total.CreditsUsed || billed != rep.Total.BilledCredits {
		t.Fatalf("totals %+v, want %+v; buckets add to %v / %v", rep.Total, want, sum, billed)
	}
	if b := rep.Buckets[0]; b.FailedRuns != 1 || b.FailedCredits != 0.2 || b.UnknownRuns != 2 || b.UnknownCredits != 55 {
		t.Fatalf("week 47 %+v", b)
	}
	lab := Build("label", list, time.Now())
	if lab.Buckets[len(lab.Buckets)-1].Key != "" && lab.Buckets[0].Key != "" {
		t.Fatalf("no label bucket: %+v", lab.Buckets)
	}
}

// TestCostSumsDoNotOverflow: runs of 9e11 credits each (under the model's
// bound of 1e12) add up exactly, never to a negative total, in the
// buckets and the totals alike.
func TestCostSumsDoNotOverflow(t *testing.T) {
	at := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var list []archive.Run
	for i := range 20 {
		c := 9e11
		list = append(list, archive.Run{ID: fmt.Sprint(i), CreatedAt: &at, Status: []string{"completed", "failed"}[i%2],
			Outcome: []string{"succeeded", "failed"}[i%2], Complete: true, CreditsUsed: &c, Model: "spark-2"})
	}
	big := 5e12 // past the bound: counts as the bound
	list = append(list, archive.Run{ID: "x", CreatedAt: &at, Status: "completed", Outcome: "succeeded", Complete: true, CreditsUsed: &big, Model: "spark-2"})
	for _, by := range []string{"day", "model"} {
		rep := Build(by, list, time.Now())
		if len(rep.Buckets) != 1 {
			t.Fatalf("%s: %+v", by, rep.Buckets)
		}
		b := rep.Buckets[0]
		if b.CreditsUsed != 1.9e13 || b.FailedCredits != 9e12 || b.BilledCredits != 1e13 {
			t.Errorf("%s: bucket %+v", by, b)
		}
		if rep.Total.CreditsUsed != 1.9e13 || rep.Total.BilledCredits != 1e13 || rep.Total.Runs != 21 {
			t.Errorf("%s: total %+v", by, rep.Total)
		}
	}
}
