package cli

import (
	"context"
	"os"
	"runtime/debug"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// memoryBudget keeps a watch's memory near what it must hold, in every
// output mode. The store keeps every event (its JSON and what is derived
// from it: about 2.3× the trace's JSON, 2.5× with the UI's state), and that
// data lives as long as the watch does; with the garbage collector's
// default pacing the heap may grow to twice what is live before a
// collection: a 100 000-event replay (59 MB of JSON) peaked at 5× its
// JSON in the UI, and an hour's live watch of a growing trace at 8×. So
// the soft memory limit follows the JSON the store has taken in, raised
// as the run grows:
//   - a file replayed in place (the events are slices of the file read
//     whole): 2.8× the JSON plus 8 MiB;
//   - a live watch, or a replay read from a stream: 5× the JSON plus
//     16 MiB, because the poller's body buffer (1.25× the last body) or
//     the reader's holds the JSON once more, and what is live while a
//     poll is merged comes to about 4× (a 100 000-event run watched live
//     in the UI: 211 MB live at 51 MB of JSON; at 4× the collector ran
//     ten times a second);
//
// never under 64 MiB. Below the limit the collector paces as usual; near
// it, it collects sooner. A limit the user set (GOMEMLIMIT) is left alone.
type memoryBudget struct {
	json, set int64
	inPlace   bool
	off       bool
}

// newMemoryBudget starts a budget for a store about to take in known
// bytes of JSON from a file replayed in place (0: a live watch or a
// stream, whose size is not known yet).
func newMemoryBudget(known int64) *memoryBudget {
	b := &memoryBudget{off: os.Getenv("GOMEMLIMIT") != "", inPlace: known > 0}
	b.raise(known)
	return b
}

// raise sets the limit for json bytes once it has grown by a tenth.
func (b *memoryBudget) raise(json int64) {
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
