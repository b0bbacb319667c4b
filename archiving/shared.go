package archiving

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// Shared is one run followed by a process that shares its archive with
// other firewatch processes (a team on one PostgreSQL, two terminals on
// one SQLite file), as a follow.Source: the run is polled once, by the
// holder of its lease, whichever process that is.
//
//   - The lease is the run's: keyed by the service's base URL and the run's
//     id, with no team (the team's members use keys of their own, and share
//     one poll per run; the same id at two base URLs is two runs).
//   - The holder polls the service with a Watcher and writes each poll
//     (its Sink, under the lease: AppendLeased, fenced by its token,
//     which renews the lease too); the lease lasts three poll intervals
//     (the interval it polls at now, which grows to 10 s when nothing
//     happens), and the holder renews it alone after an interval in which
//     no poll was stored.
//   - A process that cannot take the lease follows: it reads the polls
//     stored after the last one it showed (PollsSince), when a doorbell
//     rings (PostgreSQL) and at SafetyRead anyway, or at its poll interval
//     (SQLite, which has none). Before it first shows another process's
//     polls, it checks once that the service lets its own key see the run
//     (Visible).
//   - When the holder's lease expires (killed, paused, cut off) or is
//     released, a follower takes it over from the last poll stored; when
//     the holder followed the run to its end, it marks the run complete
//     before it releases the lease, and the followers end with it.
//   - A holder whose lease was taken over (a renewal or a write finds it
//     so) stops polling and follows, its polls not stored: no poll is
//     written twice.
//   - The archive unreachable (PostgreSQL down, at the start or later):
//     the process polls on its own, says so once, and tries to join again
//     every Rejoin.
//
// One decoder serves the whole run, whoever polls: each Watcher goes on
// with it (WatchOptions.Decoder) and the stored polls are decoded with it
// (poller.DecodeLine), so that an event is shown once whichever way it
// came. A poll is a delta of that decoder: one the archive lacks lacks
// its events for good, unless written later. So the polls a process makes
// on its own (the archive away) are kept, bounded (aloneLog), and written
// under the lease when it next holds it, before it polls on; a process
// that showed polls the archive may not hold otherwise (left out by its
// sink, or past the bound) stores the whole trace once instead. Until
// then the archive is not told the run is complete (a holder's release, a
// watch's derived record): the next archive pass fetches it. One
// recorder (poller.Recorder) writes a line of what the decoder brought:
// the --record file gets every poll shown, whoever polled (it holds what
// the screen showed), and the same line of a poll this process made goes
// to the archive (Sink.Append, or aloneLog while it cannot be stored), so
// that a poll is serialised and redacted once.
type Shared struct {
	cfg    SharedConfig
	holder archive.Holder
	key    archive.LeaseKey
	dec    *model.Decoder
	rec    *poller.Recorder // the one recorder (the file: Watch.Record, nil: none)
	parts  pollParts        // its lines of this process's polls, as the archive's polls
	start  time.Time        // the watch's start: its recording's header

	mu       sync.Mutex
	sink     *Sink           // the archive's; nil until it can be had
	watcher  *poller.Watcher // polling now (nil: following)
	paused   bool
	liveView bool
	reading  bool // following, for PollNow

	// drops counts the polls the sink left out (the archive may not hold
	// what was shown); wholeAt is drops when the whole trace last fetched
	// was stored: ahead while drops is past it.
	drops, wholeAt atomic.Int64
	kept           aloneLog     // polls made alone, not stored yet
	interval       atomic.Int64 // the holder's poll interval now
	lost           chan struct{}
	kick           chan struct{} // paused, or PollNow while following

	// Follow's own (and its watcher's, never at once).
	out       func(poller.Update)
	last      int64       // the last stored poll shown or written
	finished  time.Time   // when run.finished was shown (zero: not yet)
	polls     int         // good polls shown
	visible   atomic.Bool // the service lets this key see the run (the watcher sets it)
	outage    bool        // the archive cannot be reached: said
	bells     <-chan archive.Doorbell
	listening bool
	health    poller.Health // the last one shown
	tokens    time.Time     // the team's token usage last asked (following)
	followed  string        // the holder followed last (its id and token)
}

