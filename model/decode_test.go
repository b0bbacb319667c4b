package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// decodeOne decodes a body holding the single event e and returns it.
func decodeOne(t *testing.T, e any) *Event {
	t.Helper()
	p, err := DecodeTrace(body(e))
	if err != nil {
		t.Fatalf("DecodeTrace: %v", err)
	}
	if len(p.Rejected) > 0 {
		t.Fatalf("rejected: %+v", p.Rejected)
	}
	if len(p.Events) != 1 {
		t.Fatalf("got %d events, want 1", len(p.Events))
	}
	return p.Events[0]
}

func TestDecodeEnvelope(t *testing.T) {
	e := decodeOne(t, ev("e-1", sub3, 42, 1500, "agent.started"))
	want := Event{
		SchemaVersion:    1,
		ID:               "e-1",
		RunID:            testRun,
		OccurredAt:       t0.Add(1500 * time.Millisecond),
		ProducerSequence: 42,
		Agent:            AgentRef{ID: "agent-sub3", Role: RoleSubagent, Name: "Deep", ParentID: "agent-sub1"},
		Type:             TypeAgentStarted,
		Payload:          AgentStarted{},
	}
	got := *e
	got.Raw, got.seq, got.pos, got.tkey, got.store = nil, 0, 0, 0, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("envelope\n got %+v\nwant %+v", got, want)
	}
	var v any
	if err := json.Unmarshal(e.Raw, &v); err != nil || !strings.HasPrefix(string(e.Raw), "{") || !strings.HasSuffix(string(e.Raw), "}") {
		t.Errorf("Raw is not the event object: %q", e.Raw)
	}
}

