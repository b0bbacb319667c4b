package mcpserver

import (
	"sync"
	"time"

	"github.com/firewatch/firewatch/follow"
)

// HeldRuns keeps a hub's follower of a run a while after a call ends
// (as Followers does locally), so that the pages of get_events
// read one store and the hub does not start and stop a follower for each
// call; at most MaxFollowed runs are held idle.
type HeldRuns struct {
	open func(id string) (*follow.Follower, func())
	mu   sync.Mutex
	runs map[string]*heldRun
}

type heldRun struct {
	f       *follow.Follower
	release func()
	refs    int
	idle    *time.Timer
}

// NewHeldRuns holds the followers open makes (the hub's one per run,
// released with the func it returns).
func NewHeldRuns(open func(id string) (*follow.Follower, func())) *HeldRuns {
	return &HeldRuns{open: open, runs: map[string]*heldRun{}}
}

const heldIdle = 2 * time.Minute

// Open is the run's follower, held until its release and heldIdle after.
func (h *HeldRuns) Open(id string) (*follow.Follower, func()) {
	h.mu.Lock()
	r := h.runs[id]
	if r == nil {
		if len(h.runs) >= MaxFollowed {
			h.dropIdle()
		}
		f, release := h.open(id)
		r = &heldRun{f: f, release: release}
		h.runs[id] = r
	}
	r.refs++
	if r.idle != nil {
		r.idle.Stop()
		r.idle = nil
	}
	h.mu.Unlock()
	var once sync.Once
	return r.f, func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			r.refs--
			if r.refs == 0 {
				r.idle = time.AfterFunc(heldIdle, func() {
					h.mu.Lock()
					defer h.mu.Unlock()
					if r.refs == 0 && h.runs[id] == r {
						delete(h.runs, id)
						r.release()
					}
				})
			}
		})
	}
}

// dropIdle lets go of every run nobody is reading; h.mu is held.
func (h *HeldRuns) dropIdle() {
	for id, r := range h.runs {
		if r.refs == 0 {
			r.idle.Stop()
			delete(h.runs, id)
			r.release()
		}
	}
}

// Close lets go of every run nobody is reading.
func (h *HeldRuns) Close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropIdle()
}
