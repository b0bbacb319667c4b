package cli

// An archive pass as a good neighbour: paced below the service's limit,
// the live work beside it never refused for it; an endpoint that fails
// for run after run asked no more in the pass.

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

// whoFront passes every request on to the simulator, counting the 429s it
// answered by who asked (the X-Test-Who header, "" for firewatch's own
// requests), and failing with 500 every request whose path has failPath
// while fail is set.
type whoFront struct {
	next     http.Handler
	failPath string

	mu       sync.Mutex
	fail     bool
	requests map[string]int
	limited  map[string]int
	failedBy map[string]bool // the runs whose failPath requests failed
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (f *whoFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	who := r.Header.Get("X-Test-Who")
	f.mu.Lock()
	f.requests[who]++
	fail := f.fail && f.failPath != "" && strings.Contains(r.URL.Path, f.failPath)
	if fail {
		f.failedBy[strings.Split(strings.TrimPrefix(r.URL.Path, "/v2/agent/"), "/")[0]] = true
	}
	f.mu.Unlock()
	if fail {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"success":false,"error":"Internal server error"}`))
		return
	}
	sw := &statusWriter{ResponseWriter: w}
	f.next.ServeHTTP(sw, r)
	if sw.status == http.StatusTooManyRequests {
		f.mu.Lock()
		f.limited[who]++
		f.mu.Unlock()
	}
}

func newWhoFront(next http.Handler, failPath string) *whoFront {
	return &whoFront{next: next, failPath: failPath, requests: map[string]int{}, limited: map[string]int{}, failedBy: map[string]bool{}}
}

type taggedTransport struct {
	next http.RoundTripper
	who  string
}

func (t taggedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Test-Who", t.who)
	return t.next.RoundTrip(r)
}

// TestArchivePassLeavesTheWatchItsShare: with the service's limit at 20
// requests in half a second, a watch polling four times a second beside a
// pass over 20 runs (41 requests) is never refused: the pass takes half
// the limit and waits its turn. Without the budget the pass spends the
// whole limit in a burst and the watch's polls meet 429s.
func TestArchivePassLeavesTheWatchItsShare(t *testing.T) {
	t.Setenv("FIREWATCH_RATE_LIMIT", "20/500ms")
	scenarios := make([]string, 20)
	for i := range scenarios {
		scenarios[i] = sim.ScenarioRefused // two requests a run: status, trace
	}
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: scenarios, Speed: 400, RateLimit: 20, RateWindow: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	waitSimFinished(t, srv)
	front := newWhoFront(srv, "")
	hs := httptest.NewServer(front)
	defer hs.Close()

	// The first command sets the process's poller.Version once, before the
	// watch's client reads it.
	run(t, context.Background(), "--help")
	c, err := poller.New(poller.Config{BaseURL: hs.URL, APIKey: srv.Key, Retry: &poller.Retry{Tries: 1},
		HTTPClient: &http.Client{Transport: taggedTransport{poller.NewTransport(1), "watch"}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			_, _ = c.Trace(ctx, srv.Jobs[0].ID, false)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	db := filepath.Join(t.TempDir(), "a.db")
	began := time.Now()
	_, errOut, code := run(t, context.Background(), "archive", "--once", "--archive", db, "--api-url", hs.URL, "--api-key", srv.Key)
	took := time.Since(began)
	cancel()
	<-watched
	if code != 0 || !strings.Contains(errOut, "20 runs seen, 20 fetched") {
		t.Fatalf("pass: exit %d\n%s", code, errOut)
	}
	// Paced: at half the limit (a request every 50 ms, a burst of one) its
	// 41 requests take 39 intervals at least, however fast the machine.
	// (Whether it waited for them is the machine's: a loaded one's pass is
	// slower than its pace, and its report says nothing was paced.)
	if least := 39 * 50 * time.Millisecond; took < least {
		t.Fatalf("the pass's 41 requests took %s, less than its pace allows (%s)\n%s", took, least, errOut)
	}
	front.mu.Lock()
	defer front.mu.Unlock()
	if front.limited["watch"] != 0 || front.requests["watch"] < 4 {
		t.Fatalf("the watch met %d 429s in %d requests beside the pass (which met %d in %d)\n%s",
			front.limited["watch"], front.requests["watch"], front.limited[""], front.requests[""], errOut)
	}
}

// TestArchivePassStopsAskingAFailingEndpoint: every snapshot request
// answering 500, a pass over ten runs asks for the snapshots of three
// runs only (the first's retried as the policy says, the next two's once
// each), says so once, archives every run without its snapshots and
// exits 0; the next pass, the endpoint back, fetches them.
func TestArchivePassStopsAskingAFailingEndpoint(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, History: 9})
	waitSimFinished(t, srv)
	front := newWhoFront(srv, "/snapshots/")
	front.fail = true
	hs := httptest.NewServer(front)
	defer hs.Close()
	var slept []time.Duration
	retry := poller.Retry{Sleep: func(ctx context.Context, d time.Duration) bool { slept = append(slept, d); return true }}
	db := filepath.Join(t.TempDir(), "a.db")
	pass := func() (string, int) {
		var out, errOut bytes.Buffer
		code := execute(context.Background(), []string{"archive", "--once", "--archive", db, "--api-url", hs.URL, "--api-key", srv.Key},
			strings.NewReader(""), &out, &errOut, retry)
		return errOut.String(), code
	}
	errOut, code := pass()
	if code != 0 || !strings.Contains(errOut, "10 runs seen, 10 fetched") || !strings.Contains(errOut, "without some snapshots") {
		t.Fatalf("first pass: exit %d\n%s", code, errOut)
	}
	front.mu.Lock()
	asked := len(front.failedBy)
	front.mu.Unlock()
	if asked != 3 {
		t.Errorf("the snapshots of %d runs were asked for, want 3\n%s", asked, errOut)
	}
	if len(slept) != poller.DefaultTries-1 {
		t.Errorf("%d retries waited for, want %d (the first snapshot's alone)", len(slept), poller.DefaultTries-1)
	}
	if n := strings.Count(errOut, "asks for them no more"); n != 1 || !strings.Contains(errOut, "runs' snapshots for 3 runs in a row") {
		t.Errorf("said %d times that the endpoint is asked no more, want once\n%s", n, errOut)
	}
	if n := strings.Count(errOut, "archived without"); n != 3 {
		t.Errorf("%d runs said archived without their snapshots, want the 3 whose snapshots failed\n%s", n, errOut)
	}
	front.mu.Lock()
	front.fail = false
	front.mu.Unlock()
	errOut, code = pass()
	if code != 0 || !strings.Contains(errOut, "10 runs seen") || strings.Contains(errOut, "without some snapshots") || strings.Contains(errOut, "skipped") {
		t.Fatalf("second pass: exit %d\n%s", code, errOut)
	}
}

// TestArchivePassStopsAskingAFailingTraceEndpoint: every trace request
// answering 500, a pass over ten runs asks for the traces of three runs,
// says so once, leaves the other seven unasked (no status asked either)
// and fails as a pass that could archive nothing does (exit 1).
func TestArchivePassStopsAskingAFailingTraceEndpoint(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, History: 9})
	waitSimFinished(t, srv)
	front := newWhoFront(srv, "/trace")
	front.fail = true
	hs := httptest.NewServer(front)
	defer hs.Close()
	retry := poller.Retry{Sleep: func(context.Context, time.Duration) bool { return true }}
	before := srv.Stats().ByRoute["GET status"]
	var out, errOut bytes.Buffer
	code := execute(context.Background(), []string{"archive", "--once", "--archive", filepath.Join(t.TempDir(), "a.db"), "--api-url", hs.URL, "--api-key", srv.Key},
		strings.NewReader(""), &out, &errOut, retry)
	if code != ExitFailed || !strings.Contains(errOut.String(), "10 runs seen, 0 fetched") || !strings.Contains(errOut.String(), "10 skipped") {
		t.Fatalf("exit %d, want %d\n%s", code, ExitFailed, errOut.String())
	}
	front.mu.Lock()
	asked := len(front.failedBy)
	front.mu.Unlock()
	if asked != 3 || srv.Stats().ByRoute["GET status"]-before != 3 {
		t.Errorf("the traces of %d runs were asked for and %d statuses, want 3 and 3\n%s", asked, srv.Stats().ByRoute["GET status"]-before, errOut.String())
	}
	if n := strings.Count(errOut.String(), "asks for them no more"); n != 1 || !strings.Contains(errOut.String(), "runs' traces for 3 runs in a row") {
		t.Errorf("said %d times that the endpoint is asked no more, want once\n%s", n, errOut.String())
	}
	if n := strings.Count(errOut.String(), "skipped: its trace could not be read"); n != 3 {
		t.Errorf("%d runs said skipped, want the 3 whose trace failed\n%s", n, errOut.String())
	}
}

// TestWatchCountsItsRequestsIntoTheBudget: a watch with an archive counts
// its requests (live work, never waiting) into the team's budget there,
// so that the background work beside it takes only what it leaves: after
// a watch of a run, at a limit of 10 a minute (6 s of the budget a
// request), the background's next request waits for the slots the watch
// took. Without the meter the budget knows nothing of the watch and the
// background's request goes at once.
func TestWatchCountsItsRequestsIntoTheBudget(t *testing.T) {
	t.Setenv("FIREWATCH_RATE_LIMIT", "10/1m")
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}})
	waitSimFinished(t, srv)
	db := filepath.Join(t.TempDir(), "a.db")
	before := srv.Stats().Requests
	if _, errOut, code := run(t, context.Background(), "watch", srv.Jobs[0].ID, "-o", "plain", "--interval", "100ms", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key); code != 0 {
		t.Fatalf("watch: exit %d\n%s", code, errOut)
	}
	asked := srv.Stats().Requests - before
	if asked < 2 {
		t.Fatalf("the watch asked %d requests, want at least its lookup and a poll", asked)
	}
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	wait, err := st.(archive.Budgeter).Pace(context.Background(), archive.BudgetKey{Service: srv.URL, Team: archive.TeamOf(srv.Key)}, time.Millisecond, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Two slots of 6 s at least (its lookup and a poll), the watch ended
	// a moment ago: a second of the 12 s for a loaded machine.
	if want := 11 * time.Second; wait < want {
		t.Fatalf("the background's next request waits %s after a watch's %d requests, want at least %s", wait, asked, want)
	}
}

// TestRunsScreenCountsItsListIntoTheBudget: the runs screen's list,
// asked with an archive, is live work counted into the team's budget
// (one request at 10 a minute: 6 s of it) once the screen closes its
// archive.
func TestRunsScreenCountsItsListIntoTheBudget(t *testing.T) {
	t.Setenv("FIREWATCH_RATE_LIMIT", "10/1m")
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}})
	db := filepath.Join(t.TempDir(), "a.db")
	t.Setenv("FIREWATCH_ARCHIVE", db)
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key, Retry: &poller.Retry{Tries: 1}})
	if err != nil {
		t.Fatal(err)
	}
	secrets := text.NewSecrets()
	a := &app{stderr: &scrubWriter{w: &strings.Builder{}, secrets: secrets}, secrets: secrets}
	svc := service{baseURL: srv.URL, key: srv.Key}
	list, _, closeArchive := a.runsWithArchive(context.Background(), c, svc)
	if _, err := list.Runs(context.Background(), time.Time{}); err != nil {
		t.Fatal(err)
	}
	closeArchive()
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	wait, err := st.(archive.Budgeter).Pace(context.Background(), archive.BudgetKey{Service: srv.URL, Team: archive.TeamOf(srv.Key)}, time.Millisecond, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := 5 * time.Second; wait < want {
		t.Fatalf("the background's next request waits %s after the runs screen's list, want at least %s", wait, want)
	}
}