// SharedConfig is what a Shared follows, and how.
type SharedConfig struct {
	// Sink is the watch's sink in the shared archive: the run's polls go
	// there while this process holds the lease. nil: none, or not yet
	// (Reopen).
	Sink *Sink
	// Reopen, when the archive could not be reached at the start
	// (PostgreSQL down), tries to open it again, every Rejoin until it
	// can; its sink is then Sink. nil: there is no shared archive, and
	// the run is polled as a watch without an archive polls it.
	Reopen func(ctx context.Context) (*Sink, error)
	Client *poller.Client
	// Service is the service's base URL, JobID the run.
	Service, JobID string
	// Watch is the watch's options; its Record (the --record file) is
	// written by the Shared from what it shows, whoever polled.
	Watch poller.WatchOptions
	// Label says what this process is, to the team ("watch", "hub",
	// "run"...).
	Label string
	// Visible asks the service whether this process's key may see the
	// run (its status); nil: it is known to (the watch asked already). A
	// refusal means the process never shows another's polls of it.
	Visible func(ctx context.Context) error
	// Logf is the debug log (every take, renewal, loss and takeover);
	// Say says what a person watching needs to know (the archive
	// unreachable, and back), once each time. nil: nowhere.
	Logf func(format string, args ...any)
	Say  func(msg string)
	// SnapshotLogf is the snapshot keeper's debug log (NewFeed); nil:
	// nowhere.
	SnapshotLogf func(format string, args ...any)
	// SafetyRead is a follower's read between doorbells on PostgreSQL;
	// Rejoin is how often a process that polls on its own tries the
	// archive again. Zero: the defaults (Rejoin: one lease TTL, within
	// DefaultRejoin, so a fast watch rejoins as fast as it would be taken
	// over).
	SafetyRead, Rejoin time.Duration
}

// The defaults of SharedConfig's timing, and the lease's TTL in poll
// intervals.
const (
	DefaultSafetyRead = 5 * time.Second
	DefaultRejoin     = 5 * time.Second
	leaseIntervals    = 3
	// retakeAfter is how long after a lease ends a follower tries it.
	retakeAfter = 50 * time.Millisecond
)

// Feed is a watched run's source, as NewFeed makes it: Source for the
// watch or follower (the run's polls, its artifact snapshots kept on the
// way), Shared for its controls (pause, poll now, live view; Holder says
// who this process is to the team; Sink, the archive's once it is had).
type Feed struct {
	Source follow.Source
	*Shared
	// Snapshots keeps the run's artifact snapshots (nil: no archive at
	// the start); Keep stores one the screen fetched.
	Snapshots *SnapshotKeeper
}

// NewFeed is the one constructor of a live run's source, for a watch, a
// run, the runs screen, the hub and the MCP server alike: the run of cfg
// through its lease in the archive (Shared), its snapshots kept by the
// sink's keeper (fetched with cfg.Client). The caller closes the sink
// (Sink().Close) once the watch of it ends.
func NewFeed(cfg SharedConfig) *Feed {
	sh := NewShared(cfg)
	f := &Feed{Source: sh, Shared: sh}
	if k := cfg.Sink.KeepSnapshots(cfg.Client, cfg.SnapshotLogf); k != nil {
		f.Source, f.Snapshots = k.Tap(sh), k
	}
	return f
}

// NewShared is the run of cfg, followed as a Shared (NewFeed's). Without
// an archive (cfg.Sink and cfg.Reopen nil) it is the service's polls, as a
// watch without an archive has them.
func NewShared(cfg SharedConfig) *Shared {
	s := &Shared{cfg: cfg, holder: archive.NewHolder(cfg.Label), key: archive.LeaseKey{Service: cfg.Service, Run: cfg.JobID},
		last: -1, liveView: cfg.Watch.LiveView, start: time.Now(),
		lost: make(chan struct{}, 1), kick: make(chan struct{}, 1)}
	s.visible.Store(cfg.Visible == nil)
	if s.cfg.SafetyRead <= 0 {
		s.cfg.SafetyRead = DefaultSafetyRead
	}
	if s.cfg.Rejoin <= 0 {
		s.cfg.Rejoin = max(time.Second, min(DefaultRejoin, leaseIntervals*s.pollInterval()))
	}
	if s.cfg.Logf == nil {
		s.cfg.Logf = func(string, ...any) {}
	}
	s.interval.Store(int64(s.pollInterval()))
	s.kept.logf, s.kept.started = s.cfg.Logf, s.start
	if cfg.Sink != nil {
		s.useSink(cfg.Sink)
	}
	return s
}

// pollInterval is the watch's interval, as its Watcher makes it.
func (s *Shared) pollInterval() time.Duration {
	return max(cmpOr(s.cfg.Watch.Interval, poller.DefaultInterval), poller.MinInterval)
}

func cmpOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// useSink makes sk the archive's sink: its polls written under the lease.
func (s *Shared) useSink(sk *Sink) {
	sk.Leased(func(error) {
		select {
		case s.lost <- struct{}{}:
		default:
		}
	}, func() { s.drops.Add(1) }, s.whole)
	sk.start(s.start)
	s.mu.Lock()
	s.sink = sk
	s.mu.Unlock()
}

