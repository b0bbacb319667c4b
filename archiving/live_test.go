package archiving

import (
	"context"
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
	st := tempArchive(t)
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
	st := tempArchive(t)
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

// A watch's polls carry its live requests' count into the team's budget,
// in the poll's own transaction: the meter has nothing left to write.
func TestPollsCarryTheLiveCount(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := tempArchive(t)
	s := leasedSink(t, st, nil, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b")
	m := NewLiveMeter(ctx, st, "http://x", s.team, Limit{N: 100, Per: time.Hour}) // its own writes every 5s
	defer m.Stop()
	s.CarrySpend(m)
	for range 10 {
		_ = m.Wait(ctx)
	}
	s.Append(archive.Poll{ReceivedAt: time.Now(), Line: []byte(`{"receivedAt":"2026-11-25T20:50:31Z","trace":{"events":[]}}`)})
	s.Sync()
	if n := m.n.Load(); n != 0 {
		t.Fatalf("%d live requests left to the meter after the poll was written", n)
	}
	// Ten requests of an hour's hundred: six minutes of the budget, as a
	// Spend of its own would count them.
	b := st.(archive.Budgeter)
	other := archive.BudgetKey{Service: "http://y", Team: s.team}
	if err := b.Spend(ctx, other, 6*time.Minute, time.Hour); err != nil {
		t.Fatal(err)
	}
	want, err := b.Pace(ctx, other, time.Second, 1, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	wait, err := b.Pace(ctx, archive.BudgetKey{Service: "http://x", Team: s.team}, time.Second, 1, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if want < time.Minute || wait < want-2*time.Second || wait > want+time.Second {
		t.Fatalf("the background waits %s after the poll carried ten live requests, want %s", wait, want)
	}
	if polls, err := st.Polls(ctx, "http://x", s.jobID); err != nil || len(polls) != 1 {
		t.Fatalf("%d polls stored, %v", len(polls), err)
	}
}
