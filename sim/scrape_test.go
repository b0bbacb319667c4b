package sim

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
)

func (c *tclient) post(t testing.TB, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s %s: not JSON: %v: %.300s", method, path, err, b)
	}
	return resp.StatusCode, m
}

func TestScrapeFormats(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{})
	c := newClient(s)
	tests := []struct {
		name, body string
		status     int
		has, not   []string
		errPart    string
	}{
		{"default markdown", `{"url":"https://example.com/pricing"}`, 200, []string{"markdown", "metadata"}, []string{"html", "links"}, ""},
		{"several", `{"url":"https://acme.dev/docs","formats":["markdown","html","links","summary"]}`, 200, []string{"markdown", "html", "links", "summary"}, []string{"json", "screenshot"}, ""},
		{"screenshot object", `{"url":"https://acme.dev","formats":[{"type":"screenshot","fullPage":true}]}`, 200, []string{"screenshot"}, []string{"markdown"}, ""},
		{"json prompt", `{"url":"https://acme.dev","formats":[{"type":"json","prompt":"the title and the prices"}]}`, 200, []string{"json"}, nil, ""},
		{"v1 extract", `{"url":"https://acme.dev","formats":["extract"]}`, 400, nil, nil, "v1 format"},
		{"v1 option", `{"url":"https://acme.dev","parsePDF":true}`, 400, nil, nil, "parsePDF"},
		{"json as string", `{"url":"https://acme.dev","formats":["json"]}`, 400, nil, nil, "object form"},
		{"no url", `{"formats":["markdown"]}`, 400, nil, nil, "url is required"},
		{"bad url", `{"url":"ftp://x"}`, 400, nil, nil, "invalid URL"},
		{"not json", `{`, 400, nil, nil, "Invalid JSON"},
		{"waitFor", `{"url":"https://acme.dev","waitFor":-1}`, 400, nil, nil, "waitFor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, m := c.post(t, "POST", "/v2/scrape", tt.body)
			if st != tt.status {
				t.Fatalf("status %d, want %d: %v", st, tt.status, m)
			}
			if tt.errPart != "" {
				if e, _ := m["error"].(string); !strings.Contains(e, tt.errPart) || m["success"] != false {
					t.Fatalf("error %q, want it to contain %q", e, tt.errPart)
				}
				return
			}
			d := m["data"].(map[string]any)
			for _, k := range tt.has {
				if d[k] == nil {
					t.Errorf("no %s in %v", k, d)
				}
			}
			for _, k := range tt.not {
				if d[k] != nil {
					t.Errorf("unasked %s", k)
				}
			}
			md := d["metadata"].(map[string]any)
			if id, _ := md["scrapeId"].(string); !validUUID(id) {
				t.Errorf("scrapeId %q", id)
			}
		})
	}
	// The json format with a schema has the schema's shape.
	_, m := c.post(t, "POST", "/v2/scrape", `{"url":"https://acme.dev/pricing","formats":[{"type":"json","schema":{"type":"object","properties":{"title":{"type":"string"},"plans":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"price":{"type":"number"}}}}}}}]}`)
	j := m["data"].(map[string]any)["json"].(map[string]any)
	if j["title"] != "Acme | Pricing" {
		t.Errorf("json title %v", j["title"])
	}
	plans := j["plans"].([]any)
	if len(plans) != 4 || plans[1].(map[string]any)["name"] != "Hobby" {
		t.Errorf("json plans %v", plans)
	}
	// The screenshot URL is served.
	_, m = c.post(t, "POST", "/v2/scrape", `{"url":"https://acme.dev","formats":["screenshot"]}`)
	u := m["data"].(map[string]any)["screenshot"].(string)
	r, err := http.Get(u)
	if err != nil || r.StatusCode != 200 || r.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("screenshot %s: %v %v", u, err, r)
	}
	r.Body.Close()
}

