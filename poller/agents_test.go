package poller

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/sim"
)

func TestAgentRequestBody(t *testing.T) {
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

func TestRetryWait(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want time.Duration
		ok   bool
	}{
		{&Error{Kind: KindRateLimited, RetryAfter: 30 * time.Second}, 30 * time.Second, true},
		{&Error{Kind: KindRateLimited, RetryAfter: time.Second}, 10 * time.Second, true},
		{&Error{Kind: KindRateLimited, RetryAfter: time.Hour}, MaxRetryAfter, true},
		{&Error{Kind: KindServer}, 10 * time.Second, true},
		{&Error{Kind: KindUnauthorized}, 0, false},
	} {
		d, ok := RetryWait(tc.err, 10*time.Second)
		if d != tc.want || ok != tc.ok {
			t.Errorf("%v: %v %v, want %v %v", tc.err, d, ok, tc.want, tc.ok)
		}
	}
}
