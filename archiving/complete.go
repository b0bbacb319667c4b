package archiving

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// Completing a run in the archive: what a process that lists the team's
// runs (the archive pass, the runs screen) does for each run it sees. It
// fetches only what the archive lacks: nothing for a run held whole; the
// list item (no request) and the status of a finished run held without
// them; for a run held in part (a watch left early) or not at all, the
// status, the trace and the snapshots not held yet, written in one
// transaction with the run's record derived again from every poll held.
//
// A run's polls are written by the holder of its lease alone (Shared):
// the completer takes the run's lease before it fetches its trace, and
// writes the run under it (ReplaceLeased, fenced by the lease), so that
// it never replaces the polls of a live watch; a run another firewatch
// polls now is left to it (Completion.PolledBy), which archives it.

// Completer completes runs of one service in one archive.
type Completer struct {
	C       *poller.Client
	St      archive.Store
	Secrets *text.Secrets
	Service string
	Team    string // the team whose list is read (archive.TeamOf), "" unknown
	// Holder is who the process is to the team, in the runs' leases
	// (empty: a holder of its own, labelled "archive").
	Holder archive.Holder

	eps *endpoints // a pass's (endpoints.go); nil: each endpoint always asked
}

// completeTTL is how long a completion's lease keeps a watch from taking
// the run: short, so that a pass killed on another machine holds nobody
// up for long. Its write is fenced by the lease's token, not its expiry:
// a completion that outlasts it still writes, unless a watch took the run
// over meanwhile (then its write fails, and the run is the watch's).
const completeTTL = 15 * time.Second

// take takes the run's lease for its completion; held: another firewatch
// polls it now (who).
func (cp *Completer) take(ctx context.Context, id string) (l archive.Lease, held string, err error) {
	if cp.Holder.ID == "" {
		cp.Holder = archive.NewHolder("archive")
	}
	l, err = cp.St.Take(ctx, archive.LeaseKey{Service: cp.Service, Run: id}, cp.Holder, completeTTL)
	var he *archive.HeldError
	if errors.As(err, &he) {
		return l, text.Sanitize(he.Lease.Holder.String()), nil
	}
	return l, "", err
}

// release gives the run's lease up once the completion is written (or
// not): a watch waiting for it polls at once.
func (cp *Completer) release(ctx context.Context, l archive.Lease) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), WriteTimeout)
	defer cancel()
	_ = cp.St.Release(ctx, l)
}

// StoreError is the archive failing while a run was completed (the
// service's failures are the Completion's): what it means to the command
// is the command's to say.
type StoreError struct{ Err error }

func (e *StoreError) Error() string { return e.Err.Error() }
func (e *StoreError) Unwrap() error { return e.Err }

// storeErr marks a failure of the archive (not an interrupt) as one.
func storeErr(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &StoreError{err}
}

// Completion is what completing one run did.
type Completion struct {
	Fetched  bool  // its trace was fetched (or, first-generation, it was archived whole without one)
	FirstGen bool  // a first-generation run: it has no trace, ever
	Gone     bool  // the service no longer has it
	Requests int   // requests made
	Bytes    int64 // bytes of trace and snapshots fetched
	// PolledBy: another firewatch holds the run's lease (who): it polls
	// the run and archives it, and the completion was left to it.
	PolledBy string
	// skipped says why the run could not be archived now (skipErr is the
	// failure); what was read of it is kept and the next listing tries
	// again.
	Skipped string
	SkipErr error
	// gaps is how many snapshots could not be fetched (gapErr the last
	// failure): the run is archived without them and fetched again later.
	Gaps   int
	GapErr error
	// Deferred: the run was not asked for (Skipped says so); Left: that
	// many of its snapshots (among Gaps) were not. The pass asks their
	// endpoint no more (endpoints.go), and says so once, not run by run.
	Deferred bool
	Left     int
}

// gone reports the service's 404 for a run it no longer has.
func gone(err error) bool {
	var pe *poller.Error
	return errors.As(err, &pe) && pe.Kind == poller.KindNotFound
}

