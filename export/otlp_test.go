package export

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

func hexID(b [8]byte) string { return hex.EncodeToString(b[:]) }

func nanos(t time.Time) uint64 { return uint64(t.UnixNano()) }

// TestSpanTree exports the fixture runs to a real OTLP/HTTP receiver and
// checks the span tree against the store's agent tree: names, kinds,
// parents, attributes, statuses and the trace's own times.
func TestSpanTree(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"succeeded.json", "failed.json", "running.json"} {
		t.Run(name, func(t *testing.T) {
			r := newReceiver(t)
			s := loadFixture(t, name)
			job := s.Run().ID
			st := exportTo(t, r, s, Options{Version: "test"})
			spans := r.final()
			want := 1 + len(s.Agents()) + len(s.ToolCalls()) + len(s.Sessions())
			if len(spans) != want || st.Spans != r.received() || r.received() != want {
				t.Fatalf("%d spans (%d received, stats %d), want %d", len(spans), r.received(), st.Spans, want)
			}
			traceID := TraceID(job)
			for _, sp := range spans {
				if !bytes.Equal(sp.TraceId, traceID[:]) {
					t.Fatalf("span %s in trace %x, want %x", sp.Name, sp.TraceId, traceID)
				}
				if sp.EndTimeUnixNano < sp.StartTimeUnixNano {
					t.Errorf("span %s ends before it starts", sp.Name)
				}
			}
			last := lastTime(s)

			// The run.
			root := spans[hexID(SpanID(job, "run", ""))]
			if root == nil {
				t.Fatal("no run span")
			}
			ra := attrs(root.Attributes)
			if !strings.HasPrefix(root.Name, "invoke_agent run "+job[:8]) || root.Kind != tracepb.Span_SPAN_KIND_CLIENT || len(root.ParentSpanId) != 0 {
				t.Errorf("run span %q kind %v parent %x", root.Name, root.Kind, root.ParentSpanId)
			}
			for k, v := range map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "firecrawl",
				"gen_ai.conversation.id": job, "openinference.span.kind": "AGENT", "langfuse.observation.type": "agent",
				"firecrawl.credits_used": s.Run().CreditsUsed} {
				if ra[k] != v {
					t.Errorf("run span %s = %v, want %v", k, ra[k], v)
				}
			}
			if _, ok := ra["gen_ai.agent.id"]; ok {
				t.Error("the run span repeats the orchestrator's gen_ai.agent.id")
			}
			run := s.Run()
			if root.StartTimeUnixNano != nanos(run.StartedAt) {
				t.Errorf("run starts at %d, want %d", root.StartTimeUnixNano, nanos(run.StartedAt))
			}
			switch {
			case run.State != model.StateFinished:
				if ra["firecrawl.unfinished"] != true || root.EndTimeUnixNano != nanos(last) {
					t.Errorf("open run: unfinished %v, end %d, want true at %d", ra["firecrawl.unfinished"], root.EndTimeUnixNano, nanos(last))
				}
			case run.Outcome == model.OutcomeSucceeded:
				if root.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR || ra["firecrawl.outcome"] != "succeeded" || root.EndTimeUnixNano != nanos(run.FinishedAt) {
					t.Errorf("succeeded run: status %v outcome %v end %d", root.Status, ra["firecrawl.outcome"], root.EndTimeUnixNano)
				}
			default:
				if root.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || ra["error.type"] != string(run.Error.Code) || root.Status.Message != run.Error.Message {
					t.Errorf("failed run: status %v, error.type %v, want Error / %s", root.Status, ra["error.type"], run.Error.Code)
				}
			}

			// Each agent, under the agent that spawned it.
			for _, a := range s.Agents() {
				sp := spans[hexID(SpanID(job, "agent", a.ID))]
				if sp == nil {
					t.Fatalf("no span for agent %s", a.Name)
				}
				parent := SpanID(job, "run", "")
				if a.Parent != nil {
					parent = SpanID(job, "agent", a.Parent.ID)
				}
				aa := attrs(sp.Attributes)
				if sp.Name != "invoke_agent "+a.Name || sp.Kind != tracepb.Span_SPAN_KIND_INTERNAL || !bytes.Equal(sp.ParentSpanId, parent[:]) {
					t.Errorf("agent %s: span %q kind %v parent %x, want parent %x", a.Name, sp.Name, sp.Kind, sp.ParentSpanId, parent)
				}
				if aa["gen_ai.agent.id"] != a.ID || aa["gen_ai.agent.name"] != a.Name || aa["gen_ai.operation.name"] != "invoke_agent" {
					t.Errorf("agent %s attributes %v", a.Name, aa)
				}
				if sp.StartTimeUnixNano != nanos(a.StartedAt) {
					t.Errorf("agent %s starts at %d, want %d", a.Name, sp.StartTimeUnixNano, nanos(a.StartedAt))
				}
				if a.State == model.StateFinished && sp.EndTimeUnixNano != nanos(a.FinishedAt) {
					t.Errorf("agent %s ends at %d, want %d", a.Name, sp.EndTimeUnixNano, nanos(a.FinishedAt))
				}
				if a.State != model.StateFinished && (aa["firecrawl.unfinished"] != true || sp.EndTimeUnixNano != nanos(last)) {
					t.Errorf("open agent %s: unfinished %v end %d", a.Name, aa["firecrawl.unfinished"], sp.EndTimeUnixNano)
				}
				failed := a.State == model.StateFinished && a.Outcome == model.OutcomeFailed && !model.Stopped(a.Outcome, a.Error)
				if got := sp.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR; got != failed {
					t.Errorf("agent %s (%s): error status %v", a.Name, a.Outcome, got)
				}
				if failed && a.Error != nil && aa["error.type"] != string(a.Error.Code) {
					t.Errorf("agent %s: error.type %v, want %s", a.Name, aa["error.type"], a.Error.Code)
				}
				// Its reasoning, progress, artifact and error events.
				var wantEvents int
				for _, e := range a.Events {
					switch e.Payload.(type) {
					case model.ReasoningSummary, model.ProgressReported, model.ArtifactUpdated, model.ErrorOccurred:
						wantEvents++
					}
				}
				if len(sp.Events) != wantEvents {
					t.Errorf("agent %s: %d span events, want %d", a.Name, len(sp.Events), wantEvents)
				}
			}

			// Each tool call, under its agent.
			for _, tc := range s.ToolCalls() {
				sp := spans[hexID(SpanID(job, "tool", toolKey(tc)))]
				if sp == nil {
					t.Fatalf("no span for tool call %s", tc.ID)
				}
				parent := SpanID(job, "agent", tc.Agent.ID)
				ta := attrs(sp.Attributes)
				if sp.Name != "execute_tool "+tc.Name || !bytes.Equal(sp.ParentSpanId, parent[:]) ||
					ta["gen_ai.tool.name"] != tc.Name || ta["gen_ai.tool.call.id"] != tc.ID || ta["gen_ai.operation.name"] != "execute_tool" ||
					ta["openinference.span.kind"] != "TOOL" || ta["langfuse.observation.type"] != "tool" {
					t.Errorf("tool call %s: span %q parent %x attributes %v", tc.ID, sp.Name, sp.ParentSpanId, ta)
				}
				if _, ok := ta["gen_ai.tool.call.arguments"]; ok {
					t.Errorf("tool call %s: parameters exported without Content", tc.ID)
				}
				if tc.Started != nil && sp.StartTimeUnixNano != nanos(tc.Started.OccurredAt) {
					t.Errorf("tool call %s starts at %d", tc.ID, sp.StartTimeUnixNano)
				}
				if tc.State == model.StateFinished && sp.EndTimeUnixNano != nanos(tc.Finished.OccurredAt) {
					t.Errorf("tool call %s ends at %d", tc.ID, sp.EndTimeUnixNano)
				}
				if tc.State != model.StateFinished && ta["firecrawl.unfinished"] != true {
					t.Errorf("tool call %s (%s) not marked unfinished", tc.ID, tc.State)
				}
				if got := sp.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR; got != tc.Failed() {
					t.Errorf("tool call %s: error status %v, failed %v", tc.ID, got, tc.Failed())
				}
				if len(tc.Errors) > 0 && ta["error.type"] != string(tc.Errors[0].Error.Code) {
					t.Errorf("tool call %s: error.type %v", tc.ID, ta["error.type"])
				}
			}
			for _, bs := range s.Sessions() {
				sp := spans[hexID(SpanID(job, "session", bs.ID))]
				parent := SpanID(job, "agent", bs.Agent.ID)
				if sp == nil || sp.Name != "browser_session" || !bytes.Equal(sp.ParentSpanId, parent[:]) {
					t.Errorf("browser session %s: span %v", bs.ID, sp)
				}
			}
			// Live-view URLs never leave.
			for _, l := range s.LiveSessions() {
				if l.LiveViewURL != "" && r.contains(l.LiveViewURL) {
					t.Errorf("the live-view URL %s was exported", l.LiveViewURL)
				}
			}
			if ra := attrs(r.res); ra["service.name"] != "firewatch" {
				t.Errorf("resource %v", ra)
			}
		})
	}
}

