package poller

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/firewatch/firewatch/text"
)

func TestRetryAfterHeader(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"12", 12 * time.Second},
		{" 7 ", 7 * time.Second},
		{"1.5", 1500 * time.Millisecond},
		{"0", 0},
		{"-3", 0},
		{"NaN", 0},
		{"1e300", 24 * time.Hour},
		{now.Add(30 * time.Second).Format(http.TimeFormat), 30 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"Sat, 14 Mar 2026 12:01:00 GMT", time.Minute},
		{"soon", 0},
		{"", 0},
	} {
		if got := retryAfterHeader(tc.in, now); got != tc.want {
			t.Errorf("Retry-After %q: %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestRetryAfterText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"Rate limit exceeded. Consumed (req/min): 501, Remaining (req/min): 0. Upgrade your plan at https://firecrawl.dev/pricing for increased rate limits or please retry after 12s, resets at Sat, 14 Mar 2026 12:01:00 GMT", 12 * time.Second},
		{"please retry after 1.5 seconds", 1500 * time.Millisecond},
		{"Retry After 3 SECONDS", 3 * time.Second},
		{"try again in 2 minutes", 2 * time.Minute},
		{"retry after 500ms", 500 * time.Millisecond},
		{"retry after 20", 20 * time.Second},
		{"You have reached the maximum number of active browser sessions.", 0},
		{"retry after a while", 0},
	} {
		if got := retryAfterText(tc.in); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestErrorBody(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body  string
		msg   string
		after time.Duration
	}{
		{`{"error":"Agent job not found"}`, "Agent job not found", 0},
		{`{"success":false,"error":"Rate limit exceeded","retry_after_seconds":7}`, "Rate limit exceeded", 7 * time.Second},
		{`{"success":false,"error":"x","retry_after_seconds":"9"}`, "x", 9 * time.Second},
		{`{"message":"Bad thing"}`, "Bad thing", 0},
		{`{"error":{"code":"E","message":"nested"}}`, "nested", 0},
		{`{"error":42,"error":"last wins"}`, "last wins", 0},
		{`{"error":42}`, "", 0},
		{`{"error":null,"retry_after_seconds":-4}`, "", 0},
		{`[1,2]`, "", 0},
		{`"just a string"`, "just a string", 0},
		{`Service Unavailable`, "Service Unavailable", 0},
		{"<html><title>502 Bad Gateway</title></html>", "", 0},
		{`{"error":"trunc`, "", 0},
		{"", "", 0},
		{strings.Repeat("x", 500), "", 0},
	} {
		msg, after := errorBody([]byte(tc.body))
		if msg != tc.msg || after != tc.after {
			t.Errorf("%q: %q %v, want %q %v", tc.body, msg, after, tc.msg, tc.after)
		}
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		op     string
		status int
		msg    string
		want   Kind
	}{
		{"trace", 400, "Trace is only available for Spark 2 extracts", KindFirstGeneration},
		{"trace", 400, "something else entirely", KindFirstGeneration},
		{"trace", 400, "Invalid job ID format. Job ID must be a valid UUID.", KindInvalidID},
		{"snapshot", 400, "Snapshots are only available for Spark 2 extracts", KindFirstGeneration},
		{"snapshot", 400, "Invalid snapshot ID", KindInvalidID},
		{"list runs", 400, "Invalid 'before' parameter", KindBadRequest},
		{"trace", 401, "Unauthorized: Invalid token", KindUnauthorized},
		{"trace", 403, "", KindUnauthorized},
		{"trace", 404, "Agent job not found", KindNotFound},
		{"trace", 408, "", KindTimeout},
		{"cancel", 409, "Agent already finished", KindAlreadyFinished},
		{"cancel", 409, "Agent is already cancelled", KindAlreadyCancelled},
		{"cancel", 409, "", KindAlreadyFinished},
		// "cancel" in the message does not make it the second answer.
		{"cancel", 409, "Agent is already canceled", KindAlreadyCancelled},
		{"cancel", 409, "Cancellation was already requested", KindAlreadyCancelled},
		{"cancel", 409, "The agent has already been cancelled", KindAlreadyCancelled},
		{"cancel", 409, "Cannot cancel: the agent has already finished", KindAlreadyFinished},
		{"cancel", 409, "Cannot cancel a completed agent", KindAlreadyFinished},
		{"cancel", 409, "Agent already finished, nothing to cancel", KindAlreadyFinished},
		{"trace", 409, "", KindBadRequest},
		{"trace", 402, "Payment required", KindBadRequest},
		{"trace", 410, "", KindNotFound}, // gone: expired
		{"trace", 405, "Method not allowed", KindBadRequest},
		{"trace", 413, "", KindBadRequest},
		{"trace", 429, "", KindRateLimited},
		{"trace", 500, "", KindServer},
		{"trace", 504, "", KindServer},
		{"trace", 302, "", KindServer},
	} {
		if got := classify(tc.op, tc.status, tc.msg); got != tc.want {
			t.Errorf("%s %d %q: %v, want %v", tc.op, tc.status, tc.msg, got, tc.want)
		}
	}
	for _, tc := range []struct {
		op, msg string
		want    Kind
	}{
		{"token usage", "Could not find token usage information", KindNotFound},
		{"token usage", "An internal server error occurred while fetching token usage", KindServer},
		{"cancel", "Agent is already cancelled", KindAlreadyCancelled},
		{"cancel", "Agent already finished", KindAlreadyFinished},
		{"cancel", "Cannot cancel: agent already finished", KindAlreadyFinished},
		{"trace", "Unauthorized: Token missing", KindUnauthorized},
		{"trace", "Rate limit exceeded", KindRateLimited},
	} {
		if got := classifyText(tc.op, tc.msg); got != tc.want {
			t.Errorf("%s %q: %v, want %v", tc.op, tc.msg, got, tc.want)
		}
	}
}

func TestErrorMessages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		e    *Error
		want string
	}{
		{&Error{Kind: KindNotFound, Op: "trace", Status: 404, ServerMessage: "Agent job not found"},
			`trace: not found or expired (404): "Agent job not found" — results are kept for 24 hours`},
		{&Error{Kind: KindFirstGeneration, Op: "trace", Status: 400, ServerMessage: "Trace is only available for Spark 2 extracts"},
			`trace: no trace for this job (400): "Trace is only available for Spark 2 extracts" — traces exist only for runs on the second model generation (Spark 2)`},
		{&Error{Kind: KindUnauthorized, Op: "status", Status: 401, ServerMessage: "Unauthorized: Token missing"},
			`status: unauthorised (401): "Unauthorized: Token missing" — check the API key (FIRECRAWL_API_KEY)`},
		{&Error{Kind: KindRateLimited, Op: "trace", Status: 429, ServerMessage: "Rate limit exceeded", RetryAfter: 12 * time.Second},
			`trace: rate limited (429): "Rate limit exceeded" — the service asks to wait 12.0s`},
		{&Error{Kind: KindServer, Op: "trace", Status: 503},
			`trace: server error (503)`},
		{&Error{Kind: KindAlreadyCancelled, Op: "cancel", Status: 409, ServerMessage: "Agent is already cancelled"},
			`cancel: the run is already cancelled (409): "Agent is already cancelled"`},
		{&Error{Kind: KindTimeout, Op: "trace", detail: "no answer within 30s"},
			`trace: no answer within 30s`},
		{&Error{Kind: KindTimeout, Op: "trace", Status: 408},
			`trace: the server timed out (408)`},
		{&Error{Kind: KindMalformed, Op: "trace", Status: 200, detail: "events[3]: the body ends too early (truncated?)"},
			`trace: malformed response: events[3]: the body ends too early (truncated?) (200)`},
		{&Error{Kind: KindBadRequest, Op: "trace", Status: 402, ServerMessage: "Payment required"},
			`trace: request refused by the service (402): "Payment required"`},
		{&Error{Kind: KindNetwork, Op: "trace", detail: "connection reset"},
			`trace: network error: connection reset`},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("\n got %s\nwant %s", got, tc.want)
		}
	}
	cause := errors.New("boom")
	if e := (&Error{Kind: KindNetwork, Err: cause}); !errors.Is(e, cause) {
		t.Fatal("Unwrap")
	}
	for k := KindInvalidID; k <= KindBadRequest; k++ {
		if strings.HasPrefix(k.String(), "Kind(") {
			t.Errorf("kind %d has no name", k)
		}
		e := &Error{Kind: k}
		if e.Retryable() && e.Refusal() {
			t.Errorf("%v is both retryable and a refusal", k)
		}
	}
}

