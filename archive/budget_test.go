package archive

import (
	"context"
	"testing"
	"time"
)

// TestPaceShared: the processes of one archive pace one budget per service
// and team: two stores open on it split the slots (a burst, then one an
// interval, whoever asks), a 429's hold pushes every later slot past it,
// and another team's budget is its own.
func TestPaceShared(t *testing.T) {
	eachStore(t, func(t *testing.T, dsn string, s Store) {
		ctx := context.Background()
		other, err := Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		k := BudgetKey{Service: "http://svc.test", Team: "team-a"}
		const iv = 10 * time.Second
		pace := func(st Store, k BudgetKey, hold time.Duration) time.Duration {
			t.Helper()
			d, err := st.(Budgeter).Pace(ctx, k, iv, 2, hold)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		near := func(what string, got, want time.Duration) {
			t.Helper()
			if got > want || got < want-2*time.Second {
				t.Errorf("%s: wait %s, want about %s", what, got, want)
			}
		}
		near("first of the burst", pace(s, k, 0), 0)
		near("second of the burst", pace(other, k, 0), 0)
		near("third", pace(s, k, 0), iv)
		near("fourth, the other process", pace(other, k, 0), 2*iv)
		near("another team", pace(other, BudgetKey{Service: k.Service, Team: "team-b"}, 0), 0)
		// A 429 asking for a minute: the next request goes when it ends,
		// the one after it an interval on.
		pace(s, k, time.Minute)
		near("after the hold", pace(s, k, 0), time.Minute)
		near("after the hold, next", pace(other, k, 0), time.Minute+iv)
		// One that allows itself a larger burst waits the hold out too.
		if d, err := other.(Budgeter).Pace(ctx, k, iv, 20, 0); err != nil || d < time.Minute-2*time.Second {
			t.Errorf("a larger burst after the hold: wait %s (%v), want the hold at least", d, err)
		}
	})
}

// TestPaceNeverFaster: an interval that is not a whole number of
// milliseconds (the row's resolution) is paced at the next whole one, not
// the one below: 2.5 ms goes as 3 ms, never as 2 ms (a quarter more
// requests than asked).
func TestPaceNeverFaster(t *testing.T) {
	eachStore(t, func(t *testing.T, dsn string, s Store) {
		ctx := context.Background()
		k := BudgetKey{Service: "http://svc.test", Team: "team-fine"}
		const iv, n = 2500 * time.Microsecond, 40
		began := time.Now()
		var wait time.Duration
		for range n + 1 {
			d, err := s.(Budgeter).Pace(ctx, k, iv, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			wait = d
		}
		// The last slot is n intervals after the first.
		if got := wait + time.Since(began); got < n*iv {
			t.Errorf("%d slots of %s took %s; want at least %s", n+1, iv, got, n*iv)
		}
	})
}

// TestSpendShrinksTheBackground: live requests counted into a budget move
// the background's next slot on by their cost, up to the most given, and
// never make anyone wait themselves.
func TestSpendShrinksTheBackground(t *testing.T) {
	eachStore(t, func(t *testing.T, dsn string, s Store) {
		ctx := context.Background()
		b := s.(Budgeter)
		k := BudgetKey{Service: "http://svc.test", Team: "team-live"}
		if err := b.Spend(ctx, k, 30*time.Second, time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := b.Spend(ctx, k, 20*time.Second, time.Minute); err != nil {
			t.Fatal(err)
		}
		if d, err := b.Pace(ctx, k, time.Second, 1, 0); err != nil || d < 45*time.Second || d > 51*time.Second {
			t.Errorf("the background after 50s of live work: wait %s (%v), want about 50s", d, err)
		}
		// However heavy, the live work holds the background a minute at most.
		if err := b.Spend(ctx, k, time.Hour, time.Minute); err != nil {
			t.Fatal(err)
		}
		if d, err := b.Pace(ctx, k, time.Second, 1, 0); err != nil || d > time.Minute+time.Second {
			t.Errorf("the background after an hour of live work: wait %s (%v), want a minute at most", d, err)
		}
	})
}
