package poller

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firewatch/firewatch/sim"
)

// These tests put the sim behind a front that misbehaves in ways the real
// service does not, but a proxy, a load balancer or a hostile server may.

// An error answer is an answer: its status counts, whatever its body does.
// An endless error page is not read to the end (nor up to the 256 MB a
// trace may have), and one that breaks off is still a 5xx, not a network
// error.
func TestErrorBodiesAreCapped(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{})
	var written atomic.Int64
	mode := ""
	var mu sync.Mutex
	base := front(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		m := mode
		mu.Unlock()
		switch m {
		case "endless":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusInternalServerError)
			chunk := bytes.Repeat([]byte("<p>oops</p>"), 6000)
			for {
				n, err := w.Write(chunk)
				written.Add(int64(n))
				if err != nil {
					return true
				}
			}
		case "broken":
			conn, bw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return true
			}
			fmt.Fprint(bw, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n")
			fmt.Fprint(bw, `{"success":false,"error":"Service temporarily unavailable"}   `)
			bw.Flush()
			conn.Close()
			return true
		}
		return false
	})
	c, err := New(Config{BaseURL: base, APIKey: srv.Key, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	mode = "endless"
	mu.Unlock()
	_, err = c.Trace(context.Background(), srv.Jobs[0].ID, false)
	e := asError(t, err)
	if e.Kind != KindServer || e.Status != 500 || !e.Retryable() {
		t.Fatalf("endless error page: %v (kind %v)", e, e.Kind)
	}
	// What the server managed to write before the client hung up: the
	// capped read plus what the sockets buffer, far below 256 MB.
	if n := written.Load(); n > 32<<20 {
		t.Fatalf("the client read %d MB of an error page", n>>20)
	}

	mu.Lock()
	mode = "broken"
	mu.Unlock()
	_, err = c.Trace(context.Background(), srv.Jobs[0].ID, false)
	e = asError(t, err)
	if e.Kind != KindServer || e.Status != 503 {
		t.Fatalf("error page cut short: %v (kind %v)", e, e.Kind)
	}
}

// A key that cannot be a header value (pasted with its line break, or
// with a space inside) is refused by New with a message that does not show
// it, instead of failing every request as a "network error" the watch
// would retry forever.
func TestKeyWithWhiteSpaceIsRefused(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{})
	for _, key := range []string{"fc-0123456789\nabcdef", "fc-0123456789 abcdef", "fc-0123456789\tabcdef", "fc-0123456789\x00abcdef", "fc-0123456789\u00a0abcdef", "fc-0123456789\x7fabcdef"} {
		c, err := New(Config{BaseURL: srv.URL, APIKey: key})
		if err == nil {
			_, terr := c.Trace(context.Background(), srv.Jobs[0].ID, false)
			t.Fatalf("%q accepted; the trace then says %v", key, terr)
		}
		if strings.Contains(err.Error(), "0123456789") || !strings.Contains(err.Error(), "FIRECRAWL_API_KEY") {
			t.Fatalf("%q: message %q", key, err)
		}
	}
	if n := srv.Stats().Requests; n != 0 {
		t.Fatalf("%d requests", n)
	}
	// Keys with other characters are sent as they are.
	special := `fc-a"b\c<d>&e/f-é`
	srv = startSim(t, sim.Options{Key: special})
	c := newClient(t, srv, withKey(srv))
	if _, err := c.Trace(context.Background(), srv.Jobs[0].ID, false); err != nil {
		t.Fatalf("special characters: %v", err)
	}
}