func TestDecodeEventKinds(t *testing.T) {
	tests := []struct {
		name  string
		event E
		want  Payload
	}{
		{"run.started", ev("e", orch, 1, 0, "run.started"), RunStarted{}},
		{"run.cancel_requested", ev("e", orch, 1, 0, "run.cancel_requested", "reason", "user"), RunCancelRequested{Reason: "user"}},
		{"run.finished succeeded", ev("e", orch, 1, 0, "run.finished", "outcome", "succeeded", "error", rawJSON("null")),
			RunFinished{Outcome: OutcomeSucceeded}},
		{"run.finished without error field", ev("e", orch, 1, 0, "run.finished", "outcome", "succeeded"),
			RunFinished{Outcome: OutcomeSucceeded}},
		{"run.finished failed", ev("e", orch, 1, 0, "run.finished", "outcome", "credit_limit_reached",
			"error", terr("credit_limit_reached", "billing", false, "maxCredits reached")),
			RunFinished{Outcome: OutcomeCreditLimitReached, Error: &TraceError{Code: CodeCreditLimitReached, Source: SourceBilling, Message: "maxCredits reached"}}},
		{"agent.started", ev("e", sub1, 1, 0, "agent.started"), AgentStarted{}},
		{"agent.finished", ev("e", sub1, 1, 0, "agent.finished", "outcome", "failed", "durationMs", 1234,
			"error", terr("internal", "agent", true, "boom")),
			AgentFinished{Outcome: OutcomeFailed, DurationMs: 1234, HasDuration: true, Error: &TraceError{Code: CodeInternal, Source: SourceAgent, Retryable: true, Message: "boom"}}},
		{"browser.session.started", ev("e", sub1, 1, 0, "browser.session.started", "sessionId", "bs-1"), BrowserSessionStarted{SessionID: "bs-1"}},
		{"browser.session.finished", ev("e", sub1, 1, 0, "browser.session.finished", "sessionId", "bs-1", "durationMs", 9000),
			BrowserSessionFinished{SessionID: "bs-1", DurationMs: 9000, HasDuration: true}},
		{"progress.reported", ev("e", orch, 1, 0, "progress.reported", "phase", "working", "message", "Reading 3 pages"),
			ProgressReported{Phase: PhaseWorking, Message: "Reading 3 pages"}},
		{"reasoning.summary", ev("e", orch, 1, 0, "reasoning.summary", "text", "I will compare prices.\nThen write."),
			ReasoningSummary{Text: "I will compare prices.\nThen write."}},
		{"tool_call.started", ev("e", sub1, 1, 0, "tool_call.started", "toolCallId", "tc-1", "toolName", "mcp__tools__scrape",
			"parameters", rawJSON(`{"url":"https://example.com","formats":["markdown"]}`)),
			ToolCallStarted{ToolCallID: "tc-1", ToolName: "mcp__tools__scrape", Parameters: jsontext.Value(`{"url":"https://example.com","formats":["markdown"]}`)}},
		{"tool_call.started null parameters", ev("e", sub1, 1, 0, "tool_call.started", "toolCallId", "tc-1", "toolName", "t", "parameters", rawJSON("null")),
			ToolCallStarted{ToolCallID: "tc-1", ToolName: "t", Parameters: jsontext.Value("null")}},
		{"tool_call.started without parameters", ev("e", sub1, 1, 0, "tool_call.started", "toolCallId", "tc-1", "toolName", "t"),
			ToolCallStarted{ToolCallID: "tc-1", ToolName: "t"}},
		{"tool_call.finished", ev("e", sub1, 1, 0, "tool_call.finished", "toolCallId", "tc-1", "toolName", "mcp__tools__scrape",
			"result", rawJSON(`[1,"two",{"three":null}]`)),
			ToolCallFinished{ToolCallID: "tc-1", ToolName: "mcp__tools__scrape", Result: jsontext.Value(`[1,"two",{"three":null}]`)}},
		{"tool_call.finished string result", ev("e", sub1, 1, 0, "tool_call.finished", "toolCallId", "tc-1", "toolName", "t", "result", "# Title\n\ntext"),
			ToolCallFinished{ToolCallID: "tc-1", ToolName: "t", Result: jsontext.Value(`"# Title\n\ntext"`)}},
		{"artifact.updated", ev("e", sub1, 1, 0, "artifact.updated", "artifact", map[string]any{
			"kind": "json", "artifactId": "result", "path": "/workspace/result.json", "snapshotId": "snap-1", "change": "append",
			"changedFields": []any{"items", "summary"}, "itemCount": 12, "sourceToolCallId": "tc-1"}),
			ArtifactUpdated{Artifact: ArtifactRef{Kind: KindJSON, ArtifactID: "result", Path: "/workspace/result.json", SnapshotID: "snap-1",
				Change: ChangeAppend, ChangedFields: []string{"items", "summary"}, ItemCount: 12, HasItemCount: true, SourceToolCallID: "tc-1"}}},
		{"artifact.updated minimal", ev("e", sub1, 1, 0, "artifact.updated", "artifact", map[string]any{
			"kind": "markdown", "artifactId": "notes", "snapshotId": "snap-2", "change": "init"}),
			ArtifactUpdated{Artifact: ArtifactRef{Kind: KindMarkdown, ArtifactID: "notes", SnapshotID: "snap-2", Change: ChangeInit}}},
		{"error.occurred", ev("e", sub1, 1, 0, "error.occurred", "error", terr("refused", "tool", false, "403 from site")),
			ErrorOccurred{Error: TraceError{Code: CodeRefused, Source: SourceTool, Message: "403 from site"}}},
		{"unknown type", ev("e", sub1, 1, 0, "agent.paused", "why", "coffee"), Unknown{}},
	}
	seen := map[EventType]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := decodeOne(t, tt.event)
			if !reflect.DeepEqual(e.Payload, tt.want) {
				t.Errorf("payload\n got %#v\nwant %#v", e.Payload, tt.want)
			}
			if e.Type != EventType(tt.event["type"].(string)) {
				t.Errorf("Type = %q", e.Type)
			}
			if got, want := e.Type.Known(), tt.name != "unknown type"; got != want {
				t.Errorf("Known() = %v", got)
			}
			seen[e.Type] = true
		})
	}
	for _, k := range typeNames[:13] {
		if !seen[EventType(k)] {
			t.Errorf("no table case for %s", k)
		}
	}
}