func interactBody(code, lang string, timeout int) string {
	b, _ := json.Marshal(map[string]any{"code": code, "language": lang, "timeout": timeout})
	return string(b)
}

func TestInteractSandbox(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Speed: 1e5, Scrapes: 1})
	c := newClient(s)
	id := s.ScrapeIDs[0]
	tests := []struct {
		name, lang, code string
		timeout          int
		stdout, stderr   string // substrings
		exit             any    // float64 or nil
		killed           bool
		errPart          string
	}{
		{"node title", "node", "await page.title()", 30, "Example | Pricing\n", "", 0.0, false, ""},
		{"node url", "node", "console.log(page.url())", 30, "https://example.com/pricing\n", "", 0.0, false, ""},
		{"node print stderr", "node", "console.log('hi'); console.error('oops')", 30, "hi\n", "oops", 0.0, false, ""},
		{"node throw", "node", "throw new Error('boom')", 30, "", "Error: boom", 1.0, false, "Error: boom"},
		{"node missing selector", "node", "await page.click('#nope')", 30, "", "TimeoutError", 1.0, false, "TimeoutError"},
		{"node busy loop", "node", "while (true) {}", 7, "", "", nil, true, ""},
		{"node exit", "node", "process.exit(3)", 30, "", "", 3.0, false, ""},
		{"node unknown name", "node", "foo", 30, "", "ReferenceError", 1.0, false, "ReferenceError: foo is not defined"},
		{"python title", "python", "print(await page.title())", 30, "Example | Pricing\n", "", 0.0, false, ""},
		{"python raise", "python", "raise ValueError('bad value')", 30, "", "Traceback", 1.0, false, "ValueError: bad value"},
		{"python loop", "python", "while True:\n    pass", 5, "", "", nil, true, ""},
		{"python large", "python", "print('ab' * 1000)", 30, strings.Repeat("ab", 1000), "", 0.0, false, ""},
		{"bash get title", "bash", "get title", 30, "Example | Pricing\n", "", 0.0, false, ""},
		{"bash snapshot", "bash", "snapshot", 30, "heading \"Example | Pricing\"", "", 0.0, false, ""},
		{"bash unknown", "bash", "frobnicate", 30, "", "unknown command", 127.0, false, ""},
		{"bash sleep killed", "bash", "sleep 20", 10, "", "", nil, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, m := c.post(t, "POST", "/v2/scrape/"+id+"/interact", interactBody(tt.code, tt.lang, tt.timeout))
			if st != 200 {
				t.Fatalf("status %d: %v", st, m)
			}
			if out, _ := m["stdout"].(string); !strings.Contains(out, tt.stdout) {
				t.Errorf("stdout %q, want %q", out, tt.stdout)
			}
			if m["result"] != m["stdout"] {
				t.Errorf("result %v is not stdout", m["result"])
			}
			if e, _ := m["stderr"].(string); !strings.Contains(e, tt.stderr) {
				t.Errorf("stderr %q, want %q", e, tt.stderr)
			}
			if m["exitCode"] != tt.exit || m["killed"] != tt.killed {
				t.Errorf("exitCode %v killed %v, want %v %v", m["exitCode"], m["killed"], tt.exit, tt.killed)
			}
			if e, _ := m["error"].(string); tt.errPart != "" && !strings.Contains(e, tt.errPart) || tt.errPart == "" && m["error"] != nil {
				t.Errorf("error %v, want %q", m["error"], tt.errPart)
			}
			for _, k := range []string{"cdpUrl", "liveViewUrl", "interactiveLiveViewUrl"} {
				if v, _ := m[k].(string); v == "" {
					t.Errorf("no %s", k)
				}
			}
		})
	}
	// A click on a selector that exists navigates; the session keeps the page.
	_, m := c.post(t, "POST", "/v2/scrape/"+id+"/interact", interactBody("await page.click('text=Docs')\nawait page.url()", "node", 30))
	if m["stdout"] != "https://example.com/docs\n" {
		t.Errorf("after click: %q", m["stdout"])
	}
	_, m2 := c.post(t, "POST", "/v2/scrape/"+id+"/interact", interactBody("get url", "bash", 30))
	if m2["stdout"] != "https://example.com/docs\n" || m2["cdpUrl"] != m["cdpUrl"] {
		t.Errorf("session not reused: %v / %v", m2["stdout"], m2["cdpUrl"])
	}
	// Prompt mode answers from the page (the JS SDK sends language with it).
	_, m = c.post(t, "POST", "/v2/scrape/"+id+"/interact", `{"prompt":"What does the Hobby plan cost?","language":"node"}`)
	if out, _ := m["output"].(string); !strings.Contains(out, "Hobby ($") {
		t.Errorf("prompt output %q", out)
	}
	// Large output: 10 MB.
	_, m = c.post(t, "POST", "/v2/scrape/"+id+"/interact", interactBody("console.log('x'.repeat(10_000_000))", "node", 30))
	if n := len(m["stdout"].(string)); n != 10_000_001 {
		t.Errorf("large stdout %d bytes", n)
	}
}

