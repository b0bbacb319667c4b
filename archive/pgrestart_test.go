package archive

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/firewatch/firewatch/internal/pgtest"
)

// TestPostgresGoneAndBack: PostgreSQL unreachable when two members start,
// then stopped mid-run and started again. Without it each member polls on
// its own and says so once per outage; with it they share again: one
// polls, the other follows (its doorbells' connection made again), every
// poll stored is stored once, in order, and shown once by each.
func TestPostgresGoneAndBack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	t.Parallel()
	postgresDSN(t)
	pg := pgtest.New(t)
	svcRun := newFakeService(t, 0)
	k := LeaseKey{Service: svcRun.URL, Team: team, Run: runID}
	ev := newEvents()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	names := []string{"a", "b"}
	for _, name := range names {
		m := &member{name: name, open: func(ctx context.Context) (Store, error) { return Open(ctx, pg.DSN()) },
			key: k, holder: NewHolder(name), interval: teamInterval, ttl: teamTTL, service: svcRun.URL, say: ev.say}
		wg.Add(1)
		go func() { defer wg.Done(); errs <- m.run(ctx) }()
	}
	// Unreachable at the start: each polls on its own.
	owns := func(what string) {
		seen := map[string]int{}
		ev.await(t, 5*time.Second, what, func(e event) bool {
			if e.Kind == "own" {
				seen[e.Member]++
			}
			return seen["a"] >= 3 && seen["b"] >= 3
		})
	}
	owns("both poll on their own while PostgreSQL is down at the start")
	pg.Start(t)
	ev.await(t, 10*time.Second, "a member takes the lease", func(e event) bool { return e.Kind == "took" })
	ev.await(t, 5*time.Second, "polls stored and followed", func(e event) bool { return e.Kind == "seen" && e.Seq >= 5 })
	pg.Stop(t)
	owns("both poll on their own while PostgreSQL is down mid-run")
	pg.Start(t)
	ev.await(t, 10*time.Second, "a member takes the lease again", func(e event) bool { return e.Kind == "took" })
	ev.await(t, 10*time.Second, "a follower's doorbells back", func(e event) bool { return e.Kind == "missed" })
	n0, _ := svcRun.requests()
	svcRun.finishIn(15)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	st := openAgain(t, pg.DSN())
	stored := checkStored(t, st, k)
	all := ev.list()
	for _, name := range names {
		checkSeen(t, name, all, len(stored), true)
		said := 0
		for _, e := range all {
			if e.Member == name && e.Kind == "solo" {
				said++
				t.Logf("%s: %s", name, e.Err)
			}
		}
		if said != 2 {
			t.Errorf("%s said it polls on its own %d times, want once per outage", name, said)
		}
	}
	// Shared again: every trace request from then on is one member's,
	// stored.
	n, by := svcRun.requests()
	t.Logf("%d polls stored, %d trace requests (%v)", len(stored), n, by)
	after := 0
	for _, p := range stored {
		if p.K > n0 {
			after++
		}
	}
	if after != n-n0 {
		t.Errorf("%d trace requests since both joined again, %d of them stored", n-n0, after)
	}
}
