package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/sim"
)

// rerun -o json: the new run's events, one a line, then one line
// {"comparison": ...} that is compare ORIGINAL NEW -o json's comparison,
// the gate's crossing in it and in the exit code; --dry-run -o json is the
// request with its changes, and sends nothing.
func TestRerunJSON(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := startSim(t, sim.Options{Speed: 400, Seed: 51})
	db := filepath.Join(t.TempDir(), "a.db")
	conn := []string{"--api-url", srv.URL, "--api-key", srv.Key, "--archive", db, "--interval", "100ms"}
	if _, errOut, code := run(t, ctx, append([]string{"run", "Compare the pricing of web-scraping APIs", "--max-credits", "300", "--effort", "low", "-o", "plain"}, conn...)...); code != ExitOK {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	orig := srv.Starts()[0].ID

	out, errOut, code := run(t, ctx, append([]string{"rerun", orig, "--effort", "high", "--dry-run", "-o", "json"}, conn...)...)
	var dry struct {
		RerunOf string         `json:"rerunOf"`
		Request map[string]any `json:"request"`
		Changed []string       `json:"changed"`
		Sent    bool           `json:"sent"`
	}
	if err := json.Unmarshal([]byte(out), &dry); err != nil || code != 0 || len(srv.Starts()) != 1 {
		t.Fatalf("--dry-run -o json: exit %d, %d starts, %v: %s%s", code, len(srv.Starts()), err, out, errOut)
	}
	if dry.RerunOf != orig || dry.Sent || !reflect.DeepEqual(dry.Changed, []string{"effort"}) || dry.Request["effort"] != "high" || dry.Request["maxCredits"] != 300.0 {
		t.Errorf("--dry-run -o json: %+v", dry)
	}

	// Low effort to high: the credits rise past the gate's 10%.
	out, errOut, code = run(t, ctx, append([]string{"rerun", orig, "--effort", "high", "--fail-on", "creditsUsed:+10%", "-o", "json"}, conn...)...)
	if code != ExitFailed || len(srv.Starts()) != 2 {
		t.Fatalf("rerun -o json past the gate: exit %d, %d starts: %s", code, len(srv.Starts()), errOut)
	}
	newID := srv.Starts()[1].ID
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 3 {
		t.Fatalf("rerun -o json: %d lines:\n%s", len(lines), out)
	}
	for i, l := range lines[:len(lines)-1] {
		var ev struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.Type == "" {
			t.Fatalf("line %d is no event: %v %q", i+1, err, l)
		}
	}
	var last struct {
		Comparison map[string]any `json:"comparison"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Comparison == nil {
		t.Fatalf("the last line is no comparison: %v %q", err, lines[len(lines)-1])
	}
	if crossed, _ := last.Comparison["crossed"].([]any); len(crossed) == 0 || !strings.Contains(crossed[0].(string), "creditsUsed") {
		t.Errorf("the comparison's crossed: %v", last.Comparison["crossed"])
	}
	cmpOut, errOut, code := run(t, ctx, "compare", orig, newID, "--fail-on", "creditsUsed:+10%", "-o", "json", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key)
	var want map[string]any
	if err := json.Unmarshal([]byte(cmpOut), &want); err != nil || code != ExitFailed {
		t.Fatalf("compare -o json: exit %d %v: %s%s", code, err, cmpOut, errOut)
	}
	if !reflect.DeepEqual(last.Comparison, want) {
		t.Errorf("rerun's comparison is not compare's:\nrerun:   %v\ncompare: %v", last.Comparison, want)
	}
}