// Open enums: values the spec does not name are kept as they are; payload
// fields of the wrong type are read leniently.
func TestDecodeOpenEnumsAndLenientPayloads(t *testing.T) {
	browser := ag{"agent-b", "browser", "Browser", "agent-orch"}
	tests := []struct {
		name  string
		event E
		check func(t *testing.T, e *Event)
	}{
		{"unknown role", ev("e", browser, 1, 0, "agent.started"), func(t *testing.T, e *Event) {
			if e.Agent.Role != "browser" {
				t.Errorf("role %q", e.Agent.Role)
			}
		}},
		{"unknown outcome", ev("e", orch, 1, 0, "run.finished", "outcome", "timed_out", "error", terr("deadline", "scheduler", true, "too slow")),
			func(t *testing.T, e *Event) {
				want := RunFinished{Outcome: "timed_out", Error: &TraceError{Code: "deadline", Source: "scheduler", Retryable: true, Message: "too slow"}}
				if !reflect.DeepEqual(e.Payload, want) {
					t.Errorf("%#v", e.Payload)
				}
			}},
		{"unknown phase", ev("e", orch, 1, 0, "progress.reported", "phase", "reflecting", "message", "hm"), func(t *testing.T, e *Event) {
			if e.Payload != (ProgressReported{Phase: "reflecting", Message: "hm"}) {
				t.Errorf("%#v", e.Payload)
			}
		}},
		{"unknown kind and change", ev("e", orch, 1, 0, "artifact.updated", "artifact", map[string]any{
			"kind": "csv", "artifactId": "a", "snapshotId": "s", "change": "rewrite"}), func(t *testing.T, e *Event) {
			a := e.Payload.(ArtifactUpdated).Artifact
			if a.Kind != "csv" || a.Change != "rewrite" {
				t.Errorf("%#v", a)
			}
		}},
		{"error as a string", ev("e", orch, 1, 0, "error.occurred", "error", "plain text"), func(t *testing.T, e *Event) {
			if e.Payload != (ErrorOccurred{Error: TraceError{Message: "plain text"}}) {
				t.Errorf("%#v", e.Payload)
			}
		}},
		{"error missing", ev("e", orch, 1, 0, "error.occurred"), func(t *testing.T, e *Event) {
			if e.Payload != (ErrorOccurred{}) {
				t.Errorf("%#v", e.Payload)
			}
		}},
		{"wrong payload types", ev("e", sub1, 1, 0, "agent.finished", "outcome", 7, "durationMs", "12", "error", []any{1}), func(t *testing.T, e *Event) {
			if !reflect.DeepEqual(e.Payload, AgentFinished{}) {
				t.Errorf("%#v", e.Payload)
			}
		}},
		{"fractional durationMs rounds", ev("e", sub1, 1, 0, "browser.session.finished", "sessionId", "s", "durationMs", 12.6), func(t *testing.T, e *Event) {
			if e.Payload.(BrowserSessionFinished).DurationMs != 13 {
				t.Errorf("%#v", e.Payload)
			}
		}},
		{"huge durationMs is not used", ev("e", sub1, 1, 0, "browser.session.finished", "sessionId", "s", "durationMs", 1e300), func(t *testing.T, e *Event) {
			if p := e.Payload.(BrowserSessionFinished); p.DurationMs != 0 || p.HasDuration {
				t.Errorf("%#v", e.Payload)
			}
		}},
		{"odd artifact fields", ev("e", sub1, 1, 0, "artifact.updated", "artifact", map[string]any{
			"kind": 1, "artifactId": "a", "snapshotId": "s", "changedFields": []any{"ok", 2, nil, "also"}, "itemCount": 2.5}), func(t *testing.T, e *Event) {
			a := e.Payload.(ArtifactUpdated).Artifact
			if a.Kind != "" || !slices.Equal(a.ChangedFields, []string{"ok", "also"}) || a.HasItemCount {
				t.Errorf("%#v", a)
			}
		}},
		{"artifact not an object", ev("e", sub1, 1, 0, "artifact.updated", "artifact", "nope"), func(t *testing.T, e *Event) {
			if !reflect.DeepEqual(e.Payload, ArtifactUpdated{}) {
				t.Errorf("%#v", e.Payload)
			}
		}},
		{"extra fields and escapes in names", ev("e", sub1, 1, 0, "reasoning.summary", "te\u0078t", "x", "future", map[string]any{"a": []any{1}}), func(t *testing.T, e *Event) {
			if e.Payload != (ReasoningSummary{Text: "x"}) {
				t.Errorf("%#v", e.Payload)
			}
		}},
		{"escaped strings", ev("e", sub1, 1, 0, "reasoning.summary", "text", "caf\u00e9 \"quoted\" \\ tab\there"), func(t *testing.T, e *Event) {
			if e.Payload != (ReasoningSummary{Text: "café \"quoted\" \\ tab\there"}) {
				t.Errorf("%#v", e.Payload)
			}
		}},
		{"unparsable time", ev("e", sub1, 1, 0, "agent.started", "occurredAt", "yesterday"), func(t *testing.T, e *Event) {
			if !e.OccurredAt.IsZero() {
				t.Errorf("%v", e.OccurredAt)
			}
		}},
		{"time with offset", ev("e", sub1, 1, 0, "agent.started", "occurredAt", "2026-11-01T12:00:00.5+02:00"), func(t *testing.T, e *Event) {
			if !e.OccurredAt.Equal(t0.Add(500 * time.Millisecond)) {
				t.Errorf("%v", e.OccurredAt)
			}
		}},
		{"time with nanoseconds", ev("e", sub1, 1, 0, "agent.started", "occurredAt", "2026-11-01T10:00:00.123456789Z"), func(t *testing.T, e *Event) {
			if !e.OccurredAt.Equal(t0.Add(123456789)) {
				t.Errorf("%v", e.OccurredAt)
			}
		}},
		{"impossible date", ev("e", sub1, 1, 0, "agent.started", "occurredAt", "2026-02-31T10:00:00Z"), func(t *testing.T, e *Event) {
			if !e.OccurredAt.IsZero() {
				t.Errorf("%v", e.OccurredAt)
			}
		}},
		{"whole-number float sequence", ev("e", sub1, 1, 0, "agent.started", "producerSequence", rawJSON("7.0")), func(t *testing.T, e *Event) {
			if e.ProducerSequence != 7 {
				t.Errorf("%d", e.ProducerSequence)
			}
		}},
		{"exponent sequence", ev("e", sub1, 1, 0, "agent.started", "producerSequence", rawJSON("1e3")), func(t *testing.T, e *Event) {
			if e.ProducerSequence != 1000 {
				t.Errorf("%d", e.ProducerSequence)
			}
		}},
		{"negative sequence", ev("e", sub1, 1, 0, "agent.started", "producerSequence", -3), func(t *testing.T, e *Event) {
			if e.ProducerSequence != -3 {
				t.Errorf("%d", e.ProducerSequence)
			}
		}},
		{"no schemaVersion, no runId", ev("e", sub1, 1, 0, "agent.started", "schemaVersion", nil, "runId", nil), func(t *testing.T, e *Event) {
			if e.SchemaVersion != 0 || e.RunID != "" {
				t.Errorf("%d %q", e.SchemaVersion, e.RunID)
			}
		}},
		{"agent with odd fields", ev("e", sub1, 1, 0, "agent.started", "agent", map[string]any{"id": "x", "role": 5, "parentId": nil, "extra": true}), func(t *testing.T, e *Event) {
			if e.Agent != (AgentRef{ID: "x"}) {
				t.Errorf("%#v", e.Agent)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, decodeOne(t, tt.event)) })
	}
}

