package archiving

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// WriteTimeout bounds one write: a watch never waits longer on a
// stuck archive than this per poll.
const WriteTimeout = 10 * time.Second

// Sink writes one watch's polls into the archive as they come (Append:
// the recording line the watch's one recorder wrote for --record too),
// each in its own short transaction, under the run's lease (Leased,
// SetLease: AppendLeased, which a lease taken over refuses). The writes happen on the
// sink's own goroutine (writer): a watch hands a poll over and goes on, so
// that an archive waiting for a lock or a slow server never delays what
// the screen or the printers show. A failed write is said once; its polls
// are kept and written with the next one, so a passing failure (a locked
// or restarting database) loses nothing.
type Sink struct {
	store   archive.Store
	secrets *text.Secrets // the app's: a failure's message is redacted with it
	service string
	jobID   string
	team    string // archive.TeamOf the watch's key: the run's owner
	started time.Time

	mu           sync.Mutex
	puts         []*archive.Run // what is known of the run, written before the polls
	pending      []archive.Poll
	pendingBytes int
	failed       bool   // said once
	lost         bool   // something was left out for good (a snapshot, a poll too large)
	lastErr      string // the failure, for the end of the watch
	say          func(string)

	kick     chan struct{} // the writer has work (one is enough)
	stop     chan struct{} // closed by finish: the writer writes what is left and ends
	stopped  chan struct{} // closed by the writer when it ends
	drained  *sync.Cond    // on mu: broadcast after each drain
	drains   int           // drains done
	draining bool          // a drain is under way
	owned    bool          // the run's team was written (the writer's alone)

	// meter's counts are carried by the polls' writes (CarrySpend).
	meter *LiveMeter
	// snaps are snapshots for the writer, with its polls (PutSnapshot).
	snaps     []archive.Snapshot
	snapBytes int

	// snapshots stores the run's artifact snapshots (keepSnapshots).
	snapshots *SnapshotKeeper

	// The polls are written only under the run's lease (Shared, Leased),
	// with AppendLeased, which a lease taken over refuses.
	lease  *archive.Lease // the lease held now; nil: not held, polls are left out
	onLost func(error)    // a write found the lease taken over
	onDrop func()         // a poll was left out: the archive may lack what the watch showed
	whole  func() bool    // the archive holds every poll the watch showed (nil: it does)
	seq    int64          // the last poll written under a lease (-1: none)
	fenced time.Time      // when a write under the lease last renewed it
	// onFenced hears of each write that renewed the lease, with the TTL
	// it renewed it for (OnFenced).
	onFenced func(ttl time.Duration)
}