func TestHealthString(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    Health
		want string
	}{
		{Health{}, "connecting"},
		{Health{Polls: 3, LastGood: now.Add(-2 * time.Second)}, "ok · last poll 2s ago"},
		{Health{Polls: 3, LastGood: now.Add(-300 * time.Millisecond)}, "ok · last poll just now"},
		{Health{Polls: 3, LastGood: now.Add(-90 * time.Second), Failures: 2, NextTry: now.Add(7200 * time.Millisecond), Cause: "rate limited", Reason: "rate limited, retrying in 12s"},
			"retrying in 8s: rate limited · last good poll 1m30s ago"},
		{Health{Failures: 1, NextTry: now.Add(-time.Second), Cause: "server error 503"}, "retrying now: server error 503"},
		{Health{Failures: 1, NextTry: now.Add(300 * time.Millisecond), Reason: "network: connection reset, retrying in 300ms"}, "retrying in 1s: network: connection reset, retrying in 300ms"},
		{Health{Polls: 3, Paused: true, Failures: 3}, "paused"},
		{Health{Polls: 9, Tail: true, LastGood: now.Add(-time.Second)}, "run finished, waiting for late events · last poll 1s ago"},
		{Health{Polls: 9, Tail: true, Done: true, LastGood: now.Add(-time.Second)}, "finished · last poll 1s ago"},
		{Health{Polls: 9, Replay: true}, "replay"},
		{Health{Polls: 9, Replay: true, Done: true}, "replay finished"},
	} {
		if got := tc.h.StringAt(now); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.h, got, tc.want)
		}
	}
}