func TestDecodeDropsUsageRecorded(t *testing.T) {
	p, err := DecodeTrace(body(
		ev("e1", orch, 1, 0, "run.started"),
		ev("u1", orch, 2, 1, "usage.recorded", "credits", 3),
		ev("e2", orch, 3, 2, "agent.started"),
	))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(p.Events); !slices.Equal(got, []string{"e1", "e2"}) || p.Dropped != 1 || p.Total != 3 {
		t.Errorf("events %v dropped %d total %d", got, p.Dropped, p.Total)
	}
}

func TestDecodeTopLevel(t *testing.T) {
	b := bodyWith(map[string]any{
		"creditsUsed": 41.5,
		"activeBrowserSessions": []any{
			map[string]any{"id": "bs-1", "liveViewUrl": "https://live.example/bs-1", "viewport": map[string]any{"width": 1280, "height": 800}},
			map[string]any{"id": "bs-2"},
			"junk",
		},
		"future": map[string]any{"x": 1},
	}, ev("e1", orch, 1, 0, "run.started"))
	p, err := DecodeTrace(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []LiveSession{{ID: "bs-1", LiveViewURL: "https://live.example/bs-1", ViewportWidth: 1280, ViewportHeight: 800}, {ID: "bs-2"}}
	if p.RunID != testRun || !p.HasCredits || p.CreditsUsed != 41.5 || !p.HasLiveSessions || !reflect.DeepEqual(p.LiveSessions, want) {
		t.Errorf("%+v", p)
	}
	if !p.Changed() {
		t.Error("Changed() false with a new event")
	}

	// Without the optional members; creditsUsed of the wrong type is
	// ignored; success may be missing or anything; events may come first.
	for _, b := range []string{
		`{"events":[]}`,
		`{"events":[],"id":"r","creditsUsed":"12","activeBrowserSessions":null,"success":"yes","error":null}`,
		`{"error":null,"events":[]}`,
	} {
		p, err := DecodeTrace([]byte(b))
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if p.HasCredits || len(p.Events) != 0 || p.Changed() {
			t.Errorf("%s: %+v", b, p)
		}
	}
	p, _ = DecodeTrace([]byte(`{"events":[],"activeBrowserSessions":[]}`))
	if !p.HasLiveSessions || p.LiveSessions == nil || len(p.LiveSessions) != 0 {
		t.Errorf("empty activeBrowserSessions: %+v", p)
	}
	p, _ = DecodeTrace([]byte(`{"events":[]}`))
	if p.HasLiveSessions {
		t.Error("HasLiveSessions without the field")
	}
}

// Each envelope violation sets that event aside with a reason naming it; the
// other events of the body are used.
func TestDecodeRejectsBadEnvelopes(t *testing.T) {
	good := ev("good", orch, 1, 0, "run.started")
	tests := []struct {
		name   string
		event  any
		reason string
		id     string
	}{
		{"missing eventId", ev("x", orch, 2, 0, "agent.started", "eventId", nil), "missing eventId", ""},
		{"eventId a number", ev("x", orch, 2, 0, "agent.started", "eventId", 12), "eventId is a number, not a string", ""},
		{"eventId null", ev("x", orch, 2, 0, "agent.started", "eventId", rawJSON("null")), "eventId is null, not a string", ""},
		{"eventId an object", ev("x", orch, 2, 0, "agent.started", "eventId", map[string]any{}), "eventId is an object, not a string", ""},
		{"eventId empty", ev("", orch, 2, 0, "agent.started"), "eventId is empty", ""},
		{"missing agent", ev("x", orch, 2, 0, "agent.started", "agent", nil), "missing agent.id", "x"},
		{"agent a string", ev("x", orch, 2, 0, "agent.started", "agent", "agent-orch"), "agent is a string, not an object", "x"},
		{"agent an array", ev("x", orch, 2, 0, "agent.started", "agent", []any{"agent-orch"}), "agent is an array, not an object", "x"},
		{"agent null", ev("x", orch, 2, 0, "agent.started", "agent", rawJSON("null")), "agent is null, not an object", "x"},
		{"agent without id", ev("x", orch, 2, 0, "agent.started", "agent", map[string]any{"role": "orchestrator"}), "missing agent.id", "x"},
		{"agent.id a number", ev("x", orch, 2, 0, "agent.started", "agent", map[string]any{"id": 5}), "agent.id is a number, not a string", "x"},
		{"agent.id a boolean", ev("x", orch, 2, 0, "agent.started", "agent", map[string]any{"id": true}), "agent.id is a boolean, not a string", "x"},
		{"agent.id empty", ev("x", orch, 2, 0, "agent.started", "agent", map[string]any{"id": ""}), "agent.id is empty", "x"},
		{"missing type", ev("x", orch, 2, 0, "agent.started", "type", nil), "missing type", "x"},
		{"type a number", ev("x", orch, 2, 0, "agent.started", "type", 3), "type is a number, not a string", "x"},
		{"type null", ev("x", orch, 2, 0, "agent.started", "type", rawJSON("null")), "type is null, not a string", "x"},
		{"type an array", ev("x", orch, 2, 0, "agent.started", "type", []any{"run.started"}), "type is an array, not a string", "x"},
		{"missing producerSequence", ev("x", orch, 2, 0, "agent.started", "producerSequence", nil), "missing producerSequence", "x"},
		{"producerSequence a string", ev("x", orch, 2, 0, "agent.started", "producerSequence", "2"), "producerSequence is a string, not a number", "x"},
		{"producerSequence null", ev("x", orch, 2, 0, "agent.started", "producerSequence", rawJSON("null")), "producerSequence is null, not a number", "x"},
		{"producerSequence a boolean", ev("x", orch, 2, 0, "agent.started", "producerSequence", true), "producerSequence is a boolean, not a number", "x"},
		{"producerSequence fractional", ev("x", orch, 2, 0, "agent.started", "producerSequence", 2.5), "producerSequence is not a whole number", "x"},
		{"producerSequence too big", ev("x", orch, 2, 0, "agent.started", "producerSequence", rawJSON("1e30")), "producerSequence is not a whole number", "x"},
		{"producerSequence 2^63", ev("x", orch, 2, 0, "agent.started", "producerSequence", rawJSON("9223372036854775808")), "producerSequence is not a whole number", "x"},
		{"event a number", "17", "the event is a number, not an object", ""},
		{"event a string", `"run.started"`, "the event is a string, not an object", ""},
		{"event null", "null", "the event is null, not an object", ""},
		{"event an array", `[{"eventId":"x"}]`, "the event is an array, not an object", ""},
		{"event empty object", "{}", "missing eventId", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := body(good, tt.event, ev("good2", orch, 3, 1, "agent.started"))
			p, err := DecodeTrace(b)
			if err != nil {
				t.Fatalf("DecodeTrace: %v", err)
			}
			if got := ids(p.Events); !slices.Equal(got, []string{"good", "good2"}) {
				t.Errorf("events %v", got)
			}
			if len(p.Rejected) != 1 {
				t.Fatalf("rejected %+v", p.Rejected)
			}
			r := p.Rejected[0]
			if !strings.HasPrefix(r.Reason, tt.reason) || r.Index != 1 || r.EventID != tt.id {
				t.Errorf("rejected %+v, want reason %q, index 1, id %q", r, tt.reason, tt.id)
			}
			var raw []byte
			switch e := tt.event.(type) {
			case string:
				raw = []byte(e)
			default:
				raw = mustJSON(e)
			}
			if !bytes.Equal(r.Raw, raw) {
				t.Errorf("Raw %s, want %s", r.Raw, raw)
			}
			if !p.Changed() {
				t.Error("Changed() false with a rejected event")
			}

			// Merged: counted once, however often it comes again.
			s := NewStore()
			s.Merge(p)
			s.Ingest(b)
			s.Ingest(b)
			if len(s.Rejected()) != 1 || s.Len() != 2 {
				t.Errorf("store: rejected %d, events %d", len(s.Rejected()), s.Len())
			}
		})
	}
}