// ahead reports whether polls were shown that the archive may not hold,
// and that only the whole trace can stand for.
func (s *Shared) ahead() bool { return s.drops.Load() > s.wholeAt.Load() }

// whole reports whether the archive holds every poll this process showed
// (as far as it knows): nothing left out, nothing made alone unwritten.
func (s *Shared) whole() bool { return !s.ahead() && !s.kept.pending() }

// Sink is the archive's sink once it could be had (nil before): the
// command closes it when the watch ends.
func (s *Shared) Sink() *Sink {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sink
}

// Holder is who this process is to the team, for its leases.
func (s *Shared) Holder() archive.Holder { return s.holder }

// SetPaused stops (true) or resumes (false) the watch: no poll, no read.
// A holder paused releases the run's lease, so that another polls it.
func (s *Shared) SetPaused(p bool) {
	s.mu.Lock()
	changed := s.paused != p
	s.paused = p
	w := s.watcher
	s.mu.Unlock()
	if w != nil {
		w.SetPaused(p)
	}
	if changed {
		s.poke()
	}
}

// PollNow polls at once (the holder), or reads the archive at once.
func (s *Shared) PollNow() {
	s.mu.Lock()
	w, reading := s.watcher, s.reading
	s.mu.Unlock()
	switch {
	case w != nil:
		w.PollNow()
	case reading:
		s.poke()
	}
}

// SetLiveView asks for the live browser sessions from the next poll on,
// while this process polls (a follower shows what its holder asked for).
func (s *Shared) SetLiveView(on bool) {
	s.mu.Lock()
	s.liveView = on
	w := s.watcher
	s.mu.Unlock()
	if w != nil {
		w.SetLiveView(on)
	}
}

func (s *Shared) poke() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *Shared) isPaused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paused
}

// ttl is the lease's TTL: a few of the intervals the holder polls at now,
// at most the archive's MaxLeaseTTL.
func (s *Shared) ttl() time.Duration {
	return min(leaseIntervals*time.Duration(s.interval.Load()), archive.MaxLeaseTTL)
}

// renewEvery is how often the holder renews: every interval it polls at,
// and often enough for the TTL the archive allows.
func (s *Shared) renewEvery() time.Duration {
	return min(time.Duration(s.interval.Load()), archive.MaxLeaseTTL/leaseIntervals)
}

// step is what one turn of Follow's loop came to: done (the run is over,
// or the watch ends with err), else the loop goes on.
type step struct {
	done bool
	err  error
}

