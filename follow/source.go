// Package follow follows one run, with no command, flag or screen in it:
//
//   - where its updates come from: a Source (Poll: the service's polls
//     through a poller.Watcher; Replay: a recording; archiving.Archived:
//     the archive's polls; archiving.Shared: a live run polled once, by the
//     holder of its lease, for every firewatch sharing the archive), and
//     Tap, which sees each update on the source's goroutine (the memory
//     budget, the archive's snapshot keeper, the OTLP export);
//   - the loop that hands updates to whoever merges them: Stream, source →
//     channel → one consumer (the UI or a printer); Follower (follower.go),
//     one run followed once for any number of readers (the hub's and the
//     MCP server's): it merges into the run's one store on its own
//     goroutine, its subscribers (Subscribe, Next, Leave) read the run under
//     its read lock (View), a late or slow one given the whole run as one
//     change, and Acted says who changed the run;
//   - what is known of the run as it goes (Run: the store, the request,
//     the tokens, the attention tracker fed by Attend after each merge and
//     tick, which tells Saw, the notifications' hook; Summary, the
//     --summary object and what the archive keeps);
//   - the memory budget of a process that holds runs (budget.go).
//
// It imports poller, model, attention and internal/panics (a panic on
// its goroutines kept to the hub session it works for).
package follow

import (
	"context"
	"io"

	"github.com/firewatch/firewatch/poller"
)

// Source is where one run's updates come from: the service's polls
// (Poll), a recording or an archived run (Replay), or the polls of
// whichever process holds the run's lease, read from the archive
// (archiving.Shared).
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
