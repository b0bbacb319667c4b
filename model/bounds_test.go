package model

import (
	"encoding/json"
	"github.com/firewatch/firewatch/text"
	"math"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
)

// A number from the wire out of its range is not used (the field counts as
// absent) and is reported once, with the value and why; nothing derived
// from it overflows and the summary always marshals.
func TestNumbersOutOfRange(t *testing.T) {
	start := ev("e1", orch, 1, 0, "agent.started")
	for _, tc := range []struct {
		name  string
		body  []byte
		field string
		check func(t *testing.T, s *Store)
	}{
		{"creditsUsed 1.7e308", bodyWith(map[string]any{"creditsUsed": rawJSON("1.7e308")}, start), "creditsUsed", func(t *testing.T, s *Store) {
			if r := s.Run(); r.HasCredits || r.TokensUsed() != 0 {
				t.Errorf("credits %v tokens %v", r.CreditsUsed, r.TokensUsed())
			}
		}},
		{"creditsUsed -1.7e308", bodyWith(map[string]any{"creditsUsed": rawJSON("-1.7e308")}, start), "creditsUsed", nil},
		{"creditsUsed 1e999", bodyWith(map[string]any{"creditsUsed": rawJSON("1e999")}, start), "creditsUsed", nil},
		{"creditsUsed -5", bodyWith(map[string]any{"creditsUsed": -5}, start), "creditsUsed", nil},
		{"durationMs 1e300", body(start, ev("e2", orch, 2, 10, "agent.finished", "outcome", "succeeded", "durationMs", rawJSON("1e300"))), "durationMs", func(t *testing.T, s *Store) {
			if a := s.Agent(orch.id); a.State != StateFinished || a.HasDuration || a.DurationMs != 0 {
				t.Errorf("agent %+v", a)
			}
		}},
		{"durationMs negative", body(start, ev("e2", orch, 2, 10, "browser.session.started", "sessionId", "b"), ev("e3", orch, 3, 20, "browser.session.finished", "sessionId", "b", "durationMs", -1)), "durationMs", func(t *testing.T, s *Store) {
			if b := s.Session("b"); b.State != StateFinished || b.HasDuration {
				t.Errorf("session %+v", b)
			}
		}},
		{"itemCount negative", body(start, ev("e2", orch, 2, 10, "artifact.updated", "artifact", map[string]any{"kind": "json", "artifactId": "a", "snapshotId": "s", "change": "init", "itemCount": -3})), "artifact.itemCount", func(t *testing.T, s *Store) {
			if a := s.Artifact("a"); a.Latest().Ref.HasItemCount {
				t.Errorf("artifact %+v", a.Latest().Ref)
			}
		}},
		{"itemCount huge", body(start, ev("e2", orch, 2, 10, "artifact.updated", "artifact", map[string]any{"kind": "json", "artifactId": "a", "snapshotId": "s", "change": "init", "itemCount": rawJSON("1e300")})), "artifact.itemCount", nil},
		{"occurredAt past 9999 in UTC", body(start.with("occurredAt", "0000-01-01T00:00:00+23:59"), ev("e2", orch, 2, 0, "run.finished", "outcome", "succeeded", "occurredAt", "9999-12-31T23:59:59-23:59")), "occurredAt", func(t *testing.T, s *Store) {
			if r := s.Run(); r.State != StateFinished || !r.FinishedAt.IsZero() {
				t.Errorf("run %+v", r)
			}
		}},
		{"viewport", bodyWith(map[string]any{"activeBrowserSessions": rawJSON(`[{"id":"b","viewport":{"width":1e300,"height":-1}}]`)}, start), "activeBrowserSessions.viewport.width", func(t *testing.T, s *Store) {
			if l := s.LiveSessions(); len(l) != 1 || l[0].ViewportWidth != 0 || l[0].ViewportHeight != 0 {
				t.Errorf("live %+v", l)
			}
			if len(s.Flaws()) != 2 {
				t.Errorf("flaws %+v", s.Flaws())
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore()
			d, err := s.Ingest(tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Flaws) == 0 || d.Flaws[0].Field != tc.field || d.Flaws[0].Reason == "" || d.Flaws[0].Value == "" {
				t.Fatalf("flaws %+v", d.Flaws)
			}
			// Reported once, however often the server repeats it.
			if d2, _ := s.Ingest(tc.body); len(d2.Flaws) != 0 {
				t.Errorf("reported again: %+v", d2.Flaws)
			}
			if tc.check != nil {
				tc.check(t, s)
			}
			sum := s.Summary()
			if math.IsInf(sum.TokensUsed, 0) || math.IsNaN(sum.TokensUsed) || sum.CreditsUsed < 0 {
				t.Errorf("tokens %v credits %v", sum.TokensUsed, sum.CreditsUsed)
			}
			if _, err := json.Marshal(sum); err != nil {
				t.Errorf("encoding/json: %v", err)
			}
			b, err := jsonv2.Marshal(sum)
			if err != nil {
				t.Errorf("json v2: %v", err)
			}
			if len(sum.BadValues) == 0 || !strings.Contains(string(b), `"badValues":[{`) {
				t.Errorf("the summary does not list the bad value: %s", b)
			}
			for _, a := range sum.Agents {
				if a.DurationMs != nil && *a.DurationMs < 0 {
					t.Errorf("agent duration %d", *a.DurationMs)
				}
			}
		})
	}
}

// An event whose producerSequence is beyond int64 cannot be ordered: it is
// set aside, and the others are used.
func TestSequenceBeyondInt64(t *testing.T) {
	s := ingest(t, body(ev("e1", orch, 1, 0, "agent.started"), ev("e2", orch, 0, 10, "reasoning.summary", "text", "x", "producerSequence", rawJSON("99999999999999999999"))))
	if s.Len() != 1 || len(s.Rejected()) != 1 || !strings.Contains(s.Rejected()[0].Reason, "producerSequence") {
		t.Fatalf("len %d, rejected %+v", s.Len(), s.Rejected())
	}
	if sa := s.Summary().SetAside; len(sa) != 1 || sa[0].EventID == nil || *sa[0].EventID != "e2" {
		t.Fatalf("setAside %+v", sa)
	}
}

// Events of another run decide nothing about the watched one: set aside
// with a reason, through the store's own decoder and through Merge of a
// poll decoded elsewhere (the poller's), once each.
func TestAnotherRunsEvents(t *testing.T) {
	const other = "8f1d2c3b-0000-4000-8000-0000000000ff"
	fin := ev("x2", orch, 9, 50, "run.finished", "runId", other, "outcome", "failed", "error", terr("internal", "system", false, "not ours"))
	b := body(ev("e1", orch, 1, 0, "run.started"), ev("x1", sub1, 1, 5, "agent.started", "runId", other), fin,
		ev("e2", orch, 2, 10, "run.finished", "outcome", "succeeded", "error", nil),
		ev("e3", orch, 3, 11, "agent.started", "runId", strings.ToUpper(testRun))) // the same run, written in capitals
	for _, viaPoll := range []bool{false, true} {
		s := NewStore()
		s.SetRunID(testRun)
		var d Delta
		if viaPoll {
			p, err := DecodeTrace(b) // a decoder that was not told the run
			if err != nil {
				t.Fatal(err)
			}
			d = s.Merge(p)
		} else {
			var err error
			if d, err = s.Ingest(b); err != nil {
				t.Fatal(err)
			}
		}
		r := s.Run()
		if r.State != StateFinished || r.Outcome != OutcomeSucceeded || s.Len() != 3 || s.Agent(sub1.id) != nil {
			t.Fatalf("via poll %v: run %s/%s, %d events", viaPoll, r.State, r.Outcome, s.Len())
		}
		if len(d.Rejected) != 2 || !strings.Contains(d.Rejected[0].Reason, "another run") {
			t.Fatalf("via poll %v: rejected %+v", viaPoll, d.Rejected)
		}
		if n := len(s.Summary().SetAside); n != 2 {
			t.Fatalf("via poll %v: summary sets aside %d", viaPoll, n)
		}
		if d2 := s.Merge(mustDecode(t, b)); len(d2.Rejected) != 0 {
			t.Fatalf("reported twice: %+v", d2.Rejected)
		}
	}
	// The decoder told the run does not see the other run's finish.
	dec := NewDecoder()
	dec.SetRunID(testRun)
	p, err := dec.Decode(body(ev("e1", orch, 1, 0, "run.started"), fin))
	if err != nil || p.Finished || len(p.Rejected) != 1 {
		t.Fatalf("decoder: %v finished %v rejected %+v", err, p.Finished, p.Rejected)
	}
}

func mustDecode(t *testing.T, b []byte) *Poll {
	t.Helper()
	p, err := DecodeTrace(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// One event nested past the JSON library's depth limit is set aside; the
// rest of the body is used, in a first body and in a later one.
func TestOverDeepEvent(t *testing.T) {
	deep := strings.Replace(string(mustJSON(ev("deep", sub1, 1, 5, "tool_call.started", "toolCallId", "t", "toolName", "x", "parameters", rawJSON("null")))),
		`"parameters":null`, `"parameters":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000), 1)
	e1, e2 := ev("e1", orch, 1, 0, "run.started"), ev("e2", orch, 2, 10, "agent.started")
	for name, bodies := range map[string][][]byte{
		"first body": {body(e1, deep, e2)},
		"later body": {body(e1), body(e1, deep, e2)},
		"deep first": {body(deep, e1, e2)},
	} {
		t.Run(name, func(t *testing.T) {
			s := ingest(t, bodies...)
			if s.Len() != 2 || len(s.Rejected()) != 1 || s.Rejected()[0].Reason != ReasonTooDeep || s.Rejected()[0].EventID != "deep" {
				t.Fatalf("%d events, rejected %+v", s.Len(), s.Rejected())
			}
			// Seen again: known, not reported again.
			if d, err := s.Ingest(bodies[len(bodies)-1]); err != nil || len(d.Rejected) != 0 {
				t.Fatalf("again: %v %+v", err, d.Rejected)
			}
		})
	}
	// The key in a deep event does not survive in its raw bytes, which
	// go out with the set-aside event.
	const key = "fc-deepdeepdeep0123456789abcdef"
	keyed := strings.Replace(deep, `"toolName":"x"`, `"toolName":"`+key[:4]+`\u200b`+key[4:]+`"`, 1)
	if keyed == deep {
		t.Fatal("the key was not put in the deep event")
	}
	s := NewStore()
	s.SetSecrets(text.NewSecrets(key))
	if _, err := s.Ingest(body(e1, keyed, e2)); err != nil {
		t.Fatal(err)
	}
	if r := s.Rejected(); len(r) != 1 || strings.Contains(string(r[0].Raw), key[4:]) || !strings.Contains(string(r[0].Raw), text.Redacted) {
		t.Fatalf("set aside %d; raw holds the key or no %s", len(r), text.Redacted)
	}

	// A body that is not JSON inside the deep part is still a body error
	// when the brackets do not match.
	if _, err := DecodeTrace(body(e1, strings.Repeat("[", 20000))); err == nil {
		t.Fatal("unmatched brackets accepted")
	}
}

// A duplicate eventId with other content is set aside once (the first
// version kept); the same event written with other white space is not.
func TestChangedDuplicate(t *testing.T) {
	e1 := ev("e1", orch, 1, 0, "reasoning.summary", "text", "first")
	changed := e1.with("text", "second")
	pretty, _ := json.MarshalIndent(e1, "", "  ")
	s := ingest(t, body(e1), body(e1, pretty))
	if len(s.Rejected()) != 0 {
		t.Fatalf("white space reported: %+v", s.Rejected())
	}
	d, err := s.Ingest(body(e1, pretty, changed))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rejected) != 1 || d.Rejected[0].Reason != ReasonChanged || d.Rejected[0].EventID != "e1" {
		t.Fatalf("rejected %+v", d.Rejected)
	}
	if txt := s.Event("e1").Payload.(ReasoningSummary).Text; txt != "first" {
		t.Fatalf("kept %q", txt)
	}
	if d, _ := s.Ingest(body(e1, changed)); len(d.Rejected) != 0 {
		t.Fatalf("reported twice")
	}
	// Within one body too.
	s = ingest(t, body(e1, changed))
	if len(s.Rejected()) != 1 || len(s.Summary().SetAside) != 1 {
		t.Fatalf("one body: %+v", s.Rejected())
	}
}

// A run.started stamped long after the rest of the run (or a run spread over
// more than MaxDurationMs) has no duration: unknown, never negative or
// absurd. The same holds for a tool call finished before it started.
func TestUntrustedTimesGiveNoDuration(t *testing.T) {
	future := 73 * 365 * 24 * 3600 * 1000
	s := ingest(t, body(
		ev("o1", orch, 1, future, "run.started"),
		ev("o2", orch, 2, 100, "tool_call.started", "toolCallId", "c1", "toolName", "mcp__tools__search"),
		ev("o3", orch, 3, 50, "tool_call.finished", "toolCallId", "c1", "toolName", "mcp__tools__search"),
		ev("o4", orch, 4, 1000, "run.finished", "outcome", "succeeded"),
	))
	if d, ok := s.Run().Duration(); ok {
		t.Errorf("run duration %v, want unknown", d)
	}
	sum := s.Summary()
	if sum.DurationMs != nil {
		t.Errorf("summary durationMs %d, want null", *sum.DurationMs)
	}
	for _, tc := range sum.ToolCalls {
		if tc.DurationMs != nil {
			t.Errorf("tool call durationMs %d, want null", *tc.DurationMs)
		}
	}
	for _, c := range []struct {
		start, end time.Time
		ok         bool
	}{
		{t0, t0.Add(time.Minute), true},
		{t0, t0, true},
		{t0.Add(time.Second), t0, false},
		{t0, t0.Add(400 * 24 * time.Hour), false},
		{time.Time{}, t0, false},
		{t0, time.Time{}, false},
	} {
		if _, ok := Span(c.start, c.end); ok != c.ok {
			t.Errorf("Span(%v, %v) ok %v, want %v", c.start, c.end, ok, c.ok)
		}
	}
}
