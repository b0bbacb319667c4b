package model

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/text"
)

func TestSanitize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "Reading 3 pages\n\tthen writing", "Reading 3 pages\n\tthen writing"},
		{"unicode text", "café 日本語 🎉 — ok", "café 日本語 🎉 — ok"},
		{"SGR colour", "\x1b[31mred\x1b[0m text", "red text"},
		{"clear screen", "before\x1b[2Jafter", "beforeafter"},
		{"private CSI", "\x1b[?25lhidden cursor\x1b[?1049h", "hidden cursor"},
		{"CSI broken by a newline", "\x1b[31\nx", "\nx"},
		{"OSC 52 clipboard, BEL", "\x1b]52;c;aGVsbG8=\x07after", "after"},
		{"OSC title, ST", "\x1b]0;pwned\x1b\\x", "x"},
		{"OSC 8 hyperlink", "\x1b]8;;https://evil.example\x1b\\click me\x1b]8;;\x1b\\", "click me"},
		{"unterminated OSC", "keep\x1b]52;c;aGVsbG8=", "keep"},
		{"DCS", "\x1bPq#0;2;0;0;0#0~~@@\x1b\\x", "x"},
		{"APC (kitty graphics)", "\x1b_Gf=100;AAAA\x1b\\x", "x"},
		{"SOS and PM", "\x1bXsos\x1b\\\x1b^pm\x1b\\x", "x"},
		{"charset and two-byte escapes", "\x1b(B\x1b7\x1bc\x1bMx", "x"},
		{"lone ESC at the end", "abc\x1b", "abc"},
		{"ESC ESC [", "\x1b\x1b[31mx", "x"},
		{"C1 CSI as a code point", "\u009b31mX", "X"},
		{"C1 CSI as a raw byte", "a\x9b31mb", "a\ufffd31mb"},
		{"C1 OSC and ST as code points", "\u009d0;title\u009cX", "X"},
		{"C1 DCS as a code point", "\u0090data\u009cX", "X"},
		{"other C1", "a\u0085b\u0084c", "abc"},
		{"BEL CR BS DEL", "a\x07b\rc\x08d\x7fe\x00f", "abcdef"},
		{"CRLF", "line\r\nnext", "line\nnext"},
		{"bidi controls", "abc\u202edef\u202a\u202b\u202c\u202d\u2066x\u2067\u2068\u2069\u200e\u200f\u061c", "abcdefx"},
		{"zero width", "a\u200bb\u200cc\u200dd\u2060e\ufefff\u00adg", "abcdefg"},
		{"line and paragraph separators", "a\u2028b\u2029c", "a\nb\nc"},
		{"invalid UTF-8", "a\xffb\xc3", "a\ufffdb\ufffd"},
		{"surrogate encoded", "a\xed\xa0\x80b", "a\ufffd\ufffd\ufffdb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := text.Sanitize(tt.in)
			if got != tt.want {
				t.Errorf("text.Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := text.Sanitize(got); again != got {
				t.Errorf("not idempotent: %q → %q", got, again)
			}
			if bad := unsafeRune(got); bad >= 0 {
				t.Errorf("%q keeps %U", got, bad)
			}
			if b := text.SanitizeBytes([]byte(tt.in)); b != tt.want {
				t.Errorf("sanitizeBytes = %q", b)
			}
		})
	}
}

// unsafeRune returns the first character of s a terminal could act on or
// that misleads the reader, or -1; utf8.RuneError for invalid UTF-8.
func unsafeRune(s string) rune {
	if !utf8.ValidString(s) {
		return utf8.RuneError
	}
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			return r
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			return r
		case r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff:
			return r
		case r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r):
			return r
		}
	}
	return -1
}

// hostile carries what must never reach a terminal: OSC 52 (clipboard),
// ESC[2J, C1 CSI as a code point, U+202E, an OSC 8 hyperlink, a DCS
// string, BEL, CR, BS, zero-width characters, and at the end an
// unterminated OSC. (The raw C1 byte 0x9b is added to the JSON below: JSON
// text can only carry it as invalid UTF-8.)
const hostile = "ok\x1b]52;c;aGVsbG8=\x07 \x1b[2J\u009b31m\u202eevil \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ " +
	"\x1bPq#0;2;0;0;0\x1b\\bell\x07\rcr\x08bs\u200bzw\ufeff \x1b]0;title"

// hostileJSON is hostile as a JSON string with a raw 0x9b byte spliced in.
func hostileJSON() rawJSON {
	q, _ := jsontext.AppendQuote(nil, hostile)
	return rawJSON(append(append([]byte("\"\x9b[2J"), q[1:len(q)-1]...), '"'))
}

