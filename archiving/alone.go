package archiving

import (
	"cmp"
	"sync"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/text"
)

// maxAlone bounds what a Shared keeps in memory of the polls it made on
// its own (the same bound as a failing archive's queue, maxPending).
const maxAlone = maxPending

// aloneLog keeps the polls a Shared makes on its own, while it cannot
// store them under the run's lease (the archive unreachable or locked,
// or the key's sight of the run not yet confirmed): their recording
// lines, as the Sink would have queued them, up to maxAlone bytes. The
// Shared writes them under the lease when it next holds it, before it
// polls again: each poll is a delta of the run's one decoder, so the
// archive lacks every event they brought until they are written.
// Past the bound they are all left out (over) and the whole trace is
// stored instead.
type aloneLog struct {
	mu      sync.Mutex
	polls   []archive.Poll
	size    int
	over    bool      // the bound was hit: polls were left out
	started time.Time // the watch's start (its recording's header)
	logf    func(format string, args ...any)
	bound   int // bytes kept at most (0: maxAlone)
}

// add keeps one poll made alone (pollParts' add).
func (a *aloneLog) add(p archive.Poll) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.keep(p)
}

// unkept is a poll made alone that could not be kept (pollParts' fail).
func (a *aloneLog) unkept(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.leaveOut("a poll made alone could not be kept (" + err.Error() + ")")
}

// keep adds p, or leaves everything out past the bound; a.mu is held.
func (a *aloneLog) keep(p archive.Poll) {
	if a.over {
		return
	}
	a.polls = append(a.polls, p)
	a.size += pollSize(p)
	if bound := cmp.Or(a.bound, maxAlone); a.size > bound {
		a.leaveOut("the polls made alone came to more than the " + text.Size(bound) + " kept in memory")
	}
}

// leaveOut leaves out every poll kept, saying why in the debug log: the
// whole trace stands for them once the lease is held; a.mu is held.
func (a *aloneLog) leaveOut(why string) {
	if a.logf != nil {
		a.logf("lease: %s: they are left out, and the whole trace is stored instead once the lease is held", why)
	}
	clear(a.polls)
	a.polls, a.size, a.over = nil, 0, true
}

// kept is what is kept now, the watch's start, and whether
// polls were left out over the bound.
func (a *aloneLog) kept() (polls []archive.Poll, started time.Time, over bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.polls[:len(a.polls):len(a.polls)], a.started, a.over
}

// written drops the first n polls kept: stored.
func (a *aloneLog) written(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.polls[:n] {
		a.size -= pollSize(p)
	}
	clear(a.polls[:n])
	a.polls = a.polls[n:]
}

// reset forgets everything kept: the archive holds the run otherwise (the
// whole trace was stored, or the run is over, marked complete by its
// holder).
func (a *aloneLog) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.polls)
	a.polls, a.size, a.over = nil, 0, false
}

// pending reports whether polls made alone are not in the archive yet.
func (a *aloneLog) pending() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.polls) > 0 || a.over
}