// Follow follows the run to its end (follow.Source).
func (s *Shared) Follow(ctx context.Context, sink func(poller.Update)) error {
	s.out = sink
	if s.cfg.Sink == nil && s.cfg.Reopen == nil {
		return s.alone(ctx)
	}
	s.rec = s.cfg.Client.NewRecorder(s.cfg.Watch.Record, s.cfg.JobID, s.start, s.cfg.Watch.Request)
	s.dec = s.cfg.Client.NewDecoder()
	s.dec.SetRunID(s.cfg.JobID)
	// The doorbells' listener lives as long as the watch.
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	var alone *polling // solo's, polling on while the lease is taken
	defer func() {
		if alone != nil {
			alone.stop()
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.isPaused() {
			if alone != nil {
				alone.stop()
				alone = nil
			}
			s.pausedUntilResumed(ctx)
			continue
		}
		var r step
		st, err := s.join(ctx, lctx)
		if err == nil && !s.visible.Load() && alone != nil {
			alone.stop()
			alone = nil
		}
		if err == nil && !s.visible.Load() {
			// Nothing another process stored is shown, as a follower's
			// or at a takeover, before the service says this key may
			// see the run.
			if r, ok := s.checkVisible(ctx); !ok {
				if r.done {
					return r.err
				}
				continue
			}
		}
		if err == nil {
			var l archive.Lease
			l, alone, err = s.take(ctx, st, alone)
			var he *archive.HeldError
			switch {
			case err == nil:
				s.back()
				r = s.lead(ctx, st, l)
			case errors.As(err, &he):
				s.back()
				r = s.follow(ctx, st, he.Lease)
			}
			if err != nil && he == nil {
				r, alone = s.solo(ctx, lctx, err, alone)
			}
		} else {
			r, alone = s.solo(ctx, lctx, err, alone)
		}
		if r.done {
			return r.err
		}
	}
}

// take takes the run's lease, polling the run on its own meanwhile when
// the archive keeps it waiting longer than takeGrace (an SQLite file
// another program holds the write lock of makes it wait up to its
// LockWait): the watch never stops showing the run for long on the
// archive's wait. The grace is a second at least, so that an ordinary
// take on a loaded machine does not start a second stream of polls. p is solo's polling, still at work (nil: none); it goes on, as
// the result, when the archive cannot be used, else it is stopped.
const takeGrace = time.Second

func (s *Shared) take(ctx context.Context, st archive.Store, p *polling) (archive.Lease, *polling, error) {
	type taken struct {
		l   archive.Lease
		err error
	}
	ch := make(chan taken, 1)
	go func() {
		l, err := st.Take(ctx, s.key, s.holder, s.ttl())
		ch <- taken{l, err}
	}()
	var grace <-chan time.Time
	if p == nil {
		t := time.NewTimer(max(s.pollInterval(), takeGrace))
		defer t.Stop()
		grace = t.C
	}
	var ended <-chan error // p's end, until it is seen
	if p != nil {
		ended = p.done
	}
	over, endErr := false, error(nil)
	for {
		select {
		case r := <-ch:
			if p == nil {
				return r.l, nil, r.err
			}
			if over {
				p.done <- endErr // for stop, or solo's own select
			}
			var he *archive.HeldError
			if r.err == nil || errors.As(r.err, &he) {
				p.stop()
				p = nil
			}
			return r.l, p, r.err
		case <-grace:
			p = s.poll(ctx, true)
			ended = p.done
		case err := <-ended:
			// The run is over (or the watch ends): the turn after the
			// lease is taken, or not, ends as it does.
			over, endErr, ended = true, err, nil
		}
	}
}

// alone is a watch without a shared archive: the service's polls.
func (s *Shared) alone(ctx context.Context) error {
	w := s.cfg.Client.Watch(s.cfg.JobID, s.cfg.Watch)
	s.mu.Lock()
	s.watcher = w
	s.mu.Unlock()
	return w.Run(ctx, s.out)
}

// join makes sure the archive can be used now: opened (Reopen), joined
// (TryJoin), its doorbells listened to.
func (s *Shared) join(ctx, lctx context.Context) (archive.Store, error) {
	// A database whose network is gone may not answer at all: each try
	// is bounded, and the watch polls on its own meanwhile.
	ctx, cancel := context.WithTimeout(ctx, WriteTimeout)
	defer cancel()
	sk := s.Sink()
	if sk == nil {
		var err error
		if sk, err = s.cfg.Reopen(ctx); err != nil {
			return nil, err
		}
		s.useSink(sk)
	}
	st := sk.Store()
	if err := st.TryJoin(ctx); err != nil {
		return nil, err
	}
	if !s.listening {
		bells, err := st.Listen(lctx, s.key)
		if err != nil {
			return nil, err
		}
		s.bells, s.listening = bells, true
	}
	// Back once a lease can be taken or is held (Follow): an SQLite file
	// another program locks joins, then takes nothing.
	return st, nil
}

// unreachable says once that the archive cannot be reached, and that the
// process polls on its own meanwhile.
func (s *Shared) unreachable(err error) {
	s.cfg.Logf("lease: the shared archive cannot be used: %v", err)
	if s.outage {
		return
	}
	s.outage = true
	if s.cfg.Say != nil {
		s.cfg.Say("the shared archive cannot be reached: polling the run on our own until it is back")
	}
}

// back says once that the archive can be reached again.
func (s *Shared) back() {
	if !s.outage {
		return
	}
	s.outage = false
	s.cfg.Logf("lease: the shared archive is back")
	if s.cfg.Say != nil {
		s.cfg.Say("the shared archive is back: the run's polls are shared again")
	}
}

// pausedUntilResumed waits, paused, for the watch to resume.
func (s *Shared) pausedUntilResumed(ctx context.Context) {
	h := s.health
	h.Paused = true
	s.emit(poller.Update{Health: h}, nil)
	for s.isPaused() && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-s.kick:
		}
	}
	h.Paused = false
	s.emit(poller.Update{Health: h}, nil)
}

// emit hands one update on, recording what it brought; the line of a
// poll this process made goes to the archive too (to, nil: none).
func (s *Shared) emit(u poller.Update, to *pollDest) {
	if u.Poll != nil {
		s.polls++
		if u.Poll.Finished && s.finished.IsZero() {
			s.finished = time.Now()
		}
		switch {
		case s.rec == nil:
		case to != nil:
			s.parts.add, s.parts.fail = to.add, to.fail
			s.rec.PollTo(u.Health.LastGood, u.Poll, &s.parts)
		default:
			s.rec.Poll(u.Health.LastGood, u.Poll)
		}
	}
	if u.Poll != nil || u.Err != nil {
		u.Health.Polls = s.polls
	}
	if s.rec != nil && u.Health.RecordError == "" {
		u.Health.RecordError = s.rec.RecordError(s.cfg.Client)
	}
	s.health = u.Health
	s.out(u)
}