// Complete brings the archive's record of the listed run ri up to what the
// service has, as h says it is held (nil: not at all). A run the service
// cannot give now (a 5xx, a 429 that stays, a body too large to keep) is
// skipped, not an error: the answer says why and what was kept; only the
// archive failing, or ctx, is an error.
func (cp *Completer) Complete(ctx context.Context, ri *poller.RunInfo, h *archive.Held) (Completion, error) {
	var done Completion
	if poller.ValidateJobID(ri.ID) != nil {
		return done, nil
	}
	item := RunFromInfo(cp.Secrets, cp.Service, ri)
	item.Team = cp.Team
	skip := func(what string, err error, r *archive.Run) (Completion, error) {
		return cp.skip(ctx, &done, what, err, r)
	}
	if h != nil && h.Complete && h.Gaps == 0 {
		if !h.HasItem {
			// Watched here: the list item adds the prompt, model, label...
			if err := cp.St.PutRun(ctx, item); err != nil {
				return done, storeErr(err)
			}
		}
		if h.HasStatus {
			return done, nil
		}
	}
	if h == nil || !h.Complete || h.Gaps > 0 {
		if err := cmp.Or(cp.eps.offErr(epStatus), cp.eps.offErr(epTrace)); err != nil {
			return cp.deferRun(ctx, &done, h, item, err)
		}
		// Its polls are to be written: under the run's lease.
		l, by, err := cp.take(ctx, ri.ID)
		switch {
		case err != nil:
			return done, storeErr(err)
		case by != "":
			// Its polls are the holder's; its list item is kept (the
			// team's list shown from the archive lists it).
			done.PolledBy = by
			if h == nil || !h.HasItem {
				if err := cp.St.PutRun(ctx, item); err != nil {
					return done, storeErr(err)
				}
			}
			return done, nil
		}
		defer cp.release(ctx, l)
		// Another firewatch (a pass, a hub's completions) may have
		// completed it between the caller's look and this take: the
		// lease's holder sees it, and fetches nothing again.
		now, err := cp.St.Held(ctx, cp.Service, []string{ri.ID})
		if err != nil {
			return done, storeErr(err)
		}
		if nh, ok := now[ri.ID]; ok && nh.Complete && nh.Gaps == 0 && nh.HasStatus && (h == nil || !h.Complete || h.Gaps > 0) {
			return done, nil
		}
		return cp.fetch(ctx, ri, h, item, l)
	}
	// Finished, but its status (the result, expiresAt) never read.
	if err := cp.eps.offErr(epStatus); err != nil {
		return cp.deferRun(ctx, &done, h, item, err)
	}
	done.Requests++
	status, err := cp.status(ctx, ri.ID)
	if err != nil {
		return skip("skipped: its status could not be read; its list item is kept", err, item)
	}
	r := WithID(&archive.Run{}, cp.Service, ri.ID)
	ApplyStatus(cp.Secrets, r, status)
	if err := cp.St.PutRun(ctx, r); err != nil {
		return done, storeErr(err)
	}
	return done, nil
}

// status asks for the run's status, as the pass's endpoints say.
func (cp *Completer) status(ctx context.Context, id string) (*poller.Status, error) {
	status, err := cp.eps.client(cp.C, epStatus).Status(ctx, id)
	cp.eps.ran(epStatus, answered(err), err)
	return status, err
}

// deferRun leaves the run for the next pass without asking anything: an
// endpoint it needs is asked no more in this pass (err, its failure). Its
// list item is kept.
func (cp *Completer) deferRun(ctx context.Context, done *Completion, h *archive.Held, item *archive.Run, err error) (Completion, error) {
	if h == nil || !h.HasItem {
		if err := cp.St.PutRun(ctx, item); err != nil {
			return *done, storeErr(err)
		}
	}
	done.Deferred = true
	done.Skipped, done.SkipErr = "left for the next pass", err
	return *done, nil
}

// skip keeps r (what was read of the run) and says in done why the run
// waits for the next listing.
func (cp *Completer) skip(ctx context.Context, done *Completion, what string, err error, r *archive.Run) (Completion, error) {
	if ctx.Err() != nil {
		return *done, ctx.Err()
	}
	if gone(err) {
		done.Gone = true
		return *done, nil
	}
	if err := cp.St.PutRun(ctx, r); err != nil {
		return *done, storeErr(err)
	}
	done.Skipped, done.SkipErr = what, err
	return *done, nil
}