// A redirect never takes the key to another address: not to another host,
// not to another port of the same host (which Go's client would send it
// to), and the watch stops at once with a message that says why. A
// redirect within the service is followed.
func TestRedirectsKeepTheKeyHome(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"refused"}, Speed: 1000})
	job := srv.Jobs[0].ID
	var strangerAuth atomic.Value
	strangerAuth.Store("")
	var strangerHits atomic.Int64
	stranger := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		strangerHits.Add(1)
		strangerAuth.Store(r.Header.Get("Authorization"))
		srv.ServeHTTP(w, r) // it would even answer well
	}))
	defer stranger.Close()
	var away atomic.Bool
	base := front(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		switch {
		case away.Load():
			http.Redirect(w, r, stranger.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
			return true
		case r.URL.Query().Get("hop") == "":
			// Within the service: same address, another URL.
			q := r.URL.Query()
			q.Set("hop", "1")
			http.Redirect(w, r, r.URL.Path+"?"+q.Encode(), http.StatusFound)
			return true
		}
		return false
	})
	var log logBuffer
	c, err := New(Config{BaseURL: base, APIKey: srv.Key, Logf: log.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Trace(context.Background(), job, false); err != nil {
		t.Fatalf("a redirect within the service: %v", err)
	}

	away.Store(true)
	_, err = c.Trace(context.Background(), job, false)
	e := asError(t, err)
	if e.Kind != KindInsecure || e.Op != "trace" || e.Retryable() || !strings.Contains(e.Error(), "redirected") {
		t.Fatalf("redirect to %s: %v (kind %v, op %q)", stranger.URL, e, e.Kind, e.Op)
	}
	if n := strangerHits.Load(); n != 0 {
		t.Fatalf("the other address got %d requests (Authorization %q)", n, strangerAuth.Load())
	}
	err = fast(c.Watch(job, WatchOptions{})).Run(context.Background(), nil)
	if e := asError(t, err); e.Kind != KindInsecure {
		t.Fatalf("Run: %v", err)
	}
	for _, s := range []string{e.Error(), log.String()} {
		if strings.Contains(s, srv.Key) {
			t.Fatalf("the key appears: %s", s)
		}
	}
}

// A 200 answer that says {"success":false,"error":"Rate limit exceeded ...
// retry after 12s"} is waited out as long as it asks, like a 429.
func TestRateLimitInA200Body(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"cancel"}, Speed: 1})
	job := srv.Jobs[0].ID
	for _, tc := range []struct {
		body string
		want time.Duration
	}{
		{`{"success":false,"error":"Rate limit exceeded. Consumed (req/min): 501, Remaining (req/min): 0. please retry after 12s, resets at x"}`, 12 * time.Second},
		{`{"success":false,"error":"Rate limit exceeded","retry_after_seconds":"7"}`, 7 * time.Second},
	} {
		var n atomic.Int64
		base := front(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
			if strings.HasSuffix(r.URL.Path, "/trace") && n.Add(1) == 1 {
				fmt.Fprint(w, tc.body)
				return true
			}
			return false
		})
		c, _ := New(Config{BaseURL: base, APIKey: srv.Key})
		w, clk := clocked(c, job, WatchOptions{TokenEvery: -1})
		col := newCollector()
		ctx, cancel := context.WithCancel(context.Background())
		wait := run(ctx, w, col.sink)
		u := polled(t, col, 1)
		if e := asError(t, u.Err); e.Kind != KindRateLimited || e.RetryAfter != tc.want || u.Health.Wait != tc.want {
			t.Fatalf("%s: kind %v, RetryAfter %v, wait %v", tc.body, e.Kind, e.RetryAfter, u.Health.Wait)
		}
		if d := clk.fire(t); d != tc.want {
			t.Fatalf("waited %v", d)
		}
		if u := polled(t, col, 2); u.Poll == nil {
			t.Fatalf("the poll after the wait: %+v", u)
		}
		cancel()
		wait(t)
	}
}

// The tail window is capped at TailMax even when the tries in it fail: a
// server that asks to wait past the cap ends the watch at once (nothing can
// be asked before the cap), and a backoff past the cap is cut to one last
// try at the cap. A refusal in the window closes it: the run is over.
func TestTailCapHoldsThroughFailures(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"refused"}, Speed: 1000})
	job := srv.Jobs[0].ID
	if err := srv.WaitFinished(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter)
		wait   time.Duration // the fake time the watch takes at most
		polls  int64
	}{
		{"429 past the cap", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"success":false,"error":"Rate limit exceeded"}`)
		}, 2 * time.Second, 2},
		{"5xx backoff past the cap", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusBadGateway)
		}, 30 * time.Second, 0},
		// The job expired (or the key was revoked) after run.finished:
		// the final state is known, the window just closes.
		{"404 in the window", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":"Agent job not found"}`)
		}, 2 * time.Second, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			base := front(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
				if !strings.HasSuffix(r.URL.Path, "/trace") || n.Add(1) == 1 {
					return false
				}
				tc.answer(w)
				return true
			})
			c, _ := New(Config{BaseURL: base, APIKey: srv.Key})
			w, clk := clocked(c, job, WatchOptions{TokenEvery: -1})
			w.backoffCap = time.Minute
			col := newCollector()
			wait := run(context.Background(), w, col.sink)
			var total time.Duration
			for {
				d, done := clk.step(t, col)
				if done {
					break
				}
				total += d
				if total > tc.wait {
					t.Fatalf("the watch goes on after %v, past %v", total, tc.wait)
				}
			}
			if err := wait(t); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if tc.polls > 0 && n.Load() != tc.polls {
				t.Fatalf("%d polls, want %d", n.Load(), tc.polls)
			}
			if total != tc.wait {
				t.Fatalf("the watch took %v, want %v", total, tc.wait)
			}
			sameSummary(t, "tail with failures", col.summary(), scriptSummary(t, srv, job))
		})
	}
}

