package poller

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

type recLine struct {
	ReceivedAt string         `json:"receivedAt"`
	Trace      jsontext.Value `json:"trace"`
}

// parseRecording checks a recording's shape and returns its header and
// lines.
func parseRecording(t *testing.T, b []byte) (object, []recLine) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	head, ok := parseObject([]byte(lines[0]))
	if !ok {
		t.Fatalf("header %q", lines[0])
	}
	var out []recLine
	for i, l := range lines[1:] {
		var r recLine
		if err := unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %d: %v: %q", i+2, err, l)
		}
		if _, err := time.Parse(time.RFC3339Nano, r.ReceivedAt); err != nil {
			t.Fatalf("line %d: receivedAt %q", i+2, r.ReceivedAt)
		}
		out = append(out, r)
	}
	return head, out
}

func TestRecordThenReplay(t *testing.T) {
	t.Parallel()
	for _, scenario := range []string{"research", "chaos"} {
		t.Run(scenario, func(t *testing.T) {
			srv := startSim(t, sim.Options{Scenarios: []string{scenario}, Seed: 5, Speed: 200})
			c := newClient(t, srv, withKey(srv))
			job := srv.Jobs[0].ID
			var rec bytes.Buffer
			live := watchAll(t, c, job, WatchOptions{Record: &rec, LiveView: true})
			if strings.Contains(rec.String(), srv.Key) {
				t.Fatal("the recording holds the key")
			}

			head, lines := parseRecording(t, rec.Bytes())
			if v, _ := head.str("firewatch"); v != "recording" {
				t.Fatalf("header %v", head)
			}
			if v, _ := head.num("version"); v != RecordingVersion {
				t.Fatalf("version %v", v)
			}
			if v, _ := head.str("jobId"); v != job {
				t.Fatalf("jobId %q", v)
			}
			if v, _ := head.str("baseUrl"); v != srv.URL {
				t.Fatalf("baseUrl %q", v)
			}
			if _, ok := head.time("startedAt"); !ok {
				t.Fatal("no startedAt")
			}

			// Each event is recorded once, byte for byte: O(events).
			script, _ := srv.Script(job)
			served := map[string]bool{}
			for _, e := range script {
				served[string(e.JSON)] = true
			}
			seen := map[string]bool{}
			polls := 0
			for _, u := range live.snapshot() {
				if u.Poll != nil {
					polls++
				}
			}
			if len(lines) >= polls {
				t.Fatalf("%d lines for %d polls: unchanged polls are recorded", len(lines), polls)
			}
			for i, l := range lines {
				o, _ := parseObject(l.Trace)
				if _, ok := o.num("creditsUsed"); !ok {
					t.Fatalf("line %d: no creditsUsed", i+2)
				}
				if o["activeBrowserSessions"] == nil || o["id"] == nil {
					t.Fatalf("line %d: no activeBrowserSessions or id", i+2)
				}
				for _, e := range o.array("events") {
					if seen[string(e)] {
						t.Fatalf("line %d: an event recorded twice", i+2)
					}
					if !served[string(e)] {
						t.Fatalf("line %d: an event not as served: %s", i+2, e)
					}
					seen[string(e)] = true
				}
			}
			if len(seen) != len(served) {
				t.Fatalf("%d events recorded, %d served", len(seen), len(served))
			}

			for how, r := range inputs(t, rec.Bytes()) {
				replayed := newCollector()
				if err := Replay(context.Background(), r, ReplayOptions{Instant: true}, replayed.sink); err != nil {
					t.Fatalf("Replay from %s: %v", how, err)
				}
				sameSummary(t, "replay from "+how+" vs live", replayed.summary(), live.summary())
				us := replayed.snapshot()
				if last := us[len(us)-1]; !last.Done || !last.Health.Replay || len(us) != len(lines)+1 {
					t.Fatalf("from %s: %d updates for %d lines; last %+v", how, len(us), len(lines), last)
				}
			}
		})
	}
}