// A body that cannot be used at all is a *DecodeError that says where and
// what; never a panic, never a partial poll.
func TestDecodeErrors(t *testing.T) {
	good := string(mustJSON(ev("e1", orch, 1, 0, "run.started")))
	tests := []struct {
		name   string
		body   string
		offset int64
		field  string
		msg    string
		server string
	}{
		{"empty", "", 0, "", "the body is empty", ""},
		{"white space", "  \n ", 4, "", "the body is empty", ""},
		{"not JSON", "<html>502 Bad Gateway</html>", 0, "", "not JSON", ""},
		{"array", `[{"events":[]}]`, 0, "", "the body is an array, not an object", ""},
		{"string", `"events"`, 0, "", "the body is a string, not an object", ""},
		{"null", `null`, 0, "", "the body is null, not an object", ""},
		{"number", ` 12`, 1, "", "the body is a number, not an object", ""},
		{"no events", `{"success":true,"id":"r"}`, 0, "events", "the response has no events array", ""},
		{"events null", `{"events":null}`, 10, "events", "events is null, not an array", ""},
		{"events an object", `{"id":"r","events":{"0":{}}}`, 19, "events", "events is an object, not an array", ""},
		{"events a string", `{"events":"[]"}`, 10, "events", "events is a string, not an array", ""},
		{"truncated in events", `{"events":[` + good[:40], 51, "events[0]", "truncated", ""},
		{"truncated after an event", `{"events":[` + good, int64(11 + len(good)), "events", "truncated", ""},
		{"truncated after a comma", `{"events":[` + good + `,`, int64(12 + len(good)), "events[1]", "truncated", ""},
		{"truncated after the array", `{"events":[]`, 12, "", "truncated", ""},
		{"truncated in a member after", `{"events":[],"id":"ab`, 21, "id", "truncated", ""},
		{"trailing garbage", `{"events":[]}x`, 13, "", "invalid character 'x'", ""},
		{"two objects", `{"events":[]} {}`, 14, "", "unexpected data after the top-level object", ""},
		{"trailing comma", `{"events":[` + good + `,]}`, int64(12 + len(good)), "events[1]", "invalid character ']'", ""},
		{"missing comma", `{"events":[1 2]}`, 13, "events", "expected ',' or ']' after events[0]", ""},
		{"bad literal in an event", `{"events":[{"eventId":tru}]}`, 25, "events[0]", "invalid character '}' in literal true", ""},
		{"raw control character in a string", "{\"events\":[{\"eventId\":\"a\x01b\"}]}", 24, "events[0]", "invalid character", ""},
		{"bad member after events", `{"events":[],"x":[1,}`, 19, "x", "invalid character", ""},
		{"server error", `{"success":false,"error":"Agent job not found"}`, 0, "events", "the server answered with an error", "Agent job not found"},
		{"hostile server error", `{"success":false,"error":"\u001b]52;c;aGVsbG8=\u0007gone\u202e"}`, 0, "events", "the server answered with an error", "gone"},
		{"hostile member name", `{"a\u001b[31m\u0007":tru}`, 24, "a", "invalid character '}' in literal true", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder()
			p, err := d.Decode([]byte(tt.body))
			var de *DecodeError
			if !errors.As(err, &de) || p != nil {
				t.Fatalf("got %v, %v; want a *DecodeError", p, err)
			}
			if de.Offset != tt.offset || de.Field != tt.field || !strings.Contains(de.Msg, tt.msg) || de.ServerError != tt.server {
				t.Errorf("got %#v\nwant offset %d field %q msg ~%q server %q", de, tt.offset, tt.field, tt.msg, tt.server)
			}
			msg := de.Error()
			if !strings.Contains(msg, fmt.Sprintf("at byte %d", tt.offset)) || (tt.field != "" && !strings.Contains(msg, tt.field)) {
				t.Errorf("Error() = %q", msg)
			}
			if strings.ContainsFunc(msg, func(r rune) bool { return r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == '\u202e' }) {
				t.Errorf("Error() carries control characters: %q", msg)
			}
			// The decoder is as it was: a good body afterwards is new.
			p, err = d.Decode(body(ev("e1", orch, 1, 0, "run.started")))
			if err != nil || len(p.Events) != 1 {
				t.Errorf("after the error: %v, %v", p, err)
			}
		})
	}
}

