package poller

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/sim"
)

// simBase is the fixed occurredAt base of every simulated run, so that two
// servers with the same seed serve the same bytes.
var simBase = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// startSim starts the simulator in-process on loopback. Unless the test
// says otherwise the rate limit is off: most tests make many requests.
func startSim(t *testing.T, o sim.Options) *sim.Server {
	t.Helper()
	if o.RateLimit == 0 {
		o.RateLimit = -1
	}
	if o.Speed == 0 {
		o.Speed = 500
	}
	if o.Now == nil {
		o.Now = func() time.Time { return simBase }
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := sim.Start(ctx, o)
	if err != nil {
		cancel()
		t.Fatalf("sim.Start: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		srv.Close()
	})
	return srv
}

// newClient returns a client for srv with its key; cfg fields that are set
// are kept.
func newClient(t *testing.T, srv *sim.Server, cfg Config) *Client {
	t.Helper()
	if cfg.BaseURL == "" {
		cfg.BaseURL = srv.URL
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func withKey(srv *sim.Server) Config { return Config{BaseURL: srv.URL, APIKey: srv.Key} }

// fast makes a watcher's timing suitable for a sim at high speed: short
// interval, short backoff, no token usage unless asked.
func fast(w *Watcher) *Watcher {
	w.minInterval = time.Millisecond
	w.backoffBase = 2 * time.Millisecond
	w.backoffCap = 20 * time.Millisecond
	if w.o.Interval == 0 {
		w.o.Interval = 5 * time.Millisecond
	}
	if w.o.TokenEvery == 0 {
		w.o.TokenEvery = -1
	}
	return w
}

// collector merges every Update.Poll into a store and keeps the updates.
type collector struct {
	mu      sync.Mutex
	store   *model.Store
	updates []Update
	notify  chan struct{}
}

func newCollector() *collector {
	return &collector{store: model.NewStore(), notify: make(chan struct{}, 1)}
}

func (c *collector) sink(u Update) {
	c.mu.Lock()
	if u.Poll != nil {
		c.store.Merge(u.Poll)
	}
	c.updates = append(c.updates, u)
	c.mu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

func (c *collector) snapshot() []Update {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.updates)
}

// waitFor blocks until cond holds on the updates so far, or fails the test
// after a deadline.
func (c *collector) waitFor(t *testing.T, what string, cond func([]Update) bool) []Update {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		if us := c.snapshot(); cond(us) {
			return us
		}
		select {
		case <-c.notify:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (c *collector) summary() model.Summary {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.store.Summary()
}

func (c *collector) errs() []*Error {
	var out []*Error
	for _, u := range c.snapshot() {
		if e, ok := u.Err.(*Error); ok {
			out = append(out, e)
		}
	}
	return out
}

// run starts w.Run on its own goroutine; the returned function waits for
// it and returns its error.
func run(ctx context.Context, w *Watcher, sink func(Update)) func(t *testing.T) error {
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, sink) }()
	return func(t *testing.T) error {
		t.Helper()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			t.Fatal("Run did not return")
			return nil
		}
	}
}

// watchAll follows job to its end with fast timing and returns the
// collector; Run must return nil.
func watchAll(t *testing.T, c *Client, job string, o WatchOptions) *collector {
	t.Helper()
	col := newCollector()
	w := fast(c.Watch(job, o))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := w.Run(ctx, col.sink); err != nil {
		t.Fatalf("Run: %v", err)
	}
	us := col.snapshot()
	if len(us) == 0 || !us[len(us)-1].Done {
		t.Fatalf("the last update is not Done")
	}
	return col
}

// scriptSummary is the summary of everything the sim will serve for job:
// the ground truth a watch must reach.
func scriptSummary(t *testing.T, srv *sim.Server, job string) model.Summary {
	t.Helper()
	evs, credits := srv.Script(job)
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"success":true,"id":%q,"creditsUsed":%d,"events":[`, job, credits)
	for i, e := range evs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e.JSON)
	}
	b.WriteString("]}")
	st := model.NewStore()
	if _, err := st.Ingest(b.Bytes()); err != nil {
		t.Fatalf("ingesting the script: %v", err)
	}
	return st.Summary()
}

func summaryJSON(t *testing.T, s model.Summary) string {
	t.Helper()
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameSummary fails the test with the first differing line.
func sameSummary(t *testing.T, what string, got, want model.Summary) {
	t.Helper()
	g, w := summaryJSON(t, got), summaryJSON(t, want)
	if g == w {
		return
	}
	gl, wl := strings.Split(g, "\n"), strings.Split(w, "\n")
	for i := 0; i < min(len(gl), len(wl)); i++ {
		if gl[i] != wl[i] {
			t.Fatalf("%s: summaries differ at line %d:\n got: %s\nwant: %s", what, i+1, gl[i], wl[i])
		}
	}
	t.Fatalf("%s: summaries differ in length: %d vs %d lines", what, len(gl), len(wl))
}

// fakeClock is a clock the test moves by hand. The loop registers timers
// with After; the test waits until one is pending and fires it.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	timers  []*fakeTimer
	pending chan struct{}
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC), pending: make(chan struct{}, 1)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) (<-chan time.Time, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), ch: make(chan time.Time, 1)}
	c.timers = append(c.timers, t)
	select {
	case c.pending <- struct{}{}:
	default:
	}
	return t.ch, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.timers = slices.DeleteFunc(c.timers, func(x *fakeTimer) bool { return x == t })
	}
}

// next waits until a timer is pending and returns how far ahead it is.
func (c *fakeClock) next(t *testing.T) time.Duration {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		if len(c.timers) > 0 {
			first := slices.MinFunc(c.timers, func(a, b *fakeTimer) int { return a.at.Compare(b.at) })
			d := first.at.Sub(c.now)
			c.mu.Unlock()
			return d
		}
		c.mu.Unlock()
		select {
		case <-c.pending:
		case <-deadline.C:
			t.Fatal("no timer became pending")
		}
	}
}

// fire moves the clock to the earliest pending timer and fires it; it
// returns the delay it covered.
func (c *fakeClock) fire(t *testing.T) time.Duration {
	t.Helper()
	d := c.next(t)
	c.mu.Lock()
	defer c.mu.Unlock()
	first := slices.MinFunc(c.timers, func(a, b *fakeTimer) int { return a.at.Compare(b.at) })
	if first.at.After(c.now) {
		c.now = first.at
	}
	c.timers = slices.DeleteFunc(c.timers, func(x *fakeTimer) bool { return x == first })
	first.ch <- c.now
	return d
}

// step fires the next timer, or reports that the watch is done (the last
// update has Done set and no timer will come).
func (c *fakeClock) step(t *testing.T, col *collector) (time.Duration, bool) {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		if us := col.snapshot(); len(us) > 0 && us[len(us)-1].Done {
			return 0, true
		}
		c.mu.Lock()
		pending := len(c.timers) > 0
		c.mu.Unlock()
		if pending {
			return c.fire(t), false
		}
		select {
		case <-c.pending:
		case <-col.notify:
		case <-deadline.C:
			t.Fatal("neither a timer nor the end")
		}
	}
}

// scripted serves GET .../trace from a fixed list of bodies, one per
// request (the last one repeats), and 404 on token usage.
//
// It exists because the loop's timing rules (slow-down, tail window, its
// cap) need polls that bring exactly the given events in a given order;
// the simulator paces runs by the real clock, so which poll sees which
// event is not deterministic there. Everything else is tested on the sim.
type scripted struct {
	mu     sync.Mutex
	bodies []string
	n      int // trace requests
	tokens int // token-usage requests
	url    string
}

func newScripted(t *testing.T, bodies ...string) *scripted {
	s := &scripted{bodies: bodies}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/team/token-usage") {
			s.mu.Lock()
			s.tokens++
			s.mu.Unlock()
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"success":false,"error":"Could not find token usage information"}`)
			return
		}
		s.mu.Lock()
		body := s.bodies[min(s.n, len(s.bodies)-1)]
		s.n++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(hs.Close)
	s.url = hs.URL
	return s
}

func (s *scripted) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

const stubJob = "0190f3a4-5b6c-7d8e-9f00-112233445566"

// ev renders one event for scripted bodies.
func ev(id string, seq int, typ, extra string) string {
	return fmt.Sprintf(`{"schemaVersion":1,"eventId":"%s","runId":"%s","occurredAt":"2026-03-14T09:00:%02d.000Z","producerSequence":%d,"agent":{"id":"0190f3a4-0000-7000-8000-000000000001","role":"orchestrator","name":"orchestrator"},"type":"%s"%s}`,
		id, stubJob, seq%60, seq, typ, extra)
}

func traceBody(events ...string) string {
	return fmt.Sprintf(`{"success":true,"id":"%s","events":[%s],"creditsUsed":3}`, stubJob, strings.Join(events, ","))
}

func mustDecode(t *testing.T, body []byte) *model.Poll {
	t.Helper()
	p, err := model.DecodeTrace(body)
	if err != nil {
		t.Fatalf("decoding: %v", err)
	}
	return p
}

// newHeaderRecorder starts a server that sends each request's headers to
// got and answers 404; the sim does not expose request headers.
func newHeaderRecorder(t *testing.T, got chan<- http.Header) string {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.Header.Clone():
		default:
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// front serves the sim behind h, which may answer a request itself
// (returning true) as a broken or hostile server, proxy or load balancer
// would: the things the sim, faithful to the real service, never does
// (endless error pages, redirects, odd Retry-After values...). Every
// request h leaves alone goes to the sim.
func front(t *testing.T, srv *sim.Server, h func(w http.ResponseWriter, r *http.Request) bool) string {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h(w, r) {
			srv.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// simAnswer is the sim's answer to r, in memory, for a front to change.
func simAnswer(srv *sim.Server, r *http.Request) (int, http.Header, []byte) {
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, r)
	return rec.Code, rec.Header(), rec.Body.Bytes()
}

// countingTransport measures, on the client side, how many trace requests
// are in flight at once: from the start of RoundTrip to the body's Close.
type countingTransport struct {
	next     http.RoundTripper
	mu       sync.Mutex
	inFlight int
	max      int
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	trace := strings.HasSuffix(req.URL.Path, "/trace")
	if trace {
		c.mu.Lock()
		c.inFlight++
		c.max = max(c.max, c.inFlight)
		c.mu.Unlock()
	}
	resp, err := c.next.RoundTrip(req)
	if !trace {
		return resp, err
	}
	if err != nil {
		c.done()
		return resp, err
	}
	resp.Body = &countedBody{ReadCloser: resp.Body, c: c}
	return resp, nil
}

func (c *countingTransport) done() {
	c.mu.Lock()
	c.inFlight--
	c.mu.Unlock()
}

func (c *countingTransport) maxInFlight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.max
}

type countedBody struct {
	io.ReadCloser
	c    *countingTransport
	once sync.Once
}

func (b *countedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.c.done)
	return err
}

func countingClient() (*http.Client, *countingTransport) {
	ct := &countingTransport{next: http.DefaultTransport.(*http.Transport).Clone()}
	return &http.Client{Transport: ct}, ct
}
