package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/firewatch/firewatch/attention/attentiontest"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/sim"
)

// The run span says what was asked: the model, effort and cap always, the
// prompt (cut short) and urls only with content; its name tells runs
// apart. Resource attributes follow the conventions.
func TestRunSpanRequest(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Compare the pricing of five APIs. ", 200)
	for _, content := range []bool{false, true} {
		r := newReceiver(t)
		s := loadFixture(t, "succeeded.json")
		s.SetRequest(model.Request{Prompt: long, Model: "spark-2", Effort: "high", URLs: []string{"https://a.example"}, MaxCredits: 400})
		exportTo(t, r, s, Options{Version: "1.2.3", Content: content})
		job := s.Run().ID
		root := r.final()[hexID(SpanID(job, "run", ""))]
		ra := attrs(root.Attributes)
		if ra["gen_ai.request.model"] != "spark-2" || ra["firecrawl.request.effort"] != "high" || ra["firecrawl.request.max_credits"] != 400.0 {
			t.Errorf("content %v: request attributes %v", content, ra)
		}
		msgs, hasPrompt := ra["gen_ai.input.messages"].(string)
		if hasPrompt != content || r.contains("Compare the pricing") != content {
			t.Errorf("content %v: the prompt is exported: %v", content, hasPrompt)
		}
		if content && (!strings.Contains(msgs, `"role":"user"`) || len(msgs) > maxPromptAttr+200) {
			t.Errorf("prompt attribute %.100q… (%d bytes)", msgs, len(msgs))
		}
		wantName := "invoke_agent run " + job[:8] + " spark-2"
		if content {
			wantName += ": Compare the pricing"
		}
		if !strings.HasPrefix(root.Name, wantName) || len(root.Name) > 120 {
			t.Errorf("content %v: run span %q, want it to start %q", content, root.Name, wantName)
		}
		res := attrs(r.res)
		for k, v := range map[string]any{"service.name": "firewatch", "service.version": "1.2.3", "telemetry.sdk.language": "go", "telemetry.sdk.name": "opentelemetry"} {
			if res[k] != v {
				t.Errorf("resource %s = %v, want %v", k, res[k], v)
			}
		}
	}
}

// A cancel is an outcome, not an error: the run and the agents it cut
// short have status Unset and say why in firecrawl.*; a failure is an
// Error. Browser sessions carry their agent.
func TestCancelIsNotAnError(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "ui", "testdata", "failed.json"))
	if err != nil {
		t.Fatal(err)
	}
	cancelled := strings.Replace(string(b), `"type":"run.finished","outcome":"failed","error":{"code":"internal"`, `"type":"run.finished","outcome":"cancelled","error":{"code":"cancelled"`, 1)
	if cancelled == string(b) {
		t.Fatal("the fixture's run.finished changed")
	}
	for _, tc := range []struct {
		body    string
		outcome string
		status  tracepb.Status_StatusCode
	}{
		{string(b), "failed", tracepb.Status_STATUS_CODE_ERROR},
		{cancelled, "cancelled", tracepb.Status_STATUS_CODE_UNSET},
	} {
		s := model.NewStore()
		if _, err := s.Ingest([]byte(tc.body)); err != nil {
			t.Fatal(err)
		}
		r := newReceiver(t)
		exportTo(t, r, s, Options{})
		job := s.Run().ID
		spans := r.final()
		root := spans[hexID(SpanID(job, "run", ""))]
		ra := attrs(root.Attributes)
		if root.Status.GetCode() != tc.status || ra["firecrawl.outcome"] != tc.outcome {
			t.Errorf("%s run: status %v outcome %v", tc.outcome, root.Status.GetCode(), ra["firecrawl.outcome"])
		}
		if _, ok := ra["error.type"]; ok != (tc.status == tracepb.Status_STATUS_CODE_ERROR) {
			t.Errorf("%s run: error.type %v", tc.outcome, ra["error.type"])
		}
		for _, a := range s.Agents() {
			sp := spans[hexID(SpanID(job, "agent", a.ID))]
			if model.Stopped(a.Outcome, a.Error) && sp.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
				t.Errorf("agent %s (%s) stopped: status Error", a.Name, a.Outcome)
			}
		}
		for _, ss := range s.Sessions() {
			sp := spans[hexID(SpanID(job, "session", ss.ID))]
			sa := attrs(sp.Attributes)
			if ss.Agent != nil && (sa["gen_ai.agent.id"] != ss.Agent.ID || sa["gen_ai.agent.name"] != ss.Agent.Name) {
				t.Errorf("session %s: agent attributes %v", ss.ID, sa)
			}
			if sp.Kind != tracepb.Span_SPAN_KIND_INTERNAL || sa["openinference.span.kind"] != "TOOL" || sa["langfuse.observation.type"] != "tool" {
				t.Errorf("session %s: kind %v, %v", ss.ID, sp.Kind, sa)
			}
		}
	}
}

// The budget item the live watch raised (the burn run against its
// 1,000-credit cap) is in the report of its recording, which names the
// cap: the report steps through the polls as the watch did. The run hit
// its cap: both reports say so, and the item is neither "still open" nor
// cleared.
func TestReportBudgetFromRequest(t *testing.T) {
	t.Parallel()
	bodies, maxCredits := attentiontest.SimPolls(t, sim.ScenarioBurn, 2*time.Second)
	s := model.NewStore()
	s.SetRequest(model.Request{MaxCredits: float64(maxCredits)})
	for _, b := range bodies {
		if _, err := s.Ingest(b); err != nil {
			t.Fatal(err)
		}
	}
	var md strings.Builder
	if err := Report(&md, s, FormatMarkdown, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	if !strings.Contains(out, "**budget**") || !strings.Contains(out, "1,000-credit cap") || strings.Contains(out, "(assumed)") {
		t.Errorf("the report lost the budget item or the cap:\n%s", out)
	}
	var html strings.Builder
	if err := Report(&html, s, FormatHTML, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{out, html.String()} {
		if !strings.Contains(r, "the run hit its 1,000-credit cap and stopped") || strings.Contains(r, "still open") || strings.Contains(r, "cleared") {
			t.Errorf("the budget of a run that hit its cap:\n%s", r)
		}
	}
}

// Two runs the service started in the same minute have UUIDv7 ids with the
// same first 8 characters: their run spans are still told apart.
func TestRunNamesOfRunsStartedTogether(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, id := range []string{"019b3da6-6c78-7178-99f3-5c79f815bdfa", "019b3da6-6c79-7a01-8c2e-0d4be2a91c37"} {
		b := newBuilder(model.NewStore(), id, false, nil, model.Request{Model: "spark-2"})
		names[b.runName()] = true
	}
	if len(names) != 2 {
		t.Fatalf("two runs, one run span name: %v", names)
	}
	if !names["invoke_agent run f815bdfa spark-2"] {
		t.Errorf("run span names %v", names)
	}
}