// pollDest is where the lines of this process's polls go: the sink, or
// the polls kept while made alone.
type pollDest struct {
	add  func(archive.Poll)
	fail func(error)
}

// polling is this process's Watcher at work.
type polling struct {
	s      *Shared
	cancel context.CancelFunc
	done   chan error
}

// poll starts polling the run, going on with the run's decoder; its
// polls go to the sink, which stores them while the lease is held, or
// (alone: the lease is not this process's) are kept until it is.
func (s *Shared) poll(ctx context.Context, alone bool) *polling {
	s.mu.Lock()
	o := s.cfg.Watch
	o.Decoder, o.TailFrom, o.LiveView, o.Record = s.dec, s.finished, s.liveView, nil
	var to *pollDest // the one recorder's lines of its polls (emit)
	switch {
	case alone:
		to = &pollDest{add: s.kept.add, fail: s.kept.unkept}
	case s.sink != nil:
		to = &pollDest{add: s.sink.Append, fail: s.sink.unkept}
	}
	w := s.cfg.Client.Watch(s.cfg.JobID, o)
	s.watcher = w
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	p := &polling{s: s, cancel: cancel, done: make(chan error, 1)}
	go func() {
		p.done <- w.Run(ctx, func(u poller.Update) {
			if u.Poll != nil {
				s.visible.Store(true) // a good poll of its own: the key sees the run
			}
			if u.Health.Interval > 0 {
				s.interval.Store(int64(u.Health.Interval))
			}
			u.Health.Via = ""
			s.emit(u, to)
		})
	}()
	return p
}

// stop stops polling and waits for the watcher to end.
func (p *polling) stop() {
	p.cancel()
	<-p.done
	p.s.mu.Lock()
	p.s.watcher = nil
	p.s.mu.Unlock()
}

// solo polls the run on its own while the archive cannot be used (why),
// trying to join again every Rejoin (p: polling already, from take). Once
// it can, its polling goes on (the result) while the next turn takes the
// lease.
func (s *Shared) solo(ctx, lctx context.Context, why error, p *polling) (step, *polling) {
	s.unreachable(why)
	if p == nil {
		p = s.poll(ctx, true)
	}
	t := time.NewTicker(s.cfg.Rejoin)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			p.stop()
			return step{true, ctx.Err()}, nil
		case err := <-p.done:
			p.done <- err
			p.stop()
			return step{true, err}, nil
		case <-s.kick:
			if s.isPaused() {
				p.stop()
				return step{}, nil
			}
		case <-t.C:
			if _, err := s.join(ctx, lctx); err == nil {
				return step{}, p // polling on while the lease is taken
			}
		}
	}
}

