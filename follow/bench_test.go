package follow

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/follow/followtest"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// BenchmarkFollowerReaders is the memory one more reader of a run costs:
// a 10 000-event run of the simulator (5.9 MB of JSON, in 100 polls) read
// by 1, 10 and 50 readers at once, each taking every change.
//
//	go test -run '^$' -bench FollowerReaders -benchtime 1x ./follow
//
// shared is the Follower: one store, read under its lock, whatever the
// number of readers. own-store is what each reader merging the run into a
// store of its own would cost (the terminal UI's way today, for one
// watch): an event belongs to one store, so each store copies every event,
// and keeps its own indexes and tracker. B/extra-reader is the heap each
// reader past the first adds, with everyone still holding on.
func BenchmarkFollowerReaders(b *testing.B) {
	bodies := followtest.Bodies(b, 10_000, 100)
	for _, mode := range []string{"shared", "own-store"} {
		for _, n := range []int{1, 10, 50} {
			if mode == "own-store" && n == 50 {
				continue // 300 MB, and the figure is the same at 10
			}
			b.Run(fmt.Sprintf("%s/readers=%d", mode, n), func(b *testing.B) {
				var one, all uint64
				for b.Loop() {
					one = readersHeap(b, followtest.Polls(b, bodies), 1, mode == "shared")
					all = readersHeap(b, followtest.Polls(b, bodies), n, mode == "shared")
				}
				b.ReportMetric(float64(one), "B/run")
				if n > 1 {
					b.ReportMetric((float64(all)-float64(one))/float64(n-1), "B/extra-reader")
				}
			})
		}
	}
}

// readersHeap is the heap in use once n readers have read the whole run,
// with the run, the follower and the readers still held.
func readersHeap(b *testing.B, polls []*model.Poll, n int, shared bool) uint64 {
	base := followtest.HeapInUse()
	src := SourceFunc(func(ctx context.Context, sink func(poller.Update)) error {
		for i, p := range polls {
			sink(poller.Update{Poll: p, Health: poller.Health{Polls: i + 1}})
		}
		return nil
	})
	run := NewRun()
	f := NewFollower(src, &run)
	subs := make([]*Subscription, n)
	own := make([]*Run, n)
	var wg sync.WaitGroup
	for i := range subs {
		subs[i] = f.Subscribe()
		wg.Go(func() {
			if !shared {
				r := NewRun()
				own[i] = &r
			}
			for {
				c, ok := subs[i].Next(context.Background())
				if !ok {
					return
				}
				if shared {
					f.View(func(r *Run) { _ = r.Store.Run().State })
					continue
				}
				// What a store of its own takes: the events merged
				// again (each copied, being the follower's), its
				// tracker fed.
				d := own[i].Store.Merge(&model.Poll{Events: c.Delta.Events})
				if own[i].Attention == nil {
					own[i].Attention = attention.New(own[i].Store, attention.Options{})
				}
				own[i].Attention.Update(d, time.Now())
			}
		})
	}
	f.Start(context.Background())
	wg.Wait()
	if err := f.Err(); err != nil {
		b.Fatal(err)
	}
	h := followtest.HeapInUse() - base
	runtime.KeepAlive(subs)
	runtime.KeepAlive(own)
	runtime.KeepAlive(f)
	return h
}