// NewSink makes the sink of one watch of jobID in st and starts its
// writer; st stays its opener's (Close leaves it open).
func NewSink(st archive.Store, sec *text.Secrets, service, jobID, team string) *Sink {
	s := &Sink{store: st, secrets: sec, service: service, jobID: jobID, team: team, started: time.Now(), seq: -1,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	s.drained = sync.NewCond(&s.mu)
	go s.writer()
	return s
}

// writer writes what the watch hands over, until finish.
func (s *Sink) writer() {
	defer close(s.stopped)
	for {
		select {
		case <-s.kick:
			s.drain()
		case <-s.stop:
			s.drain()
			return
		}
	}
}

// wake tells the writer there is work.
func (s *Sink) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// drain writes what is queued: the run's fields, then the polls. What
// fails stays queued for the next try; only the writer takes from the
// front of the queues.
func (s *Sink) drain() {
	s.mu.Lock()
	s.draining = true
	puts := s.puts[:len(s.puts):len(s.puts)]
	polls := s.pending[:len(s.pending):len(s.pending)]
	started := s.started
	var lease *archive.Lease
	if s.lease != nil {
		l := *s.lease
		lease = &l
	}
	meter := s.meter
	snaps := s.snaps
	s.snaps, s.snapBytes = nil, 0
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), WriteTimeout)
	defer cancel()
	var err error
	done := 0
	for _, r := range puts {
		err = s.store.PutRun(ctx, r)
		if err == nil && r.Team != "" && r.Team == s.team {
			s.owned = true // the run's owner written with it: no write of its own
		}
		if errors.Is(err, archive.ErrTooLarge) {
			s.mu.Lock()
			s.fail(err) // said, and left out: the rest is written
			s.lost = true
			s.mu.Unlock()
			err = nil
		}
		if err != nil {
			break
		}
		done++
	}
	if err == nil && len(polls) > 0 && !s.owned && s.team != "" {
		// The run's owner, with its first poll (never a row for a run
		// that sent none).
		if err = s.store.PutRun(ctx, &archive.Run{Service: s.service, ID: s.jobID, Team: s.team}); err == nil {
			s.owned = true
		}
	}
	written := 0
	var lost error
	if err == nil && len(polls) > 0 {
		appendPolls := func(ps []archive.Poll) error {
			if lease == nil {
				return errNotHeld
			}
			var seq int64
			var err error
			aa, ok := s.store.(archive.AlongAppender)
			sp, n := meter.take()
			if ok && (n > 0 || len(snaps) > 0) {
				along := archive.Along{Snapshots: snaps}
				if n > 0 {
					along.Spent = &sp
				}
				if seq, err = aa.AppendLeasedAlong(ctx, *lease, started, ps, along); err == nil {
					snaps = nil // written with the poll
				} else {
					meter.give(n)
					if errors.Is(err, archive.ErrTooLarge) && len(snaps) > 0 {
						// Perhaps a snapshot: the polls go without them,
						// and they are written (or said too large) alone.
						seq, err = s.store.AppendLeased(ctx, *lease, started, ps)
					}
				}
			} else {
				meter.give(n)
				seq, err = s.store.AppendLeased(ctx, *lease, started, ps)
			}
			if err == nil {
				s.mu.Lock()
				s.seq = max(s.seq, seq)
				s.fenced = time.Now() // the write renewed the lease too
				hook := s.onFenced
				s.mu.Unlock()
				if hook != nil {
					hook(lease.TTL)
				}
			}
			return err
		}
		err = appendPolls(polls)
		switch {
		case err == nil:
			written = len(polls)
		case errors.Is(err, archive.ErrTooLarge):
			written, err = s.appendEach(polls, appendPolls)
		}
		if errors.Is(err, archive.ErrLeaseLost) || errors.Is(err, errNotHeld) {
			// Never written: another process polls now, and stores them.
			lost, err = err, nil
		}
	}
	// The snapshots no poll carried: each in a write of its own.
	for _, sn := range snaps {
		if serr := s.store.PutSnapshot(ctx, s.service, s.jobID, sn.ID, sn.Content); serr != nil {
			s.mu.Lock()
			s.fail(serr)
			s.lost = true
			s.mu.Unlock()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.puts = s.puts[done:]
	if lost != nil {
		s.dropPending()
		if errors.Is(lost, archive.ErrLeaseLost) {
			s.lease = nil
			s.onLost(lost)
		}
	}
	for _, p := range polls[:written] {
		s.pendingBytes -= pollSize(p)
	}
	s.pending = s.pending[written:]
	if err != nil {
		s.fail(err)
		if s.pendingBytes > maxPending {
			s.overflow()
		}
	}
	s.draining = false
	s.drains++
	s.drained.Broadcast()
}

// CarrySpend makes the polls' writes count m's live requests in their own
// transaction: a live watch writes once a poll.
func (s *Sink) CarrySpend(m *LiveMeter) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.meter = m
	s.mu.Unlock()
}

// appendEach writes polls one by one with appendPolls, leaving out (and
// saying) those too large for the archive, so that the watch's later
// polls are still archived; it returns how many of polls it is done with.
func (s *Sink) appendEach(polls []archive.Poll, appendPolls func([]archive.Poll) error) (int, error) {
	for i, p := range polls {
		err := appendPolls([]archive.Poll{p})
		if errors.Is(err, archive.ErrTooLarge) {
			s.mu.Lock()
			s.fail(err)
			s.lost = true
			s.dropped()
			s.mu.Unlock()
			continue
		}
		if err != nil {
			return i, err
		}
	}
	return len(polls), nil
}