// A key with characters JSON encoders escape, echoed by a server in a
// trace body the way those encoders write it, is redacted before the body
// reaches the model or the recording.
func TestEscapedKeyEchoIsRedacted(t *testing.T) {
	t.Parallel()
	key := `fc-a"b\c<d>&e/f-é`
	srv := startSim(t, sim.Options{Key: key, Scenarios: []string{"refused"}, Speed: 1000})
	job := srv.Jobs[0].ID
	if err := srv.WaitFinished(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	goJSON, _ := json.Marshal("echo " + key) // "\u003c", "\u0026", "\""...
	php := strings.ReplaceAll(strings.ReplaceAll(string(goJSON), "/", `\/`), "é", `\u00e9`)
	base := front(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/trace") {
			return false
		}
		code, h, body := simAnswer(srv, r)
		for i, text := range []string{string(goJSON), php} {
			e := fmt.Sprintf(`{"schemaVersion":1,"eventId":"0190f3a4-0000-7000-8000-0000000000e%d","runId":%q,"occurredAt":"2026-03-14T09:26:53.000Z","producerSequence":%d,"agent":{"id":"0190f3a4-0000-7000-8000-0000000000aa","role":"subagent","name":"echo"},"type":"reasoning.summary","text":%s}`, i, job, i+1, text)
			body = bytes.Replace(body, []byte(`"events":[`), []byte(`"events":[`+e+","), 1)
		}
		h.Del("Content-Length")
		w.Header().Set("Content-Type", h.Get("Content-Type"))
		w.WriteHeader(code)
		w.Write(body)
		return true
	})
	c, _ := New(Config{BaseURL: base, APIKey: key})
	var rec bytes.Buffer
	col := watchAll(t, c, job, WatchOptions{Record: &rec})
	out := everything(col, time.Now()) + rec.String()
	for _, form := range []string{key, string(goJSON[6 : len(goJSON)-1]), php[6 : len(php)-1], "b\\c"} {
		if strings.Contains(out, form) {
			t.Fatalf("%q appears in the output", form)
		}
	}
	if strings.Count(out, redacted) < 2 {
		t.Fatal("nothing was redacted: the test checks nothing")
	}
}

// Retry-After as seconds, as an HTTP date, negative, garbage or huge;
// retry_after_seconds as a number or a string; the message's "retry after
// 12s" or "try again in 1 minute": the client reads the first usable one in
// that order.
func TestRetryAfterSources(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{})
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	var header, body atomic.Value
	base := front(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		if h := header.Load().(string); h != "" {
			w.Header().Set("Retry-After", h)
		}
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, body.Load().(string))
		return true
	})
	c, _ := New(Config{BaseURL: base, APIKey: srv.Key})
	c = c.WithRetry(Retry{Tries: 1}) // the delay read, not waited
	c.now = func() time.Time { return now }
	for _, tc := range []struct {
		header, body string
		want         time.Duration
	}{
		{"12", `{"error":"retry after 3s"}`, 12 * time.Second},
		{now.Add(90 * time.Second).Format(http.TimeFormat), `{}`, 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), `{"retry_after_seconds":4}`, 4 * time.Second},
		{"-5", `{"retry_after_seconds":"2.5"}`, 2500 * time.Millisecond},
		{"soon", `{"success":false,"error":"Rate limit exceeded ... please retry after 12s, resets at Sat, 14 Mar 2026 12:01:00 GMT"}`, 12 * time.Second},
		{"", `{"error":"Too many requests, try again in 1 minute"}`, time.Minute},
		{"99999999999", `{}`, 24 * time.Hour}, // bounded; the loop clamps to MaxRetryAfter
		{"", `{"retry_after_seconds":-1,"error":"slow down"}`, 0},
		{"", `<html>Too Many Requests</html>`, 0},
	} {
		header.Store(tc.header)
		body.Store(tc.body)
		_, err := c.Trace(context.Background(), srv.Jobs[0].ID, false)
		if e := asError(t, err); e.Kind != KindRateLimited || e.RetryAfter != tc.want {
			t.Errorf("Retry-After %q, body %s: %v, want %v", tc.header, tc.body, e.RetryAfter, tc.want)
		}
	}
}

