package cli

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

// completer completes runs of one service in one archive.
type completer struct {
	c       *poller.Client
	st      archive.Store
	secrets *text.Secrets
	service string
	team    string // the team whose list is read (archive.TeamOf), "" unknown
}

// completion is what completing one run did.
type completion struct {
	fetched  bool  // its trace was fetched (or, first-generation, it was archived whole without one)
	firstGen bool  // a first-generation run: it has no trace, ever
	gone     bool  // the service no longer has it
	requests int   // requests made
	bytes    int64 // bytes of trace and snapshots fetched
	// skipped says why the run could not be archived now (skipErr is the
	// failure); what was read of it is kept and the next listing tries
	// again.
	skipped string
	skipErr error
	// gaps is how many snapshots could not be fetched (gapErr the last
	// failure): the run is archived without them and fetched again later.
	gaps   int
	gapErr error
}

// gone reports the service's 404 for a run it no longer has.
func gone(err error) bool {
	var pe *poller.Error
	return errors.As(err, &pe) && pe.Kind == poller.KindNotFound
}

// complete brings the archive's record of the listed run ri up to what the
// service has, as h says it is held (nil: not at all). A run the service
// cannot give now (a 5xx, a 429 that stays, a body too large to keep) is
// skipped, not an error: the answer says why and what was kept; only the
// archive failing, or ctx, is an error.
func (cp *completer) complete(ctx context.Context, ri *poller.RunInfo, h *archive.Held) (completion, error) {
	var done completion
	if poller.ValidateJobID(ri.ID) != nil {
		return done, nil
	}
	item := runFromInfo(cp.secrets, cp.service, ri)
	item.Team = cp.team
	// skip keeps r (what was read) and says why the run waits for the
	// next listing.
	skip := func(what string, err error, r *archive.Run) (completion, error) {
		if ctx.Err() != nil {
			return done, ctx.Err()
		}
		if gone(err) {
			done.gone = true
			return done, nil
		}
		if err := cp.st.PutRun(ctx, r); err != nil {
			return done, archiveErr(err)
		}
		done.skipped, done.skipErr = what, err
		return done, nil
	}
	if h != nil && h.Complete && h.Gaps == 0 {
		if !h.HasItem {
			// Watched here: the list item adds the prompt, model, label...
			if err := cp.st.PutRun(ctx, item); err != nil {
				return done, archiveErr(err)
			}
		}
		if h.HasStatus {
			return done, nil
		}
	}
	done.requests++
	status, err := cp.c.Status(ctx, ri.ID)
	if err != nil {
		return skip("skipped: its status could not be read; its list item is kept", err, item)
	}
	if h != nil && h.Complete && h.Gaps == 0 {
		// Finished, but its status (the result, expiresAt) never read.
		r := withID(&archive.Run{}, cp.service, ri.ID)
		applyStatus(cp.secrets, r, status)
		if err := cp.st.PutRun(ctx, r); err != nil {
			return done, archiveErr(err)
		}
		return done, nil
	}
	r := item
	applyStatus(cp.secrets, r, status)
	done.requests++
	at := time.Now()
	body, err := cp.c.Trace(ctx, ri.ID, false)
	if pe := (*poller.Error)(nil); errors.As(err, &pe) && pe.Kind == poller.KindFirstGeneration && status.Terminal() {
		// A first-generation run has no trace, ever: its list item and
		// status (with its result) are all there is, archived whole.
		r.Complete = true
		if err := cp.st.PutRun(ctx, r); err != nil {
			return done, archiveErr(err)
		}
		done.fetched, done.firstGen = true, true
		return done, nil
	}
	if err != nil {
		return skip("skipped: its trace could not be read; its list item and status are kept", err, r)
	}
	done.fetched, done.bytes = true, int64(len(body))
	r.StartedAt = &at
	// The polls the archive holds (a watch left early), then this one; the
	// record is derived from all of them, with what the archive holds of
	// the request (a run started with --detach: its cap).
	var polls []archive.Poll
	heldSnaps := map[string]bool{}
	base := r
	if h != nil {
		held, old, err := jobFromStore(ctx, cp.st, cp.service, ri.ID)
		if err != nil && !isArchiveNotFound(err) {
			return done, archiveErr(err)
		}
		if held != nil {
			base = archive.Merge(held, r)
			polls = old
			ids, err := cp.st.SnapshotIDs(ctx, cp.service, ri.ID)
			if err != nil {
				return done, archiveErr(err)
			}
			for _, sid := range ids {
				heldSnaps[sid] = true
			}
		}
	}
	polls = append(polls, archive.Poll{ReceivedAt: at, Line: pollLine(cp.secrets, at, body)})
	d, store, err := deriveFromRecording(ctx, bytes.NewReader(recordingOf(base, polls)))
	if err != nil {
		// A body firewatch cannot read is kept as it came.
		d = &archive.Run{}
	}
	r = archive.Merge(r, d)
	r.Complete = r.Complete || status.Terminal()
	snaps := map[string]string{}
	if store != nil {
		for _, art := range store.Summary().Artifacts {
			for _, sid := range art.Snapshots {
				if _, ok := snaps[sid]; ok || heldSnaps[sid] || poller.ValidateJobID(sid) != nil {
					continue
				}
				done.requests++
				s, err := cp.c.Snapshot(ctx, ri.ID, sid)
				switch {
				case ctx.Err() != nil:
					return done, ctx.Err()
				case gone(err):
					continue
				case err != nil:
					// The run is kept without it; the next listing
					// fetches it again.
					done.gaps++
					done.gapErr = err
					continue
				}
				snaps[sid] = s.Content
				done.bytes += int64(len(s.Content))
			}
		}
	}
	r.Gaps = done.gaps
	if err := cp.st.ReplaceRun(ctx, r, polls, snaps); err != nil {
		if errors.Is(err, archive.ErrTooLarge) {
			done.fetched = false
			return skip("skipped: the archive cannot hold it", err, item)
		}
		return done, archiveErr(err)
	}
	return done, nil
}

