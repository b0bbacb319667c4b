package watchprint

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
)

// runningStore is a store of a run that started and has used 3 credits.
func runningStore(t *testing.T) *model.Store {
	t.Helper()
	s := model.NewStore()
	ev := `{"schemaVersion":1,"eventId":"e1","runId":"r","occurredAt":"2026-08-01T12:00:01Z","producerSequence":1,"agent":{"id":"a","role":"orchestrator","name":"orchestrator"},"type":"run.started"}`
	if _, err := s.Ingest([]byte(`{"success":true,"id":"r","creditsUsed":3,"events":[` + ev + `]}`)); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestEventLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{"{\n  \"a\": 1,\n  \"b\": \"x y\"\n}", `{"a":1,"b":"x y"}`},
		// Not strictly valid (a duplicate and invalid UTF-8 are allowed
		// through), still one line with every field.
		{"{\"a\":1,\r\n\"a\":2,\"b\":\"\xff\"}", "{\"a\":1,\"a\":2,\"b\":\"\xff\"}"},
		// Broken beyond compacting: the newlines become spaces.
		{"{\"a\":\n1,,}", `{"a": 1,,}`},
	} {
		got := string(EventLine(nil, jsontext.Value(tc.in), nil))
		if got != tc.want {
			t.Errorf("EventLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.ContainsAny(got, "\r\n") {
			t.Errorf("EventLine(%q) has a line break", tc.in)
		}
	}
}

func TestHeartbeatText(t *testing.T) {
	w := Watch{Run: &follow.Run{Store: runningStore(t)}}
	got := HeartbeatText(w, 45*time.Second, false)
	if got != "… still running · 3 credits · last event 45s ago" {
		t.Errorf("heartbeat %q", got)
	}
	if got := HeartbeatText(w, 65*time.Second, true); got != "... still running - 3 credits - last event 1m05s ago" {
		t.Errorf("ascii heartbeat %q", got)
	}
}

func TestEscapeForTerminal(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":"plain"}`, `{"a":"plain"}`},
		{`{"a":"café 日本 ✓"}`, `{"a":"café 日本 ✓"}`},
		{"{\"a\":\"x\u202ey\u200bz\u009b31m\u2028\x7f\"}", `{"a":"x\u202ey\u200bz\u009b31m\u2028\u007f"}`},
		{"{\"a\":\"\xff\"}", `{"a":"\ufffd"}`},
		{"{\"a\":\"\U000e0001\"}", `{"a":"\udb40\udc01"}`}, // a Cf character beyond the BMP
	} {
		got := string(EscapeForTerminal([]byte(tc.in)))
		if got != tc.want {
			t.Errorf("EscapeForTerminal(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// The same JSON value as before (invalid UTF-8 aside).
		if utf8.ValidString(tc.in) {
			var a, b any
			if err := json.Unmarshal([]byte(tc.in), &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(got), &b); err != nil {
				t.Fatalf("%q: %v", got, err)
			}
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("%q decodes to %v, was %v", got, b, a)
			}
		}
	}
}
