package poller

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
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

// A poll searches only the part of the body that differs from the last
// (clean) body for the key; the key is still redacted wherever it appears,
// also across the point where the bodies part ways and in a body the same
// as an echoing one.
func TestScrubOnlyWhatChangedStillRedacts(t *testing.T) {
	const key = "fc-secret123"
	base := `{"success":true,"events":[` + strings.Repeat(`{"x":"abcdefgh"},`, 3000)
	bodies := []string{
		base + `{"x":"clean"}]}`,
		base + `{"x":"` + key + `"}]}`, // after the common prefix
		base + `{"x":"` + key + `"}]}`, // the same echoing body again
		base + `{"x":"clean"}]}`,
		base + `{"x":"fc-secXX"}]}`,    // shares part of the key with the next
		base + `{"x":"` + key + `"}]}`, // the key straddles where they part
		base + `{"x":"` + key + `"}]}`,
	}
	i := 0
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(bodies[i]))
		i++
	}))
	t.Cleanup(hs.Close)
	c, err := New(Config{BaseURL: hs.URL, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	var bb bodyBuf
	for n, want := range bodies {
		body, _, err := c.trace(context.Background(), stubJob, nil, &bb)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(body), key) {
			t.Fatalf("body %d holds the key", n)
		}
		if w := strings.ReplaceAll(want, key, redacted); string(body) != w {
			t.Fatalf("body %d: got a different body than the redacted one", n)
		}
	}
}

// readBody's count of leading bytes that are the last body's never claims
// a byte that differs, and finds every byte before the first difference,
// whatever the read sizes.
func TestReadBodySame(t *testing.T) {
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
