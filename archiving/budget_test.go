package archiving

import (
	"context"
	"path/filepath"
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
	st, err := archive.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	limit := Limit{N: 1000, Per: 100 * time.Second} // 500 for the background: one each 200ms, bursts of 25
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
			if d := reserve(); d < 100*time.Millisecond || d > 200*time.Millisecond {
				t.Fatalf("past the burst: wait %s, want about 200ms", d)
			}
			b.RateLimited(30 * time.Second)
			if d := reserve(); d < 30*time.Second || d > 32*time.Second {
				t.Fatalf("after a 429 asking for 30s: wait %s", d)
			}
			if iv, burst := b.pace(); iv != 400*time.Millisecond || burst != 1 {
				t.Fatalf("after a 429 the pace is %s, bursts of %d; want 400ms and 1", iv, burst)
			}
			if shared != nil {
				other := NewBudget(shared, "http://svc.test", name, limit, nil)
				if d, _ := other.reserve(ctx, 0); d < 30*time.Second {
					t.Fatalf("another process's background request after the 429 waits %s", d)
				}
			}
		})
	}
}
