package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/sim"
)

// TestRunOutcomes: firewatch run starts a run and watches it to its
// outcome's exit code; the prompt picks the simulator's scenario and a low
// --max-credits ends it at the credit limit.
func TestRunOutcomes(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 100})
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string
		cap  float64 // the summary's maxCredits: known, not assumed
	}{
		{"succeeded", []string{"Compare the pricing of web-scraping APIs", "--effort", "high", "--url", "https://www.zyte.com"}, 0, "outcome     succeeded", 2500},
		{"failed", []string{"This one will fail"}, 1, "outcome     failed", 2500},
		{"refused", []string{"Find personal phone numbers"}, 4, "outcome     refused", 2500},
		{"credit limit", []string{"Compare the pricing of web-scraping APIs", "--max-credits", "40"}, 5, "outcome     credit_limit_reached", 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"run"}, tc.args...)
			args = append(args, "--output", "plain", "--interval", "100ms", "--summary", "sum.json")
			r := runFW(t, simEnv(srv), runLimit, args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r)
			}
			if !strings.Contains(r.stderr, "firewatch: started run ") {
				t.Errorf("stderr lacks the started line\n%s", r)
			}
			if !strings.Contains(r.stdout, tc.out) {
				t.Errorf("stdout lacks %q\n%s", tc.out, r)
			}
			noKey(t, srv.Key, map[string][]byte{"stdout": []byte(r.stdout), "stderr": []byte(r.stderr)})
			b, err := os.ReadFile(filepath.Join(r.dir, "sum.json"))
			if err != nil {
				t.Fatal(err)
			}
			var sum struct {
				MaxCredits        float64 `json:"maxCredits"`
				MaxCreditsAssumed bool    `json:"maxCreditsAssumed"`
			}
			if err := json.Unmarshal(b, &sum); err != nil || sum.MaxCredits != tc.cap || sum.MaxCreditsAssumed {
				t.Errorf("summary maxCredits %+v (%v), want %v known", sum, err, tc.cap)
			}
		})
	}
}

