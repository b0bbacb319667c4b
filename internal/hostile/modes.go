package hostile

import (
	"net/http"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Numbers out of range: too large, negative, not a float64, beyond int64.
var (
	HugeCredits = register("huge-credits", Fault{
		Doc:   "creditsUsed is 1.7e308 (tokens would be +Inf)",
		Trace: setMember("creditsUsed", "1.7e308"),
	})
	NegativeCredits = register("negative-credits", Fault{
		Doc:   "creditsUsed is -1.7e308",
		Trace: setMember("creditsUsed", "-1.7e308"),
	})
	OverflowCredits = register("overflow-credits", Fault{
		Doc:   "creditsUsed is 1e999, a number no float64 holds",
		Trace: setMember("creditsUsed", "1e999"),
	})
	HugeDurations = register("huge-durations", Fault{
		Doc:   "every durationMs is 1e300",
		Trace: eachEvent(nil, setField("durationMs", jsontext.Value("1e300"))),
	})
	NegativeDurations = register("negative-durations", Fault{
		Doc:   "every durationMs is -5000",
		Trace: eachEvent(nil, setField("durationMs", jsontext.Value("-5000"))),
	})
	HugeCounts = register("huge-counts", Fault{
		Doc:   "every artifact's itemCount is 1e300",
		Trace: eachEvent([]string{"artifact.updated"}, setArtifact("itemCount", jsontext.Value("1e300"))),
	})
	NegativeCounts = register("negative-counts", Fault{
		Doc:   "every artifact's itemCount is -3",
		Trace: eachEvent([]string{"artifact.updated"}, setArtifact("itemCount", jsontext.Value("-3"))),
	})
	HugeSequence = register("huge-sequence", Fault{
		Doc: "one more event whose producerSequence is beyond int64",
		Trace: inject(func(t *trace, job string) ([][]byte, [][]byte) {
			return [][]byte{injected(t, "0190f3a4-0000-7000-8000-00000000f001", "reasoning.summary", 0, map[string]any{
				"producerSequence": jsontext.Value("99999999999999999999"), "text": "sequence beyond int64"})}, nil
		}),
	})
	HugeViewport = register("huge-viewport", Fault{
		Doc:   "activeBrowserSessions holds a session whose viewport is 1e300 by -1",
		Trace: setMember("activeBrowserSessions", `[{"id":"bs-hostile","liveViewUrl":"https://example.invalid/live","viewport":{"width":1e300,"height":-1}}]`),
	})
)

// Events that are not this run's, too deep to read, or changed in place.
var (
	ForeignRun = register("foreign-run", Fault{
		Doc: "events of another run (runId 0190f3a4-dead-7000-8000-000000000000): an agent.started and a failed run.finished",
		Trace: inject(func(t *trace, job string) ([][]byte, [][]byte) {
			other := "0190f3a4-dead-7000-8000-000000000000"
			agent := map[string]any{"id": "0190f3a4-dead-7000-8000-0000000000aa", "role": "orchestrator", "name": "intruder"}
			// Far in the future: the last run.finished of the timeline.
			const late = "2099-01-01T00:00:00.000Z"
			a := injected(t, "0190f3a4-dead-7000-8000-00000000f101", "agent.started", 1, map[string]any{"runId": other, "agent": agent, "occurredAt": late})
			f := injected(t, "0190f3a4-dead-7000-8000-00000000f102", "run.finished", 2, map[string]any{"runId": other, "agent": agent, "occurredAt": late,
				"outcome": "failed", "error": map[string]any{"code": "internal", "source": "system", "retryable": false, "message": "another run failed"}})
			return nil, [][]byte{a, f}
		}),
	})
	DeepEvent = register("deep-event", Fault{
		Doc: "one more event whose parameters nest 20 000 levels deep, past the JSON library's limit",
		Trace: inject(func(t *trace, job string) ([][]byte, [][]byte) {
			e := injected(t, "0190f3a4-0000-7000-8000-00000000f201", "tool_call.started", 0, map[string]any{
				"toolCallId": "deep", "toolName": "deep", "parameters": jsontext.Value("null")})
			deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
			e = []byte(strings.Replace(string(e), `"parameters":null`, `"parameters":`+deep, 1))
			return [][]byte{e}, nil
		}),
	})
	DuplicateChanged = register("duplicate-changed", Fault{
		Doc: "the first event again, at the end, with the same eventId and other content",
		Trace: inject(func(t *trace, job string) ([][]byte, [][]byte) {
			if len(t.events) == 0 {
				return nil, nil
			}
			c := map[string]any{}
			for k, v := range t.events[0] {
				c[k] = v
			}
			c["occurredAt"] = "2026-03-14T09:59:59.000Z"
			c["hostile"] = "changed in place"
			return nil, [][]byte{marshal(c)}
		}),
	})
)

// Answers that say they failed, are not JSON, or ask for a long wait.
var (
	SuccessFalse = register("success-false", Fault{
		Doc:   `every trace answer is 200 {"success":false,"error":"Internal server error while reading the trace"}`,
		Trace: replace(http.StatusOK, nil, `{"success":false,"error":"Internal server error while reading the trace"}`),
	})
	SuccessFalseNotFound = register("success-false-not-found", Fault{
		Doc:   `every trace answer is 200 {"success":false,"error":"Agent job not found"}`,
		Trace: replace(http.StatusOK, nil, `{"success":false,"error":"Agent job not found"}`),
	})
	NotJSONOnce = register("not-json-once", Fault{
		Doc: "the first trace answer is a 200 whose body is an HTML page",
		Trace: func(n int, job string, a *Answer) {
			if n == 1 {
				replace(http.StatusOK, http.Header{"Content-Type": {"text/html"}}, "<html><body>Bad gateway</body></html>")(n, job, a)
			}
		},
	})
	RetryAfterHours = register("retry-after-hours", Fault{
		Doc: "the first trace answer is a 429 with Retry-After: 7200 (two hours)",
		Trace: func(n int, job string, a *Answer) {
			if n == 1 {
				replace(http.StatusTooManyRequests, http.Header{"Retry-After": {"7200"}}, `{"success":false,"error":"Rate limit exceeded"}`)(n, job, a)
			}
		},
	})
	RetryAfterLong = register("retry-after-long", Fault{
		Doc: "the first trace answer is a 429 with Retry-After: 600 (ten minutes)",
		Trace: func(n int, job string, a *Answer) {
			if n == 1 {
				replace(http.StatusTooManyRequests, http.Header{"Retry-After": {"600"}}, `{"success":false,"error":"Rate limit exceeded"}`)(n, job, a)
			}
		},
	})
)

// Text that is costly to lay out.
var (
	LongWord = register("long-word", Fault{
		Doc: "one more reasoning.summary whose text is one word of 1 MB",
		Trace: inject(func(t *trace, job string) ([][]byte, [][]byte) {
			return nil, [][]byte{injected(t, "0190f3a4-0000-7000-8000-00000000f301", "reasoning.summary", 0, map[string]any{
				"text": strings.Repeat("w", 1<<20)})}
		}),
	})
)

// setMember sets a top-level member of a trace body to the raw JSON v.
func setMember(name, v string) func(int, string, *Answer) {
	return func(_ int, _ string, a *Answer) {
		rewrite(a, func(t *trace) []byte {
			if _, ok := t.values[name]; !ok {
				t.names = append(t.names, name)
			}
			t.values[name] = jsontext.Value(v)
			return t.bytes()
		})
	}
}

// setField sets a field of the events that have it.
func setField(name string, v any) func(map[string]any) {
	return func(e map[string]any) {
		if _, ok := e[name]; ok {
			e[name] = v
		}
	}
}

// setArtifact sets a field of an artifact.updated event's descriptor.
func setArtifact(name string, v any) func(map[string]any) {
	return func(e map[string]any) {
		if art, ok := e["artifact"].(map[string]any); ok {
			art[name] = v
		}
	}
}

// inject adds events before and after the trace's own. The events that
// fn makes must be the same on every call.
func inject(fn func(t *trace, job string) (before, after [][]byte)) func(int, string, *Answer) {
	return func(_ int, job string, a *Answer) {
		rewrite(a, func(t *trace) []byte {
			before, after := fn(t, job)
			return t.build(before, after)
		})
	}
}

// replace answers with status, header and body instead of the sim.
func replace(status int, h http.Header, body string) func(int, string, *Answer) {
	return func(_ int, _ string, a *Answer) {
		a.Status = status
		a.Header = http.Header{"Content-Type": {"application/json"}}
		for k, v := range h {
			a.Header[k] = v
		}
		a.Body = []byte(body)
	}
}
