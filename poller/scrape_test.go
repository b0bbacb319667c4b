package poller

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/sim"
)

func TestScrapeRequestBody(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	tests := []struct {
		name string
		req  ScrapeRequest
		want string
	}{
		{"url only", ScrapeRequest{URL: "https://a.dev"}, `{"url":"https://a.dev"}`},
		{"strings", ScrapeRequest{URL: "https://a.dev", Formats: []Format{{Type: "markdown"}, {Type: "links"}}}, `{"url":"https://a.dev","formats":["markdown","links"]}`},
		{"json object", ScrapeRequest{URL: "u", Formats: []Format{{Type: "json", Prompt: "p", Schema: jsontext.Value(`{"type":"object"}`)}}}, `{"url":"u","formats":[{"type":"json","prompt":"p","schema":{"type":"object"}}]}`},
		{"screenshot object", ScrapeRequest{URL: "u", Formats: []Format{{Type: "screenshot", FullPage: true}}}, `{"url":"u","formats":[{"type":"screenshot","fullPage":true}]}`},
		{"options", ScrapeRequest{URL: "u", OnlyMainContent: &yes, WaitFor: 500, Mobile: true}, `{"url":"u","onlyMainContent":true,"waitFor":500,"mobile":true}`},
		{"main content off", ScrapeRequest{URL: "u", OnlyMainContent: &no}, `{"url":"u","onlyMainContent":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(tt.req.Body()); got != tt.want {
				t.Errorf("body %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestInteractRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  InteractRequest
		body string // "" when invalid
		err  string
	}{
		{"code default language", InteractRequest{Code: "1"}, `{"code":"1","language":"node"}`, ""},
		{"code python timeout", InteractRequest{Code: "print(1)", Language: "python", Timeout: 5}, `{"code":"print(1)","language":"python","timeout":5}`, ""},
		{"prompt carries language", InteractRequest{Prompt: "click it"}, `{"prompt":"click it","language":"node"}`, ""},
		{"origin", InteractRequest{Code: "x", Origin: "firewatch"}, `{"code":"x","language":"node","origin":"firewatch"}`, ""},
		{"max code", InteractRequest{Code: strings.Repeat("é", MaxInteractCode)}, "ok", ""},
		{"both", InteractRequest{Code: "1", Prompt: "p"}, "", "not both"},
		{"neither", InteractRequest{}, "", "give code to run or a prompt"},
		{"blank prompt", InteractRequest{Prompt: "  "}, "", "prompt is empty"},
		{"too long", InteractRequest{Code: strings.Repeat("x", MaxInteractCode+1)}, "", "at most 100000"},
		{"language", InteractRequest{Code: "1", Language: "ruby"}, "", `language "ruby"`},
		{"timeout low", InteractRequest{Code: "1", Timeout: -1}, "", "from 1 to 300"},
		{"timeout high", InteractRequest{Code: "1", Timeout: 301}, "", "from 1 to 300"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(tt.req.Body()); tt.body != "ok" && got != tt.body {
				t.Errorf("body %s\nwant %s", got, tt.body)
			}
		})
	}
}

func TestScrapeInteractStop(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1e5, Scrapes: -1})
	c := newClient(t, srv, withKey(srv))
	ctx := context.Background()
	res, err := c.Scrape(ctx, &ScrapeRequest{URL: "https://acme.dev/pricing", Formats: []Format{{Type: "markdown"}, {Type: "links"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ScrapeID == "" || res.Title != "Acme | Pricing" || !strings.Contains(res.Markdown, "| Hobby |") || len(res.Links) == 0 {
		t.Fatalf("scrape %+v", res)
	}
	ir, err := c.Interact(ctx, res.ScrapeID, &InteractRequest{Code: "await page.title()"})
	if err != nil {
		t.Fatal(err)
	}
	if ir.Stdout != "Acme | Pricing\n" || ir.ExitCode == nil || *ir.ExitCode != 0 || ir.LiveViewURL == "" || ir.CDPURL == "" || ir.InteractiveLiveViewURL == "" {
		t.Fatalf("interact %+v", ir)
	}
	ir, err = c.Interact(ctx, res.ScrapeID, &InteractRequest{Code: "while (true) {}", Timeout: 3})
	if err != nil || !ir.Killed || ir.ExitCode != nil {
		t.Fatalf("killed: %+v %v", ir, err)
	}
	ir, err = c.Interact(ctx, res.ScrapeID, &InteractRequest{Prompt: "what is the title?"})
	if err != nil || !ir.HasOutput || !strings.Contains(ir.Output, "Acme | Pricing") {
		t.Fatalf("prompt: %+v %v", ir, err)
	}
	st, err := c.StopInteract(ctx, res.ScrapeID)
	if err != nil || st.NoSession || st.CreditsBilled == nil {
		t.Fatalf("stop: %+v %v", st, err)
	}
	st, err = c.StopInteract(ctx, res.ScrapeID)
	if err != nil || !st.NoSession || st.Message == "" {
		t.Fatalf("second stop: %+v %v", st, err)
	}
}

func TestInteractErrors(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1e5})
	c := newClient(t, srv, withKey(srv))
	ctx := context.Background()
	tests := []struct {
		status    int
		kind      Kind
		hint      string
		retryable bool
	}{
		{400, KindBadRequest, "scrape the page again", false},
		{402, KindBadRequest, "add credits", false},
		{403, KindUnauthorized, "team that ran the scrape", false},
		{404, KindNotFound, "check the scrape id", false},
		{409, KindBadRequest, "wait for it to finish", false},
		{410, KindNotFound, "scrape the page again", false},
		{429, KindBadRequest, "--stop", false},
		{502, KindServer, "try again in a moment", true},
	}
	for _, tt := range tests {
		t.Run(sim.FaultScrapeID(tt.status), func(t *testing.T) {
			before := srv.Stats().ByRoute["POST interact"]
			_, err := c.Interact(ctx, sim.FaultScrapeID(tt.status), &InteractRequest{Code: "1"})
			if n := srv.Stats().ByRoute["POST interact"] - before; n != 1 {
				t.Fatalf("sent %d times: an interact call is never sent twice", n)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err %v", err)
			}
			if e.Status != tt.status || e.Kind != tt.kind || e.Retryable() != tt.retryable || !strings.Contains(e.Error(), tt.hint) || e.ServerMessage == "" {
				t.Fatalf("%d %v retryable %v: %v", e.Status, e.Kind, e.Retryable(), e)
			}
		})
	}
	_, err := c.Interact(ctx, "nope", &InteractRequest{Code: "1"})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindInvalidID {
		t.Fatalf("bad id: %v", err)
	}
	if sim.MsgMaxSessions != "You have reached the maximum number of active browser sessions." {
		t.Fatal("the 429 message changed")
	}
}

func TestCrawlParamsPreview(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{})
	c := newClient(t, srv, withKey(srv))
	p, err := c.CrawlParamsPreview(context.Background(), " https://acme.dev ", "only the blog, 3 levels deep")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range p.Options {
		names = append(names, o.Name+"="+string(o.Value))
	}
	got := strings.Join(names, " ")
	for _, want := range []string{"url=\"https://acme.dev\"", `includePaths=["blog/.*"]`, "maxDiscoveryDepth=3"} {
		if !strings.Contains(got, want) {
			t.Errorf("options %s: no %s", got, want)
		}
	}
	if names[0] != `url="https://acme.dev"` {
		t.Errorf("order lost: %s", got)
	}
}