// lead is the holder's part: catch up with what the last holder stored,
// then poll, store and renew until the run is over, the lease is lost,
// or the archive cannot be reached (then it polls on, on its own, and
// renews again once it can).
func (s *Shared) lead(ctx context.Context, st archive.Store, l archive.Lease) step {
	what := "took"
	if s.followed != "" {
		what = "took over"
	}
	s.followed = ""
	s.cfg.Logf("%s", leaseLine{what, l})
	select {
	case <-s.lost: // a holding before this one's
	default:
	}
	if err := s.catchUp(ctx, st); err != nil {
		return s.failed(ctx, err)
	}
	// What this process showed alone first: its watcher goes on from it.
	if err := s.storeAlone(ctx, st, l); errors.Is(err, archive.ErrLeaseLost) {
		s.cfg.Logf("lease: lost run %s on storing the polls made alone: another firewatch polls it now", s.cfg.JobID)
		return step{}
	}
	sk := s.Sink()
	s.storeWhole(ctx, st, &l)
	sk.SetLease(&l)
	p := s.poll(ctx, false)
	renew := time.NewTimer(s.renewEvery())
	defer renew.Stop()
	// A stored poll renews the lease in its own write: then the holder's
	// own renewal waits until none has for half the lease's time, so that
	// a watch alone on its run wakes for its polls only, not for a timer
	// too. A TTL to change, or polls the archive may lack, keep the turn.
	sk.OnFenced(func(ttl time.Duration) {
		if ttl == s.ttl() && s.whole() {
			renew.Reset(ttl / 2)
		}
	})
	defer sk.OnFenced(nil)
	// let go ends the holding: polls stop, the lease is the sink's no more.
	letGo := func() {
		p.stop()
		sk.SetLease(nil)
		s.last = max(s.last, sk.LastSeq())
	}
	for {
		select {
		case <-ctx.Done():
			p.stop()
			s.release(sk, st, l, false)
			return step{true, ctx.Err()}
		case err := <-p.done:
			p.done <- err
			p.stop()
			s.release(sk, st, l, err == nil)
			return step{true, err}
		case <-s.lost:
			letGo()
			s.cfg.Logf("lease: lost run %s on storing a poll: another firewatch polls it now", s.cfg.JobID)
			return step{}
		case <-s.kick:
			if s.isPaused() {
				p.stop()
				s.release(sk, st, l, false)
				return step{}
			}
		case <-renew.C:
			every := s.renewEvery()
			if ttl := s.ttl(); ttl == l.TTL && s.whole() && time.Since(sk.Fenced()) < every {
				// A poll stored since the last turn renewed it: a watch
				// alone on its run pays one statement per stored poll, in
				// the poll's own transaction, and no more.
				s.cfg.Logf("%s", leaseLine{"renewed (by a stored poll)", l})
				renew.Reset(every)
				continue
			}
			l.TTL = s.ttl()
			nl, err := st.Renew(ctx, l)
			switch {
			case err == nil:
				l = nl
				sk.SetLease(&l)
				s.cfg.Logf("%s", leaseLine{"renewed", l})
				s.back()
				_ = s.storeAlone(ctx, st, l) // a loss is the next write's to find
				s.storeWhole(ctx, st, &l)
			case errors.Is(err, archive.ErrLeaseLost):
				letGo()
				s.cfg.Logf("lease: lost run %s on renewing: %v", s.cfg.JobID, err)
				return step{}
			case ctx.Err() == nil:
				s.unreachable(err)
			}
			renew.Reset(s.renewEvery())
		}
	}
}

// failed is a turn that could not read or write the archive: the next
// turn joins again, or polls on its own.
func (s *Shared) failed(ctx context.Context, err error) step {
	if ctx.Err() != nil {
		return step{true, ctx.Err()}
	}
	s.cfg.Logf("lease: %v", err)
	return step{}
}

// storeWhole stores the whole trace once under l, when this process has
// shown polls the archive may not hold; a failure leaves it for the next
// renewal.
func (s *Shared) storeWhole(ctx context.Context, st archive.Store, l *archive.Lease) {
	if !s.ahead() {
		return
	}
	drops := s.drops.Load() // those left out before the trace is fetched
	s.mu.Lock()
	live := s.liveView
	s.mu.Unlock()
	body, err := s.cfg.Client.Trace(ctx, s.cfg.JobID, live)
	if err != nil {
		s.cfg.Logf("lease: the whole trace, to store what this process showed alone: %v", err)
		return
	}
	at := time.Now()
	seq, err := st.AppendLeased(ctx, *l, time.Time{}, []archive.Poll{{ReceivedAt: at, Line: PollLine(s.Sink().secrets, at, body)}})
	if err != nil {
		s.cfg.Logf("lease: storing the whole trace: %v", err)
		return
	}
	s.wholeAt.Store(drops)
	s.kept.reset() // made before: the trace holds them
	s.last = max(s.last, seq)
	s.cfg.Logf("lease: stored the whole trace of run %s (poll %d): what this process showed alone is the team's too", s.cfg.JobID, seq)
}

// storeAlone writes under l the polls this process made on its own
// (aloneLog), in one transaction fenced by l's token: a lease taken over
// meanwhile stores none of them (ErrLeaseLost; the new holder stores
// what it showed). Past the bound, or too large for the archive, they
// are left out and the whole trace is stored instead (storeWhole). Any
// other failure leaves them for the next renewal.
func (s *Shared) storeAlone(ctx context.Context, st archive.Store, l archive.Lease) error {
	ps, started, over := s.kept.kept()
	if over {
		s.kept.reset()
		s.drops.Add(1)
		return nil
	}
	if len(ps) == 0 {
		return nil
	}
	seq, err := st.AppendLeased(ctx, l, started, ps)
	switch {
	case errors.Is(err, archive.ErrTooLarge):
		s.cfg.Logf("lease: the %d polls made alone: %v; the whole trace is stored instead", len(ps), err)
		s.kept.reset()
		s.drops.Add(1)
		return nil
	case err != nil:
		s.cfg.Logf("lease: storing the %d polls made alone: %v", len(ps), err)
		return err
	}
	s.kept.written(len(ps))
	s.last = max(s.last, seq)
	s.cfg.Logf("lease: stored the %d polls this process made alone while it could not (to poll %d)", len(ps), seq)
	return nil
}

