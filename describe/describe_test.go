package describe

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/model"
)

func TestCreditsAndTokens(t *testing.T) {
	for _, tc := range []struct {
		c    float64
		want string
	}{
		{312, "312 credits (4,680 tokens)"},
		{0, "0 credits (0 tokens)"},
		{1, "1 credit (15 tokens)"},
		{12.5, "12.5 credits (188 tokens)"},
		{1234567, "1,234,567 credits (18,518,505 tokens)"},
	} {
		if got := Credits(tc.c); got != tc.want {
			t.Errorf("Credits(%v) = %q, want %q", tc.c, got, tc.want)
		}
	}
	for _, tc := range []struct {
		n    float64
		want string
	}{
		{4680, "4,680"}, {999, "999"}, {1000, "1,000"}, {-1234, "-1,234"}, {0.4, "0"}, {-0.4, "0"}, {1e6, "1,000,000"},
	} {
		if got := Tokens(tc.n); got != tc.want {
			t.Errorf("Tokens(%v) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestJSON(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{`{"query":"web scraping api pricing","limit":5}`, 80, `query="web scraping api pricing" limit=5`},
		{`null`, 80, `null`},
		{``, 80, ``},
		{`  {}  `, 80, `{}`},
		{`[]`, 80, `[]`},
		{`"plain"`, 80, `"plain"`},
		{`42.5e3`, 80, `42.5e3`},
		{`true`, 80, `true`},
		{`{"urls":["https://a.com","https://b.com"]}`, 80, `urls=["https://a.com", "https://b.com"]`},
		{`{"ids":[1,2,3,4,5]}`, 80, `ids=[1, 2, 3, +2 more]`},
		{`{"results":[{"url":"x"},{"url":"y"}]}`, 80, `results=[2 items]`},
		{`{"results":[{"url":"x"}]}`, 80, `results=[1 item]`},
		{`{"page":{"url":"https://x.dev","status":200,"meta":{"a":1}}}`, 80, `page={url="https://x.dev" status=200 meta={…}}`},
		{`{"page":{"meta":{}}}`, 80, `page={meta={}}`},
		{`{"text":"line one\nline\ttwo"}`, 80, `text="line one line two"`},
		{`{"q":"` + strings.Repeat("a", 100) + `"}`, 200, `q="` + strings.Repeat("a", 59) + `…"`},
		{`{"query":"web scraping api pricing","limit":5}`, 20, `query="web scraping…`},
		{`{"a":"\u001b[31mred\u001b[0m \u202eevil"}`, 80, `a="red evil"`},
		{`{"a":1,`, 80, `{"a":1,`},          // not JSON: shown as text
		{"not json\x1b[2J", 80, `not json`}, // sanitised
	} {
		got := JSON(jsontext.Value(tc.in), tc.max)
		if got != tc.want {
			t.Errorf("JSON(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
		if w := Width(got); tc.max > 0 && w > tc.max {
			t.Errorf("JSON(%q, %d) is %d cells wide", tc.in, tc.max, w)
		}
	}
}

func TestJSONHugeValueIsBoundedAndCheap(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"results":[`)
	for i := range 20000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"url":"https://example.com/%d","title":"page %d"}`, i, i)
	}
	b.WriteString(`],"next":"` + strings.Repeat("界", 50000) + `"}`)
	got := JSON(jsontext.Value(b.String()), 60)
	if !strings.HasPrefix(got, `results=[20,000 items] next="界`) || Width(got) > 60 {
		t.Errorf("got %q (%d cells)", got, Width(got))
	}
}

func TestOneLineIsSafe(t *testing.T) {
	hostile := "a\x1b]0;title\x07b\x1b[2Jc\rd\x08e\u200bf\u202eg\u2028h\u009b31mi\tj\n\nk  \u00a0 l\x00m\xffn"
	got := OneLine(hostile, 0)
	if want := "abcdefg hi j k lm\ufffdn"; got != want {
		t.Errorf("OneLine = %q, want %q", got, want)
	}
	for _, r := range got {
		if r != ' ' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r)) {
			t.Errorf("OneLine kept %U", r)
		}
	}
	// A huge string is cut before the work.
	long := strings.Repeat("x", 1<<20)
	if got := OneLine(long, 10); got != "xxxxxxxxx…" {
		t.Errorf("OneLine(long, 10) = %q", got)
	}
	// Wide characters count double.
	if got := OneLine("日本語のテキスト", 7); got != "日本語…" || Width(got) > 7 {
		t.Errorf("OneLine(wide, 7) = %q", got)
	}
}

func TestASCII(t *testing.T) {
	if got := ASCII(KindToolDone + " a → b …"); got != "tool + a -> b ..." {
		t.Errorf("ASCII = %q", got)
	}
	if got := ASCII(KindToolFailed); got != "tool x" {
		t.Errorf("ASCII = %q", got)
	}
}

// trace builds a trace body around events given as JSON objects (each
// without the envelope but "type", "agent" (an index in agents) and any
// payload fields), with occurredAt one second apart.
type traceBuilder struct {
	events []string
	seq    map[int]int
}

var testAgents = []string{
	`{"id":"00000000-0000-4000-8000-00000000000a","role":"orchestrator","name":"orchestrator"}`,
	`{"id":"00000000-0000-4000-8000-00000000000b","role":"subagent","name":"pricing-researcher","parentId":"00000000-0000-4000-8000-00000000000a"}`,
}

const runID = "11111111-1111-4111-8111-111111111111"

func (tb *traceBuilder) add(agent int, typ string, payload string) {
	if tb.seq == nil {
		tb.seq = map[int]int{}
	}
	tb.seq[agent]++
	n := len(tb.events)
	at := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(n) * 1500 * time.Millisecond)
	ev := fmt.Sprintf(`{"schemaVersion":1,"eventId":"e%04d","runId":%q,"occurredAt":%q,"producerSequence":%d,"agent":%s,"type":%s%s}`,
		n, runID, at.Format(time.RFC3339Nano), tb.seq[agent], testAgents[agent], quote(typ), payload)
	tb.events = append(tb.events, ev)
}