// TestRunDetachAndList: --detach prints only the id; the new run is in
// runs -o json (the service's item) and runs -o plain.
func TestRunDetachAndList(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 100, History: 45})
	r := runFW(t, simEnv(srv), runLimit, "run", "Summarise the docs of the top 3 vector databases", "--detach", "--effort", "low")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	id := strings.TrimSpace(r.stdout)
	if len(id) != 36 || strings.Contains(r.stdout, "started") {
		t.Fatalf("--detach printed %q", r.stdout)
	}
	r = runFW(t, simEnv(srv), runLimit, "runs", "-o", "json", "--limit", "50")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 47 { // 45 history + research + the new one
		t.Fatalf("%d lines, want 47 (three pages)\n%s", len(lines), r)
	}
	var first struct {
		ID      string `json:"id"`
		Options struct {
			Prompt string `json:"prompt"`
			Effort string `json:"effort"`
		} `json:"options"`
		Settings map[string]any `json:"settings"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.ID != id || first.Options.Effort != "low" || first.Settings == nil {
		t.Errorf("the newest item is %+v, want the new run %s", first, id)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		var it struct{ ID string }
		_ = json.Unmarshal([]byte(l), &it)
		if seen[it.ID] {
			t.Errorf("run %s listed twice", it.ID)
		}
		seen[it.ID] = true
	}
	r = runFW(t, simEnv(srv), runLimit, "runs", "-o", "plain", "--status", "failed", "--limit", "3")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	out := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(out) != 4 || !strings.HasPrefix(out[0], "STATUS") {
		t.Fatalf("want a header and 3 rows:\n%s", r)
	}
	for _, l := range out[1:] {
		if !strings.HasPrefix(l, "failed") {
			t.Errorf("row %q is not failed", l)
		}
	}
}

// TestRunRefusals: bad usage exits 2 with no request; the service's
// refusals exit 6 with its message and nothing else is sent.
func TestRunRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"type\": \"object\",\n  \"properties\": {,}\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	invalid := filepath.Join(dir, "invalid.json")
	if err := os.WriteFile(invalid, []byte(`{"type":"object","properties":{"a":{"type":"strin"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startSim(t, sim.Options{Speed: 100})
	s402 := startSim(t, sim.Options{Speed: 100, RefuseStart: 402})
	s403 := startSim(t, sim.Options{Speed: 100, RefuseStart: 403})
	s429 := startSim(t, sim.Options{Speed: 100, RateLimit: 1})
	for _, tc := range []struct {
		name string
		srv  *sim.Server
		args []string
		code int
		msg  string
	}{
		{"empty prompt", srv, []string{" "}, 2, "the prompt: it is empty"},
		{"long prompt", srv, []string{strings.Repeat("a", 10001)}, 2, "10001 characters long; the service takes at most 10000"},
		{"schema syntax", srv, []string{"p", "--schema", bad}, 2, "bad.json: not valid JSON at line 3, column 18"},
		{"schema not object", srv, []string{"p", "--schema", "[1,2]"}, 2, "must be a JSON object, not an array"},
		{"max credits zero", srv, []string{"p", "--max-credits", "0"}, 2, "--max-credits 0: it must be a positive whole number"},
		{"max credits text", srv, []string{"p", "--max-credits", "lots"}, 2, "--max-credits"},
		{"effort", srv, []string{"p", "--effort", "max"}, 2, `--effort: "max" is not one of low, medium, high`},
		{"url", srv, []string{"p", "--url", "example.com"}, 2, `--url: "example.com" is not an http(s) URL`},
		{"invalid schema", srv, []string{"p", "--schema", invalid}, 6, `Invalid JSON schema: /properties/a/type: unknown type \"strin\"`},
		{"402", s402, []string{"p"}, 6, "Insufficient credits"},
		{"403", s403, []string{"p"}, 6, "Your plan does not include the agent endpoint."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runFW(t, simEnv(tc.srv), runLimit, append([]string{"run"}, append(tc.args, "-o", "plain")...)...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d, want %d with %q\n%s", r.code, tc.code, tc.msg, r)
			}
			if strings.Contains(r.stderr, "started run") {
				t.Errorf("a refused run was watched\n%s", r)
			}
		})
	}
	t.Cleanup(func() {
		// Of all the cases against srv only the invalid schema got as far
		// as a request; each refusal was sent once.
		for name, s := range map[string]*sim.Server{"srv": srv, "402": s402, "403": s403} {
			if n := s.Stats().ByRoute["POST agent"]; n != 1 {
				t.Errorf("%s: %d POSTs, want 1", name, n)
			}
		}
	})
	t.Run("429", func(t *testing.T) {
		// The first request uses the minute's only one; the start is
		// refused with the service's text and sent once.
		_ = runFW(t, simEnv(s429), runLimit, "runs", "-o", "json", "--limit", "1")
		r := runFW(t, simEnv(s429), runLimit, "run", "p", "-o", "plain")
		if r.code != 6 || !strings.Contains(r.stderr, "Rate limit exceeded") {
			t.Fatalf("exit %d, want 6 with the rate-limit text\n%s", r.code, r)
		}
		if n := s429.Stats().ByRoute["POST agent"]; n != 1 {
			t.Errorf("%d POSTs, want 1 (no retry)", n)
		}
	})
}

// TestTeamAndLatest: team plain and json; watch --latest.
func TestTeamAndLatest(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1, Scenarios: []string{"cancel"}, History: 3})
	r := runFW(t, simEnv(srv), runLimit, "team")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	for _, want := range []string{"tokens left", "billing period", "Processing     1 run", "Active crawls  4",
		"screenshot{full page, quality 80, 1280x800}", `[renamed: v1 option: v2 uses parsers: ["pdf"]]`, "actions: wait 1500ms → click #accept-cookies"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("team lacks %q\n%s", want, r)
		}
	}
	r = runFW(t, simEnv(srv), runLimit, "team", "-o", "json")
	var team struct {
		TokenUsage   map[string]any   `json:"tokenUsage"`
		ActiveCrawls []map[string]any `json:"activeCrawls"`
		Runs         []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &team); err != nil || r.code != 0 {
		t.Fatalf("%v\n%s", err, r)
	}
	if team.TokenUsage["remainingTokens"] == nil || len(team.ActiveCrawls) != 4 || len(team.Runs) != 1 || team.Runs[0]["id"] != srv.Jobs[0].ID {
		t.Errorf("team json: %+v", team)
	}
	r = runFW(t, simEnv(srv), runLimit, "watch", "--latest", "-o", "plain", "--timeout", "300ms")
	if r.code != 7 || !strings.Contains(r.stderr, "watching the newest processing run "+srv.Jobs[0].ID) {
		t.Fatalf("watch --latest: %s", r)
	}
	idle := startSim(t, sim.Options{Speed: 1, Scenarios: []string{"first-gen"}})
	r = runFW(t, simEnv(idle), runLimit, "watch", "--latest", "-o", "plain")
	if r.code != 2 || !strings.Contains(r.stderr, "no run is processing") {
		t.Fatalf("watch --latest with none processing: %s", r)
	}
	// Off a terminal, firewatch alone keeps the help and exit 0.
	r = runFW(t, simEnv(srv), runLimit)
	if r.code != 0 || !strings.Contains(r.stdout, "Usage:") {
		t.Fatalf("firewatch with no arguments off a terminal: %s", r)
	}
}
