package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/uuid"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

const runLimit = 60 * time.Second // generous: the machine is shared

// TestExitCodes: every way a watch can end has its exit code, and a refusal
// shows the service's own message.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research", "failure", "refused", "credit-limit", "first-gen"}})
	job := map[string]string{}
	for _, j := range srv.Jobs {
		job[j.Scenario] = j.ID
	}
	for _, tc := range []struct {
		name   string
		env    []string
		job    string
		code   int
		stderr string // must appear on stderr
		stdout string // must appear on stdout
	}{
		{"succeeded", nil, job["research"], 0, "", "outcome     succeeded"},
		{"failed", nil, job["failure"], 1, "", "outcome     failed: internal"},
		{"refused", nil, job["refused"], 4, "", "outcome     refused"},
		{"credit limit", nil, job["credit-limit"], 5, "", "outcome     credit_limit_reached"},
		{"first generation", nil, job["first-gen"], 6, "Trace is only available for Spark 2 extracts", ""},
		{"not found", nil, uuid.NewString(), 6, "Agent job not found", ""},
		{"unauthorised", []string{"FIRECRAWL_API_KEY=fc-wrong0000000000000000000000000"}, job["research"], 6, "Unauthorized", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := simEnv(srv, tc.env...) // a later FIRECRAWL_API_KEY wins
			r := runFW(t, env, runLimit, "watch", tc.job, "--output", "plain", "--interval", "100ms")
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r)
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr lacks %q\n%s", tc.stderr, r)
			}
			if !strings.Contains(r.stdout, tc.stdout) {
				t.Errorf("stdout lacks %q\n%s", tc.stdout, r)
			}
			keys := map[string][]byte{"stdout": []byte(r.stdout), "stderr": []byte(r.stderr)}
			noKey(t, srv.Key, keys)
			noKey(t, "fc-wrong0000000000000000000000000", keys)
		})
	}
}

// TestCancelledRun: a run cancelled while firewatch watches it exits 3.
func TestCancelledRun(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"cancel"}, Speed: 20})
	id := srv.Jobs[0].ID
	p := start(t, simEnv(srv), "watch", id, "--output", "plain", "--interval", "100ms")
	p.waitOutput(t, runLimit, "a tool call", func(s string) bool { return strings.Contains(s, " tool ") })

	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, runLimit); code != 3 {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, tailOf(p.stdout.String()), p.stderr.String())
	}
	out := p.stdout.String()
	for _, want := range []string{"cancel    cancel requested (reason: user)", "outcome     cancelled"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q\n%s", want, tailOf(out))
		}
	}
}

// TestTimeout: --timeout gives up on a run that goes on (exit 7) and still
// writes the summary.
func TestTimeout(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1})
	dir := t.TempDir()
	sum := filepath.Join(dir, "sum.json")
	begin := time.Now()
	r := runFW(t, simEnv(srv), runLimit, "watch", srv.Jobs[0].ID, "--output", "plain", "--timeout", "1500ms", "--summary", sum)
	if r.code != 7 {
		t.Fatalf("exit %d, want 7\n%s", r.code, r)
	}
	if el := time.Since(begin); el > 20*time.Second {
		t.Errorf("took %s to give up after 1.5s", el)
	}
	if !strings.Contains(r.stderr, "gave up after --timeout") || !strings.Contains(r.stdout, "still running") {
		t.Errorf("no word of giving up\n%s", r)
	}
	s := readSummary(t, readFile(t, sum))
	if s.State != model.StateRunning || s.Outcome != nil || s.EventCount == 0 || s.RunID != srv.Jobs[0].ID {
		t.Errorf("summary after a timeout: state %s, outcome %v, %d events, run %q", s.State, s.Outcome, s.EventCount, s.RunID)
	}
}