func quote(s string) string {
	b, _ := jsontext.AppendQuote(nil, s)
	return string(b)
}

func (tb *traceBuilder) store(t *testing.T) *model.Store {
	t.Helper()
	s := model.NewStore()
	body := `{"success":true,"id":"` + runID + `","creditsUsed":12,"events":[` + strings.Join(tb.events, ",") + `]}`
	if _, err := s.Ingest([]byte(body)); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestEvent(t *testing.T) {
	var tb traceBuilder
	tb.add(0, "run.started", ``)
	tb.add(0, "agent.started", ``)
	tb.add(0, "progress.reported", `,"phase":"working","message":"Comparing pricing\nof three APIs"`)
	tb.add(1, "agent.started", ``)
	tb.add(1, "reasoning.summary", `,"text":"First I will search.\nThen scrape the pages."`)
	tb.add(1, "browser.session.started", `,"sessionId":"5e551011-aaaa-4bbb-8ccc-000000000001"`)
	tb.add(1, "tool_call.started", `,"toolCallId":"tc1","toolName":"mcp__tools__search","parameters":{"query":"web scraping api pricing","limit":5}`)
	tb.add(1, "tool_call.finished", `,"toolCallId":"tc1","toolName":"mcp__tools__search","result":{"results":[{"url":"a"},{"url":"b"}]}`)
	tb.add(1, "tool_call.started", `,"toolCallId":"tc2","toolName":"mcp__tools__scrape","parameters":{"url":"https://x.dev"}`)
	tb.add(1, "tool_call.finished", `,"toolCallId":"tc2","toolName":"mcp__tools__scrape","result":{"error":"timeout after 30s"}`)
	tb.add(1, "error.occurred", `,"error":{"code":"internal","source":"tool","retryable":true,"message":"scrape timed out"}`)
	tb.add(1, "artifact.updated", `,"artifact":{"kind":"json","artifactId":"result","path":"/workspace/result.json","snapshotId":"s1","change":"update","itemCount":12,"changedFields":["pricing","plans"]}`)
	tb.add(1, "browser.session.finished", `,"sessionId":"5e551011-aaaa-4bbb-8ccc-000000000001","durationMs":4200`)
	tb.add(1, "agent.finished", `,"outcome":"failed","durationMs":65000,"error":{"code":"internal","source":"agent","retryable":false,"message":"gave up"}`)
	tb.add(0, "run.cancel_requested", `,"reason":"user"`)
	tb.add(0, "custom.thing", `,"weight":3,"note":"hello\u001b[31m"`)
	tb.add(0, "run.finished", `,"outcome":"succeeded","error":null`)
	s := tb.store(t)

	want := []Line{
		{KindRun, "started", Info},
		{KindAgent, "started (orchestrator)", Info},
		{KindPhase, "working: Comparing pricing of three APIs", Info},
		{KindAgent, "started (subagent of orchestrator)", Info},
		{KindThink, "First I will search. …", Dim},
		{KindSession, "opened 5e551011", Dim},
		{KindTool, `mcp__tools__search query="web scraping api pricing" limit=5`, Info},
		{KindToolDone, `mcp__tools__search 1.5s → results=[2 items]`, Good},
		{KindTool, `mcp__tools__scrape url="https://x.dev"`, Info},
		{KindToolFailed, `mcp__tools__scrape 1.5s → error="timeout after 30s"`, Bad},
		{KindError, "internal (tool, retryable): scrape timed out", Warn},
		{KindArtifact, "/workspace/result.json (json) update, 12 items [pricing, plans]", Info},
		{KindSession, "closed 5e551011 after 4.2s", Dim},
		{KindAgent, "failed in 1m05s: internal (agent): gave up", Bad},
		{KindCancel, "cancel requested (reason: user)", Warn},
		{"custom.thing", `weight=3 note="hello"`, Info},
		{KindRun, "succeeded", Good},
	}
	tl := s.Timeline()
	if len(tl) != len(want) {
		t.Fatalf("%d events in the timeline, want %d", len(tl), len(want))
	}
	for i, e := range tl {
		if got := Event(e, s); got != want[i] {
			t.Errorf("%s: got %+v\nwant %+v", e.Type, got, want[i])
		}
	}

	// Without a store: no durations, no parent, the failure from the result.
	if got := Event(tl[9], nil); got != (Line{KindToolFailed, `mcp__tools__scrape → error="timeout after 30s"`, Bad}) {
		t.Errorf("tool finish without store: %+v", got)
	}
	if got := Event(tl[3], nil); got.Detail != "started (subagent)" {
		t.Errorf("agent start without store: %+v", got)
	}
	if got := Event(nil, nil); got.Kind != "?" {
		t.Errorf("nil event: %+v", got)
	}
}

func TestEventOutcomes(t *testing.T) {
	for _, tc := range []struct {
		payload string
		detail  string
		level   Level
	}{
		{`,"outcome":"succeeded"`, "succeeded", Good},
		{`,"outcome":"failed","error":{"code":"internal","source":"system","retryable":false,"message":"model stopped"}`, "failed: internal (system): model stopped", Bad},
		{`,"outcome":"cancelled","error":{"code":"cancelled","source":"system","retryable":false,"message":"Cancelled by user"}`, "cancelled: cancelled (system): Cancelled by user", Warn},
		{`,"outcome":"refused","error":{"code":"refused","source":"agent","retryable":false,"message":"policy"}`, "refused: refused (agent): policy", Bad},
		{`,"outcome":"credit_limit_reached","error":{"code":"credit_limit_reached","source":"billing","retryable":false,"message":"maxCredits 150 reached"}`, "credit_limit_reached: credit_limit_reached (billing): maxCredits 150 reached", Bad},
		{`,"outcome":"exploded"`, "exploded", Bad},
		{``, "-", Bad},
	} {
		var tb traceBuilder
		tb.add(0, "run.finished", tc.payload)
		s := tb.store(t)
		got := Event(s.Timeline()[0], s)
		if got.Kind != KindRun || got.Detail != tc.detail || got.Level != tc.level {
			t.Errorf("%s: got %+v", tc.payload, got)
		}
	}
}

func TestEventHostileText(t *testing.T) {
	var tb traceBuilder
	huge := strings.Repeat("word ", 100000)
	tb.add(0, "progress.reported", `,"phase":"work\u001b[2Jing","message":"`+huge+`"`)
	tb.add(0, "\u001b]0;pwned\u0007weird\ttype with a very long name indeed", `,"x":1`)
	tb.add(0, "tool_call.started", `,"toolCallId":"t","toolName":"x\u202e","parameters":{"k\u0007ey":"`+huge+`"}`)
	s := tb.store(t)
	for _, e := range s.Timeline() {
		l := Event(e, s)
		for _, part := range []string{l.Kind, l.Detail} {
			for _, r := range part {
				if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
					t.Errorf("%q: control or format character %U", part, r)
				}
			}
		}
		if w := Width(l.Detail); w > MaxDetailWidth {
			t.Errorf("detail %d cells wide", w)
		}
		if w := Width(l.Kind); w > MaxKindWidth {
			t.Errorf("kind %q %d cells wide", l.Kind, w)
		}
	}
	if got := Event(s.Timeline()[1], s).Kind; got != "weird type with a very …" {
		t.Errorf("unknown kind = %q", got)
	}
}

