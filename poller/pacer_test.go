package poller

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

type countingPacer struct {
	mu      sync.Mutex
	waits   int
	limited []time.Duration
}

func (p *countingPacer) Wait(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waits++
	return ctx.Err()
}

func (p *countingPacer) RateLimited(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.limited = append(p.limited, d)
}

// TestPacerAskedForEachTry: a paced client asks its pacer before every
// request it sends, each retry's included, and tells it of each 429 with
// the delay asked for; the client it was made from is not paced.
func TestPacerAskedForEachTry(t *testing.T) {
	var mu sync.Mutex
	n := 0
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"success":false,"error":"Rate limit exceeded"}`))
			return
		}
		w.Write([]byte(`{"success":true,"status":"completed"}`))
	}))
	defer hs.Close()
	r := Retry{Sleep: func(context.Context, time.Duration) bool { return true }}
	c, err := New(Config{BaseURL: hs.URL, APIKey: "fc-test", Retry: &r})
	if err != nil {
		t.Fatal(err)
	}
	p := &countingPacer{}
	paced := c.WithPacer(p)
	id := "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
	if _, err := paced.Status(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if p.waits != 2 || len(p.limited) != 1 || p.limited[0] != 7*time.Second {
		t.Fatalf("pacer asked %d times, told of 429s %v; want 2 and [7s]", p.waits, p.limited)
	}
	if _, err := c.Status(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if p.waits != 2 {
		t.Fatalf("the unpaced client asked the pacer: %d", p.waits)
	}
}