// TestInterrupt: Ctrl-C (SIGINT), SIGTERM or SIGHUP (the terminal closed)
// before the run finished exits 130 with the summary of what was seen; the
// closing block says so.
func TestInterrupt(t *testing.T) {
	t.Parallel()
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			srv := startSim(t, sim.Options{Speed: 1})
			dir := t.TempDir()
			sum := filepath.Join(dir, "sum.json")
			p := start(t, simEnv(srv), "watch", srv.Jobs[0].ID, "--output", "plain", "--summary", sum, "--interval", "200ms")
			p.waitOutput(t, runLimit, "the first event", func(s string) bool { return strings.Contains(s, "run       started") })
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(t, 20*time.Second); code != 130 {
				t.Fatalf("exit %d, want 130\n%s\n%s", code, p.stdout.String(), p.stderr.String())
			}
			if out := p.stdout.String(); !strings.Contains(out, "still running") || !strings.Contains(out, "interrupted") {
				t.Errorf("the closing block does not say it was interrupted:\n%s", tailOf(out))
			}
			s := readSummary(t, readFile(t, sum))
			if s.State != model.StateRunning || s.EventCount == 0 || s.RunID != srv.Jobs[0].ID {
				t.Errorf("summary: state %s, %d events, run %q", s.State, s.EventCount, s.RunID)
			}
		})
	}
}

var (
	timeRE  = regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d\d\d$`)
	knownKs = map[string]bool{"run": true, "agent": true, "phase": true, "think": true, "tool": true, "tool ✓": true, "tool ✗": true, "artifact": true, "session": true, "error": true, "cancel": true}
)

// TestPlainOutput: one aligned line per event with every kind of the
// research run, a closing block, and nothing a terminal would interpret.
func TestPlainOutput(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{})
	sum := filepath.Join(t.TempDir(), "sum.json")
	r := runFW(t, simEnv(srv), runLimit, "watch", srv.Jobs[0].ID, "--output", "plain", "--interval", "100ms", "--summary", sum)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	for i, c := range []byte(r.stdout) {
		if c == 0x1b || (c < 0x20 && c != '\n') || c == 0x7f {
			t.Fatalf("control byte %#x at %d of stdout", c, i)
		}
	}
	for _, r := range r.stdout {
		if unicode.Is(unicode.Cf, r) || (r >= 0x80 && r <= 0x9f) {
			t.Fatalf("format or C1 character %U in stdout", r)
		}
	}
	events, block, _ := strings.Cut(r.stdout, "\n\n")
	lines := strings.Split(events, "\n")
	s := readSummary(t, readFile(t, sum))
	if len(lines) != s.EventCount {
		t.Errorf("%d event lines, the summary counts %d events", len(lines), s.EventCount)
	}
	// Columns: time (12), 2 spaces, agent (22), 2 spaces, kind (8), 2
	// spaces, detail.
	kinds := map[string]int{}
	for _, l := range lines {
		rs := []rune(l)
		if len(rs) < 50 {
			t.Errorf("short line %q", l)
			continue
		}
		if !timeRE.MatchString(string(rs[:12])) {
			t.Errorf("no time at the start of %q", l)
		}
		agent := strings.TrimRight(string(rs[14:36]), " ")
		if strings.TrimSpace(agent) == "" || string(rs[36:38]) != "  " {
			t.Errorf("agent column misaligned in %q", l)
		}
		kind := strings.TrimRight(string(rs[38:46]), " ")
		if !knownKs[kind] || string(rs[46:48]) != "  " || rs[48] == ' ' {
			t.Errorf("kind column misaligned in %q (kind %q)", l, kind)
		}
		if w := len(rs); w > 200 {
			t.Errorf("line of %d cells: %q", w, l)
		}
		kinds[kind]++
		// Subagents are indented under the orchestrator.
		if strings.TrimSpace(agent) != "orchestrator" && !strings.HasPrefix(agent, "  ") {
			t.Errorf("subagent not indented in %q", l)
		}
	}
	for _, k := range []string{"run", "agent", "phase", "think", "tool", "tool ✓", "artifact", "session", "error"} {
		if kinds[k] == 0 {
			t.Errorf("no %q line in the research run; kinds: %v", k, kinds)
		}
	}
	for _, want := range []string{"outcome     succeeded", "duration    ", "credits     ", "tokens)", "agents      5 (0 failed)", "tool calls  ", "unfinished)", "errors      1 (0 fatal)"} {
		if !strings.Contains(block, want) {
			t.Errorf("closing block lacks %q:\n%s", want, block)
		}
	}
}

// TestJSONOutput: NDJSON of exactly the events the server sent, each once,
// that jq can read as it streams; --summary - comes last.
func TestJSONOutput(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"chaos"}, Speed: 20})
	r := runFW(t, simEnv(srv), runLimit, "watch", srv.Jobs[0].ID, "--output", "json", "--interval", "100ms", "--summary", "-")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	s := readSummary(t, []byte(lines[len(lines)-1]))
	lines = lines[:len(lines)-1]

	// Every event of the script, exactly as served, once.
	script, _ := srv.Script(srv.Jobs[0].ID)
	served := map[string]string{}
	for _, e := range script {
		var ev struct {
			EventID string `json:"eventId"`
		}
		if err := json.Unmarshal(e.JSON, &ev); err != nil {
			t.Fatal(err)
		}
		served[ev.EventID] = string(compact(t, e.JSON))
	}
	seen := map[string]bool{}
	for i, l := range lines {
		var ev struct {
			EventID string `json:"eventId"`
			Type    string `json:"type"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %d is not a JSON object: %v\n%s", i+1, err, l)
		}
		if seen[ev.EventID] {
			t.Errorf("event %s printed twice", ev.EventID)
		}
		seen[ev.EventID] = true
		if want, ok := served[ev.EventID]; !ok {
			t.Errorf("line %d: event %s was never served", i+1, ev.EventID)
		} else if l != want {
			t.Errorf("line %d differs from what the server sent:\n got %s\nwant %s", i+1, l, want)
		}
	}
	if len(seen) != len(served) || s.EventCount != len(served) {
		t.Errorf("%d lines, %d served events, summary counts %d", len(seen), len(served), s.EventCount)
	}
	if s.Outcome == nil || *s.Outcome != model.OutcomeSucceeded {
		t.Errorf("summary outcome %v", s.Outcome)
	}
	if !strings.Contains(r.stderr, "retrying") {
		t.Errorf("the chaos run's trouble is not reported on stderr:\n%s", r.stderr)
	}

	// jq reads it as a stream.
	if _, err := exec.LookPath("jq"); err != nil {
		t.Log("jq not installed; skipping the jq check")
		return
	}
	jq := exec.Command("jq", "-r", "select(.eventId != null) | .type")
	jq.Stdin = strings.NewReader(r.stdout)
	out, err := jq.Output()
	if err != nil {
		t.Fatalf("jq: %v", err)
	}
	if n := strings.Count(string(out), "\n"); n != len(served) {
		t.Errorf("jq read %d events, want %d", n, len(served))
	}
}