// A body that fails after some of its events were read (truncated, trailing
// garbage) must not make the decoder forget to produce them later.
func TestDecodeFailureLeavesDecoderUnchanged(t *testing.T) {
	tr := genTrace(genOpts{events: 60, seed: 3})
	full := render(tr.events, globalSeq, nil, 1)
	bad := [][]byte{
		full[:len(full)/2],             // truncated in the middle of the events
		append(bytes.Clone(full), '!'), // trailing garbage after the object
		bytes.Replace(full, []byte(`],"creditsUsed"`), []byte(`],"creditsUsed":}`), 1), // broken member after events
	}
	for first := 0; first < 2; first++ {
		d := NewDecoder()
		var all []string
		if first == 1 {
			p, err := d.Decode(render(tr.events[:20], globalSeq, nil, 1))
			if err != nil {
				t.Fatal(err)
			}
			all = ids(p.Events)
		}
		for i, b := range bad {
			if p, err := d.Decode(b); err == nil {
				t.Fatalf("bad body %d decoded: %d events", i, len(p.Events))
			}
		}
		p, err := d.Decode(full)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ids(p.Events)...)
		if len(all) != len(tr.events) {
			t.Errorf("produced %d events in all, want %d", len(all), len(tr.events))
		}
		p, err = d.Decode(full)
		if err != nil || len(p.Events) != 0 {
			t.Errorf("same body again: %v, %v", p, err)
		}
	}
}

