package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/sim"
)

// TestInteractOneShot runs one call per exit code of the one-shot form,
// and the usage errors, against the simulator. Usage errors send nothing.
func TestInteractOneShot(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1e4, Scrapes: 1})
	id := srv.ScrapeIDs[0]
	env := simEnv(srv)
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string // substring
		stderr string // substring
		sends  bool
	}{
		{"ok", []string{"--code", "await page.title()"}, "", 0, "Example | Pricing\n", "Live view: http", true},
		{"exit code", []string{"--code", "process.exit(3)"}, "", 3, "", "", true},
		{"exception", []string{"--code", "throw new Error('boom')"}, "", 1, "", "Error: boom", true},
		{"killed", []string{"--code", "while (true) {}", "--timeout", "2"}, "", 124, "", "killed after 2s", true},
		{"python", []string{"--code", "print('hi')", "--language", "python"}, "", 0, "hi\n", "", true},
		{"stdin bash", []string{"--code", "-", "--language", "bash"}, "get url\n", 0, "https://example.com/pricing\n", "", true},
		{"prompt", []string{"--prompt", "what is the title?"}, "", 0, `The page title is "Example | Pricing".`, "", true},
		{"json", []string{"--code", "await page.url()", "-o", "json"}, "", 0, `"stdout":"https://example.com/pricing\n"`, "", true},
		{"refused 429", []string{"--code", "1"}, "", 6, "", "You have reached the maximum number of active browser sessions.", true},
		{"refused 402", []string{"--code", "1"}, "", 6, "", "add credits", true},
		{"both", []string{"--code", "1", "--prompt", "x"}, "", 2, "", "not both", false},
		{"empty code", []string{"--code", ""}, "", 2, "", "--code is empty", false},
		{"empty stdin", []string{"--code", "-"}, "", 2, "", "--code is empty", false},
		{"too long", []string{"--code", "-"}, strings.Repeat("x", 100001), 2, "", "at most 100000", false},
		{"language", []string{"--code", "1", "--language", "ruby"}, "", 2, "", `--language "ruby"`, false},
		{"timeout 0", []string{"--code", "1", "--timeout", "0"}, "", 2, "", "from 1 to 300", false},
		{"timeout 301", []string{"--code", "1", "--timeout", "301"}, "", 2, "", "from 1 to 300", false},
		{"not a terminal", nil, "", 2, "", "the console needs a terminal", false},
		{"stop with code", []string{"--stop", "--code", "1"}, "", 2, "", "--stop ends the session", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := id
			switch tt.name {
			case "refused 429":
				target = sim.FaultScrapeID(429)
			case "refused 402":
				target = sim.FaultScrapeID(402)
			}
			before := srv.Stats().ByRoute["POST interact"]
			p := startIn(t, env, tt.stdin, append([]string{"interact", target}, tt.args...)...)
			code := p.wait(t, 30*time.Second)
			r := result{stdout: p.stdout.String(), stderr: p.stderr.String(), code: code}
			if code != tt.code || !strings.Contains(r.stdout, tt.stdout) || !strings.Contains(r.stderr, tt.stderr) {
				t.Fatalf("want exit %d, stdout %q, stderr %q; got %s", tt.code, tt.stdout, tt.stderr, r)
			}
			if sent := srv.Stats().ByRoute["POST interact"] - before; sent != map[bool]int{true: 1, false: 0}[tt.sends] {
				t.Fatalf("%d requests sent", sent)
			}
			if tt.name == "json" {
				if n := strings.Count(strings.TrimSpace(r.stdout), "\n"); n != 0 {
					t.Fatalf("json output on %d lines", n+1)
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || m["success"] != true || m["exitCode"] != 0.0 {
					t.Fatalf("json %v %v", m, err)
				}
			}
			noKey(t, srv.Key, map[string][]byte{"stdout": []byte(r.stdout), "stderr": []byte(r.stderr)})
		})
	}
	// Hostile output is sanitised; the JSON keeps it, escaped.
	r := runFW(t, env, 10*time.Second, "interact", id, "--code", `console.log('\x1b]52;c;aGk=\x07\x1b[31mred'); console.error('\x1b[2Jerr')`)
	if r.code != 0 || r.stdout != "red\n" || strings.ContainsAny(r.stderr, "\x1b\a") || !strings.Contains(r.stderr, "err\n") {
		t.Fatalf("hostile: %q %q", r.stdout, r.stderr)
	}
	// A bad id: exit 2, nothing sent.
	r = runFW(t, env, 10*time.Second, "interact", "not-a-uuid", "--code", "1")
	if r.code != 2 || !strings.Contains(r.stderr, "not a UUID") {
		t.Fatalf("bad id: %s", r)
	}
}