// fetch archives the run ri whole (held as h, nil: not at all) under its
// lease l: its status, its trace after the polls held, its snapshots not
// held yet.
func (cp *Completer) fetch(ctx context.Context, ri *poller.RunInfo, h *archive.Held, item *archive.Run, l archive.Lease) (Completion, error) {
	var done Completion
	skip := func(what string, err error, r *archive.Run) (Completion, error) {
		return cp.skip(ctx, &done, what, err, r)
	}
	done.Requests++
	status, err := cp.status(ctx, ri.ID)
	if err != nil {
		return skip("skipped: its status could not be read; its list item is kept", err, item)
	}
	r := item
	ApplyStatus(cp.Secrets, r, status)
	done.Requests++
	at := time.Now()
	body, err := cp.eps.client(cp.C, epTrace).Trace(ctx, ri.ID, false)
	cp.eps.ran(epTrace, answered(err), err)
	if pe := (*poller.Error)(nil); errors.As(err, &pe) && pe.Kind == poller.KindFirstGeneration && status.Terminal() {
		// A first-generation run has no trace, ever: its list item and
		// status (with its result) are all there is, archived whole.
		r.Complete = true
		if err := cp.St.PutRun(ctx, r); err != nil {
			return done, storeErr(err)
		}
		done.Fetched, done.FirstGen = true, true
		return done, nil
	}
	if err != nil {
		return skip("skipped: its trace could not be read; its list item and status are kept", err, r)
	}
	done.Fetched, done.Bytes = true, int64(len(body))
	r.StartedAt = &at
	// The polls the archive holds (a watch left early), then this one; the
	// record is derived from all of them, with what the archive holds of
	// the request (a run started with --detach: its cap).
	var polls []archive.Poll
	heldSnaps := map[string]bool{}
	base := r
	if h != nil {
		held, old, err := Load(ctx, cp.St, cp.Service, ri.ID)
		if err != nil && !errors.Is(err, archive.ErrNotFound) {
			return done, storeErr(err)
		}
		if held != nil {
			base = archive.Merge(held, r)
			polls = old
			ids, err := cp.St.SnapshotIDs(ctx, cp.Service, ri.ID)
			if err != nil {
				return done, storeErr(err)
			}
			for _, sid := range ids {
				heldSnaps[sid] = true
			}
		}
	}
	polls = append(polls, archive.Poll{ReceivedAt: at, Line: PollLine(cp.Secrets, at, body)})
	d, store, err := DeriveFromRecording(ctx, bytes.NewReader(RecordingOf(base, polls)))
	if err != nil {
		// A body firewatch cannot read is kept as it came.
		d = &archive.Run{}
	}
	r = archive.Merge(r, d)
	r.Complete = r.Complete || status.Terminal()
	snaps := map[string]string{}
	if store != nil {
		// A pass asks the snapshot endpoint as it says; within a run, once
		// for each snapshot after one failed.
		sc := cp.eps.client(cp.C, epSnapshot)
		answer, off := false, cp.eps.offErr(epSnapshot)
		var failed error
		left := map[string]bool{}
		for _, art := range store.Summary().Artifacts {
			for _, sid := range art.Snapshots {
				if _, ok := snaps[sid]; ok || heldSnaps[sid] || left[sid] || poller.ValidateJobID(sid) != nil {
					continue
				}
				if off != nil {
					// Not asked: the next pass fetches it.
					left[sid] = true
					done.Gaps++
					done.Left++
					done.GapErr = off
					continue
				}
				done.Requests++
				s, err := sc.Snapshot(ctx, ri.ID, sid)
				switch {
				case ctx.Err() != nil:
					return done, ctx.Err()
				case gone(err):
					answer = true
					continue
				case err != nil:
					// The run is kept without it; the next listing
					// fetches it again.
					done.Gaps++
					done.GapErr = err
					if failure(err) {
						failed = err
						if cp.eps != nil {
							sc = quick(cp.C)
						}
					}
					continue
				}
				answer = true
				snaps[sid] = s.Content
				done.Bytes += int64(len(s.Content))
			}
		}
		cp.eps.ran(epSnapshot, answer, failed)
	}
	r.Gaps = done.Gaps
	if err := cp.St.ReplaceLeased(ctx, l, r, polls, snaps); err != nil {
		var le *archive.LostError
		switch {
		case errors.Is(err, archive.ErrTooLarge):
			done.Fetched = false
			return skip("skipped: the archive cannot hold it", err, item)
		case errors.As(err, &le):
			// A watch took it over meanwhile: its polls are the archive's.
			done.Fetched, done.PolledBy = false, "a firewatch that took it over"
			if le.Now != nil {
				done.PolledBy = text.Sanitize(le.Now.Holder.String())
			}
			return done, nil
		}
		return done, storeErr(err)
	}
	return done, nil
}