func compact(t *testing.T, b []byte) []byte {
	t.Helper()
	v := jsontext.Value(bytes.Clone(b))
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	return v
}

func readSummary(t *testing.T, b []byte) model.Summary {
	t.Helper()
	var s model.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary: %v\n%s", err, b)
	}
	return s
}

// TestSummaryFields: the summary of a finished run carries its figures.
func TestSummaryFields(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"failure"}})
	sum := filepath.Join(t.TempDir(), "sum.json")
	r := runFW(t, simEnv(srv), runLimit, "watch", srv.Jobs[0].ID, "-o", "json", "--interval", "100ms", "--summary", sum)
	if r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	raw := readFile(t, sum)
	s := readSummary(t, raw)
	switch {
	case s.RunID != srv.Jobs[0].ID:
		t.Errorf("runId %q", s.RunID)
	case s.State != model.StateFinished || s.Outcome == nil || *s.Outcome != model.OutcomeFailed:
		t.Errorf("state %s outcome %v", s.State, s.Outcome)
	case s.Error == nil || s.Error.Code != "internal" || s.Error.Message == "":
		t.Errorf("error %+v", s.Error)
	case s.CreditsUsed <= 0 || s.TokensUsed != s.CreditsUsed*15:
		t.Errorf("credits %v tokens %v", s.CreditsUsed, s.TokensUsed)
	case s.DurationMs == nil || *s.DurationMs <= 0 || s.StartedAt == nil || s.FinishedAt == nil:
		t.Errorf("duration %v, started %v, finished %v", s.DurationMs, s.StartedAt, s.FinishedAt)
	case s.EventCount != len(s.Timeline) || s.EventCount != strings.Count(r.stdout, "\n"):
		t.Errorf("eventCount %d, timeline %d, %d lines of output", s.EventCount, len(s.Timeline), strings.Count(r.stdout, "\n"))
	case len(s.Agents) < 2 || len(s.ToolCalls) == 0 || len(s.Errors) == 0:
		t.Errorf("%d agents, %d tool calls, %d errors", len(s.Agents), len(s.ToolCalls), len(s.Errors))
	}
	// The file is valid JSON as a whole, with the documented names.
	for _, name := range []string{`"runId"`, `"state"`, `"outcome"`, `"creditsUsed"`, `"tokensUsed"`, `"durationMs"`, `"eventCount"`, `"agents"`, `"toolCalls"`, `"artifacts"`, `"browserSessions"`, `"errors"`} {
		if !bytes.Contains(raw, []byte(name)) {
			t.Errorf("summary lacks %s", name)
		}
	}
}