// Every string the model decodes from a hostile body comes out with none of
// the hostile characters, in every field; Raw keeps the bytes exactly.
func TestHostileStringsNeverSurvive(t *testing.T) {
	h := hostileJSON()
	hag := map[string]any{"id": h, "role": h, "name": h, "parentId": h}
	ha := map[string]any{"id": "agent-h", "role": h, "name": h, "parentId": "agent-orch"}
	herr := map[string]any{"code": h, "source": h, "retryable": true, "message": h}
	events := []any{
		ev("h-run", orch, 1, 0, "run.started", "runId", h),
		ev("h-cancel", orch, 2, 1, "run.cancel_requested", "reason", h),
		ev("h-agent", orch, 3, 2, "agent.started", "agent", hag),
		ev("h-agent2", orch, 4, 3, "agent.started", "agent", ha),
		ev("h-progress", orch, 5, 4, "progress.reported", "phase", h, "message", h),
		ev("h-reason", orch, 6, 5, "reasoning.summary", "text", h),
		ev("h-tool", orch, 7, 6, "tool_call.started", "toolCallId", h, "toolName", h, "parameters", map[string]any{"q": h}),
		ev("h-tool2", orch, 8, 7, "tool_call.finished", "toolCallId", h, "toolName", h, "result", h),
		ev("h-bs", orch, 9, 8, "browser.session.started", "sessionId", h),
		ev("h-bs2", orch, 10, 9, "browser.session.finished", "sessionId", h, "durationMs", 5),
		ev("h-art", orch, 11, 10, "artifact.updated", "artifact", map[string]any{"kind": h, "artifactId": h, "path": h,
			"snapshotId": h, "change": h, "changedFields": []any{h, "ok"}, "sourceToolCallId": h}),
		ev("h-err", orch, 12, 11, "error.occurred", "error", herr),
		ev("h-afin", orch, 13, 12, "agent.finished", "agent", ha, "outcome", h, "durationMs", 3, "error", herr),
		ev("h-unknown", orch, 14, 13, "x", "type", h, "x", h),
		ev("h-rfin", orch, 15, 14, "run.finished", "outcome", h, "error", h),
		ev(hostile+"-id", orch, 16, 15, "reasoning.summary", "text", "id is hostile"),
	}
	b := bodyWith(map[string]any{
		"id":                    h,
		"activeBrowserSessions": []any{map[string]any{"id": h, "liveViewUrl": h, "viewport": map[string]any{"width": 1, "height": 2}}},
	}, events...)
	// The eventId with raw escapes is written by json.Marshal as \u001b...;
	// add the raw 0x9b byte to it too.
	b = bytes.Replace(b, []byte(`"eventId":"ok`), []byte("\"eventId\":\"\x9bok"), 1)

	s := NewStore()
	if _, err := s.Ingest(b); err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, s)
	if s.Len() != len(events) || len(s.Rejected()) != 0 {
		t.Fatalf("kept %d of %d events, rejected %+v", s.Len(), len(events), s.Rejected())
	}
	var strs []string
	collectStrings(reflect.ValueOf(s.Timeline()), map[uintptr]bool{}, &strs)
	collectStrings(reflect.ValueOf(s.Agents()), map[uintptr]bool{}, &strs)
	collectStrings(reflect.ValueOf(s.ToolCalls()), map[uintptr]bool{}, &strs)
	collectStrings(reflect.ValueOf(s.Sessions()), map[uintptr]bool{}, &strs)
	collectStrings(reflect.ValueOf(s.Artifacts()), map[uintptr]bool{}, &strs)
	collectStrings(reflect.ValueOf(s.Errors()), map[uintptr]bool{}, &strs)
	collectStrings(reflect.ValueOf(s.Run()), map[uintptr]bool{}, &strs)
	collectStrings(reflect.ValueOf(s.LiveSessions()), map[uintptr]bool{}, &strs)
	collectStrings(reflect.ValueOf(s.Summary()), map[uintptr]bool{}, &strs)
	for _, a := range s.Agents() {
		strs = append(strs, a.Activity())
	}
	sawText := 0
	for _, x := range strs {
		if bad := unsafeRune(x); bad >= 0 {
			t.Errorf("%U survives in %q", bad, x)
		}
		// What sat inside escape sequences is gone with them. (A raw 0x9b
		// byte becomes U+FFFD: the "[2J" after it is then plain text.)
		if strings.Contains(x, "]52;") || strings.Contains(x, "evil.example") || strings.Contains(x, "aGVsbG8") || strings.Contains(x, "31m") {
			t.Errorf("escape sequence content survives in %q", x)
		}
		if strings.Contains(x, "ok evil link bellcrbszw") {
			sawText++
		}
	}
	if sawText < 20 {
		t.Errorf("the visible text was found in %d fields only: the walk missed fields", sawText)
	}
	if len(s.LiveSessions()) != 1 || !strings.Contains(s.LiveSessions()[0].LiveViewURL, "ok evil link") {
		t.Errorf("live sessions %+v", s.LiveSessions())
	}
	// Raw keeps the bytes exactly, the raw 0x9b byte included.
	for _, e := range s.Timeline() {
		if !bytes.Contains(b, e.Raw) || e.Raw[0] != '{' || e.Raw[len(e.Raw)-1] != '}' {
			t.Errorf("Raw of %s is not its bytes in the body", e.ID)
		}
	}
	if raw := s.Event("h-reason").Raw; !bytes.Contains(raw, []byte("\x9b[2J")) || !bytes.Contains(raw, []byte(`\u001b]52;c;aGVsbG8=\u0007`)) {
		t.Errorf("Raw lost bytes: %q", raw)
	}
	if p := s.ToolCall(s.ToolCalls()[0].ID).Parameters; !bytes.Contains(p, []byte(`\u001b[2J`)) {
		t.Errorf("Parameters are not raw: %q", p)
	}
}

// collectStrings appends every string reachable from v through exported
// fields, skipping raw JSON (jsontext.Value, []byte), which is kept byte for
// byte on purpose.
func collectStrings(v reflect.Value, seen map[uintptr]bool, out *[]string) {
	switch v.Kind() {
	case reflect.String:
		*out = append(*out, v.String())
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		collectStrings(v.Elem(), seen, out)
	case reflect.Interface:
		if !v.IsNil() {
			collectStrings(v.Elem(), seen, out)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				collectStrings(v.Field(i), seen, out)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			collectStrings(v.Index(i), seen, out)
		}
	case reflect.Array:
		for i := range v.Len() {
			collectStrings(v.Index(i), seen, out)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			collectStrings(k, seen, out)
			collectStrings(v.MapIndex(k), seen, out)
		}
	}
}
