package follow

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/firewatch/firewatch/follow/followtest"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// tracePolls is the simulator's large run of events events in polls
// polls.
func tracePolls(t testing.TB, events, polls int) []*model.Poll {
	t.Helper()
	return followtest.Polls(t, followtest.Bodies(t, events, polls))
}

// pacedSource gives polls one every interval, counting how often it is
// followed.
func pacedSource(polls []*model.Poll, interval time.Duration, follows *atomic.Int32) Source {
	return SourceFunc(func(ctx context.Context, sink func(poller.Update)) error {
		follows.Add(1)
		for i, p := range polls {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(interval):
			}
			sink(poller.Update{Poll: p, Health: poller.Health{Polls: i + 1}})
		}
		return nil
	})
}

// reader takes every change of s, checking inside View that what it is told
// is in the store, and returns how many events it knows of when it ends.
func reader(t *testing.T, f *Follower, s *Subscription) (events int, wholes int, done bool) {
	for {
		c, ok := s.Next(context.Background())
		if !ok {
			return events, wholes, done
		}
		if c.Whole {
			wholes++
			events = 0
		}
		f.View(func(r *Run) {
			for _, e := range c.Delta.Events {
				if r.Store.Event(e.ID) != e {
					t.Errorf("event %s is not the store's", e.ID)
				}
			}
		})
		events += len(c.Delta.Events)
		done = c.Done
	}
}

// TestFollowerOnePollManyReaders: three readers of one follower are told
// every event once, from the one store, and the source is followed once.
func TestFollowerOnePollManyReaders(t *testing.T) {
	polls := tracePolls(t, 400, 20)
	synctest.Test(t, func(t *testing.T) {
		var follows atomic.Int32
		run := NewRun()
		f := NewFollower(pacedSource(polls, time.Second, &follows), &run)
		var wg sync.WaitGroup
		got := make([]int, 3)
		for i := range got {
			s := f.Subscribe()
			wg.Go(func() {
				n, wholes, done := reader(t, f, s)
				if wholes != 1 || !done {
					t.Errorf("reader %d: %d whole changes, done %v", i, wholes, done)
				}
				got[i] = n
			})
		}
		f.Start(context.Background())
		wg.Wait()
		if err := f.Err(); err != nil {
			t.Fatal(err)
		}
		var total int
		f.View(func(r *Run) { total = r.Store.Len() })
		for i, n := range got {
			if n != total || total == 0 {
				t.Errorf("reader %d was told of %d events, the store holds %d", i, n, total)
			}
		}
		if follows.Load() != 1 {
			t.Fatalf("the source was followed %d times", follows.Load())
		}
	})
}

// TestFollowerLateReader: a reader that comes halfway is told the run from
// its start (one whole change), then what follows; one that comes after
// the end is told the whole run, done.
func TestFollowerLateReader(t *testing.T) {
	polls := tracePolls(t, 400, 20)
	synctest.Test(t, func(t *testing.T) {
		var follows atomic.Int32
		run := NewRun()
		f := NewFollower(pacedSource(polls, time.Second, &follows), &run)
		f.Start(context.Background())
		time.Sleep(10*time.Second + time.Millisecond)
		s := f.Subscribe()
		first, ok := s.Next(context.Background())
		if !ok || !first.Whole || first.Done || len(first.Delta.Events) == 0 || first.Delta.From != 0 {
			t.Fatalf("the late reader's first change: whole %v, done %v, %d events", first.Whole, first.Done, len(first.Delta.Events))
		}
		if first.Health.Polls != 10 {
			t.Fatalf("its health: %d polls, want 10", first.Health.Polls)
		}
		n, wholes, done := reader(t, f, s)
		n += len(first.Delta.Events)
		var total int
		f.View(func(r *Run) { total = r.Store.Len() })
		if n != total || wholes != 0 || !done {
			t.Fatalf("the late reader knows %d events of %d (%d more whole changes, done %v)", n, total, wholes, done)
		}
		after := f.Subscribe()
		c, ok := after.Next(context.Background())
		if !ok || !c.Whole || !c.Done || len(c.Delta.Events) != total {
			t.Fatalf("a reader after the end: whole %v done %v, %d events", c.Whole, c.Done, len(c.Delta.Events))
		}
		if _, ok := after.Next(context.Background()); ok {
			t.Fatal("a change after Done")
		}
	})
}

