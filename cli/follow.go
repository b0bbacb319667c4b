package cli

import (
	"context"

	"github.com/firewatch/firewatch/poller"
)

// follow is the one update loop of a watch, shared by the UI and the
// printers: the source (a live Watcher or a replay) runs on its own
// goroutine and hands each update to the returned channel, which the
// consumer reads (and merges into w.Store) on its own goroutine. The channel
// is closed once the source has ended and every update it sent is in it;
// wait then returns how the source ended. The consumer must read the
// channel to its end.
//
// With errAsUpdate, a source that ends with an error (a refusal) while ctx
// is still live also sends it as a last update, so that the UI shows it.
// The memory the watch may take follows what the store holds
// (memlimit.go).
func (w *watchSession) follow(ctx context.Context, buf int, errAsUpdate bool) (updates <-chan poller.Update, wait func() error) {
	ch := make(chan poller.Update, buf)
	done := make(chan error, 1)
	src := w.Source
	if w.hub == nil {
		// The process's limit: a hub's sessions share the process.
		src = newMemoryBudget(w.InputBytes).wrap(src)
	}
	go func() {
		err := src(ctx, func(u poller.Update) { ch <- u })
		if err != nil && errAsUpdate && ctx.Err() == nil {
			ch <- poller.Update{Err: err, Done: true, Health: poller.Health{Done: true}}
		}
		close(ch)
		done <- err
	}()
	return ch, func() error { return <-done }
}
