package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firewatch/firewatch/sim"
)

// What a run was asked travels with it: watch JOB_ID asks the service
// once at the start and records the prompt and model; a run started with
// --max-credits is replayed against that cap, not an assumed 2 500, with
// the same attention items.
func TestRequestTravelsWithTheRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 200, Seed: 9})
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")

	rec := filepath.Join(dir, "watch.ndjson")
	if _, errOut, code := run(t, ctx, "watch", srv.Jobs[0].ID, "--api-url", srv.URL, "--api-key", srv.Key, "--archive", db, "-o", "json", "--record", rec, "--interval", "100ms"); code != ExitOK {
		t.Fatalf("watch: exit %d: %s", code, errOut)
	}
	head := firstLine(t, rec)
	if !strings.Contains(head, `"request":{"prompt":"Compare the pricing`) || !strings.Contains(head, `"model":"spark-2"`) {
		t.Errorf("watch JOB_ID's recording does not say what was asked: %s", head)
	}

	rec = filepath.Join(dir, "run.ndjson")
	live, replayed := filepath.Join(dir, "live.json"), filepath.Join(dir, "replay.json")
	if _, errOut, code := run(t, ctx, "run", "Compare the pricing of web-scraping APIs", "--max-credits", "300", "--api-url", srv.URL,
		"--api-key", srv.Key, "--archive", db, "-o", "json", "--record", rec, "--summary", live, "--interval", "100ms"); code != ExitOK && code != ExitCreditLimit {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	if _, errOut, code := run(t, ctx, "replay", rec, "-o", "json", "--summary", replayed); code != ExitOK && code != ExitCreditLimit {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	type sum struct {
		MaxCredits        float64           `json:"maxCredits"`
		MaxCreditsAssumed bool              `json:"maxCreditsAssumed"`
		Attention         []json.RawMessage `json:"attention"`
	}
	read := func(p string) sum {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var s sum
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	l, r := read(live), read(replayed)
	if l.MaxCredits != 300 || l.MaxCreditsAssumed || r.MaxCredits != 300 || r.MaxCreditsAssumed {
		t.Errorf("cap live %v (assumed %v), replayed %v (assumed %v); want 300 both", l.MaxCredits, l.MaxCreditsAssumed, r.MaxCredits, r.MaxCreditsAssumed)
	}
	if len(l.Attention) != len(r.Attention) {
		t.Errorf("the live watch raised %d items, the replay %d", len(l.Attention), len(r.Attention))
	}
}

func firstLine(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return line
}

// watch JOB_ID of a run older than the newest page of the team's list
// still learns its prompt: the status says the model, and the one list
// page asked is the one its UUIDv7 id points at.
func TestWatchOlderRunKnowsItsPrompt(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioResearch}, History: 30, Speed: 200, Seed: 9})
	out, errOut, code := run(t, ctx, "runs", "--api-url", srv.URL, "--api-key", srv.Key, "-o", "json", "--limit", "31")
	if code != ExitOK {
		t.Fatalf("runs: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var oldest struct {
		ID      string `json:"id"`
		Options struct {
			Prompt string `json:"prompt"`
		} `json:"options"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &oldest); err != nil || len(lines) != 31 || oldest.Options.Prompt == "" {
		t.Fatalf("the oldest of %d runs: %+v %v", len(lines), oldest, err)
	}
	rec := filepath.Join(t.TempDir(), "old.ndjson")
	if _, errOut, code := run(t, ctx, "watch", oldest.ID, "--api-url", srv.URL, "--api-key", srv.Key, "-o", "json", "--record", rec, "--interval", "100ms", "--tail", "1", "--archive", "off"); code == ExitUsage {
		t.Fatalf("watch: exit %d: %s", code, errOut)
	}
	prompt, _ := json.Marshal(oldest.Options.Prompt)
	if head := firstLine(t, rec); !strings.Contains(head, `"request":{"prompt":`+string(prompt)) || !strings.Contains(head, `"model":"spark-2"`) {
		t.Errorf("the recording of a run on the list's second page does not say what was asked: %s", head)
	}
}

// The run's status is asked once at the start of watch JOB_ID (archiving,
// which asks it again for the result at the end, is off); when that
// request fails, the watch goes on without the prompt and model and ends
// as the run did.
func TestWatchGoesOnWhenTheStatusFails(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 200, Seed: 9})
	job := srv.Jobs[0].ID
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var statusAsked atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v2/agent/"+job {
			statusAsked.Add(1)
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"success":false,"error":"Agent job not found"}`)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	rec := filepath.Join(t.TempDir(), "watch.ndjson")
	if _, errOut, code := run(t, ctx, "watch", job, "--api-url", front.URL, "--api-key", srv.Key, "-o", "json", "--record", rec, "--interval", "100ms", "--archive", "off"); code != ExitOK {
		t.Fatalf("watch: exit %d: %s", code, errOut)
	}
	if n := statusAsked.Load(); n != 1 {
		t.Errorf("the status was asked %d times, want once", n)
	}
	if head := firstLine(t, rec); strings.Contains(head, `"model"`) {
		t.Errorf("a request the service did not give: %s", head)
	}
}
