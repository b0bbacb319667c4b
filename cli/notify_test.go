package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// hook is a webhook receiver for the command tests.
type hook struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
	status int
}

func newHook(t *testing.T, status int) *hook {
	h := &hook{status: status}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, string(b))
		h.mu.Unlock()
		w.WriteHeader(h.status)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hook) got() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.bodies...)
}

// runNoWait runs firewatch in-process with retries that do not wait.
func runNoWait(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	retry := poller.Retry{Sleep: func(ctx context.Context, d time.Duration) bool { return ctx.Err() == nil }}
	code = execute(context.Background(), args, strings.NewReader(""), &out, &errOut, retry)
	return out.String(), errOut.String(), code
}

// TestNotifyFlagsBad: every bad notification flag is exit 2 with a
// message that says what is wrong, before anything starts.
func TestNotifyFlagsBad(t *testing.T) {
	t.Setenv("FIRECRAWL_API_KEY", "fc-test-key-not-used-1234")
	t.Setenv("FIRECRAWL_API_URL", "http://127.0.0.1:1") // nothing may be asked of it
	job := "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"watch", job, "--notify", "--notify-on", "done"}, "", `--notify-on "done": "done" is not a moment firewatch knows: choose from finished, failed, attention, budget:N%`},
		{[]string{"watch", job, "--notify", "--notify-on", "budget:150%"}, "", `"budget:150%": the share of the cap must be from 1% to 100%`},
		{[]string{"watch", job, "--notify", "--notify-on", "budget"}, "", `"budget" needs the share of the cap, e.g. budget:80%`},
		{[]string{"watch", job, "--notify-on", "failed"}, "", "--notify-on chooses the moments of --notify, --notify-command or --notify-url"},
		{[]string{"watch", job, "--notify-command", "'unclosed"}, "", "--notify-command \"'unclosed\": a single quote is not closed"},
		{[]string{"watch", job, "--notify-command", "/nonexistent/notify-me --now"}, "", `--notify-command: "/nonexistent/notify-me" cannot be run`},
		{[]string{"watch", job, "--notify-url", "ftp://hooks.example.com/x"}, "", "--notify-url: it must start with https:// (or http://)"},
		{[]string{"watch", job, "--notify-url", ""}, "", "--notify-url is empty"},
		{[]string{"watch", job}, "hooks.example.com/no-scheme", "$FIREWATCH_NOTIFY_URL: it must start with https://"},
		{[]string{"run", "a prompt", "--notify-on", "nope", "--notify"}, "", `"nope" is not a moment`},
		{[]string{"crawl", "https://example.com", "--notify-on", "budget:0%", "--notify"}, "", "from 1% to 100%"},
		{[]string{"demo", "--notify-command", "true"}, "", "demo sends notifications only with --notify, to try them"},
		{[]string{"replay", "x.ndjson", "--notify"}, "", "unknown flag: --notify"},
		{[]string{"report", job, "--notify-url", "https://hooks.example.com/x"}, "", "unknown flag: --notify-url"},
	} {
		t.Setenv("FIREWATCH_NOTIFY_URL", tc.env)
		_, errOut, code := run(t, context.Background(), tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestNotifyDemo: demo --notify POSTs the run's end once, with its outcome
// and credits and no key; a receiver that keeps failing is retried, said
// once, and changes neither the exit code nor the output; without
// --notify the demo sends nothing, even with FIREWATCH_NOTIFY_URL set.
func TestNotifyDemo(t *testing.T) {
	t.Parallel()
	ok := newHook(t, http.StatusOK)
	out, errOut, code := runNoWait(t, "demo", "--speed", "200", "-o", "plain", "--notify", "--notify-url", ok.URL, "--notify-on", "finished,failed")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	got := ok.got()
	if len(got) != 1 {
		t.Fatalf("%d POSTs, want 1: %q", len(got), got)
	}
	var body struct {
		Text  string `json:"text"`
		Event string `json:"event"`
		Run   struct {
			ID      string   `json:"id"`
			Outcome string   `json:"outcome"`
			Credits *float64 `json:"credits"`
			Prompt  string   `json:"prompt"`
		} `json:"run"`
	}
	if err := json.Unmarshal([]byte(got[0]), &body); err != nil {
		t.Fatal(err)
	}
	if body.Event != "finished" || body.Run.Outcome != "succeeded" || body.Run.Credits == nil || body.Run.Prompt == "" ||
		!strings.HasPrefix(body.Text, "run "+body.Run.ID[:8]+" succeeded: ") {
		t.Errorf("body %s", got[0])
	}
	if strings.Contains(out, "notif") {
		t.Errorf("the notification reached stdout:\n%s", out)
	}

	failing := newHook(t, http.StatusBadGateway)
	out2, errOut, code := runNoWait(t, "demo", "--speed", "200", "-o", "plain", "--notify", "--notify-url", failing.URL, "--notify-on", "finished")
	if code != 0 {
		t.Errorf("a failing receiver changed the exit code: %d\n%s", code, errOut)
	}
	if n := len(failing.got()); n != 3 {
		t.Errorf("%d POSTs to the failing receiver, want 3 (2 retries)", n)
	}
	if strings.Count(errOut, "retrying in") != 1 || strings.Count(errOut, "notification failed") != 1 || strings.Contains(errOut, failing.URL) {
		t.Errorf("stderr should say the first wait and the failure once, never the URL:\n%s", errOut)
	}
	if strings.Count(out2, "\n") != strings.Count(out, "\n") {
		t.Errorf("the output changed with a failing receiver")
	}
}

// TestNotifyDemoOnlyWithNotify: the demo sends nothing to
// $FIREWATCH_NOTIFY_URL without --notify.
func TestNotifyDemoOnlyWithNotify(t *testing.T) {
	ok := newHook(t, http.StatusOK)
	t.Setenv("FIREWATCH_NOTIFY_URL", ok.URL)
	if _, errOut, code := runNoWait(t, "demo", "--speed", "200", "-o", "plain"); code != 0 || len(ok.got()) != 0 {
		t.Errorf("demo without --notify: exit %d, %d POSTs\n%s", code, len(ok.got()), errOut)
	}
}

// TestNotifyCommandWatch: watch (plain) runs --notify-command for the
// run's end, with the environment of the moment and the text as its last
// argument; FIREWATCH_NOTIFY_URL is used by watch; replay of the same run
// sends nothing.
func TestNotifyCommandWatch(t *testing.T) {
	srv := startHeldSim(t, sim.Options{Scenarios: []string{"failure"}})
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	env := newHook(t, http.StatusOK)
	t.Setenv("FIREWATCH_NOTIFY_URL", env.URL)
	dir := t.TempDir()
	out := filepath.Join(dir, "moments")
	script := filepath.Join(dir, "hook")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s|%s|%s|%s\\n' \"$FIREWATCH_EVENT\" \"$FIREWATCH_OUTCOME\" \"${FIRECRAWL_API_KEY:-none}\" \"$2\" >> "+out+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "run.ndjson")
	_, errOut, code := runNoWait(t, "watch", srv.Jobs[0].ID, "-o", "plain", "--interval", "100ms", "--record", rec,
		"--notify-command", script+" 'the text:'", "--notify-on", "failed")
	if code != 1 {
		t.Fatalf("exit %d, want the failure's 1\n%s", code, errOut)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "failed|failed|none|run ") {
		t.Errorf("the command saw %q", b)
	}
	if n := len(env.got()); n != 1 {
		t.Errorf("%d POSTs to $FIREWATCH_NOTIFY_URL, want 1", n)
	}
	for _, body := range env.got() {
		if strings.Contains(body, srv.Key) {
			t.Errorf("the key in a body: %s", body)
		}
	}
	if _, errOut, code := runNoWait(t, "replay", rec, "-o", "plain"); code != 1 || len(env.got()) != 1 {
		t.Errorf("replay: exit %d, %d POSTs (want none more)\n%s", code, len(env.got()), errOut)
	}
}

// TestNotifyCrawl: a crawl's end is one moment (its status, pages and
// credits).
func TestNotifyCrawl(t *testing.T) {
	t.Parallel()
	h := newHook(t, http.StatusOK)
	_, errOut, code := runNoWait(t, "demo", "--crawl", "--speed", "200", "-o", "plain", "--notify", "--notify-url", h.URL)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	got := h.got()
	if len(got) != 1 || !strings.Contains(got[0], `"event":"finished"`) || !strings.Contains(got[0], `"crawl":{"id":`) ||
		!strings.Contains(got[0], `"status":"completed"`) || !strings.Contains(got[0], ` completed: 100 pages, `) {
		t.Errorf("POSTs %q\n%s", got, errOut)
	}
}

// TestNotifyTeamShare: a watch with --notify-on team:N% asks the team's
// balance and tells the share of the plan passed in the billing period,
// once: a second watch on the same archive (another process, a restart)
// does not tell it again.
func TestNotifyTeamShare(t *testing.T) {
	t.Parallel()
	srv := startHeldSim(t, sim.Options{Scenarios: []string{"failure"}, History: 30})
	db := filepath.Join(t.TempDir(), "a.db")
	h := newHook(t, http.StatusOK)
	start, end := srv.Period()
	used := srv.UsageBetween(start, end).Total
	if used*100 < sim.PlanCredits {
		t.Fatalf("the simulator's team used %d of %d: under 1%%", used, sim.PlanCredits)
	}
	team := func() []string {
		var out []string
		for _, b := range h.got() {
			if strings.Contains(b, `"event":"team"`) {
				out = append(out, b)
			}
		}
		return out
	}
	for i := range 2 {
		_, errOut, code := runNoWait(t, "watch", srv.Jobs[0].ID, "-o", "plain", "--interval", "100ms",
			"--notify-url", h.URL, "--notify-on", "failed,team:1%,team:99%", "--api-url", srv.URL, "--api-key", srv.Key, "--archive", db)
		if code != 1 {
			t.Fatalf("watch %d: exit %d\n%s", i, code, errOut)
		}
		if got := team(); len(got) != 1 {
			t.Fatalf("watch %d: %d team moments, want 1: %q", i, len(got), got)
		}
	}
	b := team()[0]
	period := start.UTC().Format(time.RFC3339) + "/" + end.UTC().Format(time.RFC3339)
	for _, want := range []string{`"percent":1,`, `"id":"team:` + period + `:usage:1%"`, `"periodStart":"` + start.UTC().Format(time.RFC3339) + `"`,
		`"planCredits":` + strconv.Itoa(sim.PlanCredits), "the team used 1% of its plan"} {
		if !strings.Contains(b, want) {
			t.Errorf("no %s in %s", want, b)
		}
	}
	if strings.Contains(b, srv.Key) {
		t.Error("the key in a body")
	}
}