// A number among the events is no prefix of another: 1 then 12.
func TestDecodeNumbersInEvents(t *testing.T) {
	d := NewDecoder()
	for _, b := range []string{`{"events":[1,2]}`, `{"events":[12,2]}`, `{"events":[1,2]}`} {
		p, err := d.Decode([]byte(b))
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if p.Total != 2 {
			t.Errorf("%s: total %d", b, p.Total)
		}
	}
}

// decoderRound checks one Decode against the set difference: the events it
// produces are exactly those whose eventId the body has and no earlier body
// had, each once, in body order, each with the bytes of its first value.
func decoderRound(t *testing.T, d *Decoder, b []byte, seen map[string]bool) *Poll {
	t.Helper()
	p, err := d.Decode(b)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	var vals []jsontext.Value
	var raw struct {
		Events []jsontext.Value `json:"events"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	vals = raw.Events
	var want []string
	firstRaw := map[string][]byte{}
	for _, v := range vals {
		var e struct {
			EventID string `json:"eventId"`
		}
		json.Unmarshal(v, &e)
		if !seen[e.EventID] && firstRaw[e.EventID] == nil {
			want = append(want, e.EventID)
			firstRaw[e.EventID] = v
		}
	}
	if got := ids(p.Events); !slices.Equal(got, want) {
		t.Fatalf("Decode produced %d events, want %d (the set difference)\n got %v\nwant %v", len(got), len(want), got, want)
	}
	for _, e := range p.Events {
		if !bytes.Equal(e.Raw, firstRaw[e.ID]) {
			t.Fatalf("event %s: Raw is not its bytes in the body", e.ID)
		}
		seen[e.ID] = true
	}
	if p.Total != len(vals) {
		t.Fatalf("Total %d, want %d", p.Total, len(vals))
	}
	return p
}

// Decode of body N+1 after body N yields exactly the set difference,
// however the bodies are ordered, formatted and changed.
// perturb is evs as a server might send them again: about one in every
// `in` withheld this time (when withhold), one repeated, one changed in
// place (same eventId, other bytes).
func perturb(r *rand.Rand, evs []genEvent, withhold bool, in int) []genEvent {
	var out []genEvent
	for _, e := range evs {
		switch k := r.IntN(in); {
		case k == 0 && withhold:
		case k == 1:
			out = append(out, e, e)
		case k == 2:
			c := e
			c.raw = append([]byte(`{"x-changed":`+fmt.Sprint(r.IntN(1000))+`,`), e.raw[1:]...)
			out = append(out, c)
		default:
			out = append(out, e)
		}
	}
	return out
}

func TestDecoderSetDifference(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		tr := genTrace(genOpts{events: 150, seed: seed, skew: true, hostile: seed%2 == 0})
		d := NewDecoder()
		seen := map[string]bool{}
		n := 0
		for round := 0; n < len(tr.events) || round < 4; round++ {
			n = min(len(tr.events), n+r.IntN(40))
			out := perturb(r, tr.events[:n], n < len(tr.events), 30)
			order := ordering(r.IntN(3))
			b := render(out, order, r, round)
			if r.IntN(4) == 0 {
				var buf bytes.Buffer
				json.Indent(&buf, b, "", "  ")
				b = buf.Bytes()
			}
			decoderRound(t, d, b, seen)
		}
		if len(seen) != len(tr.events) {
			t.Fatalf("seed %d: %d events produced in all, want %d", seed, len(seen), len(tr.events))
		}
	}
}

// Re-polls as the service sends them: the whole trace, globally ordered by
// producerSequence, new events inserted in the middle.
func TestDecoderRepollInsertsInTheMiddle(t *testing.T) {
	tr := genTrace(genOpts{events: 400, seed: 11})
	d := NewDecoder()
	seen := map[string]bool{}
	for n := 100; n <= len(tr.events); n += 37 {
		decoderRound(t, d, render(tr.events[:n], globalSeq, nil, n), seen)
	}
	decoderRound(t, d, render(tr.events, globalSeq, nil, 0), seen)
	if len(seen) != len(tr.events) {
		t.Fatalf("%d of %d", len(seen), len(tr.events))
	}
}

// DecodeSame, told how much of each body is the last good body's, produces
// exactly what Decode does, poll after poll, whatever changes between the
// bodies (withheld, repeated and changed events, other orders, indenting,
// bodies that cannot be used).
func TestDecodeSameMatchesDecode(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewPCG(seed, 9))
		tr := genTrace(genOpts{events: 150, seed: seed, skew: true, hostile: seed%2 == 0})
		plain, hinted := NewDecoder(), NewDecoder()
		var last []byte // the body of hinted's last good Decode
		n := 0
		for round := 0; n < len(tr.events) || round < 4; round++ {
			n = min(len(tr.events), n+r.IntN(40))
			out := perturb(r, tr.events[:n], n < len(tr.events), 40)
			order := globalSeq
			if r.IntN(5) == 0 {
				order = ordering(r.IntN(3))
			}
			b := render(out, order, r, round)
			if r.IntN(6) == 0 {
				b = b[:r.IntN(len(b))] // cut short: unusable
			}
			same := 0
			for same < min(len(b), len(last)) && b[same] == last[same] {
				same++
			}
			want, werr := plain.Decode(b)
			got, gerr := hinted.DecodeSame(b, same)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("seed %d round %d: Decode error %v, DecodeSame error %v", seed, round, werr, gerr)
			}
			if werr != nil {
				continue
			}
			last = slices.Clone(b)
			if got.Total != want.Total || len(got.Events) != len(want.Events) || len(got.Rejected) != len(want.Rejected) {
				t.Fatalf("seed %d round %d: DecodeSame gave %d/%d/%d (total/events/set aside), Decode %d/%d/%d",
					seed, round, got.Total, len(got.Events), len(got.Rejected), want.Total, len(want.Events), len(want.Rejected))
			}
			for i := range got.Events {
				if got.Events[i].ID != want.Events[i].ID || !bytes.Equal(got.Events[i].Raw, want.Events[i].Raw) {
					t.Fatalf("seed %d round %d: event %d is %s, want %s", seed, round, i, got.Events[i].ID, want.Events[i].ID)
				}
			}
		}
	}
}
