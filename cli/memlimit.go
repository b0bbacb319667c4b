package cli

import (
	"context"
	"os"
	"runtime/debug"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// memoryBudget keeps a full-screen watch's memory near what it must hold.
// The store keeps every event (its JSON and what is derived from it:
// about 2.5× the trace's JSON with the UI's state), and that data lives as
// long as the screen does; with the garbage collector's default pacing the
// heap may grow to twice what is live before a collection, so a
// 100 000-event run (59 MB of JSON) peaked at 5× its JSON. So the soft
// memory limit follows the JSON the store has taken in: 2.8× it plus
// 8 MiB, never under 64 MiB, raised as the run grows. Below the limit
// the collector paces as usual; near it, it collects sooner. A limit the
// user set (GOMEMLIMIT) is left alone.
type memoryBudget struct {
	json, set int64
	off       bool
}

// newMemoryBudget starts a budget for a store about to take in known
// bytes of JSON (a replayed file's size; 0: not known yet).
func newMemoryBudget(known int64) *memoryBudget {
	b := &memoryBudget{off: os.Getenv("GOMEMLIMIT") != ""}
	b.raise(known)
	return b
}

// raise sets the limit for json bytes once it has grown by a tenth.
func (b *memoryBudget) raise(json int64) {
	if l := limitFor(json); !b.off && l > b.set+b.set/10 {
		debug.SetMemoryLimit(l)
		b.set = l
	}
}

// limitFor is the soft memory limit for a store holding json bytes of
// events.
func limitFor(json int64) int64 { return max(64<<20, json*28/10+8<<20) }

// take counts the JSON of a poll's new events and raises the limit once
// it has grown by a tenth.
func (b *memoryBudget) take(p *model.Poll) {
	if b.off || p == nil {
		return
	}
	for _, e := range p.Events {
		b.json += int64(len(e.Raw))
	}
	b.raise(b.json)
}

// wrap returns src with every update's poll counted before it goes on.
func (b *memoryBudget) wrap(src source) source {
	return func(ctx context.Context, sink func(poller.Update)) error {
		return src(ctx, func(u poller.Update) {
			b.take(u.Poll)
			sink(u)
		})
	}
}
