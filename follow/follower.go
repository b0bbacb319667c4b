package follow

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/internal/panics"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// Follower follows one run once for any number of readers: what a hub
// needs to poll a run once however many of its sessions watch it. It runs
// its Source on a goroutine of its own, merges every update into the run's
// one store and feeds the run's one attention tracker (so that the run's
// notifications are decided once, through Run.Saw), and tells each
// subscriber what every merge changed.
//
// The store is shared, never copied per reader: a subscriber reads the run
// only inside View, under the follower's read lock, which a merge waits
// for; the pointers a Change holds (the Delta's events, agents, tool
// calls...) are the store's and are read inside View too. (Merging into a
// store of its own per reader would copy every event, since an event
// belongs to one store: several megabytes a reader at 10 000 events.)
//
// A subscriber that comes late, or falls more than maxQueued changes
// behind, is given the whole run so far as one Change (Whole) in place of
// the ones it missed: nobody's slowness holds back the polls or the other
// readers, and nobody misses the start of the run.
type Follower struct {
	src Source

	mu     sync.RWMutex // the run: a merge holds it; View and Next read under it
	run    *Run
	health poller.Health
	err    error // the last update's error (the loop retries)
	ended  bool  // the source has returned: the last Change was published
	subs   map[*Subscription]struct{}

	cancel context.CancelFunc
	done   chan struct{}
	endErr error // how the source ended, once done is closed
}

// Change is what one merge (or the tracker's clock) changed, as a
// subscriber is told it.
type Change struct {
	Delta     model.Delta        // the store's delta; with Whole, the whole run (From 0, every event)
	Attention []attention.Change // what the run's tracker raised or cleared
	Health    poller.Health      // the poll loop's health after it
	Err       error              // the failed attempt's error when the loop retries; with Done, what stopped it
	Tokens    *poller.TokenUsage // the team's token balance, when known
	// Whole: the run so far in one change, in place of the changes before
	// it (a subscriber's first, or one that fell behind).
	Whole bool
	// Done: the follower has ended (the run is over, the source failed or
	// was stopped); no change comes after it.
	Done bool
	// Note is a line for every reader's footer from whoever follows the
	// run (Say): who cancelled it, a wait the service asked for.
	Note string
}

// maxQueued is how many changes a subscriber may leave untaken before it
// is given the whole run instead.
const maxQueued = 256

// attendEvery is how often the run's tracker is asked what the quiet
// clock changed (a stall is noticed without a poll).
const attendEvery = time.Second

// NewFollower is a follower of run (its store, tracker options and Saw set
// by the caller) that reads src once started.
func NewFollower(src Source, run *Run) *Follower {
	return &Follower{src: src, run: run, subs: map[*Subscription]struct{}{}, done: make(chan struct{})}
}

// Start runs the source until it ends, ctx ends or Stop.
func (f *Follower) Start(ctx context.Context) {
	ctx, f.cancel = context.WithCancel(ctx)
	go f.follow(ctx)
}

// Stop ends the source (a run nobody watches any more need not be polled)
// and waits for the follower to end.
func (f *Follower) Stop() {
	f.cancel()
	<-f.done
}

// Done is closed once the follower has ended; Err then says how.
func (f *Follower) Done() <-chan struct{} { return f.done }

// Err is how the source ended (nil: the run finished), once Done.
func (f *Follower) Err() error {
	<-f.done
	return f.endErr
}

func (f *Follower) follow(ctx context.Context) {
	defer close(f.done)
	stop := make(chan struct{})
	ticked := make(chan struct{})
	// A panic of the source or the tracker, under a context with a
	// panics.Handler (the hub's), ends this follower with a *panics.Error
	// that its readers are shown, not the process.
	var tickPanic atomic.Pointer[panics.Error]
	go func() {
		defer close(ticked)
		p := panics.Catch(ctx, func() {
			t := time.NewTicker(attendEvery)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case now := <-t.C:
					f.attend(now)
				}
			}
		})
		if p != nil { // the source ends too: the run is no longer tracked
			tickPanic.Store(p)
			f.cancel()
		}
	}()
	var err error
	if p := panics.Catch(ctx, func() {
		panics.Hook(ctx, "follower")
		err = f.src.Follow(ctx, f.merge)
	}); p != nil {
		err = p
	}
	close(stop)
	<-ticked
	if p := tickPanic.Load(); p != nil {
		err = p
	}
	f.mu.Lock()
	f.endErr, f.ended = err, true
	if err != nil && !errors.Is(err, context.Canceled) {
		f.err = err // what stopped it (a refusal), for the readers to say
	}
	f.publish(Change{Health: f.health, Err: f.err, Tokens: f.run.Tokens, Done: true})
	f.mu.Unlock()
}

// merge takes one update into the run and tells the subscribers.
func (f *Follower) merge(u poller.Update) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.run.Merge(u)
	var ch []attention.Change
	if u.Poll != nil {
		ch = f.run.Attend(&d, time.Now())
	}
	f.health, f.err = u.Health, u.Err
	f.publish(Change{Delta: d, Attention: ch, Health: u.Health, Err: u.Err, Tokens: f.run.Tokens})
}

// attend asks the tracker what the quiet clock changed.
func (f *Follower) attend(now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil { // no news is not quiet when polls fail
		return
	}
	if ch := f.run.Attend(nil, now); len(ch) > 0 {
		f.publish(Change{Attention: ch, Health: f.health, Tokens: f.run.Tokens})
	}
}

