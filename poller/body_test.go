package poller

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"
)

// Endless bodies, endless chunked bodies, gzip bombs and bodies announcing
// more than the limit are refused at the limit, say why, and a retry reads
// into the same buffer: nothing grows past the limit and nothing is
// allocated anew per retry. The limit is lowered to 1 MB
// so that the test is cheap; the code path is the 256 MB one.
func TestEndlessBodiesAreBounded(t *testing.T) {
	const limit = 1 << 20
	chunk := []byte(strings.Repeat(`{"a":1},`, 4096))
	// 64 MB of zeros in a few dozen KB, made once (the server's own
	// allocations count in the figure below).
	var bz bytes.Buffer
	gz := gzip.NewWriter(&bz)
	gz.Write(make([]byte, 64<<20))
	gz.Close()
	bomb := bz.Bytes()
	tests := []struct {
		name, why string
		serve     func(w http.ResponseWriter)
	}{
		{"endless", "larger than 1 MB", func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", "")
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}},
		{"endless chunked", "larger than 1 MB", func(w http.ResponseWriter) {
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}},
		{"gzip bomb", "decompresses to more than 1 MB", func(w http.ResponseWriter) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb)
		}},
		{"announced too large", "announces 1073741824 bytes", func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", strconv.Itoa(1<<30))
			w.WriteHeader(200)
			w.Write(chunk)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tt.serve(w) }))
			t.Cleanup(hs.Close)
			c, err := New(Config{BaseURL: hs.URL, APIKey: "fc-test"})
			if err != nil {
				t.Fatal(err)
			}
			c.maxTrace = limit
			var bb bodyBuf
			var ms runtime.MemStats
			var alloc uint64
			for i := range 5 {
				if i == 1 {
					runtime.ReadMemStats(&ms)
					alloc = ms.TotalAlloc
				}
				_, _, err := c.trace(context.Background(), stubJob, nil, &bb)
				var e *Error
				if !errors.As(err, &e) || e.Kind != KindMalformed || !strings.Contains(e.Error(), tt.why) {
					t.Fatalf("attempt %d: %v, want a malformed answer saying %q", i, err, tt.why)
				}
				if cap(bb.b) > limit {
					t.Fatalf("attempt %d: the buffer grew to %d bytes, past the %d limit", i, cap(bb.b), limit)
				}
			}
			runtime.ReadMemStats(&ms)
			// Four retries: the transport's own buffers and the gzip
			// reader's state, but not a body each.
			if got := ms.TotalAlloc - alloc; got > limit {
				t.Errorf("four retries allocated %d bytes, want < %d (the buffer is reused)", got, limit)
			}
		})
	}
}

// The trace's body reaches the decoder as it was received, the part the
// same as the last body's not compared again; the key, in any form, is
// redacted from what the decoder keeps: the events, their raw JSON, the
// top-level members a recording writes. Also after the point where two
// bodies part ways, in a body the same as an echoing one, and where the
// key straddles that point.
func TestTraceBodiesRedactedPollByPoll(t *testing.T) {
	t.Parallel()
	const key = "fc-secret123"
	escaped := `fc-s\u0065cret123`
	event := func(i int, text string) string {
		return fmt.Sprintf(`{"eventId":"e%d","agent":{"id":"a"},"type":"reasoning.summary","producerSequence":%d,"text":"%s"}`, i, i, text)
	}
	var base strings.Builder
	for i := range 3000 {
		base.WriteString(event(i, "abcdefgh") + ",")
	}
	body := func(id string, last ...string) string {
		var b strings.Builder
		b.WriteString(`{"success":true,"id":"` + id + `","events":[` + base.String())
		for i, text := range last {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(event(3000+i, text))
		}
		return b.String() + "]}"
	}
	bodies := []string{
		body(stubJob, "clean"),
		body(stubJob, "clean", key), // after the common prefix
		body(stubJob, "clean", key), // the same echoing body again
		body(stubJob, "clean", key, escaped),
		body(escaped, "clean", key, escaped, "fc-secXX"), // the key in a top-level member
		body(stubJob, "clean", key, escaped, "fc-secXX", "fc-sec"+"ret123"),
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if i >= len(bodies) {
			cancel() // every body was taken
			i = len(bodies) - 1
		}
		w.Write([]byte(bodies[i]))
	}))
	t.Cleanup(hs.Close)
	c, err := New(Config{BaseURL: hs.URL, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	col := newCollector()
	fast(c.Watch(stubJob, WatchOptions{Record: &rec, Tail: -1})).Run(ctx, col.sink)
	out := everything(col, time.Now()) + rec.String()
	for _, form := range []string{key, escaped, `s\u0065cret`} {
		if strings.Contains(out, form) {
			t.Fatalf("%q appears in the output", form)
		}
	}
	if strings.Count(rec.String(), redacted) < 4 {
		t.Fatalf("redacted %d times: the test checks nothing", strings.Count(rec.String(), redacted))
	}
}

// readBody's count of leading bytes that are the last body's never claims
// a byte that differs, and finds every byte before the first difference,
// whatever the read sizes.
func TestReadBodySame(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	var bb bodyBuf
	var last []byte
	for round := range 60 {
		n := r.IntN(320<<10) + 1
		body := make([]byte, n)
		copy(body, last)
		for i := len(last); i < n; i++ {
			body[i] = byte('a' + r.IntN(3))
		}
		if round%3 == 1 && n > 0 {
			body[r.IntN(n)] ^= 1 // one byte changed somewhere
		}
		length := int64(n)
		if round%4 == 0 {
			length = -1
		}
		kept := cap(bb.b)
		got, same, err := readBody(iotest.HalfReader(bytes.NewReader(body)), length, 1<<30, false, &bb)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("round %d: %v, %d bytes read of %d", round, err, len(got), n)
		}
		common := 0
		for common < min(len(last), n) && last[common] == body[common] {
			common++
		}
		if same > common {
			t.Fatalf("round %d: same %d, but the bodies part at %d", round, same, common)
		}
		// (A body that needed a new buffer is compared with nothing.)
		if cap(bb.b) == kept && same < common {
			t.Fatalf("round %d: same %d, want %d", round, same, common)
		}
		last = bytes.Clone(body)
	}
}
