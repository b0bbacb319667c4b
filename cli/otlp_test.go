package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	collpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/firewatch/firewatch/sim"
)

const fixture = "../ui/testdata/failed.json"

// closedEndpoint is an OTLP URL on loopback where nothing listens.
func closedEndpoint(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// TestOTLPFailureKeepsExitCode: a replay exports to an endpoint that is
// down: the exit code is the run's, the failure is said once on stderr.
func TestOTLPFailureKeepsExitCode(t *testing.T) {
	ctx := context.Background()
	_, _, want := run(t, ctx, "replay", fixture, "-o", "plain")
	out, errOut, code := run(t, ctx, "replay", fixture, "-o", "plain", "--otlp-endpoint", closedEndpoint(t))
	if code != want || want != ExitFailed {
		t.Errorf("exit %d with the export failing, %d without (want %d)", code, want, ExitFailed)
	}
	if n := strings.Count(errOut, "OTLP export"); n != 1 {
		t.Errorf("the failure is reported %d times, want once:\n%s", n, errOut)
	}
	if !strings.Contains(out, "failed") {
		t.Errorf("the plain output is missing:\n%s", out)
	}
}

func TestExportCommand(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/v1/traces" && r.Header.Get("Content-Type") == "application/x-protobuf" {
			requests.Add(1)
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	ctx := context.Background()
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"export", fixture, "--otlp-endpoint", srv.URL}, ExitOK, "exported 35 spans of run 5eb381f7-65e6-43da-906e-1dc97016172b"},
		{[]string{"export", fixture, "--otlp-endpoint", closedEndpoint(t)}, ExitFailed, ""},
		{[]string{"export", fixture, "--otlp-endpoint", "localhost:4318"}, ExitUsage, ""},
		{[]string{"export", "no-such-file.ndjson"}, ExitUsage, ""},
		{[]string{"replay", fixture, "--otlp-content"}, ExitUsage, ""},
		{[]string{"report", fixture, "--format", "pdf"}, ExitUsage, ""},
		{[]string{"report", fixture, "--format", "md"}, ExitOK, "## firewatch report: run `5eb381f7"},
		{[]string{"report", fixture}, ExitOK, "Content-Security-Policy"},
	} {
		out, errOut, code := run(t, ctx, c.args...)
		if code != c.code || !strings.Contains(out, c.out) {
			t.Errorf("%v: exit %d (want %d), stdout %.200q, stderr %q", c.args, code, c.code, out, errOut)
		}
	}
	if requests.Load() == 0 {
		t.Error("the endpoint got no OTLP request")
	}
}

// TestReportJobID: a report of a job id fetches the trace and the result
// artifact's latest content from the service (the simulator here); the
// key appears nowhere in it.
func TestReportJobID(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := sim.Start(ctx, sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 1000, Seed: 3, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	job := srv.Jobs[0].ID
	if err := srv.WaitFinished(ctx, job); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	for _, format := range []string{"html", "md"} {
		out, errOut, code := run(t, ctx, "report", job, "--api-url", srv.URL, "--format", format)
		if code != ExitOK {
			t.Fatalf("report %s: exit %d: %s", format, code, errOut)
		}
		if strings.Contains(out, srv.Key) || strings.Contains(errOut, srv.Key) {
			t.Errorf("%s: the key is in the report", format)
		}
		if heading := map[string]string{"html": `<h2 id="result">Result</h2>`, "md": "### Result"}[format]; !strings.Contains(out, heading) || !strings.Contains(out, "vendors") {
			t.Errorf("the %s report has no result content", format)
		}
		if !strings.Contains(out, job) {
			t.Errorf("%s: the report does not name the job", format)
		}
	}
	_, errOut, code := run(t, ctx, "report", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "--api-url", srv.URL)
	if code != ExitRejected {
		t.Errorf("report of an unknown job: exit %d (want %d): %s", code, ExitRejected, errOut)
	}
}

// otlpSink is an OTLP/HTTP endpoint that keeps the last version of each
// span it is sent, decoded with the official protobuf types.
type otlpSink struct {
	mu    sync.Mutex
	spans map[string]*tracepb.Span
	URL   string
}

func newOTLPSink(t *testing.T) *otlpSink {
	s := &otlpSink{spans: map[string]*tracepb.Span{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req collpb.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			t.Errorf("not an OTLP request: %v", err)
		}
		s.mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					s.spans[string(sp.SpanId)] = sp
				}
			}
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// traceIDs is the set of trace ids of the spans received, in hex.
func (s *otlpSink) traceIDs() map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := map[string]bool{}
	for _, sp := range s.spans {
		ids[fmt.Sprintf("%x", sp.TraceId)] = true
	}
	return ids
}

