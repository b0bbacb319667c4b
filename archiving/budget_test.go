package archiving

import (
	"context"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
)

// TestBudgetHoldsAndSlowsAfterA429: the background work takes half the
// limit, a burst of a twentieth of that at once; a 429 holds the next
// request for the delay it asked, and halves the pace: on the archive's
// row (another process's budget waits too) and alone.
func TestBudgetHoldsAndSlowsAfterA429(t *testing.T) {
	ctx := context.Background()
	st := tempArchive(t)
	limit := Limit{N: 1000, Per: 1000 * time.Second} // 500 for the background: one each 2s, bursts of 25
	for name, shared := range map[string]archive.Store{"shared": st, "alone": nil} {
		t.Run(name, func(t *testing.T) {
			b := NewBudget(shared, "http://svc.test", name, limit, nil)
			reserve := func() time.Duration {
				t.Helper()
				d, err := b.reserve(ctx, 0)
				if err != nil {
					t.Fatal(err)
				}
				return d
			}
			for i := range 25 {
				if d := reserve(); d != 0 {
					t.Fatalf("request %d of the burst waits %s", i+1, d)
				}
			}
			if d := reserve(); d <= 0 || d > 2*time.Second {
				t.Fatalf("past the burst: wait %s, want up to 2s", d)
			}
			b.RateLimited(30 * time.Second)
			// The 26 slots taken end 52s from now: the hold ends before.
			if d := reserve(); d < 48*time.Second || d > 52*time.Second {
				t.Fatalf("after a 429 asking for 30s: wait %s, want the slots taken, about 52s", d)
			}
			if iv, burst := b.pace(); iv != 4*time.Second || burst != 1 {
				t.Fatalf("after a 429 the pace is %s, bursts of %d; want 4s and 1", iv, burst)
			}
			b.RateLimited(5 * time.Minute)
			if d := reserve(); d < 5*time.Minute-2*time.Second || d > 5*time.Minute {
				t.Fatalf("after a 429 asking for 5m: wait %s", d)
			}
			if shared != nil {
				other := NewBudget(shared, "http://svc.test", name, limit, nil)
				if d, _ := other.reserve(ctx, 0); d < 5*time.Minute-2*time.Second {
					t.Fatalf("another process's background request after the 429 waits %s", d)
				}
			}
		})
	}
}
