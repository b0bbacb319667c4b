package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// servedSim is a `firewatch serve` process and what it printed.
type servedSim struct {
	url, key string
	startLog string // its --start-log
}

func startServe(t *testing.T, args ...string) servedSim {
	t.Helper()
	log := filepath.Join(t.TempDir(), "starts.ndjson")
	p := start(t, baseEnv(), append([]string{"serve", "--speed", "100", "--rate-limit", "-1", "--start-log", log}, args...)...)
	p.waitOutput(t, runLimit, "the serve header", func(s string) bool { return strings.Contains(s, "SCRAPE_ID=") })
	s := servedSim{startLog: log}
	for _, l := range strings.Split(p.stdout.String(), "\n") {
		if v, ok := strings.CutPrefix(l, "FIRECRAWL_API_URL="); ok {
			s.url = v
		}
		if v, ok := strings.CutPrefix(l, "FIRECRAWL_API_KEY="); ok {
			s.key = v
		}
	}
	return s
}

// starts is the simulator's log of POST /v2/agent bodies.
func (s servedSim) starts(t *testing.T) []struct {
	Body   map[string]any `json:"body"`
	Status int            `json:"status"`
	ID     string         `json:"id"`
} {
	t.Helper()
	b, err := os.ReadFile(s.startLog)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []struct {
		Body   map[string]any `json:"body"`
		Status int            `json:"status"`
		ID     string         `json:"id"`
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		var e struct {
			Body   map[string]any `json:"body"`
			Status int            `json:"status"`
			ID     string         `json:"id"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("start log line %q: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

func (s servedSim) env(db string) []string {
	return baseEnv("FIRECRAWL_API_URL="+s.url, "FIRECRAWL_API_KEY="+s.key, "FIREWATCH_ARCHIVE="+db)
}

// TestRerunAgainstServe: the check. run with a cap of 300, then
// rerun with effort low under a credits gate: the new request is the
// original's but for the effort, the comparison is printed, and the exit
// code follows the gate (0 for fewer credits, 1 when a rerun at high
// effort costs more); --dry-run sends nothing; history -o json keeps the
// lineage.
func TestRerunAgainstServe(t *testing.T) {
	t.Parallel()
	s := startServe(t)
	env := s.env(filepath.Join(t.TempDir(), "a.db"))
	r := runFW(t, env, runLimit, "run", "Compare the pricing of web-scraping APIs", "--max-credits", "300", "-o", "plain", "--interval", "100ms")
	if r.code != 0 || len(s.starts(t)) != 1 {
		t.Fatalf("run: %s", r)
	}
	orig := s.starts(t)[0].ID
	if r := runFW(t, env, runLimit, "rerun", orig, "--effort", "low", "--dry-run"); r.code != 0 || len(s.starts(t)) != 1 || !strings.Contains(r.stdout, "* effort:") {
		t.Fatalf("--dry-run sent something: %d starts\n%s", len(s.starts(t)), r)
	}
	r = runFW(t, env, runLimit, "rerun", orig, "--effort", "low", "--fail-on", "creditsUsed:+10%", "-o", "plain", "--interval", "100ms")
	st := s.starts(t)
	if r.code != 0 || len(st) != 2 {
		t.Fatalf("rerun: %d starts\n%s", len(st), r)
	}
	want := st[0].Body
	want["effort"] = "low"
	if !reflect.DeepEqual(st[1].Body, want) {
		t.Fatalf("the rerun sent %v, want %v", st[1].Body, want)
	}
	if !strings.Contains(r.stdout, "baseline  "+orig[:8]) || !strings.Contains(r.stdout, "creditsUsed") {
		t.Fatalf("no comparison:\n%s", r)
	}
	low := st[1].ID
	r = runFW(t, env, runLimit, "rerun", low, "--effort", "high", "--fail-on", "creditsUsed:+10%", "-o", "plain", "--interval", "100ms")
	if r.code != 1 || !strings.Contains(r.stderr, "creditsUsed") {
		t.Fatalf("a crossed gate: %s", r)
	}
	r = runFW(t, env, runLimit, "history", "-o", "json")
	found := false
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var h struct {
			ID      string `json:"id"`
			RerunOf *struct {
				ID      string   `json:"id"`
				Changed []string `json:"changed"`
			} `json:"rerunOf"`
			ThreadID   *string `json:"threadId"`
			ThreadTurn *int    `json:"threadTurn"`
		}
		if err := json.Unmarshal([]byte(l), &h); err != nil {
			t.Fatal(err)
		}
		if h.ID == low {
			found = h.RerunOf != nil && h.RerunOf.ID == orig && reflect.DeepEqual(h.RerunOf.Changed, []string{"effort"}) && h.ThreadID != nil && h.ThreadTurn != nil && *h.ThreadTurn == 1
		}
	}
	if !found {
		t.Fatalf("history has no lineage for %s:\n%s", low, r.stdout)
	}
}

// TestFollowUpAgainstServe: a follow-up while the turn runs gets the busy
// error with the running run's id; on a finished run it is turn 2 of the
// same thread, its schema inherited.
func TestFollowUpAgainstServe(t *testing.T) {
	t.Parallel()
	s := startServe(t)
	env := s.env(filepath.Join(t.TempDir(), "a.db"))
	// A run that goes on until it is cancelled: its thread stays busy.
	r := runFW(t, env, runLimit, "run", "Keep watching the pricing pages", "--detach")
	if r.code != 0 {
		t.Fatalf("run --detach: %s", r)
	}
	busy := strings.TrimSpace(r.stdout)
	r = runFW(t, env, runLimit, "follow-up", busy, "And now?")
	if r.code != 6 || !strings.Contains(r.stderr, "busy") || !strings.Contains(r.stderr, "firewatch watch "+busy) {
		t.Fatalf("busy: %s", r)
	}
	schema := `{"type":"object","properties":{"vendors":{"type":"array"}}}`
	r = runFW(t, env, runLimit, "run", "Compare the pricing", "--schema", schema, "-o", "plain", "--interval", "100ms")
	if r.code != 0 {
		t.Fatalf("run: %s", r)
	}
	first := s.starts(t)[len(s.starts(t))-1].ID
	r = runFW(t, env, runLimit, "follow-up", first, "Now only the free tiers", "-o", "plain", "--interval", "100ms")
	st := s.starts(t)
	last := st[len(st)-1]
	if r.code != 0 || last.Body["threadId"] == nil || last.Body["schema"] != nil || !strings.Contains(r.stderr, "turn 2 of thread") {
		t.Fatalf("follow-up: sent %v\n%s", last.Body, r)
	}
	// The service inherited the schema: its list says so.
	req, _ := http.NewRequest("GET", s.url+"/v2/agent", nil)
	req.Header.Set("Authorization", "Bearer "+s.key)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID      string `json:"id"`
			Options struct {
				Schema json.RawMessage `json:"schema"`
			} `json:"options"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	inherited := false
	for _, it := range list.Data {
		inherited = inherited || it.ID == last.ID && string(it.Options.Schema) == schema
	}
	if !inherited {
		t.Errorf("the follow-up's schema is not the thread's")
	}
	r = runFW(t, env, runLimit, "history", "--thread", first, "-o", "json")
	if r.code != 0 || strings.Count(r.stdout, "\n") != 2 || !strings.Contains(r.stdout, `"threadTurn":2`) {
		t.Fatalf("history --thread: %s", r)
	}
}