// publish queues c for every subscriber; f.mu is held for writing.
func (f *Follower) publish(c Change) {
	for s := range f.subs {
		s.mu.Lock()
		switch {
		case s.whole:
			// The whole run will hold this change; a note it cannot hold
			// waits after it.
			if c.Note != "" && len(s.queue) < maxQueued {
				s.queue = append(s.queue, Change{Note: c.Note, Health: c.Health, Err: c.Err, Tokens: c.Tokens})
			}
		case len(s.queue) >= maxQueued:
			s.whole, s.queue = true, nil
		default:
			s.queue = append(s.queue, c)
		}
		s.mu.Unlock()
		s.wake()
	}
}

// Say tells every subscriber note (a Change with only Note and the loop's
// health), after the changes already queued. A subscriber that fell behind
// is not told it: the whole run it is given has no notes.
func (f *Follower) Say(note string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.publish(Change{Note: note, Health: f.health, Err: f.err, Tokens: f.run.Tokens})
}

// Acted records who started or cancelled the run (a hub's action) and
// tells every subscriber note, as Say does: their screens draw the run
// again with the name.
func (f *Follower) Acted(a model.Actors, note string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.run.Store.SetActors(a)
	f.publish(Change{Note: note, Health: f.health, Err: f.err, Tokens: f.run.Tokens})
}

// View calls read with the run, under the follower's read lock: no merge
// happens meanwhile. read must not keep the run, or what it points to, to
// read after it returns.
func (f *Follower) View(read func(r *Run)) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	read(f.run)
}

// Subscribers is how many subscribers the follower has.
func (f *Follower) Subscribers() int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return len(f.subs)
}

// Subscribe adds a reader. Its first Change is the whole run so far, then
// every change after it, the last one Done.
func (f *Follower) Subscribe() *Subscription {
	s := &Subscription{f: f, whole: true, ready: make(chan struct{}, 1)}
	f.mu.Lock()
	f.subs[s] = struct{}{}
	f.mu.Unlock()
	s.wake()
	return s
}

// whole is the run so far as one change; f.mu is held (for reading at
// least). The lists are copies: a later merge does not change them.
func (f *Follower) whole() Change {
	st := f.run.Store
	d := model.Delta{From: 0, Events: slices.Clone(st.Timeline()), Agents: slices.Clone(st.Agents()),
		ToolCalls: slices.Clone(st.ToolCalls()), Artifacts: slices.Clone(st.Artifacts()), Sessions: slices.Clone(st.Sessions()),
		Errors: slices.Clone(st.Errors()), Rejected: slices.Clone(st.Rejected()), Flaws: slices.Clone(st.Flaws()),
		TreeChanged: true, RunChanged: true, Credits: st.Run().HasCredits, LiveSessions: len(st.LiveSessions()) > 0}
	return Change{Delta: d, Health: f.health, Err: f.err, Tokens: f.run.Tokens, Whole: true, Done: f.ended}
}

// Subscription is one reader of a Follower.
type Subscription struct {
	f     *Follower
	ready chan struct{} // a change may be waiting

	mu    sync.Mutex
	queue []Change
	whole bool // the next change is the whole run (the queue was dropped)
	ended bool // Done was taken
	left  bool
}

func (s *Subscription) wake() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// View is the follower's View, for the subscriber.
func (s *Subscription) View(read func(r *Run)) { s.f.View(read) }

// Ready is signalled when a change may be waiting (for a select; Next
// waits on it itself).
func (s *Subscription) Ready() <-chan struct{} { return s.ready }

// Next waits for the next change; ok is false once the change marked Done
// was taken, after Leave, or when ctx ends.
func (s *Subscription) Next(ctx context.Context) (c Change, ok bool) {
	for {
		c, ok, end := s.take()
		if ok || end {
			return c, ok
		}
		select {
		case <-ctx.Done():
			return Change{}, false
		case <-s.ready:
		}
	}
}

// take is the next change if one waits; end reports that none ever will.
func (s *Subscription) take() (c Change, ok, end bool) {
	s.f.mu.RLock()
	defer s.f.mu.RUnlock()
	return s.takeLocked()
}

// Pending is every change waiting, in order (the whole run first when the
// subscriber fell behind), for a reader that holds the follower's read
// lock: call it inside View only (it takes no lock of the follower's).
// A screen drains its changes this way where it draws, so that what it
// has applied is the store as it reads it. Empty once Done was taken or
// after Leave.
func (s *Subscription) Pending() []Change {
	var out []Change
	for {
		c, ok, _ := s.takeLocked()
		if !ok {
			return out
		}
		out = append(out, c)
	}
}

// takeLocked is take with f.mu held for reading.
func (s *Subscription) takeLocked() (c Change, ok, end bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.left || s.ended:
		return Change{}, false, true
	case s.whole:
		s.whole = false // the queue holds only notes now
		c = s.f.whole()
	case len(s.queue) > 0:
		c = s.queue[0]
		s.queue[0] = Change{}
		s.queue = s.queue[1:]
	default:
		return Change{}, false, false
	}
	s.ended = c.Done
	return c, true, false
}

// Leave ends the subscription: the follower keeps nothing of it, and Next
// returns at once.
func (s *Subscription) Leave() {
	s.f.mu.Lock()
	delete(s.f.subs, s)
	s.f.mu.Unlock()
	s.mu.Lock()
	s.left, s.queue = true, nil
	s.mu.Unlock()
	s.wake()
}