// backgroundCompleter completes runs one at a time on its own goroutine,
// for a screen that must not wait on it. A run is taken once per process
// unless its completion failed (the next listing tries it again).
type backgroundCompleter struct {
	cp     *completer
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
	h  *archive.Held // nil: looked up when the run is over (afterCancel)
}

func newBackgroundCompleter(ctx context.Context, cp *completer, note func(error)) *backgroundCompleter {
	ctx, cancel := context.WithCancel(ctx)
	return &backgroundCompleter{cp: cp, note: note, ctx: ctx, cancel: cancel, taken: map[string]bool{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// add queues the listed run ri, held as h.
func (b *backgroundCompleter) add(ri poller.RunInfo, h archive.Held) {
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

// afterCancel completes the run id once the service says it is over (a
// cancel is cooperative: the run ends a moment later), waiting at most
// cancelWait.
func (b *backgroundCompleter) afterCancel(id string) {
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
func (b *backgroundCompleter) push(j bgJob) {
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

func (b *backgroundCompleter) loop() {
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
			var done completion
			done, err = b.cp.complete(b.ctx, &job.ri, h)
			if err == nil && (done.skipErr != nil || done.gaps > 0) {
				err = cmp.Or(done.skipErr, done.gapErr) // tried again at the next listing
			}
		}
		if b.ctx.Err() != nil {
			return
		}
		if err != nil {
			if errors.As(err, new(*usageError)) || errors.As(err, new(*outputError)) {
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
func (b *backgroundCompleter) over(id string) (*archive.Held, error) {
	deadline := time.Now().Add(cancelWait)
	for {
		st, err := b.cp.c.Status(b.ctx, id)
		if err != nil {
			return nil, err
		}
		if st.Terminal() {
			held, err := b.cp.st.Held(b.ctx, b.cp.service, []string{id})
			if err != nil {
				return nil, asUsage(err)
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

// stop ends the completions (one under way is abandoned: it is written in
// one transaction or not at all) and waits for the goroutine.
func (b *backgroundCompleter) stop() {
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
