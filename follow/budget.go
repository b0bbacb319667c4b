package follow

import (
	"os"
	"runtime/debug"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// Budget sets the soft memory limit from the JSON the store has taken
// in, so the collector runs sooner than its default (heap = 2× live) would:
// 2.8× the JSON + 8 MiB for a file replayed in place (events are slices of
// it), 5× + 16 MiB otherwise (the body buffer holds the JSON once more);
// never under 64 MiB, and never when the user set GOMEMLIMIT.
type Budget struct {
	json, set int64
	inPlace   bool
	off       bool
}

// NewBudget starts a budget for a store about to take in known
// bytes of JSON from a file replayed in place (0: a live watch or a
// stream, whose size is not known yet).
func NewBudget(known int64) *Budget {
	b := &Budget{off: os.Getenv("GOMEMLIMIT") != "", inPlace: known > 0}
	b.raise(known)
	return b
}

// raise sets the limit for json bytes once it has grown by a tenth.
func (b *Budget) raise(json int64) {
	if l := limitFor(json, b.inPlace); !b.off && l > b.set+b.set/10 {
		debug.SetMemoryLimit(l)
		b.set = l
	}
}

// limitFor is the soft memory limit for a store holding json bytes of
// events, read in place or not.
func limitFor(json int64, inPlace bool) int64 {
	if inPlace {
		return max(64<<20, json*28/10+8<<20)
	}
	return max(64<<20, json*5+16<<20)
}

// take counts the JSON of a poll's new events and raises the limit once
// it has grown by a tenth.
func (b *Budget) take(p *model.Poll) {
	if b.off || p == nil {
		return
	}
	for _, e := range p.Events {
		b.json += int64(len(e.Raw))
	}
	b.raise(b.json)
}

// Tap returns src with every update's poll counted before it goes on.
func (b *Budget) Tap(src Source) Source {
	return Tap(src, func(u poller.Update) { b.take(u.Poll) })
}