func TestReplayPace(t *testing.T) {
	t.Parallel()
	a := ev("0190f3a4-0000-7000-8000-00000000000a", 1, "run.started", "")
	b := ev("0190f3a4-0000-7000-8000-00000000000b", 2, "reasoning.summary", `,"text":"t"`)
	f := ev("0190f3a4-0000-7000-8000-00000000000f", 3, "run.finished", `,"outcome":"succeeded","error":null`)
	rec := `{"firewatch":"recording","version":1,"jobId":"` + stubJob + `","baseUrl":"x","startedAt":"2026-03-14T09:00:00Z"}
{"receivedAt":"2026-03-14T09:00:01Z","trace":{"id":"` + stubJob + `","events":[` + a + `]}}
{"kind":"something newer","receivedAt":"2026-03-14T09:00:02Z"}
{"receivedAt":"2026-03-14T09:00:05Z","trace":{"events":[` + b + `]}}
{"receivedAt":"2026-03-14T09:00:06.5Z","trace":{"events":[` + f + `]}}
`
	clk := newFakeClock()
	col := newCollector()
	done := make(chan error, 1)
	go func() {
		done <- replay(context.Background(), strings.NewReader(rec), ReplayOptions{Speed: 2}, col.sink, clk)
	}()
	polled(t, col, 1)
	for i, want := range []time.Duration{2 * time.Second, 750 * time.Millisecond} {
		if d := clk.fire(t); d != want {
			t.Fatalf("wait %d: %v, want %v", i+1, d, want)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	sum := col.summary()
	if sum.EventCount != 3 || *sum.Outcome != "succeeded" {
		t.Fatalf("summary %+v", sum)
	}
	// Each poll says when it was recorded, and the pace: the UI's replay
	// clock runs on them.
	var got []string
	for _, u := range col.snapshot() {
		if u.Poll != nil {
			if u.Health.Speed != 2 {
				t.Errorf("poll replayed with speed %v, want 2", u.Health.Speed)
			}
			got = append(got, u.Health.Recorded.Format("15:04:05.0"))
		}
	}
	if want := []string{"09:00:01.0", "09:00:05.0", "09:00:06.5"}; !slices.Equal(got, want) {
		t.Errorf("recorded times %v, want %v", got, want)
	}
}

// finishedBody is the trace body of a finished simulated run, its job id
// and the summary its script gives.
func finishedBody(t *testing.T) (body []byte, job string, want model.Summary) {
	t.Helper()
	srv := startSim(t, sim.Options{Seed: 9})
	c := newClient(t, srv, withKey(srv))
	job = srv.Jobs[0].ID
	if err := srv.WaitFinished(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	body, err := c.Trace(context.Background(), job, false)
	if err != nil {
		t.Fatal(err)
	}
	return body, job, scriptSummary(t, srv, job)
}

func TestReplaySavedTraceBody(t *testing.T) {
	t.Parallel()
	body, _, want := finishedBody(t)
	pretty := jsontext.Value(bytes.Clone(body))
	if err := pretty.Indent(jsontext.WithIndent("  ")); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string][]byte{
		"compact":      body,
		"pretty":       pretty,
		"two bodies":   append(append(bytes.Clone(body), '\n'), pretty...),
		"trailing eol": append(bytes.Clone(pretty), "\n\n"...),
	} {
		for how, r := range inputs(t, in) {
			col := newCollector()
			if err := Replay(context.Background(), r, ReplayOptions{}, col.sink); err != nil {
				t.Fatalf("%s from %s: %v", name, how, err)
			}
			sameSummary(t, name+" from "+how, col.summary(), want)
		}
	}
}

// inputs gives b as a replay reads it: streamed from a reader, and from a
// file (read whole and walked in place, see readWhole).
func inputs(t *testing.T, b []byte) map[string]io.Reader {
	t.Helper()
	name := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(name, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return map[string]io.Reader{"a reader": bytes.NewReader(b), "a file": f}
}

func TestReplayBadInput(t *testing.T) {
	t.Parallel()
	a := ev("0190f3a4-0000-7000-8000-00000000000a", 1, "run.started", "")
	head := `{"firewatch":"recording","version":1,"jobId":"` + stubJob + `"}` + "\n"
	good := `{"receivedAt":"2026-03-14T09:00:01Z","trace":{"events":[` + a + `]}}` + "\n"
	for _, tc := range []struct {
		in      string
		updates int
		msg     string
	}{
		{"", 0, "empty"},
		{"  \n", 0, "empty"},
		{"hello", 0, "not a recording"},
		{"[1,2]", 0, "not a JSON object"},
		{`{"firewatch":"recording","version":7}`, 0, "version 7"},
		{head + good + `{"receivedAt":"2026-03-14T09:00:02Z","trace":{"ev`, 1, "line 3"},
		{head + good + `{"receivedAt":"2026-03-14T09:00:02Z","trace":{"nothing":1}}`, 1, "line 3: malformed trace response: events: the response has no events array"},
		{`{"success":true,"events":[` + a + `]} {"success":true,"events":[` + a, 1, "value 2"},
	} {
		col := newCollector()
		err := Replay(context.Background(), strings.NewReader(tc.in), ReplayOptions{Instant: true}, col.sink)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Fatalf("%q: error %v, want one saying %q", tc.in, err, tc.msg)
		}
		if n := len(col.snapshot()); n != tc.updates {
			t.Fatalf("%q: %d updates, want %d", tc.in, n, tc.updates)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Replay(ctx, strings.NewReader(head+good), ReplayOptions{}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n++
	if w.n > 1 {
		return 0, errors.New("no space left on device")
	}
	return len(p), nil
}

func TestRecordingWriteErrorDoesNotStopTheWatch(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{})
	c := newClient(t, srv, withKey(srv))
	fw := &failingWriter{}
	col := watchAll(t, c, srv.Jobs[0].ID, WatchOptions{Record: fw})
	us := col.snapshot()
	if h := us[len(us)-1].Health; !strings.Contains(h.RecordError, "no space left") {
		t.Fatalf("RecordError %q", h.RecordError)
	}
	if fw.n != 2 {
		t.Fatalf("%d writes after the failure", fw.n-2)
	}
	sameSummary(t, "watch", col.summary(), scriptSummary(t, srv, srv.Jobs[0].ID))
}

func TestCompactJSON(t *testing.T) {
	t.Parallel()
	in := []byte("{\n  \"a\": \"x \\\" \\n y\",\n\t\"b\": [1, 2]\r\n}")
	got := compactJSON(in)
	if string(got) != `{"a":"x \" \n y","b":[1,2]}` {
		t.Fatalf("%s", got)
	}
	one := []byte(`{"a": 1}`)
	if out := compactJSON(one); &out[0] != &one[0] {
		t.Fatal("a value without newlines is copied")
	}
}

func FuzzCompactJSON(f *testing.F) {
	f.Add([]byte("{\n \"a\" : [ 1 , \"\\\\\" ]\n}"))
	f.Add([]byte("\"\\u0041\\n\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !jsontext.Value(b).IsValid(scanOpts...) {
			return
		}
		out := compactJSON(b)
		if bytes.ContainsAny(out, "\n\r") {
			t.Fatalf("newline left in %q", out)
		}
		x, y := jsontext.Value(bytes.Clone(b)), jsontext.Value(bytes.Clone(out))
		if x.Compact(scanOpts...) != nil || y.Compact(scanOpts...) != nil || !bytes.Equal(x, y) {
			t.Fatalf("%q compacted to %q", b, out)
		}
	})
}

// A saved trace body with one event nested past the JSON reader's depth
// limit replays like the live watch reads it: that event set aside, the
// rest used.
func TestReplaySavedBodyWithOverDeepEvent(t *testing.T) {
	t.Parallel()
	body, job, want := finishedBody(t)
	deep := `{"schemaVersion":1,"eventId":"0190f3a4-0000-7000-8000-00000000d001","runId":"` + job +
		`","occurredAt":"2026-03-14T09:26:53.500Z","producerSequence":0,"type":"tool_call.started","agent":{"id":"0190f3a4-0000-7000-8000-0000000000aa","role":"orchestrator","name":"deep"},` +
		`"toolCallId":"deep","toolName":"deep","parameters":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	in := bytes.Replace(bytes.Clone(body), []byte(`"events":[`), []byte(`"events":[`+deep+`,`), 1)
	col := newCollector()
	if err := Replay(context.Background(), bytes.NewReader(in), ReplayOptions{}, col.sink); err != nil {
		t.Fatal(err)
	}
	got := col.summary()
	if got.Outcome == nil || want.Outcome == nil || *got.Outcome != *want.Outcome || got.EventCount != want.EventCount {
		t.Errorf("outcome %v, %d events; want %v, %d", got.Outcome, got.EventCount, want.Outcome, want.EventCount)
	}
	if len(got.SetAside) != 1 || got.SetAside[0].Reason == "" {
		t.Errorf("set aside: %+v, want the one over-deep event", got.SetAside)
	}
}

// viewObject reads what parseObject reads, without copies: the same
// members (the last of duplicate names), the same refusals.
func TestViewObjectReadsAsParseObject(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{}`,
		` {"a":1,"b":"x","c":[1,{"d":2}]} `,
		`{"a":1,"a":2}`,
		"{\"s\":\"\xff\"}",
		`{"firewatch":"recording","version":1,"jobId":"x"}`,
		`[]`, `1`, `"x"`, `null`, ``,
		`{"a":1} {"b":2}`,
		`{"a":}`, `{"a":1`, `{"a" 1}`,
	} {
		want, wok := parseObject([]byte(in))
		got, gok := viewObject([]byte(in))
		if gok != wok || len(got) != len(want) {
			t.Errorf("%q: viewObject = %v, %v; parseObject = %v, %v", in, got, gok, want, wok)
			continue
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Errorf("%q: member %q = %s, want %s", in, k, got[k], v)
			}
		}
	}
}

// The header carries what the run was asked to do, and the replay hands it
// over before the first poll; a version 1 recording (no request) replays.
func TestRecordingRequest(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, Seed: 5, Speed: 200})
	c := newClient(t, srv, withKey(srv))
	job := srv.Jobs[0].ID
	req := model.Request{Prompt: "Find \x1b[31mit\x1b[0m", Model: "spark-2", Effort: "low", URLs: []string{"https://a.example"}, MaxCredits: 300}
	var rec bytes.Buffer
	watchAll(t, c, job, WatchOptions{Record: &rec, Request: req})
	head, _ := parseRecording(t, rec.Bytes())
	if _, ok := head.obj("request"); !ok {
		t.Fatalf("no request in the header: %v", head)
	}
	col := newCollector()
	if err := Replay(context.Background(), bytes.NewReader(rec.Bytes()), ReplayOptions{Instant: true}, col.sink); err != nil {
		t.Fatal(err)
	}
	us := col.snapshot()
	got := us[0].Request
	if got == nil || us[0].Poll != nil {
		t.Fatalf("first update %+v: want the request alone", us[0])
	}
	if got.Prompt != text.Sanitize(req.Prompt) || strings.ContainsRune(got.Prompt, 0x1b) || got.Model != "spark-2" || got.Effort != "low" ||
		len(got.URLs) != 1 || got.URLs[0] != "https://a.example" || got.MaxCredits != 300 {
		t.Fatalf("replayed request %+v", got)
	}
	for _, u := range us[1:] {
		if u.Request != nil {
			t.Fatal("the request is handed over twice")
		}
	}

	v1 := bytes.Replace(rec.Bytes(), []byte(`"version":2`), []byte(`"version":1`), 1)
	v1 = bytes.Replace(v1, []byte(`"request":`), []byte(`"requestX":`), 1)
	col = newCollector()
	if err := Replay(context.Background(), bytes.NewReader(v1), ReplayOptions{Instant: true}, col.sink); err != nil {
		t.Fatalf("version 1: %v", err)
	}
	for _, u := range col.snapshot() {
		if u.Request != nil {
			t.Fatal("version 1 without a request: a request was handed over")
		}
	}
	if s := col.summary(); s.EventCount == 0 {
		t.Fatal("version 1: no events")
	}
}

// The recording's top-level members come from the decoder's own pass over
// the body (model.Decoder.KeepTop); they must be what a separate scan of
// the whole body finds, in every form a server may send them.
func TestKeepTopMatchesScan(t *testing.T) {
	t.Parallel()
	ev := func(i int) string {
		return `{"schemaVersion":1,"eventId":"e` + string(rune('a'+i)) + `","runId":"r","occurredAt":"2026-03-14T09:00:0` + string(rune('0'+i)) + `Z","producerSequence":` + string(rune('0'+i)) + `,"agent":{"id":"a","role":"orchestrator","name":"o"},"type":"reasoning.summary","text":"t"}`
	}
	bodies := []string{
		`{"success":true,"id":"r","events":[` + ev(0) + `],"creditsUsed":3}`,
		"{\n  \"success\" : true ,\n  \"id\": \"r\",\n  \"events\": [" + ev(0) + ",\n" + ev(1) + "],\n  \"creditsUsed\": 3.50,\n  \"activeBrowserSessions\": [ {\"id\":\"s\"} ]\n}",
		`{"creditsUsed":1,"id":"x","id":"r","succ\u0065ss":false,"events":[` + ev(0) + `,` + ev(1) + `],"creditsUsed":"7","activeBrowserSessions":null}`,
		`{"events":[` + ev(0) + `,` + ev(1) + `,` + ev(2) + `],"success":{"a":[1,2]}}`,
		`{"events":[]}`,
		`{"i\u0064":"r","events":[` + ev(3) + `],"creditsUsed":-0}`,
	}
	dec := model.NewDecoder()
	dec.KeepTop()
	plain := model.NewDecoder()
	for i, b := range bodies {
		want, err := scanTrace([]byte(b))
		if err != nil {
			t.Fatalf("body %d: %v", i, err)
		}
		p, err := dec.Decode([]byte(b))
		if err != nil {
			t.Fatalf("body %d: %v", i, err)
		}
		got := p.Top
		for _, m := range []struct {
			name      string
			got, want []byte
		}{{"success", got.Success, want.success}, {"id", got.ID, want.id}, {"creditsUsed", got.CreditsUsed, want.credits}, {"activeBrowserSessions", got.LiveSessions, want.live}} {
			if !bytes.Equal(m.got, m.want) || (m.got == nil) != (m.want == nil) {
				t.Errorf("body %d: %s is %q, the scan found %q", i, m.name, m.got, m.want)
			}
		}
		if p, err := plain.Decode([]byte(b)); err != nil || p.Top.Success != nil || p.Top.ID != nil || p.Top.CreditsUsed != nil || p.Top.LiveSessions != nil {
			t.Errorf("body %d: a decoder that does not keep them filled Top (%v)", i, err)
		}
	}
}

// writeLog keeps every Write apart.
type writeLog struct{ writes [][]byte }

func (w *writeLog) Write(p []byte) (int, error) {
	w.writes = append(w.writes, bytes.Clone(p))
	return len(p), nil
}

// A poll that brings a whole long run is recorded in several writes, cut
// between events, never held whole: only the write that ends a line ends
// with its newline, and the recording replays as the watch went.
func TestLongLineInParts(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioLarge}, Events: 3000, Seed: 3})
	job := srv.Jobs[0].ID
	if err := srv.WaitFinished(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv, withKey(srv))
	var log writeLog
	live := watchAll(t, c, job, WatchOptions{Record: &log})
	parts, longest := 0, 0
	var rec []byte
	for i, w := range log.writes {
		if n := bytes.Count(w, []byte("\n")); n > 1 || n == 1 && w[len(w)-1] != '\n' {
			t.Fatalf("write %d holds a newline that does not end it", i)
		}
		if w[len(w)-1] != '\n' {
			parts++
			longest = max(longest, len(w))
		}
		rec = append(rec, w...)
	}
	if parts == 0 || longest > 2*recordChunk {
		t.Fatalf("%d writes of parts, the longest %d bytes: a long line is not cut", parts, longest)
	}
	replayed := newCollector()
	if err := Replay(context.Background(), bytes.NewReader(rec), ReplayOptions{Instant: true}, replayed.sink); err != nil {
		t.Fatal(err)
	}
	sameSummary(t, "replay vs live", replayed.summary(), live.summary())
	if got := replayed.summary().EventCount; got < 3000 {
		t.Fatalf("%d events replayed", got)
	}
}