// TestDemoOTLPEqualsExport: the spans a demo sends live (--otlp) are the
// spans firewatch export sends from the demo's recording: same ids, same
// content.
func TestDemoOTLPEqualsExport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := filepath.Join(t.TempDir(), "run.ndjson")
	live, again := newOTLPSink(t), newOTLPSink(t)
	_, errOut, code := run(t, ctx, "demo", "--scenario", "failure", "--speed", "200", "-o", "json", "--record", rec, "--otlp-endpoint", live.URL)
	if code != ExitFailed {
		t.Fatalf("demo: exit %d: %s", code, errOut)
	}
	if _, errOut, code := run(t, ctx, "export", rec, "--otlp-endpoint", again.URL); code != ExitOK {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	if len(live.spans) == 0 || len(live.spans) != len(again.spans) {
		t.Fatalf("%d spans live, %d exported", len(live.spans), len(again.spans))
	}
	for id, a := range live.spans {
		if b := again.spans[id]; b == nil || !proto.Equal(a, b) {
			t.Errorf("span %x (%s) differs between the live export and the recording's", id, a.Name)
		}
	}
}

// signalWriter is a writer that closes seen once what it was written holds
// want.
type signalWriter struct {
	mu   sync.Mutex
	b    strings.Builder
	want string
	seen chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := strings.Contains(w.b.String(), w.want)
	w.b.Write(p)
	if !had && strings.Contains(w.b.String(), w.want) {
		close(w.seen)
	}
	return len(p), nil
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestOTLPQuietWatchEqualsExport: a watch that gets nothing new for longer
// than --stall while the run's own clock stands still (the service slow to
// answer, or this machine loaded, as the demo's clock at --speed 200 makes
// 300 ms) raises a run-wide stall from its wall clock, which the recording
// does not hold. The run span the watch sends live is still the one
// firewatch export sends from the recording.
func TestOTLPQuietWatchEqualsExport(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := sim.Start(ctx, sim.Options{Scenarios: []string{sim.ScenarioFailure}, Speed: 200, Seed: 7, RateLimit: -1, Held: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rec := filepath.Join(t.TempDir(), "run.ndjson")
	live, again := newOTLPSink(t), newOTLPSink(t)
	errOut := &signalWriter{want: "the whole run quiet", seen: make(chan struct{})}
	done := make(chan int, 1)
	go func() {
		done <- Execute(ctx, []string{"watch", srv.Jobs[0].ID, "--api-url", srv.URL, "--api-key", srv.Key, "-o", "json", "--archive", "off",
			"--interval", "100ms", "--stall", "1s", "--record", rec, "--otlp-endpoint", live.URL}, strings.NewReader(""), io.Discard, errOut)
	}()
	// The run's clock stands at its start until the watch has raised the
	// stall; then the run goes on to its end.
	select {
	case <-errOut.seen:
	case code := <-done:
		t.Fatalf("watch: exit %d before a stall: %s", code, errOut)
	case <-ctx.Done():
		t.Fatalf("no stall raised: %s", errOut)
	}
	srv.Release()
	if code := <-done; code != ExitFailed {
		t.Fatalf("watch: exit %d: %s", code, errOut)
	}
	if _, out, code := run(t, ctx, "export", rec, "--otlp-endpoint", again.URL); code != ExitOK {
		t.Fatalf("export: exit %d: %s", code, out)
	}
	if len(live.spans) == 0 || len(live.spans) != len(again.spans) {
		t.Fatalf("%d spans live, %d exported", len(live.spans), len(again.spans))
	}
	for id, a := range live.spans {
		if b := again.spans[id]; b == nil || !proto.Equal(a, b) {
			t.Errorf("span %x (%s) differs between the live export and the recording's:\nlive:   %v\nexport: %v", id, a.Name, a.GetAttributes(), b.GetAttributes())
		}
	}
}