// TestFollowerSlowReader: a reader that takes nothing holds back neither
// the polls nor the other readers; when it reads at last it is told the
// whole run once, not hundreds of changes.
func TestFollowerSlowReader(t *testing.T) {
	polls := tracePolls(t, 600, maxQueued+40)
	synctest.Test(t, func(t *testing.T) {
		var follows atomic.Int32
		run := NewRun()
		f := NewFollower(pacedSource(polls, time.Second, &follows), &run)
		slow := f.Subscribe()
		fast := f.Subscribe()
		var fastN int
		var wg sync.WaitGroup
		wg.Go(func() { fastN, _, _ = reader(t, f, fast) })
		f.Start(context.Background())
		<-f.Done()
		wg.Wait()
		var total int
		f.View(func(r *Run) { total = r.Store.Len() })
		c, ok := slow.Next(context.Background())
		if !ok || !c.Whole || !c.Done || len(c.Delta.Events) != total {
			t.Fatalf("the slow reader: whole %v done %v, %d events of %d", c.Whole, c.Done, len(c.Delta.Events), total)
		}
		if fastN != total {
			t.Fatalf("the other reader was told of %d events of %d", fastN, total)
		}
	})
}

// TestFollowerLeaveAndStop: a reader that leaves is forgotten and its
// Next returns; Stop ends the source, and the readers are told.
func TestFollowerLeaveAndStop(t *testing.T) {
	polls := tracePolls(t, 200, 10)
	synctest.Test(t, func(t *testing.T) {
		var follows atomic.Int32
		run := NewRun()
		f := NewFollower(pacedSource(polls, time.Second, &follows), &run)
		a, b := f.Subscribe(), f.Subscribe()
		f.Start(context.Background())
		time.Sleep(3*time.Second + time.Millisecond)
		a.Leave()
		if n := f.Subscribers(); n != 1 {
			t.Fatalf("%d subscribers after one left", n)
		}
		if _, ok := a.Next(context.Background()); ok {
			t.Fatal("a change after Leave")
		}
		f.Stop()
		if err := f.Err(); !errors.Is(err, context.Canceled) {
			t.Fatalf("stopped: %v", err)
		}
		var last Change
		for {
			c, ok := b.Next(context.Background())
			if !ok {
				break
			}
			last = c
		}
		if !last.Done {
			t.Fatal("the reader was not told the follower ended")
		}
	})
}

// TestFollowerPendingAndSay: a reader that drains inside View is told every
// change once, in order, with Say's notes among them where they were said,
// and what it applied is then the store as it reads it.
func TestFollowerPendingAndSay(t *testing.T) {
	polls := tracePolls(t, 300, 12)
	synctest.Test(t, func(t *testing.T) {
		var follows atomic.Int32
		run := NewRun()
		f := NewFollower(pacedSource(polls, time.Second, &follows), &run)
		s := f.Subscribe()
		f.Start(context.Background())
		time.Sleep(3*time.Second + time.Millisecond)
		f.Say("alice cancelled the run")
		events, notes, wholes, done := 0, []string{}, 0, false
		for !done {
			<-s.Ready()
			f.View(func(r *Run) {
				for _, c := range s.Pending() {
					if c.Whole {
						wholes++
						events = 0
					}
					events += len(c.Delta.Events)
					if c.Note != "" {
						notes = append(notes, c.Note)
					}
					done = done || c.Done
				}
				if events != r.Store.Len() {
					t.Errorf("applied %d events, the store holds %d", events, r.Store.Len())
				}
			})
		}
		if wholes != 1 || len(notes) != 1 || notes[0] != "alice cancelled the run" {
			t.Fatalf("%d whole changes, notes %q", wholes, notes)
		}
		if len(s.Pending()) != 0 {
			t.Fatal("a change after Done")
		}
	})
}
