package poller

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/sim"
)

func TestWatchResearchReachesTheScript(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Seed: 7})
	c := newClient(t, srv, withKey(srv))
	job := srv.Jobs[0].ID
	col := watchAll(t, c, job, WatchOptions{})
	sameSummary(t, "research watch vs script", col.summary(), scriptSummary(t, srv, job))
	sum := col.summary()
	if sum.Outcome == nil || *sum.Outcome != model.OutcomeSucceeded {
		t.Fatalf("outcome %v, want succeeded", sum.Outcome)
	}
	if st := srv.Stats(); st.MaxConcurrentTrace != 1 {
		t.Fatalf("MaxConcurrentTrace = %d", st.MaxConcurrentTrace)
	}
}

func TestChaosReachesTheCleanSummary(t *testing.T) {
	t.Parallel()
	const seed = 11
	clean := startSim(t, sim.Options{Seed: seed, Scenarios: []string{"research"}, Speed: 200})
	chaos := startSim(t, sim.Options{Seed: seed, Scenarios: []string{"chaos"}, Speed: 200})
	cc := newClient(t, clean, withKey(clean))
	hc, counter := countingClient()
	xc := newClient(t, chaos, Config{BaseURL: chaos.URL, APIKey: chaos.Key, HTTPClient: hc})

	var wg sync.WaitGroup
	var cleanCol, chaosCol *collector
	wg.Add(2)
	go func() { defer wg.Done(); cleanCol = watchAll(t, cc, clean.Jobs[0].ID, WatchOptions{}) }()
	go func() { defer wg.Done(); chaosCol = watchAll(t, xc, chaos.Jobs[0].ID, WatchOptions{}) }()
	wg.Wait()
	if t.Failed() {
		return
	}
	sameSummary(t, "chaos vs script", chaosCol.summary(), scriptSummary(t, chaos, chaos.Jobs[0].ID))
	sameSummary(t, "chaos vs research", chaosCol.summary(), cleanCol.summary())

	kinds := map[Kind]int{}
	for _, e := range chaosCol.errs() {
		kinds[e.Kind]++
	}
	t.Logf("faults served: %v; errors seen: %v", chaos.Stats().Faults, kinds)
	if kinds[KindServer] == 0 || kinds[KindMalformed] == 0 || kinds[KindRateLimited] == 0 {
		t.Fatalf("the chaos run should have shown server, malformed and rate-limit errors, saw %v", kinds)
	}
	if n := counter.maxInFlight(); n != 1 {
		t.Fatalf("%d trace requests in flight at once", n)
	}
	for name, srv := range map[string]*sim.Server{"clean": clean, "chaos": chaos} {
		if st := srv.Stats(); st.MaxConcurrentTrace != 1 {
			t.Fatalf("the %s server saw %d trace requests at once", name, st.MaxConcurrentTrace)
		}
	}
}

func TestNoOverlappingRequestsWhileHammeringPollNow(t *testing.T) {
	t.Parallel()
	for _, scenario := range []string{"research", "chaos"} {
		t.Run(scenario, func(t *testing.T) {
			// Held until the hammer has made its calls: a fast run on a
			// loaded machine could otherwise end before it made them.
			srv := startSim(t, sim.Options{Scenarios: []string{scenario}, Speed: 200, Held: true})
			hc, counter := countingClient()
			c := newClient(t, srv, Config{BaseURL: srv.URL, APIKey: srv.Key, HTTPClient: hc})
			w := fast(c.Watch(srv.Jobs[0].ID, WatchOptions{Interval: 50 * time.Millisecond}))
			col := newCollector()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			stop := make(chan struct{})
			var calls atomic.Int64
			var hammer sync.WaitGroup
			go func() {
				for calls.Load() < 100 {
					select {
					case <-stop:
						return
					case <-time.After(time.Millisecond):
					}
				}
				srv.Release()
			}()
			for range 3 {
				hammer.Add(1)
				go func() {
					defer hammer.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						w.PollNow()
						w.SetLiveView(calls.Add(1)%2 == 0)
						runtime.Gosched()
					}
				}()
			}
			err := w.Run(ctx, col.sink)
			close(stop)
			hammer.Wait()
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if n := counter.maxInFlight(); n != 1 {
				t.Fatalf("%d trace requests in flight at once", n)
			}
			// See TestChaosReachesTheCleanSummary for why the sim's
			// counter is only exact without chaos faults.
			if st := srv.Stats(); scenario != "chaos" && st.MaxConcurrentTrace != 1 {
				t.Fatalf("MaxConcurrentTrace = %d, want 1", st.MaxConcurrentTrace)
			}
			if calls.Load() < 100 {
				t.Fatalf("the hammer made only %d calls", calls.Load())
			}
			sameSummary(t, "hammered watch vs script", col.summary(), scriptSummary(t, srv, srv.Jobs[0].ID))
		})
	}
}

// unskewed drops from a summary what a skewed agent clock changes: the
// order of the time-ordered lists (put in id order) and tool-call durations.
