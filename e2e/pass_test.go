package e2e

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// countingFront stands before the simulator for one client: the time of
// each of its requests that the service answered (not 429), its 429s,
// and, with fail, a 500 for every request whose path has /fail/ (asking
// to be tried again after failAfter, when set, as a service may).
type countingFront struct {
	next      http.Handler
	fail      string
	failAfter string

	mu     sync.Mutex
	times  []time.Time // answered requests
	n429   int
	failed map[string]int // the 500s of fail, by path
}

type codeWriter struct {
	http.ResponseWriter
	code int
}

func (w *codeWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (f *countingFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cw := &codeWriter{ResponseWriter: w}
	failed := f.fail != "" && strings.Contains(r.URL.Path, "/"+f.fail+"/")
	if failed {
		cw.Header().Set("Content-Type", "application/json")
		if f.failAfter != "" {
			cw.Header().Set("Retry-After", f.failAfter)
		}
		cw.WriteHeader(http.StatusInternalServerError)
		_, _ = cw.Write([]byte(`{"success":false,"error":"Internal server error"}`))
	} else {
		f.next.ServeHTTP(cw, r)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if failed {
		if f.failed == nil {
			f.failed = map[string]int{}
		}
		f.failed[r.URL.Path]++
	}
	if cw.code == http.StatusTooManyRequests {
		f.n429++
		return
	}
	f.times = append(f.times, time.Now())
}

// stats are the front's answered requests, 429s, the most answered in
// any window of length w, and the longest time between two answers.
func (f *countingFront) stats(w time.Duration) (n, n429, most int, gap time.Duration) {
	f.mu.Lock()
	ts := slices.Clone(f.times)
	n429 = f.n429
	f.mu.Unlock()
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	for i, j := 0, 0; j < len(ts); j++ {
		for ts[j].Sub(ts[i]) >= w {
			i++
		}
		most = max(most, j-i+1)
		if j > 0 {
			gap = max(gap, ts[j].Sub(ts[j-1]))
		}
	}
	return len(ts), n429, most, gap
}

func frontURL(t *testing.T, f *countingFront) string {
	t.Helper()
	hs := httptest.NewServer(f)
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestPassBesideAWatch: an archive pass over 60 listed runs (some 1 000
// requests: the pass's half of the limit for eight windows) beside a live
// watch at the default interval (its run lasts five minutes: longer than
// the pass, however loaded the machine), on one key, the simulator's rate
// limit on (240 a second: a minute's 500 scaled down in time, and low
// enough that the pass is paced by its budget, not the machine's speed;
// scripts/passbench.sh does 500 runs). The watch meets no 429 and goes no
// longer than its own pace without an answer; the pass finishes, meets no
// 429 either, and makes no more requests in any window than the
// background's half of the limit (and its burst).
func TestPassBesideAWatch(t *testing.T) {
	t.Parallel()
	const limit, window = 240, time.Second
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, Speed: 0.2, History: 59, RateLimit: limit, RateWindow: window})
	wf, pf := &countingFront{next: srv}, &countingFront{next: srv}
	wURL, pURL := frontURL(t, wf), frontURL(t, pf)
	env := simEnv(srv, fmt.Sprintf("FIREWATCH_RATE_LIMIT=%d/%s", limit, window))
	w := start(t, env, "watch", srv.Jobs[0].ID, "-o", "json", "--archive", "off", "--api-url", wURL)
	w.waitOutput(t, 20*time.Second, "the watch's first event", func(out string) bool { return strings.Contains(out, "\n") })
	began := time.Now()
	p := runFW(t, env, 3*time.Minute, "archive", "--once", "--archive", filepath.Join(t.TempDir(), "a.db"), "--api-url", pURL)
	took := time.Since(began)
	if p.code != 0 || !strings.Contains(p.stderr, "60 runs seen, 60 fetched") {
		t.Fatalf("the pass: %s", p)
	}
	select {
	case <-w.done:
		t.Fatalf("the watch ended during the pass: %d\n%s", w.code, tailOf(w.stderr.String()))
	default:
	}
	wn, w429, _, wgap := wf.stats(window)
	pn, p429, most, _ := pf.stats(window)
	t.Logf("the pass: %d requests in %s (%.0f a second), at most %d in a %s window of the limit's %d; %d 429s",
		pn, took.Round(time.Millisecond), float64(pn)/took.Seconds(), most, window, limit, p429)
	t.Logf("the watch: %d requests, %d 429s, at most %s without an answer", wn, w429, wgap.Round(time.Millisecond))
	if w429 > 0 || strings.Contains(w.stderr.String(), "rate limited") {
		t.Errorf("the watch met %d 429s:\n%s", w429, tailOf(w.stderr.String()))
	}
	// Its own pace: 2 s, slowing to 10 s while the run brings nothing new.
	if wgap > poller.DefaultMaxInterval+2*time.Second {
		t.Errorf("the watch went %s without an answer", wgap)
	}
	// The background's half, its burst (a twentieth of it) and the
	// window's edges.
	if p429 > 0 || most > limit/2+limit/40+limit/10 {
		t.Errorf("the pass made up to %d requests a %s (limit %d) and met %d 429s", most, window, limit, p429)
	}
}

// TestPassWithAFailingEndpoint: every snapshot answers 500 (asking to be
// tried again in 50 ms, so that the first failure's retries take no
// seconds). The pass retries the first run's snapshots, asks the next
// runs' once each, asks for snapshots no more after 3 runs in a row,
// says so once, and archives the 100 runs without them at once, the
// snapshots left for the next pass.
func TestPassWithAFailingEndpoint(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, History: 100})
	pf := &countingFront{next: srv, fail: "snapshots", failAfter: "0.05"}
	began := time.Now()
	p := runFW(t, simEnv(srv), time.Minute, "archive", "--once", "--archive", filepath.Join(t.TempDir(), "a.db"), "--api-url", frontURL(t, pf))
	took := time.Since(began)
	n, _, _, _ := pf.stats(time.Second)
	pf.mu.Lock()
	failed := maps.Clone(pf.failed)
	pf.mu.Unlock()
	t.Logf("the pass: %s, %d requests, %d snapshots asked for in vain", took.Round(time.Millisecond), n, len(failed))
	if p.code != 0 || !strings.Contains(p.stderr, "101 runs seen, 101 fetched") {
		t.Fatalf("the pass: %s", p)
	}
	if c := strings.Count(p.stderr, "asks for them no more"); c != 1 || !strings.Contains(p.stderr, "runs' snapshots for 3 runs in a row") {
		t.Errorf("the pass says %d times that it leaves the snapshots; want once:\n%s", c, p.stderr)
	}
	// The snapshots of 3 runs asked for: the first one with the client's
	// tries, every other once.
	runs, retried := map[string]bool{}, 0
	for path, n := range failed {
		runs[strings.Split(path, "/")[3]] = true // /v2/agent/{id}/snapshots/{sid}
		switch {
		case n == poller.DefaultTries:
			retried++
		case n != 1:
			t.Errorf("%s asked for %d times", path, n)
		}
	}
	if len(runs) != 3 || retried != 1 {
		t.Errorf("the snapshots of %d runs asked for, %d of them %d times; want 3 runs, one snapshot retried", len(runs), retried, poller.DefaultTries)
	}
	if took > 30*time.Second { // seconds, on a loaded machine
		t.Errorf("the pass took %s", took)
	}
}
