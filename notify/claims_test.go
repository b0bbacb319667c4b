package notify

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClaims is an archive's claims shared by the notifiers of a test, each
// its own holder (as.holder).
type fakeClaims struct {
	mu   sync.Mutex
	rows map[string]*fakeClaim
	err  error
}

type fakeClaim struct {
	holder  string
	expires time.Time
	sent    bool
	failed  bool
}

func newFakeClaims() *fakeClaims { return &fakeClaims{rows: map[string]*fakeClaim{}} }

// as is the claimer of holder.
func (f *fakeClaims) as(holder string) Claimer { return &fakeHolder{f: f, holder: holder} }

type fakeHolder struct {
	f      *fakeClaims
	holder string
}

func (h *fakeHolder) Claim(_ context.Context, job, moment, sink string, ttl time.Duration) (Claimed, error) {
	f := h.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return Claimed{}, f.err
	}
	k := job + "|" + moment + "|" + sink
	r := f.rows[k]
	switch {
	case r == nil:
		f.rows[k] = &fakeClaim{holder: h.holder, expires: time.Now().Add(ttl)}
		return Claimed{Got: true}, nil
	case r.sent:
		return Claimed{Sent: true}, nil
	case r.holder == h.holder || time.Now().After(r.expires):
		r.holder, r.expires = h.holder, time.Now().Add(ttl)
		return Claimed{Got: true}, nil
	}
	return Claimed{Left: time.Until(r.expires), By: r.holder}, nil
}

func (h *fakeHolder) Sent(_ context.Context, job, moment, sink string, failed bool) error {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	r := h.f.rows[job+"|"+moment+"|"+sink]
	r.sent, r.failed = true, failed
	return nil
}

func (h *fakeHolder) Release(_ context.Context, job, moment, sink string) error {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	r := h.f.rows[job+"|"+moment+"|"+sink]
	if r.holder == h.holder && !r.sent {
		r.holder, r.expires = "", time.Now()
	}
	return nil
}

func crawlEnd(id string) CrawlEnd {
	return CrawlEnd{ID: id, URL: "https://example.com", Status: "completed", Pages: 3}
}

// TestClaimedOnceForTheTeam: two processes' notifiers sharing the
// archive's claims send a moment to the team's webhook once between them;
// a restarted one (a new holder) sends nothing already sent; one whose
// claim is held by a claimer that died (never sent, never renewed) is
// sent once that claim expires; the desktop terminal's are not claimed.
func TestClaimedOnceForTheTeam(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	fc := newFakeClaims()
	start := func(holder string) *Notifier {
		t.Helper()
		n, err := New(Config{On: DefaultOn(), URL: rc.URL, Retry: retryNoWait(), Claims: fc.as(holder), ClaimTTL: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	a, b := start("a"), start("b")
	a.CrawlEnded(crawlEnd("crawl-1"))
	b.CrawlEnded(crawlEnd("crawl-1"))
	closeNow(t, a)
	closeNow(t, b)
	if got := rc.got(); len(got) != 1 {
		t.Fatalf("two processes sent %d POSTs, want 1", len(got))
	}
	// Restarted: nothing again.
	c := start("c")
	c.CrawlEnded(crawlEnd("crawl-1"))
	closeNow(t, c)
	if got := rc.got(); len(got) != 1 {
		t.Fatalf("a restarted process sent again: %d POSTs", len(got))
	}
	// A claimer that died holding crawl-2: the survivor sends it when the
	// claim expires.
	if cl, _ := fc.as("dead").Claim(context.Background(), "crawl-2", KindCrawl+":crawl-2:"+string(EventFinished), sinkHash("url", rc.URL), 300*time.Millisecond); !cl.Got {
		t.Fatal("seed claim not got")
	}
	d := start("d")
	d.CrawlEnded(crawlEnd("crawl-2"))
	deadline := time.Now().Add(5 * time.Second)
	for len(rc.got()) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	closeNow(t, d)
	got := rc.got()
	if len(got) != 2 || !strings.Contains(decode(t, got[1]).ID, "crawl-2") {
		t.Fatalf("the dead claimer's moment: %d POSTs, want 2", len(got))
	}
}

// TestClaimsUnreachable: an archive that cannot answer leaves the moment
// to the process alone: it is sent, and that is said once.
func TestClaimsUnreachable(t *testing.T) {
	rc := newReceiver(t)
	fc := newFakeClaims()
	fc.err = errors.New("the shared archive cannot be reached")
	var said lines
	n, err := New(Config{On: DefaultOn(), URL: rc.URL, Retry: retryNoWait(), Claims: fc.as("a"), Say: said.add})
	if err != nil {
		t.Fatal(err)
	}
	n.CrawlEnded(crawlEnd("crawl-1"))
	n.CrawlEnded(crawlEnd("crawl-2"))
	closeNow(t, n)
	if got := rc.got(); len(got) != 2 {
		t.Fatalf("%d POSTs, want 2 (decided alone)", len(got))
	}
	if s := said.all(); len(s) != 1 || !strings.Contains(s[0], "decided by this process alone") {
		t.Fatalf("said %q", s)
	}
}
