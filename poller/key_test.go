package poller

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firewatch/firewatch/sim"
)

// logBuffer collects debug lines.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// everything gathers every string a caller can get from updates.
func everything(col *collector, now time.Time) string {
	var b strings.Builder
	for _, u := range col.snapshot() {
		b.WriteString(u.Health.String())
		b.WriteString(u.Health.StringAt(now))
		b.WriteString(u.Health.Reason + u.Health.Cause + u.Health.RecordError)
		if u.Err != nil {
			b.WriteString(u.Err.Error())
			if e, ok := u.Err.(*Error); ok {
				b.WriteString(e.ServerMessage + e.Short())
				if e.Err != nil {
					b.WriteString(e.Err.Error())
				}
			}
		}
		if u.Poll != nil {
			for _, e := range u.Poll.Events {
				b.Write(e.Raw)
				fmt.Fprintf(&b, "%+v", e.Payload)
			}
		}
	}
	return b.String()
}

func TestKeyAppearsNowhereOnTheSim(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"chaos", "first-gen"}, Speed: 200})
	var log logBuffer
	c := newClient(t, srv, Config{BaseURL: srv.URL, APIKey: srv.Key, Logf: log.Logf})
	var rec bytes.Buffer
	col := newCollector()
	w := fast(c.Watch(srv.Jobs[0].ID, WatchOptions{Record: &rec, TokenEvery: time.Millisecond}))
	if err := w.Run(context.Background(), col.sink); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	out.WriteString(everything(col, time.Now()))
	out.WriteString(log.String())
	out.Write(rec.Bytes())

	// Refusals, with the right key and a wrong one.
	wrong := "fc-0000000000000000000000000000beef"
	for _, key := range []string{srv.Key, wrong} {
		var log logBuffer
		c := newClient(t, srv, Config{BaseURL: srv.URL, APIKey: key, Logf: log.Logf})
		for _, job := range []string{srv.Jobs[1].ID, "0190f3a4-5b6c-7d8e-9f00-aabbccddeeff", key} {
			err := fast(c.Watch(job, WatchOptions{})).Run(context.Background(), nil)
			if err == nil {
				t.Fatalf("%s: no error", job)
			}
			out.WriteString(err.Error())
			if e, ok := err.(*Error); ok {
				out.WriteString(e.Short())
			}
			out.WriteString(c.Cancel(context.Background(), job).Error())
		}
		out.WriteString(log.String())
		if strings.Contains(out.String(), key) {
			t.Fatalf("the key %s appears in the output", key[:6])
		}
	}
	if !strings.Contains(out.String(), "GET /v2/agent/") {
		t.Fatal("the debug log is empty: the test checks nothing")
	}
}

// echoServer is a server that does what the sim never does: it echoes the
// Authorization header back, in error bodies, in a 200 trace event, in a
// snapshot and in its status answer, and writes escape sequences.
func echoServer(t *testing.T) string {
	var n int
	var mu sync.Mutex
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		key := strings.TrimPrefix(auth, "Bearer ")
		// The key split by an escape sequence, which sanitising removes.
		split := key[:5] + "\x1b[0m" + key[5:]
		splitJSON := key[:5] + `\u001b[0m` + key[5:]
		switch {
		case strings.HasSuffix(r.URL.Path, "/trace"):
			mu.Lock()
			n++
			i := n
			mu.Unlock()
			switch i {
			case 1:
				w.WriteHeader(http.StatusTooManyRequests)
				fmt.Fprintf(w, `{"success":false,"error":"Rate limit for %s exceeded \u001b]0;pwned\u0007 please retry after 0.01s"}`, auth)
			case 2:
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprintf(w, "upstream said: %s", split)
			case 3:
				fmt.Fprintf(w, `{"success":true,"events":[{"eventId":"e1","agent":{"id":"a"},"type":"reasoning.summary","producerSequence":1,"text":"I saw %s"`, key) // truncated
			default:
				fmt.Fprintf(w, `{"success":true,"id":"%s","events":[{"eventId":"e1","agent":{"id":"a"},"type":"reasoning.summary","producerSequence":1,"text":"I saw %s"},{"eventId":"e2","agent":{"id":"a"},"type":"run.finished","producerSequence":2,"outcome":"succeeded"}]}`, stubJob, key)
			}
		case strings.Contains(r.URL.Path, "/snapshots/"):
			fmt.Fprintf(w, `{"success":true,"snapshot":"# Result\n%s"}`, key)
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusConflict)
			fmt.Fprintf(w, `{"error":"Agent already finished, %s"}`, splitJSON)
		default:
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":"Unauthorized: Invalid token '%s'"}`, auth)
		}
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

func TestKeyAppearsNowhereWhenTheServerEchoesIt(t *testing.T) {
	t.Parallel()
	const key = "fc-5ec12e7a5ec12e7a5ec12e7a5ec12e7a"
	base := echoServer(t)
	var log logBuffer
	c, err := New(Config{BaseURL: base, APIKey: key, Logf: log.Logf})
	if err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	col := newCollector()
	if err := fast(c.Watch(stubJob, WatchOptions{Record: &rec, Tail: -1})).Run(context.Background(), col.sink); err != nil {
		t.Fatalf("Run: %v", err)
	}
	var out strings.Builder
	out.WriteString(everything(col, time.Now()))
	out.WriteString(log.String())
	out.Write(rec.Bytes())
	snap, err := c.Snapshot(context.Background(), stubJob, "0190f3a4-5b6c-7d8e-9f00-aabbccddeeff")
	if err != nil {
		t.Fatal(err)
	}
	out.WriteString(snap.Content)
	for _, err := range []error{c.Cancel(context.Background(), stubJob), func() error { _, err := c.Status(context.Background(), stubJob); return err }()} {
		out.WriteString(err.Error())
		out.WriteString(err.(*Error).ServerMessage)
	}
	s := out.String()
	if strings.Contains(s, key) {
		t.Fatalf("the key appears:\n%s", s)
	}
	if strings.Contains(s, key[:5]+key[5:]) || strings.ContainsAny(s, "\x1b\x07") {
		t.Fatalf("raw control characters or the joined key:\n%q", s)
	}
	if !strings.Contains(s, redacted) {
		t.Fatal("nothing was redacted: the test checks nothing")
	}
	// The first failures were reported and retried; the summary is whole.
	if errs := col.errs(); len(errs) != 3 || errs[0].Kind != KindRateLimited || errs[1].Kind != KindServer || errs[2].Kind != KindMalformed {
		t.Fatalf("errors %v", errs)
	}
	if sum := col.summary(); sum.EventCount != 2 {
		t.Fatalf("%d events", sum.EventCount)
	}
}