func TestRunningFixtureHasLiveView(t *testing.T) {
	t.Parallel()
	s := loadFixture(t, "running.json")
	if len(s.LiveSessions()) == 0 || s.LiveSessions()[0].LiveViewURL == "" {
		t.Fatal("running.json has no live-view URL: the leak check in TestSpanTree checks nothing")
	}
}

// TestContent: parameters and results only when asked for; the key never.
func TestContent(t *testing.T) {
	t.Parallel()
	s := loadFixture(t, "succeeded.json")
	tc := s.ToolCalls()[0]
	secret := "fc-" + strings.Repeat("5ec2e7", 5)
	r := newReceiver(t)
	exportTo(t, r, s, Options{Content: true, Secrets: text.NewSecrets(secret)})
	sp := r.final()[hexID(SpanID(s.Run().ID, "tool", toolKey(tc)))]
	ta := attrs(sp.Attributes)
	if ta["gen_ai.tool.call.arguments"] != string(tc.Parameters) || ta["gen_ai.tool.call.result"] != string(tc.Result) {
		t.Errorf("content: arguments %v result %v", ta["gen_ai.tool.call.arguments"], ta["gen_ai.tool.call.result"])
	}
	if r.contains(secret) {
		t.Error("the key reached the OTLP endpoint")
	}
}