func TestInteractErrors(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Speed: 1e5, Scrapes: 3, MaxBrowserSessions: 2})
	c := newClient(s)
	id := s.ScrapeIDs[0]
	ok := interactBody("await page.title()", "node", 30)
	tests := []struct {
		name, id, body string
		status         int
		msg            string
	}{
		{"not a uuid", "abc", ok, 400, msgInvalidJobID},
		{"both", id, `{"code":"1","prompt":"x"}`, 400, msgCodeXorPrompt},
		{"neither", id, `{"language":"node"}`, 400, msgCodeXorPrompt},
		{"empty code", id, `{"code":""}`, 400, msgCodeLength},
		{"long code", id, interactBody(strings.Repeat("x", 100001), "node", 30), 400, msgCodeLength},
		{"language", id, interactBody("1", "ruby", 30), 400, msgLanguage},
		{"timeout 0", id, interactBody("1", "node", 0), 400, msgTimeout},
		{"timeout 301", id, interactBody("1", "node", 301), 400, msgTimeout},
		{"timeout string", id, `{"code":"1","timeout":"5"}`, 400, msgTimeout},
		{"unknown job", "11111111-2222-4333-8444-555555555555", ok, 404, msgScrapeNotFound},
	}
	for st, msg := range faultMessages {
		tests = append(tests, struct {
			name, id, body string
			status         int
			msg            string
		}{"fault " + FaultScrapeID(st), FaultScrapeID(st), ok, st, msg})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, m := c.post(t, "POST", "/v2/scrape/"+tt.id+"/interact", tt.body)
			if st != tt.status || m["error"] != tt.msg || m["success"] != false {
				t.Fatalf("%d %v, want %d %q", st, m, tt.status, tt.msg)
			}
		})
	}
	// 100 000 characters are allowed.
	if st, m := c.post(t, "POST", "/v2/scrape/"+id+"/interact", interactBody("//"+strings.Repeat("x", 99998), "node", 30)); st != 200 {
		t.Fatalf("100000 chars: %d %v", st, m)
	}
	// A second session fits, a third is refused with the real message.
	if st, _ := c.post(t, "POST", "/v2/scrape/"+s.ScrapeIDs[1]+"/interact", ok); st != 200 {
		t.Fatal("second session refused")
	}
	if st, m := c.post(t, "POST", "/v2/scrape/"+s.ScrapeIDs[2]+"/interact", ok); st != 429 || m["error"] != MsgMaxSessions {
		t.Fatalf("third session: %d %v", st, m)
	}
	// Stop: 200 with the duration, then 404 no session, and the job is gone (410).
	st, m := c.post(t, "DELETE", "/v2/scrape/"+id+"/interact", "")
	if st != 200 || m["success"] != true || m["sessionDurationMs"] == nil {
		t.Fatalf("stop: %d %v", st, m)
	}
	if st, m := c.post(t, "DELETE", "/v2/scrape/"+id+"/interact", ""); st != 404 || m["error"] != msgNoSession {
		t.Fatalf("second stop: %d %v", st, m)
	}
	if st, m := c.post(t, "POST", "/v2/scrape/"+id+"/interact", ok); st != 410 {
		t.Fatalf("after stop: %d %v", st, m)
	}
	if s.ActiveBrowserSessions() != 1 {
		t.Fatalf("active sessions %d", s.ActiveBrowserSessions())
	}
	// Now the third fits.
	if st, _ := c.post(t, "POST", "/v2/scrape/"+s.ScrapeIDs[2]+"/interact", ok); st != 200 {
		t.Fatal("third session still refused after a stop")
	}
}