// DNS failures and refused connections are network errors, retried; a
// plain-http address that is not loopback is refused before any lookup.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	c, err := New(Config{BaseURL: "https://nonexistent.invalid", APIKey: "fc-k", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Trace(context.Background(), stubJob, false)
	// Where no resolver answers, the lookup times out instead.
	if e := asError(t, err); !e.Retryable() || e.Kind != KindTimeout && (e.Kind != KindNetwork || !strings.Contains(e.Error(), "cannot resolve nonexistent.invalid")) {
		t.Fatalf("DNS failure: %v (kind %v)", e, e.Kind)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, _ = New(Config{BaseURL: "http://" + addr, APIKey: "fc-k"})
	_, err = c.Trace(context.Background(), stubJob, false)
	if e := asError(t, err); e.Kind != KindNetwork || e.Short() != "network: connection refused" {
		t.Fatalf("refused: %v", e)
	}
	_, err = New(Config{BaseURL: "http://nonexistent.invalid", APIKey: "fc-k"})
	if e := asError(t, err); e.Kind != KindInsecure {
		t.Fatalf("plain http: %v", err)
	}
}

// How answers arrive: gzip (asked for by the transport), a gzip stream
// that is corrupt, a server that accepts and never answers, a body that
// stops halfway, an empty 200: each is the kind it should be, and a stall
// is a timeout of the per-request limit.
func TestAnswersOnTheWire(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"refused"}, Speed: 1000})
	job := srv.Jobs[0].ID
	var mode atomic.Value
	release := make(chan struct{})
	defer close(release)
	base := front(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		switch mode.Load().(string) {
		case "gzip", "corrupt-gzip":
			if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				t.Error("the client does not ask for gzip")
			}
			code, _, body := simAnswer(srv, r)
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(body)
			zw.Close()
			z := b.Bytes()
			if mode.Load() == "corrupt-gzip" {
				z[len(z)/2] ^= 0xff
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(code)
			w.Write(z)
		case "stall":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		case "stall-body":
			w.Header().Set("Content-Length", "100000")
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, `{"success":true,"events":[`)
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		default:
			return false
		}
		return true
	})
	c, _ := New(Config{BaseURL: base, APIKey: srv.Key, Timeout: 300 * time.Millisecond})
	for _, tc := range []struct {
		mode string
		kind Kind
		text string
	}{
		{"gzip", 0, ""},
		{"corrupt-gzip", KindMalformed, "corrupt"},
		{"stall", KindTimeout, "no answer within 300ms"},
		{"stall-body", KindTimeout, "did not arrive in full"},
	} {
		mode.Store(tc.mode)
		body, err := c.Trace(context.Background(), job, false)
		if tc.kind == 0 {
			if err != nil || !bytes.HasPrefix(body, []byte(`{"success":true`)) {
				t.Fatalf("%s: %v %.40s", tc.mode, err, body)
			}
			continue
		}
		if e := asError(t, err); e.Kind != tc.kind || !e.Retryable() || !strings.Contains(e.Error(), tc.text) {
			t.Fatalf("%s: %v (kind %v)", tc.mode, e, e.Kind)
		}
	}
	// An empty 200 is retried as malformed, and the watch goes on to the end.
	var n atomic.Int64
	mode.Store("")
	base2 := front(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		return strings.HasSuffix(r.URL.Path, "/trace") && n.Add(1) == 2 // an empty 200
	})
	c2, _ := New(Config{BaseURL: base2, APIKey: srv.Key})
	col := watchAll(t, c2, job, WatchOptions{})
	if errs := col.errs(); len(errs) != 1 || errs[0].Kind != KindMalformed {
		t.Fatalf("errors %v", errs)
	}
	sameSummary(t, "after an empty 200", col.summary(), scriptSummary(t, srv, job))
}
