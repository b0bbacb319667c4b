package mcpserver

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/text"
	"golang.org/x/time/rate"
)

// Followers is one follower per run for a server's every client and call:
// a run is followed once however many calls read or wait on it, and is
// kept for Idle after the last of them leaves, so that the next page of
// get_events reads the same store (the same sequence numbers). A hub has
// followers of its own and does not need these.
type Followers struct {
	// Make is the run's source and what to do once its follower has
	// ended (done may be nil).
	Make func(ctx context.Context, id string) (src follow.Source, done func(*follow.Run), err error)
	Idle time.Duration // 0: two minutes
	// Max is the most runs followed at once (0: MaxFollowed): past it
	// the longest idle one is stopped, and when none is idle a new run
	// is refused. New runs are followed at most newPerSecond a second
	// (a burst of newBurst): each is a stream of the service's polls.
	Max     int
	Secrets *text.Secrets // redacted from every string the stores decode

	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	runs   map[string]*followed
	made   int
	fresh  *rate.Limiter
	wg     sync.WaitGroup
}

type followed struct {
	f       *follow.Follower
	settled chan struct{} // closed once the follower ended and its done ran
	refs    int
	idle    *time.Timer
	since   time.Time // idle since
	ready   chan struct{}
	err     error
}

// Start makes the followers' context: every follower ends with it or Stop.
func (fs *Followers) Start(ctx context.Context) {
	fs.ctx, fs.cancel = context.WithCancel(ctx)
	fs.runs = map[string]*followed{}
	fs.fresh = rate.NewLimiter(newPerSecond, newBurst)
}

// MaxFollowed is Followers.Max's default.
const MaxFollowed = 32

const (
	newPerSecond = 2
	newBurst     = 30
)

// errTooMany is a new run past the bounds.
var errTooMany = errors.New("following too many runs at once: call again on a run already asked about, or in a little while")

// Made is how many followers were made in all.
func (fs *Followers) Made() int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.made
}

// Open is the run's follower; release once done with it.
func (fs *Followers) Open(ctx context.Context, id string) (*follow.Follower, func(), error) {
	fs.mu.Lock()
	r := fs.runs[id]
	if r != nil && r.failed() {
		// Its source gave up (the network, a refusal): ask again.
		if r.idle != nil {
			r.idle.Stop()
		}
		delete(fs.runs, id)
		r = nil
	}
	made := r == nil
	if made {
		if !fs.room() || !fs.fresh.Allow() {
			fs.mu.Unlock()
			return nil, nil, errTooMany
		}
		r = &followed{ready: make(chan struct{})}
		fs.runs[id] = r
		fs.made++
	}
	r.refs++
	if r.idle != nil {
		r.idle.Stop()
		r.idle = nil
	}
	fs.mu.Unlock()
	if made {
		r.err = fs.start(r, id)
		close(r.ready)
	}
	select {
	case <-r.ready:
	case <-ctx.Done():
		fs.release(id, r)
		return nil, nil, ctx.Err()
	}
	if r.err != nil {
		fs.release(id, r)
		return nil, nil, r.err
	}
	var once sync.Once
	return r.f, func() { once.Do(func() { fs.release(id, r) }) }, nil
}

// failed reports that r's follower ended without the run finishing.
func (r *followed) failed() bool {
	select {
	case <-r.ready: // r.f is set
	default:
		return false
	}
	if r.f == nil {
		return false
	}
	select {
	case <-r.f.Done():
		return r.f.Err() != nil
	default:
		return false
	}
}

// room makes room for one more run, stopping the longest idle one when
// the followers are at their most; fs.mu is held.
func (fs *Followers) room() bool {
	most := fs.Max
	if most <= 0 {
		most = MaxFollowed
	}
	if len(fs.runs) < most {
		return true
	}
	var oldest string
	var at time.Time
	for id, r := range fs.runs {
		if r.refs == 0 && r.idle != nil && (oldest == "" || r.since.Before(at)) {
			oldest, at = id, r.since
		}
	}
	if oldest == "" {
		return false
	}
	r := fs.runs[oldest]
	r.idle.Stop()
	delete(fs.runs, oldest)
	go r.f.Stop()
	return true
}

func (fs *Followers) start(r *followed, id string) error {
	src, done, err := fs.Make(fs.ctx, id)
	if err != nil {
		return err
	}
	run := follow.NewRun()
	run.Store.SetSecrets(fs.Secrets)
	run.Store.SetRunID(id)
	run.NewTracker()
	r.settled = make(chan struct{})
	r.f = follow.NewFollower(src, &run)
	r.f.Start(fs.ctx)
	fs.wg.Add(1)
	go func() {
		defer fs.wg.Done()
		defer close(r.settled)
		<-r.f.Done()
		if done != nil {
			done(&run)
		}
	}()
	return nil
}

// Settle waits, up to limit, for the followers of runs that have ended to
// finish their archiving, so that a reader of the archive (cost, compare)
// called just after wait_for_run said "finished" counts the run as ended.
func (fs *Followers) Settle(ctx context.Context, limit time.Duration) {
	fs.mu.Lock()
	var ended []*followed
	for _, r := range fs.runs {
		select {
		case <-r.ready:
		default:
			continue
		}
		if r.f == nil {
			continue
		}
		over := false
		r.f.View(func(run *follow.Run) { over = run.Store.Run().Outcome != "" })
		if over {
			ended = append(ended, r)
		}
	}
	fs.mu.Unlock()
	if len(ended) == 0 {
		return
	}
	t := time.NewTimer(limit)
	defer t.Stop()
	for _, r := range ended {
		select {
		case <-r.settled:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// release drops one user of r; the last one leaves it followed for Idle.
func (fs *Followers) release(id string, r *followed) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	r.refs--
	if r.refs > 0 {
		return
	}
	if r.err != nil || r.f == nil {
		if fs.runs[id] == r {
			delete(fs.runs, id)
		}
		return
	}
	idle := fs.Idle
	if idle <= 0 {
		idle = 2 * time.Minute
	}
	r.since = time.Now()
	r.idle = time.AfterFunc(idle, func() {
		fs.mu.Lock()
		if r.refs > 0 || fs.runs[id] != r {
			fs.mu.Unlock()
			return
		}
		delete(fs.runs, id)
		fs.mu.Unlock()
		r.f.Stop()
	})
}

// Stop ends every follower and waits for them (their archiving done).
func (fs *Followers) Stop() {
	if fs.cancel == nil {
		return
	}
	fs.cancel()
	fs.mu.Lock()
	rs := make([]*followed, 0, len(fs.runs))
	for _, r := range fs.runs {
		if r.idle != nil {
			r.idle.Stop()
		}
		rs = append(rs, r)
	}
	fs.mu.Unlock()
	for _, r := range rs {
		<-r.ready
		if r.f != nil {
			r.f.Stop()
		}
	}
	fs.wg.Wait()
}
