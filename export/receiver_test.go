package export

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	collpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/firewatch/firewatch/model"
)

// receiver is a real OTLP/HTTP endpoint on loopback: it decodes every
// request with the official OTLP protobuf types and keeps the spans.
type receiver struct {
	t   testing.TB
	srv *httptest.Server
	URL string // the traces URL

	mu      sync.Mutex
	bodies  [][]byte
	headers []http.Header
	spans   []*tracepb.Span // in the order received
	scopes  []string
	res     []*commonpb.KeyValue
	closing bool // the test has ended: its server closes the connections

	// hold, when set, makes the handler wait until it is closed.
	hold chan struct{}
	// status, when not 0, is the answer instead of 200.
	status int
}

func newReceiver(t testing.TB) *receiver {
	r := &receiver{t: t}
	r.srv = httptest.NewServer(http.HandlerFunc(r.handle))
	t.Cleanup(func() {
		r.mu.Lock()
		r.closing = true
		r.mu.Unlock()
		r.srv.Close()
	})
	r.URL = r.srv.URL + "/v1/traces"
	return r
}

func (r *receiver) handle(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	hold, status := r.hold, r.status
	r.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-req.Context().Done():
			return
		}
	}
	if req.URL.Path != "/v1/traces" || req.Method != http.MethodPost {
		http.Error(w, "not here", http.StatusNotFound)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		r.t.Errorf("Content-Type %q, want application/x-protobuf", ct)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		// A request the client gave up on while it was held (its
		// timeout), or one cut by the server closing at the test's end,
		// was never read whole: not the exporter's fault.
		r.mu.Lock()
		closing := r.closing
		r.mu.Unlock()
		if req.Context().Err() == nil && !closing {
			r.t.Errorf("reading the request: %v", err)
		}
		return
	}
	if status != 0 {
		http.Error(w, "unavailable", status)
		return
	}
	var msg collpb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &msg); err != nil {
		r.t.Errorf("the request is not an OTLP ExportTraceServiceRequest: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.bodies = append(r.bodies, body)
	r.headers = append(r.headers, req.Header.Clone())
	for _, rs := range msg.ResourceSpans {
		r.res = rs.GetResource().GetAttributes()
		for _, ss := range rs.ScopeSpans {
			r.scopes = append(r.scopes, ss.GetScope().GetName())
			r.spans = append(r.spans, ss.Spans...)
		}
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&collpb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// final is the last version received of every span, by span id.
func (r *receiver) final() map[string]*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := make(map[string]*tracepb.Span, len(r.spans))
	for _, s := range r.spans {
		m[hex.EncodeToString(s.SpanId)] = s
	}
	return m
}

func (r *receiver) received() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.spans)
}

// contains reports whether any request body or header holds s.
func (r *receiver) contains(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.bodies {
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	for _, h := range r.headers {
		for _, vs := range h {
			for _, v := range vs {
				if bytes.Contains([]byte(v), []byte(s)) {
					return true
				}
			}
		}
	}
	return false
}

// attrs turns OTLP attributes into a map of their string forms.
func attrs(kvs []*commonpb.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = v.StringValue
		case *commonpb.AnyValue_BoolValue:
			m[kv.Key] = v.BoolValue
		case *commonpb.AnyValue_IntValue:
			m[kv.Key] = v.IntValue
		case *commonpb.AnyValue_DoubleValue:
			m[kv.Key] = v.DoubleValue
		default:
			m[kv.Key] = kv.Value.String()
		}
	}
	return m
}

// loadFixture builds a store from a saved trace body: the terminal UI's
// fixtures (ui/testdata), kept once for both.
func loadFixture(t testing.TB, name string) *model.Store {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "ui", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s := model.NewStore()
	if _, err := s.Ingest(b); err != nil {
		t.Fatal(err)
	}
	return s
}

// exportTo exports a whole store to the receiver and returns the stats.
func exportTo(t testing.TB, r *receiver, s *model.Store, o Options) Stats {
	t.Helper()
	o.Endpoint = r.URL
	x, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	st := x.Close(context.Background(), s)
	if st.Err != nil {
		t.Fatalf("export: %v", st.Err)
	}
	return st
}
