package poller

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/sim"
)

func TestAgentRequestBody(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		req  AgentRequest
		want string
	}{
		{"prompt only", AgentRequest{Prompt: "Find the prices"}, `{"prompt":"Find the prices"}`},
		{"every field", AgentRequest{Prompt: "p", URLs: []string{"https://a.example", "https://b.example"},
			Schema: jsontext.Value("{\n \"type\": \"object\"\n}"), MaxCredits: 300, StrictConstrainToURLs: true, Model: "spark-2", Effort: "low"},
			`{"prompt":"p","urls":["https://a.example","https://b.example"],"schema":{"type":"object"},"maxCredits":300,"strictConstrainToURLs":true,"model":"spark-2","effort":"low"}`},
		{"escapes", AgentRequest{Prompt: "a \"quoted\"\nline <b>"}, `{"prompt":"a \"quoted\"\nline <b>"}`},
		{"an empty schema is sent", AgentRequest{Prompt: "p", Schema: jsontext.Value(`{ }`), URLs: []string{}}, `{"prompt":"p","schema":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.req.Body()
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Fatalf("body\n%s\nwant\n%s", b, tc.want)
			}
		})
	}
}

func TestAgentRequestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		req   AgentRequest
		field string // "" valid
	}{
		{"ok", AgentRequest{Prompt: "p"}, ""},
		{"blank", AgentRequest{Prompt: " \n\t"}, "prompt"},
		{"10 000", AgentRequest{Prompt: strings.Repeat("a", MaxPromptLen)}, ""},
		{"10 001", AgentRequest{Prompt: strings.Repeat("a", MaxPromptLen+1)}, "prompt"},
		// JavaScript counts UTF-16 units: an emoji is two.
		{"5 001 emoji", AgentRequest{Prompt: strings.Repeat("😀", MaxPromptLen/2+1)}, "prompt"},
		{"url", AgentRequest{Prompt: "p", URLs: []string{"ftp://x"}}, "urls"},
		{"schema array", AgentRequest{Prompt: "p", Schema: jsontext.Value(`[1]`)}, "schema"},
		{"credits", AgentRequest{Prompt: "p", MaxCredits: -1}, "maxCredits"},
		{"effort", AgentRequest{Prompt: "p", Effort: "extreme"}, "effort"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.req.Validate()
			var fe *FieldError
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("unexpected %v", err)
			case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field):
				t.Fatalf("got %v, want an error on %s", err, tc.field)
			}
		})
	}
}

// TestStartAgent: the answer's id; a refusal is the service's message,
// sent once; a request that fails validation is not sent.
func TestStartAgent(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1000})
	c := newClient(t, srv, withKey(srv))
	ctx := context.Background()
	id, err := c.StartAgent(ctx, AgentRequest{Prompt: "Compare prices", Effort: "high", MaxCredits: 100})
	if err != nil || !isUUID(id) {
		t.Fatalf("StartAgent: %q %v", id, err)
	}
	st, err := c.Status(ctx, id)
	if err != nil || st.Effort != "high" {
		t.Fatalf("status %+v %v", st, err)
	}
	_, err = c.StartAgent(ctx, AgentRequest{Prompt: "p", Schema: jsontext.Value(`{"type":"strin"}`)})
	var pe *Error
	if !errors.As(err, &pe) || pe.Status != 400 || !pe.Refusal() || !strings.HasPrefix(pe.ServerMessage, "Invalid JSON schema:") {
		t.Fatalf("invalid schema: %v", err)
	}
	if _, err := c.StartAgent(ctx, AgentRequest{Prompt: ""}); err == nil {
		t.Fatal("an empty prompt was accepted")
	}
	if n := srv.Stats().ByRoute["POST agent"]; n != 2 {
		t.Fatalf("%d POSTs, want 2", n)
	}
}

// TestRunPager: 45 history runs and one job are three pages; the pager
// fetches each once, follows the cursor, and stops.
func TestRunPager(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1000, History: 45})
	c := newClient(t, srv, withKey(srv))
	p := c.RunPages()
	var sizes []int
	var cursors []time.Time
	seen := map[string]bool{}
	for !p.Done() {
		l, err := p.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(l.Runs))
		for _, r := range l.Runs {
			if seen[r.ID] {
				t.Fatalf("run %s twice", r.ID)
			}
			seen[r.ID] = true
			if r.Origin == "" || r.Prompt == "" || r.CreatedAt.IsZero() {
				t.Fatalf("run %+v", r)
			}
		}
		if !p.Done() {
			if last := l.Runs[len(l.Runs)-1].CreatedAt; !p.Cursor().Equal(last) {
				t.Fatalf("cursor %v, want the page's last createdAt %v", p.Cursor(), last)
			}
			cursors = append(cursors, p.Cursor())
		}
	}
	if len(sizes) != 3 || sizes[0] != 20 || sizes[1] != 20 || sizes[2] != 6 || len(cursors) != 2 || !cursors[1].Before(cursors[0]) {
		t.Fatalf("pages %v cursors %v", sizes, cursors)
	}
	if _, err := p.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := srv.Stats().ByRoute["GET list"]; n != 3 || p.Pages() != 3 {
		t.Fatalf("%d list requests (%d pages), want 3: no page twice, none after the last", n, p.Pages())
	}
}

// TestRetryDelay: the one policy's waits: the service's delay clamped to
// [Interval, MaxRetryAfter], else the doubling backoff (at least Interval
// for a 429), never below Min; giving up after Tries tries; no retry for a
// refusal, a browser-session 429, or anything but a 429 when told so.
func TestRetryDelay(t *testing.T) {
	t.Parallel()
	poller := Retry{Tries: -1, Interval: 10 * time.Second}
	oneShot := Retry{}
	rl := func(d time.Duration) *Error { return &Error{Kind: KindRateLimited, Status: 429, RetryAfter: d} }
	for _, tc := range []struct {
		name string
		r    Retry
		err  error
		n    int
		want time.Duration
		ok   bool
	}{
		{"asked 30s", poller, rl(30 * time.Second), 1, 30 * time.Second, true},
		{"asked less than the interval", poller, rl(time.Second), 1, 10 * time.Second, true},
		{"asked an hour and more", poller, rl(3 * time.Hour), 1, MaxRetryAfter, true},
		{"a 5xx, first retry", poller, &Error{Kind: KindServer}, 1, time.Second, true},
		{"a 5xx, third retry", oneShot, &Error{Kind: KindServer}, 3, 4 * time.Second, true},
		{"a 429 naming no delay", poller, rl(0), 1, 10 * time.Second, true},
		{"the backoff's cap", Retry{Tries: -1}, &Error{Kind: KindNetwork}, 30, DefaultRetryCap, true},
		{"Min", Retry{Min: 3 * time.Second}, &Error{Kind: KindServer}, 1, 3 * time.Second, true},
		{"the last try", oneShot, rl(time.Second), DefaultTries - 1, time.Second, true},
		{"tries used up", oneShot, rl(time.Second), DefaultTries, 0, false},
		{"a poller never gives up", poller, rl(time.Second), 1000, 10 * time.Second, true},
		{"a refusal", poller, &Error{Kind: KindUnauthorized}, 1, 0, false},
		{"not an *Error", poller, context.Canceled, 1, 0, false},
		{"browser sessions", oneShot, &Error{Kind: KindRateLimited, Status: 429, ServerMessage: "too many browser sessions"}, 1, 0, false},
		{"429 only: a 5xx", oneShot.rateLimitOnly(), &Error{Kind: KindServer}, 1, 0, false},
		{"429 only: a 429", oneShot.rateLimitOnly(), rl(2 * time.Second), 1, 2 * time.Second, true},
	} {
		w, ok := tc.r.Delay(tc.err, tc.n)
		if w.Delay != tc.want || ok != tc.ok {
			t.Errorf("%s: %v %v, want %v %v", tc.name, w.Delay, ok, tc.want, tc.ok)
		}
	}
	w, _ := oneShot.Delay(rl(12*time.Second), 1)
	if got := w.String(); got != "rate limited, retrying in 12.0s (1/4)" {
		t.Errorf("Wait.String() = %q", got)
	}
	w, _ = poller.Delay(rl(3*time.Hour), 1)
	if got := w.String(); got != "rate limited, the service asks to wait 3h00m; retrying in 1h00m" {
		t.Errorf("Wait.String() = %q", got)
	}
}

// RunRequest asks the run's status once, and for the prompt the status
// does not carry, one page of the list: the page that starts at a UUIDv7's
// time (a run older than the newest page is found), the newest for any
// other id. What the answers say is sanitised.
func TestRunRequestAsksOnceAndFindsTheRunsPage(t *testing.T) {
	t.Parallel()
	const v7 = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
	const v4 = "5ed6f98d-2185-458e-8a55-9095090b65fc"
	created := time.UnixMilli(0x019a2b3c4d5e)
	for _, tc := range []struct {
		id, before string // before: the list page the run is on ("" the newest)
	}{
		{v7, strconv.FormatInt(created.Add(time.Minute).UnixMilli(), 10)},
		{v4, ""},
	} {
		var mu sync.Mutex
		var asked []string
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			asked = append(asked, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
			mu.Unlock()
			switch {
			case r.URL.Path == "/v2/agent/"+tc.id:
				io.WriteString(w, `{"success":true,"status":"processing","model":"spark-\u001b[2J2","effort":"high","expiresAt":"2026-03-15T09:00:00Z"}`)
			case r.URL.Path == "/v2/agent" && r.URL.Query().Get("before") == tc.before:
				io.WriteString(w, `{"success":true,"data":[{"id":"`+tc.id+`","status":"processing","options":{"prompt":"Find\u001b[31m prices\u202e","urls":["https://a.example"],"model":"spark-2"}}]}`)
			default:
				io.WriteString(w, `{"success":true,"data":[]}`)
			}
		}))
		c, err := New(Config{BaseURL: hs.URL, APIKey: "fc-test"})
		if err != nil {
			t.Fatal(err)
		}
		req, err := c.RunRequest(context.Background(), tc.id)
		hs.Close()
		if err != nil {
			t.Fatal(err)
		}
		if req.Prompt != "Find prices" || req.Model != "spark-2" || req.Effort != "high" || len(req.URLs) != 1 {
			t.Errorf("%s: request %+v", tc.id, req)
		}
		want := []string{"GET /v2/agent/" + tc.id + "?", "GET /v2/agent?"}
		if tc.before != "" {
			want[1] += "before=" + tc.before
		}
		if !slices.Equal(asked, want) {
			t.Errorf("%s: asked %q, want %q", tc.id, asked, want)
		}
	}
}