// pollSize is what a queued poll holds in memory.
func pollSize(p archive.Poll) int {
	if p.Encoded != nil {
		return p.Encoded.Size()
	}
	return len(p.Line)
}

// Sync waits until the writer has tried once to write everything queued
// now (the end of a watch, tests): a drain that starts after this call.
func (s *Sink) Sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 && len(s.puts) == 0 && len(s.snaps) == 0 && !s.draining {
		return
	}
	want := s.drains + 1
	if s.draining {
		want++
	}
	s.wake()
	for s.drains < want {
		select {
		case <-s.stopped:
			return
		default:
		}
		s.drained.Wait()
	}
}

// KeepSnapshots makes the watch store the run's artifact snapshots: those
// of its artifact events, fetched with c (the keeper's Tap sees them), and
// those the screen fetched (Keep). logf (nil: none) is the debug log.
func (s *Sink) KeepSnapshots(c *poller.Client, logf func(format string, args ...any)) *SnapshotKeeper {
	if s == nil || c == nil {
		return nil
	}
	jobID := s.jobID
	s.snapshots = NewSnapshotKeeper(s, logf, func(ctx context.Context, sid string) (string, error) {
		snap, err := c.Snapshot(ctx, jobID, sid)
		if err != nil {
			return "", err
		}
		return snap.Content, nil
	})
	return s.snapshots
}

// Held is what the archive holds of the run before the watch writes
// anything (nil when nothing): a run started with --detach or from the runs
// screen is held with its request, which the watch then knows too.
func (s *Sink) Held(ctx context.Context) *archive.Run {
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, WriteTimeout)
	defer cancel()
	r, err := s.store.Get(ctx, s.service, s.jobID)
	if err != nil || r.Service != s.service {
		return nil
	}
	return r
}

// KeepLookup records what the service said of the run when the watch
// started (its status and list item: the request, createdAt, the label).
// Nothing is recorded for a run the service does not have.
func (s *Sink) KeepLookup(r *archive.Run) {
	if s == nil || r == nil {
		return
	}
	s.Put(r)
}

// KeepStatus stores the run's status once the watch saw it finish (ended:
// the trace gave its outcome): its result, its expiry and the service's own
// figures, which the trace does not carry. One request (none when st is
// given: the watch asked it for --result); a watch that was left early
// asks nothing. logf (nil: none) is the debug log.
func (s *Sink) KeepStatus(ctx context.Context, c *poller.Client, st *poller.Status, ended bool, logf func(format string, args ...any)) {
	if s == nil || c == nil || ctx.Err() != nil || !ended {
		return
	}
	if st == nil {
		ctx, cancel := context.WithTimeout(ctx, WriteTimeout)
		defer cancel()
		var err error
		if st, err = c.Status(ctx, s.jobID); err != nil {
			if logf != nil {
				logf("archive: the run's status: %v", err)
			}
			return
		}
	}
	r := &archive.Run{}
	ApplyStatus(s.secrets, r, st)
	s.Put(r)
}

// KeepCancel records that the service accepted a cancel of the run; the
// outcome follows from its trace (this watch's, or the next read of it).
func (s *Sink) KeepCancel() { s.Put(&archive.Run{CancelRequested: true}) }

// maxPending is how much a failing archive may hold back in memory.
const maxPending = 64 << 20

// Append hands one poll to the writer: its recording line (the secrets
// redacted, no newline; p.Line is the sink's from then on) or that line
// deflated (p.Encoded), received at p.ReceivedAt. A poll that comes while
// the lease is not held is left out (another process stores the run's
// polls). It never fails: the watch goes on.
func (s *Sink) Append(p archive.Poll) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lease == nil {
		s.dropped() // not held: another process stores the run's polls
		return
	}
	s.pending = append(s.pending, p)
	s.pendingBytes += pollSize(p)
	if s.pendingBytes > maxPending && len(s.pending) > 1 && (s.failed || s.draining) {
		// The archive does not keep up (it fails, or waits for a lock):
		// the polls queued are left out rather than hold more.
		s.overflow()
		return
	}
	s.wake()
}

// unkept is a poll's line that could not be kept (pollParts' fail).
func (s *Sink) unkept(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail(err)
}