// TestHeaderRoundTrip: the header line is the tagged Header, written in
// its field order, and read back whatever its request holds.
func TestHeaderRoundTrip(t *testing.T) {
	started := time.Date(2026, 3, 1, 12, 0, 0, 5000, time.UTC)
	line := RecordingHeader("019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5e", "https://api.example", started,
		model.Request{Prompt: "a \"quoted\" <prompt>", URLs: []string{"https://a.example"}, MaxCredits: 250})
	want := `{"firewatch":"recording","version":2,"jobId":"019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5e","baseUrl":"https://api.example",` +
		`"startedAt":"2026-03-01T12:00:00.000005Z","request":{"prompt":"a \"quoted\" <prompt>","urls":["https://a.example"],"maxCredits":250}}` + "\n"
	if string(line) != want {
		t.Errorf("the header:\n%s\nwant\n%s", line, want)
	}
	if got := RecordingHeader("x", "y", started, model.Request{}); strings.Contains(string(got), "request") {
		t.Errorf("an empty request written: %s", got)
	}
	var h Header
	odd := `{"firewatch":"recording","version":2,"jobId":"j","baseUrl":"b","startedAt":"2026-03-01T12:00:00Z","request":{"maxCredits":"lots"}}`
	if err := json.Unmarshal([]byte(odd), &h); err != nil || !h.IsRecording() || h.JobID != "j" || h.Request == nil || h.Request.MaxCredits != 0 {
		t.Errorf("a header with an odd request: %+v %v", h, err)
	}
}