// release gives the lease up when the watch ends or pauses, once what
// the sink holds and the polls made alone are written; a run followed to
// its end (over) is marked complete first, when the archive holds every
// poll shown, so that its followers end with it. Else it is left
// incomplete, and the next archive pass fetches it.
func (s *Shared) release(sk *Sink, st archive.Store, l archive.Lease, over bool) {
	ctx, cancel := context.WithTimeout(context.Background(), WriteTimeout)
	defer cancel()
	if over && sk.snapshots != nil {
		sk.snapshots.Close(true) // the holder stores the run's last snapshots
	}
	// The polls made alone not written yet: a last try.
	_ = s.storeAlone(ctx, st, l)
	if over {
		s.storeWhole(ctx, st, &l)
	}
	whole := sk.Flush() && s.whole()
	sk.SetLease(nil)
	s.last = max(s.last, sk.LastSeq())
	if over && whole {
		if err := st.PutRun(ctx, &archive.Run{Service: s.cfg.Service, ID: s.cfg.JobID, Complete: true}); err != nil {
			s.cfg.Logf("lease: marking run %s complete: %v", s.cfg.JobID, err)
		}
	}
	if err := st.Release(ctx, l); err != nil {
		s.cfg.Logf("lease: releasing run %s: %v", s.cfg.JobID, err)
		return
	}
	s.cfg.Logf("%s", leaseLine{"released", l})
}