// overflow is a failing archive holding back too much: the polls queued
// are left out (the next holder, or this one, stores the whole trace
// again). s.mu is held.
func (s *Sink) overflow() {
	s.dropPending()
	s.fail(errors.New("the archive does not keep up: the polls it could not take were left out"))
}

// dropPending leaves the queued polls out; s.mu is held.
func (s *Sink) dropPending() {
	if len(s.pending) > 0 {
		s.dropped()
	}
	clear(s.pending)
	s.pending, s.pendingBytes = s.pending[:0], 0
}

// dropped tells the watch that a poll was left out; s.mu is held.
func (s *Sink) dropped() {
	if s.onDrop != nil {
		s.onDrop()
	}
}

// errNotHeld: a shared watch's polls while it does not hold the run's lease.
var errNotHeld = errors.New("the run's lease is not held")

// Leased makes the sink write its polls only under the run's lease
// (SetLease), with AppendLeased: a poll that comes while no lease is held
// is left out, and a write that finds the lease taken over leaves out
// every poll queued, then tells onLost. onDrop is told of every poll left
// out, for any reason: the archive may then lack what the watch showed.
// whole says whether the archive holds every poll the watch showed: when
// it does not, the record derived at the end (Close) does not mark the
// run complete, and the next archive pass fetches it. All three are
// called with the sink's lock held: they must not call it.
func (s *Sink) Leased(onLost func(error), onDrop func(), whole func() bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onLost, s.onDrop, s.whole = onLost, onDrop, whole
}

// start is when the watch started (its recording's header): the run's
// start, with its first poll.
func (s *Sink) start(t time.Time) {
	s.mu.Lock()
	s.started = t
	s.mu.Unlock()
}

// SetLease is the run's lease the polls are written under from now on
// (nil: not held; the polls still queued are left out).
func (s *Sink) SetLease(l *archive.Lease) {
	s.mu.Lock()
	was := s.lease != nil
	if l == nil {
		s.lease = nil
	} else {
		c := *l
		s.lease = &c
	}
	k := s.snapshots
	s.mu.Unlock()
	if k != nil && was != (l != nil) {
		k.held()
	}
}

// holding reports whether the sink holds the run's lease now.
func (s *Sink) holding() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lease != nil
}

// Flush waits until the writer has tried to write everything queued
// (Sync) and reports whether it all was.
func (s *Sink) Flush() bool {
	s.Sync()
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending) == 0 && len(s.puts) == 0
}

// LastSeq is the sequence number of the last poll written under a lease
// (-1: none).
func (s *Sink) LastSeq() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// Fenced is when a write under the lease last renewed it (AppendLeased
// renews the lease it is fenced by): a holder that stored a poll since its
// last renewal need not renew it on its own.
func (s *Sink) Fenced() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fenced
}

// OnFenced makes f hear of each write under the lease that renewed it,
// on the writer's goroutine, with the TTL it renewed the lease for (nil:
// none hears).
func (s *Sink) OnFenced(f func(ttl time.Duration)) {
	s.mu.Lock()
	s.onFenced = f
	s.mu.Unlock()
}

// Store is the archive the sink writes into.
func (s *Sink) Store() archive.Store { return s.store }

// fail says a write failed, once; s.mu is held.
func (s *Sink) fail(err error) {
	s.lastErr = s.secrets.Redact(err.Error())
	if errors.Is(err, archive.ErrUnavailable) {
		return // the shared watch says it, once (Shared)
	}
	if !s.failed {
		s.failed = true
		if s.say != nil {
			s.say("archiving failed, the watch goes on: " + s.lastErr)
		}
	}
}

// Failing reports whether a write has failed (said once).
func (s *Sink) Failing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// Put records what is known of the run (written by the writer, before the
// polls queued with it); a failure is said like a poll's.
func (s *Sink) Put(r *archive.Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Service, r.ID, r.Team = s.service, s.jobID, s.team
	s.puts = append(s.puts, r)
	s.wake()
}