// Two calls at once on one session: the second is refused with 409, never
// run alongside.
func TestInteractBusy(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Speed: 1, Scrapes: 1})
	c := newClient(s)
	id := s.ScrapeIDs[0]
	var wg sync.WaitGroup
	wg.Add(1)
	started := make(chan struct{})
	go func() {
		defer wg.Done()
		close(started)
		c.post(t, "POST", "/v2/scrape/"+id+"/interact", interactBody("sleep 1", "bash", 30))
	}()
	<-started
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.scrapes.mu.Lock()
		busy := s.scrapes.jobs[id].session != nil && s.scrapes.jobs[id].session.busy
		s.scrapes.mu.Unlock()
		if busy || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	st, m := c.post(t, "POST", "/v2/scrape/"+id+"/interact", interactBody("get title", "bash", 30))
	if st != 409 || m["error"] != msgBusy {
		t.Fatalf("concurrent call: %d %v", st, m)
	}
	wg.Wait()
}

func TestParamsPreview(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{})
	c := newClient(s)
	tests := []struct {
		prompt string
		check  map[string]any
	}{
		{"Only the blog posts, 2 levels deep", map[string]any{"includePaths": []any{"blog/.*"}, "maxDepth": 2.0, "crawlEntireDomain": false}},
		{"only the API reference pages, two levels deep", map[string]any{"includePaths": []any{"api/.*"}, "maxDepth": 2.0, "maxDiscoveryDepth": 2.0}},
		{"the changelog, depth of three", map[string]any{"maxDepth": 3.0}},
		{"The whole site including subdomains and external links, 50 pages", map[string]any{"crawlEntireDomain": true, "allowSubdomains": true, "allowExternalLinks": true, "limit": 50.0}},
		{"Everything under /docs/api except the changelog, ignore the sitemap", map[string]any{"includePaths": []any{"docs/api/.*"}, "excludePaths": []any{"changelog/.*"}, "sitemap": "skip"}},
		{"Documentation pages but no external links", map[string]any{"includePaths": []any{"docs/.*"}, "allowExternalLinks": false}},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			b, _ := json.Marshal(map[string]string{"url": "https://acme.dev", "prompt": tt.prompt})
			st, m := c.post(t, "POST", "/v2/crawl/params-preview", string(b))
			if st != 200 || m["success"] != true {
				t.Fatalf("%d %v", st, m)
			}
			d := m["data"].(map[string]any)
			if d["url"] != "https://acme.dev" {
				t.Errorf("url %v", d["url"])
			}
			for k, want := range tt.check {
				got, _ := json.Marshal(d[k])
				w, _ := json.Marshal(want)
				if !bytes.Equal(got, w) {
					t.Errorf("%s = %s, want %s", k, got, w)
				}
			}
		})
	}
	if st, m := c.post(t, "POST", "/v2/crawl/params-preview", `{"url":"https://acme.dev"}`); st != 400 {
		t.Fatalf("no prompt: %d %v", st, m)
	}
}