// TestUsageErrors: bad usage exits 2 before any request is made.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{})
	id := srv.Jobs[0].ID
	missing := filepath.Join(t.TempDir(), "nope", "x.ndjson")
	cases := []struct {
		name   string
		env    []string
		args   []string
		stderr string
	}{
		{"id not a UUID", simEnv(srv), []string{"watch", "not-a-uuid"}, "not a UUID"},
		{"id not a UUID, short form", simEnv(srv), []string{"1234-5678"}, "not a UUID"},
		{"key as the id", simEnv(srv), []string{"watch", "fc-0123456789abcdef"}, "looks like an API key"},
		{"no key", baseEnv("FIRECRAWL_API_URL=" + srv.URL), []string{"watch", id}, "FIRECRAWL_API_KEY"},
		{"interval too short", simEnv(srv), []string{"watch", id, "--interval", "50ms"}, "--interval"},
		{"unknown flag", simEnv(srv), []string{"watch", id, "--bogus"}, "unknown flag"},
		{"bad output", simEnv(srv), []string{"watch", id, "--output", "xml"}, "--output"},
		{"unknown command", simEnv(srv), []string{"wacth"}, "did you mean watch"},
		{"no job id", simEnv(srv), []string{"watch"}, "JOB_ID"},
		{"unreadable recording", simEnv(srv), []string{"replay", missing}, "cannot read"},
		{"summary in a missing directory", simEnv(srv), []string{"watch", id, "--summary", missing}, "--summary"},
		{"record in a missing directory", simEnv(srv), []string{"watch", id, "--record", missing}, "--record"},
		{"save-dir that is not a directory", simEnv(srv), []string{"watch", id, "--save-dir", missing}, "--save-dir"},
		{"http to a remote host", simEnv(srv, "FIRECRAWL_API_URL=http://example.com"), []string{"watch", id}, "http"},
		{"unknown scenario", baseEnv(), []string{"demo", "--scenario", "nope"}, "--scenario"},
	}
	// One after another in the test's own slot: each exits at once (some
	// 50 ms), and as parallel subtests they would wait for the slots of
	// the package's long tests.
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runFW(t, tc.env, runLimit, tc.args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\n%s", r.code, r)
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr lacks %q\n%s", tc.stderr, r)
			}
			if r.stdout != "" {
				t.Errorf("stdout: %q", r.stdout)
			}
			noKey(t, srv.Key, map[string][]byte{"stderr": []byte(r.stderr)})
			noKey(t, "fc-0123456789abcdef", map[string][]byte{"stderr": []byte(r.stderr)})
		})
	}
	if n := srv.Stats().Requests; n != 0 {
		t.Errorf("%d requests were made for bad usage", n)
	}
}

