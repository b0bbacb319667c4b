package attention

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestMedianMatchesSortedCopy: after every Add, Median is what a sorted copy
// of everything added holds at len/2 (the stall and slow-tool thresholds'
// definition), on random, repeated, rising and falling durations.
func TestMedianMatchesSortedCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for name, gen := range map[string]func(i int) time.Duration{
		"random":   func(int) time.Duration { return time.Duration(r.IntN(1000)) * time.Millisecond },
		"repeated": func(int) time.Duration { return time.Duration(r.IntN(3)) },
		"rising":   func(i int) time.Duration { return time.Duration(i) },
		"falling":  func(i int) time.Duration { return time.Duration(-i) },
	} {
		var m median
		if m.Median() != 0 || m.Len() != 0 {
			t.Fatalf("%s: empty median %v, len %d", name, m.Median(), m.Len())
		}
		var sorted []time.Duration
		for i := range 3000 {
			d := gen(i)
			m.Add(d)
			j, _ := slices.BinarySearch(sorted, d)
			sorted = slices.Insert(sorted, j, d)
			if got, want := m.Median(), sorted[len(sorted)/2]; got != want || m.Len() != len(sorted) {
				t.Fatalf("%s after %d: median %v len %d, want %v len %d", name, i+1, got, m.Len(), want, len(sorted))
			}
		}
	}
}
