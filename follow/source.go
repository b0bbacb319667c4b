// Package follow follows one run: where its updates come from (a Source:
// the service's polls, a recording, the archive), the loop that hands them
// to whoever merges them (Stream, for one consumer; a Follower, for any
// number of readers of one store), what is known of the run as it goes
// (Run: the store, the attention tracker, the summary) and the memory
// budget of a process that holds it. It knows nothing of commands, flags
// or screens.
package follow

import (
	"context"
	"io"

	"github.com/firewatch/firewatch/poller"
)

// Source is where one run's updates come from: the service's polls
// (Poll), a recording or an archived run (Replay), or, later, another
// process's polls read from the archive.
type Source interface {
	// Follow calls sink from one goroutine, in order, and returns nil when
	// the run has finished and nothing more will come, ctx's error when
	// ctx ends first, or the error that stopped it (a *poller.Error for a
	// refusal).
	Follow(ctx context.Context, sink func(poller.Update)) error
}

// SourceFunc is a function as a Source.
type SourceFunc func(ctx context.Context, sink func(poller.Update)) error

// Follow calls f.
func (f SourceFunc) Follow(ctx context.Context, sink func(poller.Update)) error { return f(ctx, sink) }

// Tap returns src with see called on every update before it goes on, on
// the source's goroutine (a memory budget, the archive's snapshot keeper,
// an export).
func Tap(src Source, see func(poller.Update)) Source {
	return SourceFunc(func(ctx context.Context, sink func(poller.Update)) error {
		return src.Follow(ctx, func(u poller.Update) {
			see(u)
			sink(u)
		})
	})
}

// Poll is the service's polls of a run: the watcher's loop.
func Poll(w *poller.Watcher) Source { return SourceFunc(w.Run) }

// Replay is a recording played back (poller.Replay): at its recorded
// pace times o.Speed, or at once (o.Instant).
func Replay(in io.Reader, o poller.ReplayOptions) Source {
	return SourceFunc(func(ctx context.Context, sink func(poller.Update)) error {
		return poller.Replay(ctx, in, o, sink)
	})
}