// TestRecordReplay: a recording replayed at once gives the same summary as
// the live watch, in plain and JSON output, from a file or stdin; and the
// key is in none of the files.
func TestRecordReplay(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"chaos"}, Speed: 20})
	dir := t.TempDir()
	rec, live, dbg := filepath.Join(dir, "run.ndjson"), filepath.Join(dir, "live.json"), filepath.Join(dir, "debug.log")
	r := runFW(t, simEnv(srv), runLimit, "watch", srv.Jobs[0].ID, "-o", "plain", "--interval", "100ms", "--record", rec, "--summary", live, "--debug", dbg)
	if r.code != 0 {
		t.Fatalf("live watch: exit %d\n%s", r.code, r)
	}
	liveSum := readFile(t, live)
	noKey(t, srv.Key, map[string][]byte{"stdout": []byte(r.stdout), "stderr": []byte(r.stderr), "recording": readFile(t, rec), "summary": liveSum, "debug log": readFile(t, dbg)})
	if !bytes.Contains(readFile(t, dbg), []byte("GET")) && !bytes.Contains(readFile(t, dbg), []byte("trace")) {
		t.Errorf("the debug log says nothing about requests:\n%s", readFile(t, dbg))
	}

	for _, mode := range []string{"plain", "json"} {
		t.Run(mode, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "replayed.json")
			rr := runFW(t, baseEnv(), runLimit, "replay", rec, "-o", mode, "--summary", out)
			if rr.code != 0 {
				t.Fatalf("replay: exit %d\n%s", rr.code, rr)
			}
			if got := readFile(t, out); !bytes.Equal(got, liveSum) {
				t.Errorf("replayed summary differs from the live one:\n%s\nlive:\n%s", got, liveSum)
			}
			if mode == "plain" && rr.stdout != r.stdout && !sameEventLines(rr.stdout, r.stdout) {
				t.Errorf("replayed plain output differs from the live one")
			}
		})
	}
	t.Run("stdin", func(t *testing.T) {
		cmd := exec.Command(bin, "replay", "-", "-o", "json", "--summary", "-")
		cmd.Env = baseEnv()
		f, err := os.Open(rec)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.Stdin = f
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("replay from stdin: %v", err)
		}
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		got := readSummary(t, []byte(lines[len(lines)-1]))
		want := readSummary(t, liveSum)
		if got.EventCount != want.EventCount || len(lines)-1 != want.EventCount || got.CreditsUsed != want.CreditsUsed {
			t.Errorf("from stdin: %d lines, %d events, %v credits; live: %d events, %v credits", len(lines)-1, got.EventCount, got.CreditsUsed, want.EventCount, want.CreditsUsed)
		}
	})
}

// sameEventLines compares plain outputs without the closing block's team
// line (the replay has no token usage).
func sameEventLines(a, b string) bool {
	ea, _, _ := strings.Cut(a, "\n\n")
	eb, _, _ := strings.Cut(b, "\n\n")
	return ea == eb
}

