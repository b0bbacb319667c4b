package archiving

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
)

// The background takes what the live work leaves: a hundred live
// requests of a limit of a hundred a second, counted by the meter, hold
// the background's next request about a second; the live requests
// themselves never wait.
func TestLiveWorkComesFirst(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := archive.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	limit := Limit{N: 100, Per: time.Second}
	m := NewLiveMeter(ctx, st, "http://svc", "team", limit)
	began := time.Now()
	for range 100 {
		if err := m.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(began); d > 100*time.Millisecond {
		t.Fatalf("a hundred live requests waited %s", d)
	}
	m.flush(ctx)
	b := NewBudget(st, "http://svc", "team", limit, nil)
	wait, err := b.reserve(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A second of live slots, less the background's burst (2 of 20 ms).
	if wait < 800*time.Millisecond || wait > time.Second {
		t.Errorf("the background's next request after a second of live work: wait %s, want about 960ms", wait)
	}
	// A 429 a live request met holds the background for its delay.
	m.RateLimited(5 * time.Second)
	m.flush(ctx)
	if wait, err := b.reserve(ctx, 0); err != nil || wait < 4*time.Second {
		t.Errorf("the background after a live 429 asking 5s: wait %s (%v)", wait, err)
	}
}

// A 429 a live request met is written at once, not at the meter's next
// flush: the background does not ask meanwhile.
func TestLiveMeterWritesA429AtOnce(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := archive.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	limit := Limit{N: 100, Per: time.Minute} // counts flushed every 5s
	m := NewLiveMeter(ctx, st, "http://svc", "team", limit)
	defer m.Stop()
	m.RateLimited(30 * time.Second)
	// A hold of a millisecond reserves nothing: it reads how far the
	// background is held.
	key := archive.BudgetKey{Service: "http://svc", Team: "team"}
	for deadline := time.Now().Add(2 * time.Second); ; {
		wait, err := st.(archive.Budgeter).Pace(ctx, key, time.Second, 1, time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if wait > 20*time.Second {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background after a live 429 asking 30s: held %s, 2s later", wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