func TestKindWidth(t *testing.T) {
	for _, k := range []string{KindRun, KindAgent, KindPhase, KindThink, KindTool, KindToolDone, KindToolFailed, KindArtifact, KindSession, KindError, KindCancel} {
		if w := Width(k); w > KindWidth {
			t.Errorf("%q is %d cells, KindWidth is %d", k, w, KindWidth)
		}
		if w := Width(ASCII(k)); w > KindWidth {
			t.Errorf("ASCII %q is %d cells, KindWidth is %d", ASCII(k), w, KindWidth)
		}
	}
}

func BenchmarkEventTool(b *testing.B) {
	var tb traceBuilder
	tb.add(1, "tool_call.started", `,"toolCallId":"tc1","toolName":"mcp__tools__search","parameters":{"query":"web scraping api pricing","limit":5,"sources":["web","news"]}`)
	t := &testing.T{}
	s := tb.store(t)
	e := s.Timeline()[0]
	b.ReportAllocs()
	for b.Loop() {
		Event(e, s)
	}
}

// A failed run's credits say that none of them is billed; other runs'
// are as they are.
func TestRunCredits(t *testing.T) {
	failed := &model.Run{State: model.StateFinished, Outcome: model.OutcomeFailed, CreditsUsed: 178}
	if got := RunCredits(failed); got != "178 credits (2,670 tokens) used, 0 billed (a failed run is not billed)" {
		t.Errorf("failed: %q", got)
	}
	ok := &model.Run{State: model.StateFinished, Outcome: model.OutcomeCancelled, CreditsUsed: 38}
	if got := RunCredits(ok); got != Credits(38) {
		t.Errorf("cancelled: %q", got)
	}
}

// A run id's short form tells runs apart: a UUIDv7 starts with its
// creation time, so two runs started in the same minute share their first
// 8 characters; their last 8 are random.
func TestShortID(t *testing.T) {
	for _, tc := range []struct{ id, want string }{
		{"e9d1e131-b05b-4d08-b44a-bde34a7aa278", "e9d1e131"},
		{"019b3da6-6c78-7178-99f3-5c79f815bdfa", "f815bdfa"},
		{"019b3da6-6c79-7a01-8c2e-0d4be2a91c37", "e2a91c37"},
		{"019B3DA6-6C78-7178-99F3-5C79F815BDFA", "F815BDFA"},
		{"019b3da6-6c78-7178-99f3-5c79f815bdf\x1b", "019b3da6"}, // not a UUID
		{"fc-short", "fc-short"},
		{"", ""},
	} {
		if got := ShortID(tc.id); got != tc.want {
			t.Errorf("ShortID(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}
