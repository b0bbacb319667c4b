package hubsvc

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestCoalesced: callers at once share one request's answer, which is kept
// for them all until it is ttl old (an error too); a waiter whose context
// ends stops waiting, and the request goes on for the others.
func TestCoalesced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c coalesced[int]
		var asked atomic.Int32
		release := make(chan struct{})
		fetch := func(ctx context.Context) (int, error) {
			n := asked.Add(1)
			select {
			case <-release:
			case <-ctx.Done():
				return 0, ctx.Err()
			}
			if n == 2 {
				return 0, errors.New("the service failed")
			}
			return int(n), nil
		}
		const ttl = time.Second
		var wg sync.WaitGroup
		got := make([]int, 5)
		for i := range got {
			wg.Go(func() {
				v, err := c.get(context.Background(), ttl, fetch)
				if err != nil {
					t.Error(err)
				}
				got[i] = v
			})
		}
		synctest.Wait() // the request under way
		// One more that gives up waiting.
		ctx, cancel := context.WithCancel(context.Background())
		gaveUp := make(chan error, 1)
		go func() { _, err := c.get(ctx, ttl, fetch); gaveUp <- err }()
		synctest.Wait()
		cancel()
		if err := <-gaveUp; !errors.Is(err, context.Canceled) {
			t.Errorf("a waiter whose context ended: %v", err)
		}
		close(release)
		wg.Wait()
		for i, v := range got {
			if v != 1 {
				t.Errorf("caller %d got %d, not the one request's answer", i, v)
			}
		}
		if n := asked.Load(); n != 1 {
			t.Fatalf("%d requests for callers at once", n)
		}
		time.Sleep(ttl - time.Millisecond)
		if v, err := c.get(context.Background(), ttl, fetch); v != 1 || err != nil || asked.Load() != 1 {
			t.Errorf("within the ttl: %d %v after %d requests", v, err, asked.Load())
		}
		time.Sleep(time.Millisecond)
		if _, err := c.get(context.Background(), ttl, fetch); err == nil || asked.Load() != 2 {
			t.Errorf("past the ttl: %v after %d requests", err, asked.Load())
		}
		if _, err := c.get(context.Background(), ttl, fetch); err == nil || asked.Load() != 2 {
			t.Errorf("the error kept for the ttl: %v after %d requests", err, asked.Load())
		}
	})
}
