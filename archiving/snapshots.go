package archiving

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// SnapshotKeeper stores a live watch's artifact snapshots in the archive,
// since they expire with the run: every one the screen fetched, and every
// one of the run, fetched once after its artifact event appears by one
// worker: one request at a time, through the watch's client, whose Retry
// waits out a 429 or a 5xx. Each answer is bounded by the client; what a
// watch stores in all by maxSnapshotBytes. When the run has finished, the
// watch ends only once the ones seen are stored (at most snapshotDrain).
//
// A shared watch's (Sink.Leased) fetches them only while it holds the
// run's lease, those the archive does not hold yet: the holder fetches
// them for the team.
type SnapshotKeeper struct {
	sink  *Sink
	fetch func(ctx context.Context, snapshotID string) (string, error)
	logf  func(format string, args ...any) // the debug log

	ctx     context.Context
	cancel  context.CancelFunc
	wake    chan struct{} // a snapshot was queued
	closing chan struct{} // the watch ended: stop once the queue is empty
	done    chan struct{} // the worker ended
	closed  sync.Once

	mu     sync.Mutex
	seen   map[string]bool // queued once
	stored map[string]bool
	queue  []string
	bytes  int64
	full   bool // maxSnapshotBytes reached: said once in the debug log
	synced bool // holding the lease, the archive's snapshots are marked stored
}

const (
	// maxSnapshotBytes is what one watch stores of snapshots at most.
	maxSnapshotBytes = 256 << 20
	// snapshotDrain bounds the wait, at the end of a finished run's watch,
	// for the snapshots still to fetch.
	snapshotDrain = 15 * time.Second
)

// NewSnapshotKeeper starts the keeper of sink's run: fetch gets one
// snapshot, logf (nil: none) is the debug log.
func NewSnapshotKeeper(sink *Sink, logf func(format string, args ...any), fetch func(ctx context.Context, snapshotID string) (string, error)) *SnapshotKeeper {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	k := &SnapshotKeeper{sink: sink, fetch: fetch, logf: logf, wake: make(chan struct{}, 1), closing: make(chan struct{}),
		done: make(chan struct{}), seen: map[string]bool{}, stored: map[string]bool{}}
	k.ctx, k.cancel = context.WithCancel(context.Background())
	go k.work()
	return k
}

// Tap returns src with the snapshots of every poll's artifact events
// queued before the poll goes on.
func (k *SnapshotKeeper) Tap(src follow.Source) follow.Source {
	return follow.Tap(src, func(u poller.Update) {
		if u.Poll != nil {
			k.see(u.Poll)
		}
	})
}

// see queues the snapshots of p's artifact events not seen before; a
// snapshot id that is not a UUID is not asked for (as the archive pass).
func (k *SnapshotKeeper) see(p *model.Poll) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := len(k.queue)
	for _, e := range p.Events {
		a, ok := e.Payload.(model.ArtifactUpdated)
		if !ok {
			continue
		}
		sid := a.Artifact.SnapshotID
		if k.seen[sid] || poller.ValidateJobID(sid) != nil {
			continue
		}
		k.seen[sid] = true
		k.queue = append(k.queue, sid)
	}
	if len(k.queue) > n {
		select {
		case k.wake <- struct{}{}:
		default:
		}
	}
}

// Keep stores a snapshot the screen fetched.
func (k *SnapshotKeeper) Keep(snapshotID, content string) {
	k.mu.Lock()
	k.seen[snapshotID] = true
	k.mu.Unlock()
	k.store(snapshotID, content)
}

// store writes one snapshot unless it is stored or the bound is reached.
// The write is made without k.mu: the watch's polls go on meanwhile.
func (k *SnapshotKeeper) store(snapshotID, content string) {
	n := int64(len(content))
	k.mu.Lock()
	if k.stored[snapshotID] {
		k.mu.Unlock()
		return
	}
	if k.bytes+n > maxSnapshotBytes {
		if !k.full {
			k.full = true
			k.logf("archive: %d bytes of snapshots stored; the rest are not", k.bytes)
		}
		k.mu.Unlock()
		return
	}
	k.stored[snapshotID] = true
	k.bytes += n
	k.mu.Unlock()
	if !k.sink.PutSnapshot(snapshotID, content) {
		k.mu.Lock()
		delete(k.stored, snapshotID)
		k.bytes -= n
		k.mu.Unlock()
	}
}

// next is the next snapshot to fetch, "" when none is queued.
func (k *SnapshotKeeper) next() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	for len(k.queue) > 0 {
		sid := k.queue[0]
		k.queue = k.queue[1:]
		if !k.stored[sid] {
			return sid
		}
	}
	return ""
}

func (k *SnapshotKeeper) queued() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.queue) > 0
}

// held is told that the watch holds the run's lease now (or no longer):
// the archive is asked again for the snapshots it holds before the next
// fetch.
func (k *SnapshotKeeper) held() {
	k.mu.Lock()
	k.synced = false
	k.mu.Unlock()
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// mayFetch reports whether the worker may fetch now: only while the
// watch holds the run's lease, once it has marked what the archive holds
// as stored.
func (k *SnapshotKeeper) mayFetch() bool {
	if !k.sink.holding() {
		return false
	}
	k.mu.Lock()
	synced := k.synced
	k.mu.Unlock()
	if synced {
		return true
	}
	ctx, cancel := context.WithTimeout(k.ctx, WriteTimeout)
	defer cancel()
	ids, err := k.sink.store.SnapshotIDs(ctx, k.sink.service, k.sink.jobID)
	if err != nil && !errors.Is(err, archive.ErrNotFound) {
		return false // the next wake tries again
	}
	// A run not in the archive yet (its first poll is being written)
	// holds none.
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, sid := range ids {
		k.stored[sid] = true
	}
	k.synced = true
	return true
}

// work fetches the queued snapshots one at a time until the watch ends.
func (k *SnapshotKeeper) work() {
	defer close(k.done)
	for {
		sid := ""
		if k.mayFetch() {
			sid = k.next()
		}
		if sid == "" {
			select {
			case <-k.wake:
				continue
			case <-k.closing:
				if k.queued() && k.mayFetch() {
					continue // queued as the watch ended
				}
				return
			case <-k.ctx.Done():
				return
			}
		}
		content, err := k.fetch(k.ctx, sid)
		if k.ctx.Err() != nil {
			return
		}
		if err != nil {
			// Tried once: a refusal (the snapshot is gone) or what the
			// client's retries could not get past leaves it out.
			var pe *poller.Error
			if !errors.As(err, &pe) || pe.Kind != poller.KindNotFound {
				k.logf("archive: snapshot %s not stored: %v", sid, err)
			}
			continue
		}
		k.store(sid, content)
	}
}

// Close ends the worker: when the run has finished, once the snapshots
// seen are fetched (at most snapshotDrain); otherwise (the user quit, an
// interrupt), or when the archive is failing (it would not take them), at
// once.
// A second Close does nothing.
func (k *SnapshotKeeper) Close(finished bool) {
	k.closed.Do(func() {
		close(k.closing)
		if finished && !k.sink.Failing() {
			select {
			case <-k.done:
			case <-time.After(snapshotDrain):
			}
		}
		k.cancel()
		<-k.done
	})
}