// TestSameIDsTwice: two exports of one run give the same trace, span ids
// and content (the backend de-duplicates).
func TestSameIDsTwice(t *testing.T) {
	t.Parallel()
	a, b := newReceiver(t), newReceiver(t)
	exportTo(t, a, loadFixture(t, "failed.json"), Options{Version: "x"})
	exportTo(t, b, loadFixture(t, "failed.json"), Options{Version: "x"})
	equalSpans(t, a.final(), b.final())
}

func equalSpans(t *testing.T, a, b map[string]*tracepb.Span) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d spans against %d", len(a), len(b))
	}
	for id, sa := range a {
		sb := b[id]
		if sb == nil {
			t.Errorf("span %s (%s) missing from the second export", id, sa.Name)
			continue
		}
		if !proto.Equal(sa, sb) {
			t.Errorf("span %s (%s) differs:\n%v\n%v", id, sa.Name, sa, sb)
		}
	}
}

// simRun records a live watch of the simulator, exporting as it goes.
// It returns the recording.
func simRun(t *testing.T, scenario string, o Options, observe bool) ([]byte, *model.Store, Stats) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := sim.Start(ctx, sim.Options{Scenarios: []string{scenario}, Speed: 300, Seed: 5, RateLimit: -1,
		Now: func() time.Time { return time.Date(2026, 3, 14, 9, 26, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	o.Secrets = c.Secrets()
	x, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	s := model.NewStore()
	w := c.Watch(srv.Jobs[0].ID, poller.WatchOptions{Interval: 100 * time.Millisecond, Tail: 2, Record: &rec, LiveView: true})
	t.Cleanup(func() {
		if observe && x.live == 0 {
			t.Error("no span was sent while watching: Observe sent nothing as spans ended")
		}
	})
	if err := w.Run(ctx, func(u poller.Update) {
		if u.Poll != nil {
			d := s.Merge(u.Poll)
			if observe {
				x.Observe(s, d)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	return rec.Bytes(), s, x.Close(cctx, s)
}

// TestLiveEqualsReplay: spans sent while watching the simulator (each as
// it ended) end up identical, ids and all, to the export of the watch's
// recording; the key and the live-view URLs never reach the endpoint.
func TestLiveEqualsReplay(t *testing.T) {
	t.Parallel()
	live := newReceiver(t)
	rec, s, st := simRun(t, sim.ScenarioResearch, Options{Endpoint: live.URL, BatchTimeout: 50 * time.Millisecond}, true)
	if st.Err != nil || st.Failed != 0 {
		t.Fatalf("live export: %+v", st)
	}
	if s.Run().State != model.StateFinished {
		t.Fatal("the simulated run did not finish")
	}
	replayed, err := Load(context.Background(), bytes.NewReader(rec))
	if err != nil {
		t.Fatal(err)
	}
	again := newReceiver(t)
	exportTo(t, again, replayed, Options{})
	equalSpans(t, live.final(), again.final())
	if live.contains("liveView") || live.contains("/live/") {
		t.Error("a live-view URL reached the endpoint")
	}
}

// TestLiveFeedEqualsReplay: the Live exporter, fed the watch's polls and
// keeping its own store, ends with the same spans as the recording's
// export.
func TestLiveFeedEqualsReplay(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := sim.Start(ctx, sim.Options{Scenarios: []string{sim.ScenarioFailure}, Speed: 300, Seed: 9, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, _ := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	live := newReceiver(t)
	l, err := NewLive(Options{Endpoint: live.URL, Secrets: text.NewSecrets(srv.Key), BatchTimeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	s := model.NewStore()
	err = c.Watch(srv.Jobs[0].ID, poller.WatchOptions{Interval: 100 * time.Millisecond, Tail: 1, Record: &rec}).Run(ctx, func(u poller.Update) {
		l.Feed(u.Poll)
		if u.Poll != nil {
			s.Merge(u.Poll)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if st := l.Close(ctx); st.Err != nil || st.Spans == 0 {
		t.Fatalf("live export: %+v", st)
	}
	replayed, err := Load(ctx, bytes.NewReader(rec.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	again := newReceiver(t)
	exportTo(t, again, replayed, Options{})
	equalSpans(t, live.final(), again.final())
	if live.contains(srv.Key) {
		t.Error("the key reached the OTLP endpoint")
	}
}

// TestFailingEndpoint: an endpoint that does not answer neither blocks
// the watch nor changes how it ends; the failure is reported once.
func TestFailingEndpoint(t *testing.T) {
	t.Parallel()
	r := newReceiver(t)
	hold := make(chan struct{})
	r.mu.Lock()
	r.hold = hold
	r.mu.Unlock()
	var reports []error
	_, s, _ := func() ([]byte, *model.Store, Stats) {
		// The watch runs to its end while the endpoint holds every
		// request: it never waited for it.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		srv, err := sim.Start(ctx, sim.Options{Scenarios: []string{sim.ScenarioFailure}, Speed: 300, Seed: 5, RateLimit: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		c, _ := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
		x, err := New(Options{Endpoint: r.URL, BatchTimeout: 10 * time.Millisecond, Timeout: 200 * time.Millisecond,
			OnError: func(err error) { reports = append(reports, err) }})
		if err != nil {
			t.Fatal(err)
		}
		s := model.NewStore()
		err = c.Watch(srv.Jobs[0].ID, poller.WatchOptions{Interval: 100 * time.Millisecond, Tail: 1}).Run(ctx, func(u poller.Update) {
			if u.Poll != nil {
				x.Observe(s, s.Merge(u.Poll))
			}
		})
		if err != nil {
			t.Fatalf("the watch ended with %v", err)
		}
		if s.Run().Outcome != model.OutcomeFailed {
			t.Fatalf("outcome %q", s.Run().Outcome)
		}
		if r.received() != 0 {
			t.Fatal("the endpoint answered while held")
		}
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		st := x.Close(cctx, s)
		close(hold)
		if st.Err == nil || st.Spans != 0 {
			t.Errorf("stats %+v: want a failure and no span delivered", st)
		}
		return nil, s, st
	}()
	_ = s
	if len(reports) != 1 {
		t.Errorf("%d failure reports, want exactly 1: %v", len(reports), reports)
	}
}

func TestResolveEndpoint(t *testing.T) {
	for _, c := range []struct {
		flag, traces, base, want, err string
	}{
		{want: DefaultEndpoint},
		{flag: "http://127.0.0.1:4318", want: "http://127.0.0.1:4318/v1/traces"},
		{flag: "https://cloud.langfuse.com/api/public/otel/", want: "https://cloud.langfuse.com/api/public/otel/v1/traces"},
		{flag: "http://h:1/v1/traces", want: "http://h:1/v1/traces"},
		{base: "https://api.honeycomb.io", want: "https://api.honeycomb.io/v1/traces"},
		{traces: "http://jaeger:4318/custom", base: "http://other", want: "http://jaeger:4318/custom"},
		{flag: "localhost:4318", err: "http:// or https://"},
		{flag: "http://user:pw@h/", err: "OTEL_EXPORTER_OTLP_HEADERS"},
		{flag: "http://127.0.0.1:99999", err: "port 99999 is not between 1 and 65535"},
		{base: "http://127.0.0.1:0", err: "port 0"},
	} {
		t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", c.traces)
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", c.base)
		got, err := ResolveEndpoint(c.flag)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: error %v, want one saying %q", c, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%+v: %q, %v; want %q", c, got, err, c.want)
		}
	}
}

// TestManySpans: a run of thousands of tool calls loses no span to the
// batch processor's bounded queue (an offline export ends them all at
// once).
func TestManySpans(t *testing.T) {
	t.Parallel()
	const calls = 5000
	s := model.NewStore()
	if _, err := s.Ingest(manyCalls(calls)); err != nil {
		t.Fatal(err)
	}
	r := newReceiver(t)
	st := exportTo(t, r, s, Options{})
	if want := calls + 2; st.Spans != want || len(r.final()) != want || st.Failed != 0 {
		t.Errorf("%d spans sent, %d received, %d failed; want %d", st.Spans, len(r.final()), st.Failed, want)
	}
}

// manyCalls is the trace body of a finished run of one agent making n
// tool calls.
func manyCalls(n int) []byte {
	run, agent := "11111111-2222-4333-8444-555555555555", "aaaaaaaa-0000-4000-8000-000000000001"
	base := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	seq := 0
	ev := func(typ, extra string) {
		if seq > 0 {
			b.WriteByte(',')
		}
		seq++
		fmt.Fprintf(&b, `{"schemaVersion":1,"eventId":"eeeeeeee-0000-4000-8000-%012d","runId":"%s","occurredAt":"%s","producerSequence":%d,"agent":{"id":"%s","role":"orchestrator","name":"o"},"type":"%s"%s}`,
			seq, run, base.Add(time.Duration(seq)*time.Millisecond).Format(time.RFC3339Nano), seq, agent, typ, extra)
	}
	b.WriteString(`{"success":true,"id":"` + run + `","events":[`)
	ev("run.started", "")
	ev("agent.started", "")
	for i := 0; i < n; i++ {
		ev("tool_call.started", fmt.Sprintf(`,"toolCallId":"c%d","toolName":"t","parameters":{}`, i))
		ev("tool_call.finished", fmt.Sprintf(`,"toolCallId":"c%d","toolName":"t","result":{}`, i))
	}
	ev("agent.finished", `,"outcome":"succeeded","durationMs":1,"error":null`)
	ev("run.finished", `,"outcome":"succeeded","error":null`)
	b.WriteString("]}")
	return b.Bytes()
}

// TestLiveCloseGivesUp: with an endpoint that holds every request and more
// spans than one flush, Close returns when its context ends, counts the
// spans as not delivered, and races with nothing.
func TestLiveCloseGivesUp(t *testing.T) {
	t.Parallel()
	r := newReceiver(t)
	hold := make(chan struct{})
	r.mu.Lock()
	r.hold = hold
	r.mu.Unlock()
	defer close(hold)
	l, err := NewLive(Options{Endpoint: r.URL, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	p, err := model.NewDecoder().Decode(manyCalls(3 * flushEvery))
	if err != nil {
		t.Fatal(err)
	}
	l.Feed(p)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	st := l.Close(ctx)
	if st.Err == nil || st.Spans != 0 {
		t.Errorf("stats %+v: want a failure and nothing delivered", st)
	}
}

// TestServiceNameFromEnvironment: OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES win over firewatch's defaults.
func TestServiceNameFromEnvironment(t *testing.T) {
	t.Setenv("OTEL_SERVICE_NAME", "agents-prod")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod")
	r := newReceiver(t)
	exportTo(t, r, loadFixture(t, "failed.json"), Options{Version: "v9"})
	ra := attrs(r.res)
	if ra["service.name"] != "agents-prod" || ra["deployment.environment"] != "prod" || ra["service.version"] != "v9" {
		t.Errorf("resource %v", ra)
	}
}