// TestHeartbeat: a quiet run gets a "still running" line, not silence.
func TestHeartbeat(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 0.2})
	r := runFW(t, simEnv(srv), runLimit, "watch", srv.Jobs[0].ID, "-o", "plain", "--interval", "100ms", "--heartbeat", "400ms", "--timeout", "2500ms")
	if r.code != 7 {
		t.Fatalf("exit %d, want 7\n%s", r.code, r)
	}
	if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d\d\d  … still running(: \w+ — '.*')? · \d+ credits · last event \d+s ago$`).MatchString(r.stdout) {
		t.Errorf("no heartbeat line:\n%s", r.stdout)
	}
}

// TestServe: serve prints the four kinds of line first, logs requests on
// stderr, serves a watch, and ends cleanly on SIGINT.
func TestServe(t *testing.T) {
	t.Parallel()
	p := start(t, baseEnv(), "serve", "--scenario", "research", "--scenario", "failure", "--speed", "50", "--rate-limit", "-1")
	p.waitOutput(t, runLimit, "the serve header", func(s string) bool { return strings.Count(s, "\n") >= 6 })
	lines := strings.Split(strings.TrimSuffix(p.stdout.String(), "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("serve printed %d lines: %q", len(lines), lines)
	}
	env := map[string]string{}
	var jobs []string
	for i, l := range lines {
		k, v, ok := strings.Cut(l, "=")
		want := []string{"FIRECRAWL_API_URL", "FIRECRAWL_API_KEY", "SEED", "JOB_ID", "JOB_ID", "SCRAPE_ID"}[i]
		if !ok || k != want || v == "" {
			t.Fatalf("line %d is %q, want %s=...", i+1, l, want)
		}
		if k == "JOB_ID" {
			jobs = append(jobs, v)
		} else if k != "SCRAPE_ID" && k != "SEED" {
			env[k] = v
		}
	}
	if !strings.HasPrefix(env["FIRECRAWL_API_URL"], "http://127.0.0.1:") {
		t.Errorf("not on loopback: %s", env["FIRECRAWL_API_URL"])
	}
	r := runFW(t, baseEnv("FIRECRAWL_API_URL="+env["FIRECRAWL_API_URL"], "FIRECRAWL_API_KEY="+env["FIRECRAWL_API_KEY"]), runLimit, "watch", jobs[1], "-o", "json", "--interval", "100ms")
	if r.code != 1 {
		t.Errorf("watching the failure job: exit %d\n%s", r.code, r)
	}
	if !strings.Contains(p.stderr.String(), "/v2/agent/"+jobs[1]+"/trace") {
		t.Errorf("no request log on stderr:\n%s", p.stderr.String())
	}
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, 20*time.Second); code != 0 {
		t.Errorf("serve exit %d after SIGINT, want 0\n%s", code, p.stderr.String())
	}
	if strings.Contains(p.stderr.String(), env["FIRECRAWL_API_KEY"]) {
		t.Errorf("the request log shows the key")
	}
}

// TestDemo: the README's first command, `go run . demo`, as the binary
// TestMain built from the module root (what go run builds and runs), at a
// pace that takes a second instead of a minute: the whole research run
// finishes with exit 0 when stdout is not a terminal, in plain output
// (auto).
func TestDemo(t *testing.T) {
	t.Parallel()
	r := runFW(t, baseEnv(), runLimit, "demo", "--speed", "50")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	if !strings.Contains(r.stdout, "run       succeeded") || !strings.Contains(r.stdout, "outcome     succeeded") {
		t.Errorf("no success in the output\n%s", r)
	}
	// The cancel scenario cancels itself in plain output.
	r = runFW(t, baseEnv(), runLimit, "demo", "--scenario", "cancel", "--speed", "50")
	if r.code != 3 || !strings.Contains(r.stderr, "cancelling the run") {
		t.Errorf("demo cancel: exit %d, want 3\n%s", r.code, r)
	}
}

// TestCommands: help, version and shell completion.
func TestCommands(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"firewatch [JOB_ID]", "demo", "replay", "serve", "watch", "completion", "--output"}},
		{[]string{"watch", "--help"}, []string{"--api-url", "--api-key", "--interval", "--tail", "--live-view", "--output", "--summary", "--record", "--timeout", "--no-color", "--ascii", "--debug", "--mouse", "--exit-on-finish"}},
		{[]string{"demo", "--help"}, []string{"--scenario", "--speed", "--seed"}},
		{[]string{"replay", "--help"}, []string{"--instant", "--speed"}},
		{[]string{"serve", "--help"}, []string{"--addr", "--scenario", "--key", "--events", "--rate-limit", "FIRECRAWL_API_URL="}},
		{[]string{"version"}, []string{"firewatch "}},
		{[]string{"--version"}, []string{"firewatch "}},
		{[]string{"completion", "bash"}, []string{"firewatch"}},
		{[]string{"completion", "zsh"}, []string{"firewatch"}},
		{[]string{"completion", "fish"}, []string{"firewatch"}},
		{[]string{"completion", "powershell"}, []string{"firewatch"}},
		{[]string{"__complete", "demo", "--scenario", ""}, sim.Scenarios()},
		{[]string{"__complete", "watch", "x", "--output", ""}, []string{"auto", "tui", "plain", "json"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			r := runFW(t, baseEnv(), runLimit, tc.args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q", w)
				}
			}
		})
	}
}