// startIn is start with stdin.
func startIn(t *testing.T, env []string, stdin string, args ...string) *proc {
	t.Helper()
	if stdin == "" {
		return start(t, env, args...)
	}
	f := filepath.Join(t.TempDir(), "stdin")
	if err := os.WriteFile(f, []byte(stdin), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return startWith(t, env, in, args...)
}

// TestScrapeInteractStop is the whole flow: scrape a page, run code in
// its browser, stop the session; afterwards the session is gone.
func TestScrapeInteractStop(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1e4, Scrapes: -1})
	env := simEnv(srv)
	r := runFW(t, env, 20*time.Second, "scrape", "https://acme.dev/pricing", "--formats", "markdown,links")
	if r.code != 0 || !strings.Contains(r.stdout, "--- markdown ---\n# Acme | Pricing") || !strings.Contains(r.stdout, "--- links ---\nhttps://acme.dev/") {
		t.Fatalf("scrape: %s", r)
	}
	id := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(r.stderr), "Scrape ID:"))
	if len(id) != 36 {
		t.Fatalf("scrape id %q", r.stderr)
	}
	r = runFW(t, env, 20*time.Second, "interact", id, "--code", "await page.click('text=Docs')\nawait page.url()")
	if r.code != 0 || r.stdout != "https://acme.dev/docs\n" {
		t.Fatalf("interact: %s", r)
	}
	r = runFW(t, env, 20*time.Second, "interact", id, "--code", "get title", "--language", "bash")
	if r.code != 0 || r.stdout != "Acme | Docs\n" {
		t.Fatalf("same session: %s", r)
	}
	if n := srv.ActiveBrowserSessions(); n != 1 {
		t.Fatalf("%d sessions", n)
	}
	r = runFW(t, env, 20*time.Second, "interact", id, "--stop")
	if r.code != 0 || !strings.Contains(r.stderr, "stopped the browser session of scrape "+id) {
		t.Fatalf("stop: %s", r)
	}
	r = runFW(t, env, 20*time.Second, "interact", id, "--stop")
	if r.code != 0 || !strings.Contains(r.stderr, "no browser session to stop") {
		t.Fatalf("second stop: %s", r)
	}
	r = runFW(t, env, 20*time.Second, "interact", id, "--code", "1")
	if r.code != 6 || !strings.Contains(r.stderr, "scrape the page again") {
		t.Fatalf("after stop: %s", r)
	}
	if n := srv.ActiveBrowserSessions(); n != 0 {
		t.Fatalf("%d sessions after stop", n)
	}
	// The json scrape: the response's data on one line.
	schema := filepath.Join(t.TempDir(), "schema.json")
	os.WriteFile(schema, []byte(`{"type":"object","properties":{"title":{"type":"string"}}}`), 0o644)
	r = runFW(t, env, 20*time.Second, "scrape", "https://acme.dev", "--json-schema", schema, "-o", "json")
	var data struct {
		JSON     map[string]any `json:"json"`
		Markdown string         `json:"markdown"`
		Metadata struct {
			ScrapeID string `json:"scrapeId"`
		} `json:"metadata"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &data) != nil || data.JSON["title"] != "Acme | Home" || data.Markdown == "" || data.Metadata.ScrapeID == "" {
		t.Fatalf("json scrape: %s", r)
	}
}

func TestScrapeAndPreviewUsage(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1e4})
	env := simEnv(srv)
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`[1]`), 0o644)
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"scrape", "example.com"}, "must start with http"},
		{[]string{"scrape", "https://a.dev", "--formats", "extract"}, "v1 name"},
		{[]string{"scrape", "https://a.dev", "--formats", "pdf"}, "must be among"},
		{[]string{"scrape", "https://a.dev", "--formats", "json"}, "needs --json-prompt"},
		{[]string{"scrape", "https://a.dev", "--json-schema", bad}, "not a JSON object"},
		{[]string{"scrape", "https://a.dev", "--wait-for", "-5"}, "--wait-for -5"},
		{[]string{"scrape", "https://a.dev", "--interact"}, "needs a terminal"},
		{[]string{"crawl-preview", "https://a.dev"}, "needs a URL and a PROMPT"},
		{[]string{"crawl-preview", "https://a.dev", " "}, "PROMPT is empty"},
	} {
		r := runFW(t, env, 10*time.Second, tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.msg) {
			t.Errorf("%v: want exit 2 and %q; got %s", tt.args, tt.msg, r)
		}
	}
	if n := srv.Stats().Requests; n != 0 {
		t.Fatalf("%d requests made by usage errors", n)
	}
	r := runFW(t, env, 10*time.Second, "crawl-preview", "https://docs.acme.dev", "only the blog, 2 levels deep, with subdomains")
	if r.code != 0 || !strings.Contains(r.stdout, "includePaths        blog/.*\n") || !strings.Contains(r.stdout, "allowSubdomains     true\n") {
		t.Fatalf("preview: %s", r)
	}
	r = runFW(t, env, 10*time.Second, "crawl-preview", "https://docs.acme.dev", "the whole site", "-o", "json")
	var d map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &d) != nil || d["crawlEntireDomain"] != true {
		t.Fatalf("preview json: %s", r)
	}
}