// FuzzErrorAnswer feeds arbitrary error answers through the client's error
// path: no panic, the key never in the message, nothing unprintable.
func FuzzErrorAnswer(f *testing.F) {
	const key = "fc-0123456789abcdef"
	f.Add(429, "12", `{"success":false,"error":"please retry after 12s"}`)
	f.Add(400, "", `{"error":"Trace is only available for Spark 2 extracts"}`)
	f.Add(401, "", `{"error":"Unauthorized: Invalid token Bearer fc-0123456789abcdef"}`)
	f.Add(503, "Sat, 14 Mar 2026 12:01:00 GMT", "<html>503</html>")
	f.Add(404, "", "fc-01234\x1b[0m56789abcdef \u202e\x07")
	f.Add(409, "x", `{"error":{"message":"nested \u001b]0;t\u0007"}}`)
	c := &Client{key: key, secrets: text.NewSecrets(key), now: time.Now}
	f.Fuzz(func(t *testing.T, status int, retryAfter, body string) {
		if status < 100 || status > 999 {
			status = 500
		}
		h := http.Header{}
		h.Set("Retry-After", retryAfter)
		for _, op := range []string{"trace", "cancel", "token usage"} {
			e := c.statusError(op, &response{status: status, header: h, body: []byte(body)})
			for _, s := range []string{e.Error(), e.ServerMessage, e.Short()} {
				if strings.Contains(s, key) {
					t.Fatalf("the key in %q", s)
				}
				for _, r := range s {
					if r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
						t.Fatalf("unprintable %U in %q", r, s)
					}
				}
			}
			if e.RetryAfter < 0 || e.RetryAfter > 24*time.Hour {
				t.Fatalf("RetryAfter %v", e.RetryAfter)
			}
			if text.Sanitize(e.ServerMessage) != e.ServerMessage || len([]rune(e.ServerMessage)) > maxMessage+1 {
				t.Fatalf("message %q", e.ServerMessage)
			}
		}
		o, _ := parseObject([]byte(body))
		o.str("error")
		o.num("retry_after_seconds")
		o.time("createdAt")
		o.array("data", "runs")
		o.obj("data")
	})
}
