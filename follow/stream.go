package follow

import (
	"context"

	"github.com/firewatch/firewatch/internal/panics"
	"github.com/firewatch/firewatch/poller"
)

// Stream is the one update loop of a watch with one consumer (the terminal
// UI or a printer): the source runs on its own goroutine and hands each
// update to the returned channel, which the consumer reads (and merges into
// its store) on its own goroutine. The channel is closed once the source
// has ended and every update it sent is in it; wait then returns how the
// source ended. The consumer must read the channel to its end.
//
// With errAsUpdate, a source that ends with an error (a refusal) while ctx
// is still live also sends it as a last update, so that the UI shows it.
//
// A panic of the source, under a context with a panics.Handler (a hub's
// session), ends the source with a *panics.Error: the channel is closed
// and the consumer ends as for any error.
func Stream(ctx context.Context, src Source, buf int, errAsUpdate bool) (updates <-chan poller.Update, wait func() error) {
	ch := make(chan poller.Update, buf)
	done := make(chan error, 1)
	go func() {
		var err error
		if p := panics.Catch(ctx, func() {
			panics.Hook(ctx, "stream")
			err = src.Follow(ctx, func(u poller.Update) { ch <- u })
		}); p != nil {
			err = p
		}
		if err != nil && errAsUpdate && ctx.Err() == nil {
			ch <- poller.Update{Err: err, Done: true, Health: poller.Health{Done: true}}
		}
		close(ch)
		done <- err
	}()
	return ch, func() error { return <-done }
}
