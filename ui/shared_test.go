package ui

import (
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// sharedBackend is a shared run's Backend: the one watcher's controls,
// counted.
type sharedBackend struct {
	simBackend
	paused atomic.Int32
}

func (b *sharedBackend) SetPaused(p bool) {
	b.paused.Add(1)
	b.simBackend.SetPaused(p)
}

// TestSharedRunTwoScreens: two screens of one shared run (a follower over
// the simulator's poll) merge nothing themselves; each shows the whole run
// to its end from the one store, with a note said to every viewer; a
// viewer's p says why it may not pause, an operator's pauses the one poll.
// Run with -race: the screens read the store only under the follower's
// lock while it merges.
func TestSharedRunTwoScreens(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := sim.Start(ctx, sim.Options{Scenarios: []string{"research"}, Speed: 30, Seed: 3, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := poller.New(poller.Config{BaseURL: s.URL, APIKey: s.Key, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	job := s.Jobs[0].ID
	w := c.Watch(job, poller.WatchOptions{Interval: 100 * time.Millisecond, Tail: 2, TailMax: 2 * time.Second, TokenEvery: -1})
	run := follow.NewRun()
	run.NewTracker()
	f := follow.NewFollower(follow.Poll(w), &run)
	be := &sharedBackend{simBackend: simBackend{w, c, job}}

	type screenRun struct {
		m   *Model
		out *lockedBuffer
		in  *io.PipeWriter
		res Result
		err error
	}
	screens := []*screenRun{{out: &lockedBuffer{}}, {out: &lockedBuffer{}}}
	var wg sync.WaitGroup
	for i, sc := range screens {
		in, inW := io.Pipe()
		sc.in = inW
		cfg := Config{JobID: job, Shared: f, Backend: be, Input: in, Output: sc.out, Width: 120, Height: 40, NoColor: true}
		if i == 1 {
			cfg.PollReadOnly = "only the hub's operators may pause this run's polling"
		}
		m, screen := newShared(cfg)
		sc.m = m
		wg.Go(func() {
			defer m.shared.Leave()
			sc.res, sc.err = m.run(ctx, screen, cfg)
		})
	}
	waitFor := func(sc *screenRun, want string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(sc.out.String(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("%q never showed:\n%s", want, sc.out)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor(screens[0], "Timeline")
	waitFor(screens[1], "Timeline")
	f.Start(ctx)
	waitFor(screens[0], "started")
	pauses := func(n int32) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for be.paused.Load() != n {
			if time.Now().After(deadline) {
				t.Fatalf("the poll was paused or resumed %d times, want %d", be.paused.Load(), n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	screens[0].in.Write([]byte("p"))
	pauses(1)
	waitFor(screens[0], "paused")
	waitFor(screens[1], "paused")
	screens[0].in.Write([]byte("p"))
	pauses(2)
	f.Say("alice cancelled nothing")
	waitFor(screens[0], "alice cancelled nothing")
	waitFor(screens[1], "alice cancelled nothing")
	screens[1].in.Write([]byte("p"))
	waitFor(screens[1], "only the hub's operators may pause")
	if n := be.paused.Load(); n != 2 {
		t.Fatalf("the poll was paused or resumed %d times, want the operator's 2", n)
	}
	if err := f.Err(); err != nil {
		t.Fatal(err)
	}
	var events int
	f.View(func(r *follow.Run) { events = r.Store.Len() })
	for _, sc := range screens {
		waitFor(sc, "Run succeeded")
		sc.in.Write([]byte("q"))
	}
	wg.Wait()
	for i, sc := range screens {
		if sc.err != nil || sc.res.Quit {
			t.Errorf("screen %d: %v, %+v", i, sc.err, sc.res)
		}
		// Every event of the one store, told to each screen once.
		if n := sc.m.timeline.len(); n != events {
			t.Errorf("screen %d: %d events in its timeline of the store's %d", i, n, events)
		}
	}
	if f.Subscribers() != 0 {
		t.Errorf("%d subscribers left after both screens ended", f.Subscribers())
	}
	if st := s.Stats(); st.ByRoute["GET trace"] == 0 {
		t.Fatal("no trace request")
	}
}