// PutSnapshot stores one snapshot's content (on the snapshot keeper's
// goroutine: the watch's does not wait for it), with the polls queued
// then while the watch holds the run's lease; a failure is said like a
// poll's. It reports whether it was stored, or queued to be.
func (s *Sink) PutSnapshot(snapshotID, content string) bool {
	sn := archive.NewSnapshot(snapshotID, content) // compressed here, not in the poll's write
	s.mu.Lock()
	ending := false
	select {
	case <-s.stop: // the writer writes nothing more
		ending = true
	default:
	}
	if s.lease != nil && !ending && s.snapBytes+len(content) <= maxPending {
		// Holding the lease, the writer writes it at once: with the
		// polls it has to write then, in their transaction, else alone.
		// It is not held back for a later poll: a watch killed meanwhile
		// would have fetched it for nobody, and the next holder would
		// fetch it again.
		s.snaps = append(s.snaps, sn)
		s.snapBytes += len(content)
		s.wake()
		s.mu.Unlock()
		return true
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), WriteTimeout)
	defer cancel()
	if err := s.store.PutSnapshot(ctx, s.service, s.jobID, snapshotID, content); err != nil {
		s.mu.Lock()
		s.fail(err)
		s.lost = true
		s.mu.Unlock()
		return false
	}
	return true
}

// finish ends the writer once it has written what is queued, then writes
// what firewatch derived from the watch of run; whole reports that
// everything was written in the end.
func (s *Sink) finish(run *follow.Run) (whole bool) {
	close(s.stop)
	<-s.stopped
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) > 0 || len(s.puts) > 0 {
		return false
	}
	r := DerivedRun(run.Summary(), run.Store)
	r.Service, r.ID = s.service, s.jobID
	if s.whole != nil && !s.whole() {
		// What the watch showed is more than the archive holds: the run
		// is not complete there (the next archive pass fetches it).
		r.Complete = false
	}
	ctx, cancel := context.WithTimeout(context.Background(), WriteTimeout)
	defer cancel()
	if err := s.store.SetDerived(ctx, r); err != nil {
		s.fail(err)
		return false
	}
	return !s.lost
}

// SetSay is where the sink says a failure (once) from now on: stderr, or
// the screen's footer once it is up.
func (s *Sink) SetSay(say func(string)) {
	s.mu.Lock()
	s.say = say
	s.mu.Unlock()
}

// Say says msg where the sink says things (nowhere before SetSay).
func (s *Sink) Say(msg string) {
	s.mu.Lock()
	say := s.say
	s.mu.Unlock()
	if say != nil {
		say(msg)
	}
}

// Where names the archive.
func (s *Sink) Where() string { return s.store.Where() }

// Close ends archiving of the watch of run: the snapshots still to fetch
// (when the run finished), what is queued, what the watch derived. The
// store is its opener's, who closes it after (a hub's one store serves
// every run it follows). whole reports that everything was written in the
// end; failed and lastErr, that a write failed on the way (said once
// already).
func (s *Sink) Close(run *follow.Run) (whole, failed bool, lastErr string) {
	if s.snapshots != nil {
		s.snapshots.Close(run.Store.Run().Finished != nil)
	}
	whole = s.finish(run)
	s.mu.Lock()
	failed, lastErr = s.failed, s.lastErr
	s.mu.Unlock()
	return whole, failed, lastErr
}

// pollParts makes polls of a recorder's lines (poller.PollLines): a
// short line is copied, a long one, which comes in parts, is deflated as
// they come, never held whole. Each is handed to add.
type pollParts struct {
	add  func(archive.Poll)
	fail func(error) // a long line that could not be kept
	part *archive.Encoder
}

func (l *pollParts) PollLine(received time.Time, part []byte, end bool) {
	if l.part == nil && end {
		l.add(archive.Poll{ReceivedAt: received, Line: bytes.Clone(part)})
		return
	}
	if l.part == nil {
		l.part = archive.NewEncoder()
	}
	_, _ = l.part.Write(part)
	if !end {
		return
	}
	e, err := l.part.Done()
	l.part = nil
	if err != nil {
		l.fail(err)
		return
	}
	l.add(archive.Poll{ReceivedAt: received, Encoded: e})
}