// Background completes runs one at a time on its own goroutine,
// for a screen that must not wait on it. A run is taken once per process
// unless its completion failed (the next listing tries it again).
type Background struct {
	cp     *Completer
	note   func(error) // a failed write to the archive
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	taken   map[string]bool
	queue   []bgJob
	wake    chan struct{}
	running bool
	done    chan struct{}
}

type bgJob struct {
	ri poller.RunInfo
	h  *archive.Held // nil: looked up when the run is over (AfterCancel)
}

func NewBackground(ctx context.Context, cp *Completer, note func(error)) *Background {
	ctx, cancel := context.WithCancel(ctx)
	return &Background{cp: cp, note: note, ctx: ctx, cancel: cancel, taken: map[string]bool{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Add queues the listed run ri, held as h.
func (b *Background) Add(ri poller.RunInfo, h archive.Held) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.taken[ri.ID] {
		return
	}
	b.taken[ri.ID] = true
	b.push(bgJob{ri, &h})
}

// AfterCancel completes the run id once the service says it is over (a
// cancel is cooperative: the run ends a moment later), waiting at most
// cancelWait.
func (b *Background) AfterCancel(id string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.taken[id] = true
	b.push(bgJob{ri: poller.RunInfo{ID: id}})
}

// cancelWait bounds the wait for a cancelled run to end; cancelPoll is
// the time between two looks.
const (
	cancelWait = 2 * time.Minute
	cancelPoll = time.Second
)

// push queues a job and wakes the loop; b.mu is held.
func (b *Background) push(j bgJob) {
	b.queue = append(b.queue, j)
	if !b.running {
		b.running = true
		go b.loop()
	}
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *Background) loop() {
	defer close(b.done)
	for {
		b.mu.Lock()
		var job *bgJob
		if len(b.queue) > 0 {
			job = &b.queue[0]
			b.queue = b.queue[1:]
		}
		b.mu.Unlock()
		if job == nil {
			select {
			case <-b.ctx.Done():
				return
			case <-b.wake:
				continue
			}
		}
		h := job.h
		var err error
		if h == nil {
			h, err = b.over(job.ri.ID)
		}
		if err == nil && h != nil {
			var done Completion
			done, err = b.cp.Complete(b.ctx, &job.ri, h)
			if err == nil && (done.SkipErr != nil || done.Gaps > 0) {
				err = cmp.Or(done.SkipErr, done.GapErr) // tried again at the next listing
			}
		}
		if b.ctx.Err() != nil {
			return
		}
		if err != nil {
			if errors.As(err, new(*StoreError)) {
				b.note(err) // the archive's
			}
			b.mu.Lock()
			delete(b.taken, job.ri.ID) // tried again at the next listing
			b.mu.Unlock()
		}
	}
}

// over waits until the service says the run id is over (at most
// cancelWait) and says how the archive holds it then; nil when it is not
// over by then.
func (b *Background) over(id string) (*archive.Held, error) {
	deadline := time.Now().Add(cancelWait)
	for {
		st, err := b.cp.C.Status(b.ctx, id)
		if err != nil {
			return nil, err
		}
		if st.Terminal() {
			held, err := b.cp.St.Held(b.ctx, b.cp.Service, []string{id})
			if err != nil {
				return nil, storeErr(err)
			}
			h, ok := held[id]
			if !ok {
				return &archive.Held{}, nil
			}
			return &h, nil
		}
		if time.Now().After(deadline) {
			return nil, nil
		}
		t := time.NewTimer(cancelPoll)
		select {
		case <-b.ctx.Done():
			t.Stop()
			return nil, b.ctx.Err()
		case <-t.C:
		}
	}
}

// Stop ends the completions (one under way is abandoned: it is written in
// one transaction or not at all) and waits for the goroutine.
func (b *Background) Stop() {
	if b == nil {
		return
	}
	b.cancel()
	b.mu.Lock()
	running := b.running
	b.mu.Unlock()
	if running {
		<-b.done
	}
}