// follow is a follower's part: read what the holder stores when a
// doorbell rings, at the safety read and (SQLite) at the poll interval,
// until the holder's lease can be taken (it expires, or is released) or
// the run is over.
func (s *Shared) follow(ctx context.Context, st archive.Store, held archive.Lease) step {
	if !s.visible.Load() {
		if r, ok := s.checkVisible(ctx); !ok {
			return r
		}
	}
	via := text.Sanitize(held.Holder.String())
	if who := fmt.Sprint(held.ID, held.Token); who != s.followed {
		s.followed = who
		s.cfg.Logf("%s", leaseLine{"following", held})
	}
	s.setReading(true)
	defer s.setReading(false)
	read := func() (step, bool) {
		if err := s.catchUp(ctx, st, via); err != nil {
			return s.failed(ctx, err), false
		}
		return step{}, true
	}
	if r, ok := read(); !ok {
		return r
	}
	// The lease is tried again once it ends (the archive bounds Left by
	// its last renewal, whatever its row's expiry says), and never at
	// once: a lease the archive says is both held and ended is not a spin.
	retake := time.NewTimer(max(held.Left, 0) + retakeAfter)
	defer retake.Stop()
	every := s.cfg.SafetyRead
	if s.bells == nil {
		every = s.pollInterval() // SQLite: no doorbells
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	tokens := s.tokenUsage(ctx)
	for {
		again := false // try to take the lease
		select {
		case <-ctx.Done():
			return step{true, ctx.Err()}
		case <-retake.C:
			again = true
		case <-tick.C:
			// A lease released early (a completion that held it for a
			// moment, a holder that left) is taken now, not when it would
			// have expired: SQLite rings no doorbell, and one may be lost.
			if l, err := st.Lease(ctx, s.key); err == nil && (l.Left <= 0 || l.ID == "") {
				again = true
			}
		case t := <-tokens:
			h := s.health
			s.emit(poller.Update{Tokens: t, Health: h}, nil)
			continue
		case <-s.kick:
			if s.isPaused() {
				return step{}
			}
		case b, ok := <-s.bells:
			switch {
			case !ok:
				s.bells, s.listening = nil, false // the store was closed
				return step{}
			case b.Missed:
			case b.Free:
				again = true
			case b.Seq <= s.last:
				continue
			}
		}
		if r, ok := read(); !ok {
			return r
		}
		if over, err := s.over(ctx, st, via); err != nil {
			return s.failed(ctx, err)
		} else if over {
			h := s.health
			h.Done, h.NextTry = true, time.Time{}
			s.emit(poller.Update{Health: h, Done: true}, nil)
			return step{done: true}
		}
		if again {
			return step{}
		}
	}
}

func (s *Shared) setReading(on bool) {
	s.mu.Lock()
	s.reading = on
	s.mu.Unlock()
}

// checkVisible asks the service, once, whether this key may see the run
// before it is shown from another process's polls. A refusal: the run is
// polled on its own (the Watcher then ends with the service's refusal);
// no answer: it polls on its own this turn, and asks again the next.
func (s *Shared) checkVisible(ctx context.Context) (step, bool) {
	err := s.cfg.Visible(ctx)
	var pe *poller.Error
	switch {
	case err == nil:
		s.visible.Store(true)
		return step{}, true
	case ctx.Err() != nil:
		return step{true, ctx.Err()}, false
	case errors.As(err, &pe) && pe.Refusal():
		// Its own poll says so to the watch, as without an archive.
		s.cfg.Logf("lease: this key may not see run %s (%v): not following another's polls", s.cfg.JobID, err)
		p := s.poll(ctx, true)
		err := <-p.done
		p.done <- err
		p.stop()
		return step{true, err}, false
	}
	s.cfg.Logf("lease: whether this key may see run %s: %v; polling on our own meanwhile", s.cfg.JobID, err)
	p := s.poll(ctx, true)
	t := time.NewTimer(s.cfg.Rejoin)
	defer t.Stop()
	select {
	case <-ctx.Done():
		p.stop()
		return step{true, ctx.Err()}, false
	case err := <-p.done:
		p.done <- err
		p.stop()
		return step{true, err}, false
	case <-t.C:
		p.stop()
		return step{}, false
	}
}

// catchUp shows the polls stored after the last one shown; via names
// their holder ("" for this process's own, as the new holder).
func (s *Shared) catchUp(ctx context.Context, st archive.Store, via ...string) error {
	ps, err := st.PollsSince(ctx, s.key.Service, s.key.Run, s.last, 0)
	if err != nil {
		return err
	}
	h := s.health
	h.Via = ""
	if len(via) > 0 {
		h.Via = via[0]
	}
	h.Interval = s.pollInterval()
	h.Failures, h.Reason, h.Cause, h.Wait, h.Paused = 0, "", "", 0, false
	for _, sp := range ps {
		s.last = sp.Seq
		p, at, err := poller.DecodeLine(s.dec, sp.Line)
		if err != nil {
			s.cfg.Logf("lease: poll %d of run %s cannot be read: %v", sp.Seq, s.cfg.JobID, err)
			continue
		}
		if p == nil {
			continue
		}
		h.LastGood = cmpTime(at, sp.ReceivedAt)
		h.Tail = h.Tail || p.Finished || !s.finished.IsZero()
		s.emit(poller.Update{Poll: p, Health: h}, nil)
	}
	if len(ps) == 0 && h.Via != s.health.Via {
		s.emit(poller.Update{Health: h}, nil) // who polls now
	}
	return nil
}

func cmpTime(t, def time.Time) time.Time {
	if t.IsZero() {
		return def
	}
	return t
}

// over reports, once this process has shown run.finished, whether the
// holder followed the run to its end (it marks it complete before it
// releases the lease): then every poll it stored is shown, and nothing
// more will come.
func (s *Shared) over(ctx context.Context, st archive.Store, via string) (bool, error) {
	if s.finished.IsZero() {
		return false, nil
	}
	held, err := st.Held(ctx, s.key.Service, []string{s.key.Run})
	if err != nil {
		return false, err
	}
	if !held[s.key.Run].Complete {
		return false, nil
	}
	return true, s.catchUp(ctx, st, via)
}

// tokenUsage asks the team's token usage on its own goroutine, when the
// watch's TokenEvery has passed since it was last asked (a follower polls
// nothing, and the watch's header shows it).
func (s *Shared) tokenUsage(ctx context.Context) <-chan *poller.TokenUsage {
	every := cmpOr(s.cfg.Watch.TokenEvery, poller.DefaultTokenEvery)
	if s.cfg.Watch.TokenEvery < 0 || s.health.TokensHidden || time.Since(s.tokens) < every {
		return nil
	}
	s.tokens = time.Now()
	ch := make(chan *poller.TokenUsage, 1)
	go func() {
		if t, err := s.cfg.Client.TokenUsage(ctx); err == nil {
			ch <- t
		}
	}()
	return ch
}

// LeaseLine is one line about a lease for a log (--debug, the hub's):
// what happened to it and whose it is, "took the lease of run 019a… at
// https://api.firecrawl.dev: watch on laptop (pid 4242), token 3, for 6s".
// The team's list (no run) is named so.
func LeaseLine(what string, l archive.Lease) string { return leaseLine{what, l}.String() }

// leaseLine is LeaseLine made only when a log prints it: the holder's
// loop logs every turn, and most watches keep no debug log.
type leaseLine struct {
	what string
	l    archive.Lease
}

func (ll leaseLine) String() string {
	what, l := ll.what, ll.l
	of := "run " + l.Run
	if l.Run == "" {
		of = "the team's list"
	}
	return text.Sanitize(fmt.Sprintf("lease: %s the lease of %s at %s: %s, token %d, for %s",
		what, of, l.Service, l.Holder.String(), l.Token, text.Duration(l.TTL)))
}
