package export

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A collector that redirects to another origin gets neither the spans nor
// the headers sent there; one that redirects within its origin is followed.
func TestRedirectStaysAtOrigin(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-honeycomb-team=hc-secret-team-key")
	for _, c := range []struct {
		name      string
		sameHost  bool
		delivered bool
	}{
		{"other origin", false, false},
		{"same origin", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			other := newReceiver(t)
			var otherHits atomic.Int32
			elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				otherHits.Add(1)
				if r.Header.Get("x-honeycomb-team") != "" {
					t.Error("the header followed the redirect to another origin")
				}
				http.Error(w, "no", http.StatusTeapot)
			}))
			defer elsewhere.Close()
			var first *httptest.Server
			first = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/moved/v1/traces" {
					r.URL.Path = "/v1/traces" // the same origin, another path
					other.handle(w, r)
					return
				}
				to := elsewhere.URL + "/v1/traces"
				if c.sameHost {
					to = first.URL + "/moved/v1/traces"
				}
				http.Redirect(w, r, to, http.StatusTemporaryRedirect)
			}))
			defer first.Close()

			x, err := New(Options{Endpoint: first.URL + "/v1/traces", BatchTimeout: 10 * time.Millisecond, Timeout: 500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			s := loadFixture(t, "succeeded.json")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			st := x.Close(ctx, s)
			if otherHits.Load() != 0 {
				t.Errorf("%d requests reached the other origin", otherHits.Load())
			}
			if c.delivered {
				if st.Err != nil || st.Spans == 0 || other.received() == 0 {
					t.Errorf("same-origin redirect: stats %+v, %d received", st, other.received())
				}
				return
			}
			if st.Err == nil || st.Spans != 0 || !strings.Contains(st.Err.Error(), "not followed") {
				t.Errorf("stats %+v: want no span delivered and an error that says the redirect was not followed", st)
			}
		})
	}
}

// TestCollectorAnswerNotProtobuf: a collector that answers 200 with a body
// that is not protobuf took the spans: they are counted as exported, not
// as "not delivered".
func TestCollectorAnswerNotProtobuf(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	col := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write([]byte("<html>ok</html>\xff\xff\xff"))
	}))
	defer col.Close()
	x, err := New(Options{Endpoint: col.URL + "/v1/traces", BatchTimeout: 10 * time.Millisecond, Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s := loadFixture(t, "succeeded.json")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st := x.Close(ctx, s)
	if hits.Load() == 0 || st.Err != nil || st.Failed != 0 || st.Spans == 0 {
		t.Errorf("stats %+v after %d requests: want every span exported", st, hits.Load())
	}
}
