package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/sim"
)

// bodyOf is a logged start's body as a map.
func bodyOf(t *testing.T, s sim.StartRequest) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(s.Body, &m); err != nil {
		t.Fatalf("body %s: %v", s.Body, err)
	}
	return m
}

// historyOf is history -o json's lines by id.
func historyOf(t *testing.T, ctx context.Context, args ...string) map[string]map[string]any {
	t.Helper()
	out, errOut, code := run(t, ctx, append([]string{"history", "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("history: exit %d: %s", code, errOut)
	}
	lines := map[string]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("history line %q: %v", l, err)
		}
		lines[m["id"].(string)] = m
	}
	return lines
}

// TestRerun: a rerun sends the original's body again (the archive's copy)
// but for the change, prints the comparison, and exits by the gate; the
// archive keeps the lineage; --dry-run sends nothing; compare --previous
// finds the original.
func TestRerun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := startSim(t, sim.Options{Speed: 400, Seed: 47})
	db := filepath.Join(t.TempDir(), "a.db")
	conn := []string{"--api-url", srv.URL, "--api-key", srv.Key, "--archive", db, "--interval", "100ms"}
	_, errOut, code := run(t, ctx, append([]string{"run", "Compare the pricing of web-scraping APIs", "--max-credits", "300", "-o", "plain"}, conn...)...)
	if code != ExitOK {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	orig := srv.Starts()[0].ID

	out, errOut, code := run(t, ctx, append([]string{"rerun", orig, "--effort", "low", "--dry-run"}, conn...)...)
	if code != 0 || len(srv.Starts()) != 1 || !strings.Contains(out, "* effort:") || !strings.Contains(out, "(was: not sent)") || !strings.Contains(out, "nothing sent") {
		t.Fatalf("--dry-run: exit %d, %d starts: %s%s", code, len(srv.Starts()), out, errOut)
	}

	out, errOut, code = run(t, ctx, append([]string{"rerun", orig, "--effort", "low", "--fail-on", "creditsUsed:+10%", "-o", "plain"}, conn...)...)
	starts := srv.Starts()
	if code != ExitOK || len(starts) != 2 {
		t.Fatalf("rerun: exit %d, %d starts: %s", code, len(starts), errOut)
	}
	want := bodyOf(t, starts[0])
	want["effort"] = "low"
	if got := bodyOf(t, starts[1]); !reflect.DeepEqual(got, want) {
		t.Fatalf("the rerun sent %v, want %v", got, want)
	}
	if !strings.Contains(out, "baseline  "+orig[:8]) || !strings.Contains(out, "creditsUsed") {
		t.Fatalf("no comparison printed:\n%s", out)
	}
	low := starts[1].ID
	h := historyOf(t, ctx, "--archive", db, "--api-url", srv.URL)
	ro, _ := h[low]["rerunOf"].(map[string]any)
	if ro["id"] != orig || !reflect.DeepEqual(ro["changed"], []any{"effort"}) || h[low]["threadTurn"] != 1.0 || h[low]["threadId"] == nil || h[orig]["rerunOf"] != nil {
		t.Fatalf("history: %v / %v", h[low], h[orig])
	}

	// Back to high effort: the credits rise past the gate's 10%.
	_, errOut, code = run(t, ctx, append([]string{"rerun", low, "--effort", "high", "--fail-on", "creditsUsed:+10%", "-o", "json"}, conn...)...)
	if code != ExitFailed || !strings.Contains(errOut, "creditsUsed") {
		t.Fatalf("a crossed gate: exit %d: %s", code, errOut)
	}
	out, errOut, code = run(t, ctx, "compare", "--previous", low, "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key, "-o", "json")
	if code != 0 || !strings.Contains(out, orig) {
		t.Fatalf("compare --previous: exit %d: %s%s", code, out, errOut)
	}
	out, _, code = run(t, ctx, "history", "--reruns", orig, "--archive", db, "--api-url", srv.URL, "-o", "plain")
	if code != 0 || strings.Count(out, "rerun of ") != 2 || !strings.Contains(out, "3 runs") {
		t.Fatalf("history --reruns: exit %d:\n%s", code, out)
	}
}

// TestRerunUnknownRequest: a run known only from the service's list lacks
// its cap: the rerun asks for --max-credits (exit 2, nothing sent) and,
// given it, says what it could not know; an expired run asks for --prompt.
func TestRerunUnknownRequest(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := startSim(t, sim.Options{Speed: 400, Seed: 48, Retention: time.Hour})
	conn := []string{"--api-url", srv.URL, "--api-key", srv.Key, "--archive", "off"}
	id := srv.Jobs[0].ID
	_, errOut, code := run(t, ctx, append([]string{"rerun", id, "--effort", "low"}, conn...)...)
	if code != ExitUsage || !strings.Contains(errOut, "--max-credits") || len(srv.Starts()) != 0 {
		t.Fatalf("no cap: exit %d, %d starts: %s", code, len(srv.Starts()), errOut)
	}
	out, errOut, code := run(t, ctx, append([]string{"rerun", id, "--effort", "low", "--max-credits", "200", "--detach"}, conn...)...)
	starts := srv.Starts()
	if code != 0 || len(starts) != 1 || strings.TrimSpace(out) != starts[0].ID || !strings.Contains(errOut, "strictConstrainToURLs") {
		t.Fatalf("--detach: exit %d, %d starts: %q %s", code, len(starts), out, errOut)
	}
	if b := bodyOf(t, starts[0]); !strings.HasPrefix(b["prompt"].(string), "Compare the pricing") || b["maxCredits"] != 200.0 || b["effort"] != "low" || b["urls"] == nil {
		t.Fatalf("sent %v", b)
	}
	srv.PassTime(2 * time.Hour)
	_, errOut, code = run(t, ctx, append([]string{"rerun", id, "--max-credits", "200"}, conn...)...)
	if code != ExitUsage || !strings.Contains(errOut, "--prompt") || len(srv.Starts()) != 1 {
		t.Fatalf("expired: exit %d: %s", code, errOut)
	}
}

// TestRerunBadInput: what is wrong is said before anything is sent (exit
// 2), and a start that fails in a way that may have started the run is
// sent once.
func TestRerunBadInput(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := startSim(t, sim.Options{Speed: 400, Seed: 49})
	dir := t.TempDir()
	notSchema := filepath.Join(dir, "example.json")
	if err := os.WriteFile(notSchema, []byte(`{"plans":[{"name":"Pro","price":49}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	badType := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(badType, []byte(`{"type":"object","properties":{"a":{"type":"strin"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	conn := []string{"--api-url", srv.URL, "--api-key", srv.Key, "--archive", "off", "--max-credits", "100"}
	id := srv.Jobs[0].ID
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--schema", notSchema}, "not a JSON Schema"},
		{[]string{"--schema", badType}, "/properties/a/type"},
		{[]string{"--model", "gpt-5"}, "--model"},
		{[]string{"--effort", "max"}, "--effort"},
		{[]string{"--fail-on", "bogus:+1"}, "bogus"},
	} {
		_, errOut, code := run(t, ctx, append(append([]string{"rerun", id}, tc.args...), conn...)...)
		if code != ExitUsage || !strings.Contains(errOut, tc.says) {
			t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
		}
	}
	if _, errOut, code := run(t, ctx, append([]string{"follow-up", id, "more", "--schema", notSchema}, conn[:len(conn)-2]...)...); code != ExitUsage || !strings.Contains(errOut, "not a JSON Schema") {
		t.Errorf("follow-up --schema: exit %d: %s", code, errOut)
	}
	if n := len(srv.Starts()); n != 0 {
		t.Fatalf("%d starts sent", n)
	}
	refusing := startSim(t, sim.Options{Speed: 400, Seed: 49, RefuseStart: 500})
	_, errOut, code := run(t, ctx, "rerun", refusing.Jobs[0].ID, "--effort", "low", "--api-url", refusing.URL, "--api-key", refusing.Key, "--archive", "off", "--max-credits", "100")
	if n := len(refusing.Starts()); n != 1 || code != ExitFailed || !strings.Contains(errOut, "may have started") {
		t.Fatalf("a 500 on the start: %d starts, exit %d: %s", n, code, errOut)
	}
}

// TestFollowUp: a follow-up while the turn runs is refused with the
// running run's id (exit 6); once it ended, it is turn 2 of the same thread
// with the schema inherited (none sent), and the archive says so.
func TestFollowUp(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := startSim(t, sim.Options{Speed: 400, Seed: 50, Held: true})
	db := filepath.Join(t.TempDir(), "a.db")
	conn := []string{"--api-url", srv.URL, "--api-key", srv.Key, "--archive", db, "--interval", "100ms"}
	out, errOut, code := run(t, ctx, append([]string{"run", "Compare the pricing", "--schema", `{"type":"object","properties":{"vendors":{"type":"array"}}}`, "--detach"}, conn...)...)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	first := strings.TrimSpace(out)
	_, errOut, code = run(t, ctx, append([]string{"follow-up", first, "Now the free tiers"}, conn...)...)
	if code != ExitRejected || !strings.Contains(errOut, "busy") || !strings.Contains(errOut, "firewatch watch "+first) {
		t.Fatalf("busy: exit %d: %s", code, errOut)
	}
	srv.Release()
	if err := srv.WaitFinished(ctx, first); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = run(t, ctx, append([]string{"follow-up", first, "Now the free tiers", "-o", "plain"}, conn...)...)
	starts := srv.Starts()
	if code != 0 || len(starts) != 3 || !strings.Contains(errOut, "turn 2 of thread") {
		t.Fatalf("follow-up: exit %d, %d starts: %s", code, len(starts), errOut)
	}
	b := bodyOf(t, starts[2])
	if b["threadId"] == nil || b["schema"] != nil || b["prompt"] != "Now the free tiers" {
		t.Fatalf("sent %v", b)
	}
	second := starts[2].ID
	h := historyOf(t, ctx, "--archive", db, "--api-url", srv.URL)
	if h[second]["threadTurn"] != 2.0 || h[second]["threadId"] != b["threadId"] || h[first]["threadId"] != b["threadId"] || h[first]["threadTurn"] != 1.0 {
		t.Fatalf("history: %v / %v", h[first], h[second])
	}
	out, _, code = run(t, ctx, "history", "--thread", first, "--archive", db, "--api-url", srv.URL, "-o", "json")
	if code != 0 || strings.Count(out, "\n") != 2 || strings.Index(out, first) > strings.Index(out, second) {
		t.Fatalf("history --thread: %s", out)
	}
	out, errOut, code = run(t, ctx, "cost", "--by", "thread", "--archive", db, "--api-url", srv.URL, "-o", "json")
	var rep struct {
		Buckets []struct {
			Key         string  `json:"key"`
			Runs        int     `json:"runs"`
			CreditsUsed float64 `json:"creditsUsed"`
		} `json:"buckets"`
		Total struct {
			CreditsUsed float64 `json:"creditsUsed"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("cost: exit %d %v: %s%s", code, err, out, errOut)
	}
	sum := 0.0
	for _, k := range rep.Buckets {
		sum += k.CreditsUsed
	}
	if !slices.ContainsFunc(rep.Buckets, func(k struct {
		Key         string  `json:"key"`
		Runs        int     `json:"runs"`
		CreditsUsed float64 `json:"creditsUsed"`
	}) bool {
		return k.Key == b["threadId"] && k.Runs == 2
	}) || sum != rep.Total.CreditsUsed {
		t.Fatalf("cost --by thread: %+v", rep)
	}
	if _, _, code := run(t, ctx, "compare", "--previous", second, "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key, "-o", "plain"); code != 0 {
		t.Fatalf("compare --previous a turn: exit %d", code)
	}
}
