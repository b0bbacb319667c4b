package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/firewatch/firewatch/sim"
)

// A usage error leaves no output file behind: every flag is checked before
// --summary, --record or --debug is created, whichever is wrong.
func TestUsageErrorCreatesNoFile(t *testing.T) {
	srv, err := sim.Start(context.Background(), sim.Options{Speed: 1000, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	id := srv.Jobs[0].ID
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"tui without a terminal", []string{"watch", id, "-o", "tui"}, "--output tui needs a terminal"},
		{"http to a remote host", []string{"watch", id, "--api-url", "http://example.com"}, "http"},
		{"record in a missing directory", []string{"watch", id, "--record", "/nonexistent/r.ndjson"}, "--record"},
		{"replay tui without a terminal", []string{"replay", "-", "-o", "tui"}, "--output tui needs a terminal"},
		{"demo tui without a terminal", []string{"demo", "-o", "tui"}, "--output tui needs a terminal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append(tc.args, "--summary", filepath.Join(dir, "s.json"), "--debug", filepath.Join(dir, "d.log"))
			if !strings.Contains(strings.Join(tc.args, " "), "--record") && tc.args[0] == "watch" {
				args = append(args, "--record", filepath.Join(dir, "r.ndjson"))
			}
			_, errOut, code := run(t, context.Background(), append(args, "--api-key", srv.Key)...)
			if tc.args[0] != "watch" {
				_, errOut, code = run(t, context.Background(), args...)
			}
			if code != ExitUsage || !strings.Contains(errOut, tc.stderr) || strings.Contains(errOut, "TTY") {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Fatalf("files left behind: %v", ents)
			}
		})
	}
	// A file that exists is not emptied by a usage error either.
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	os.WriteFile(old, []byte(`{"old":true}`), 0o644)
	if _, _, code := run(t, context.Background(), "watch", id, "--api-key", srv.Key, "-o", "tui", "--summary", old); code != ExitUsage {
		t.Fatalf("exit %d", code)
	}
	if b, _ := os.ReadFile(old); string(b) != `{"old":true}` {
		t.Fatalf("the old summary became %q", b)
	}
}

// demo's and serve's --speed are checked against the simulator's range.
func TestSpeedOutOfRange(t *testing.T) {
	for _, args := range [][]string{
		{"demo", "--speed", "1e-9"}, {"serve", "--speed", "1e-9"}, {"demo", "--speed", "2e6"}, {"serve", "--speed", "NaN"}, {"demo", "--speed", "0"},
	} {
		_, errOut, code := run(t, context.Background(), args...)
		if code != ExitUsage || !strings.Contains(errOut, "--speed") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

// --record to a full disk says so once, on stderr and in the debug log,
// and exits 8; the run is still watched to its end and the summary written.
func TestRecordToAFullDisk(t *testing.T) {
	t.Parallel()
	srv := fullDiskAndARun(t)
	dir := t.TempDir()
	_, errOut, code := run(t, context.Background(), "watch", srv.Jobs[0].ID, "--api-url", srv.URL, "--api-key", srv.Key,
		"--interval", "100ms", "-o", "json", "--record", "/dev/full", "--summary", filepath.Join(dir, "s.json"), "--debug", filepath.Join(dir, "d.log"), "--archive", filepath.Join(dir, "a.db"))
	if code != ExitOutput || strings.Count(errOut, "--record") != 1 || !strings.Contains(errOut, "no space left") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var sum map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "s.json"))
	if err := json.Unmarshal(b, &sum); err != nil || sum["outcome"] != "succeeded" {
		t.Fatalf("summary %q: %v", b, err)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "d.log")); !strings.Contains(string(log), "--record: cannot write") {
		t.Fatalf("debug log:\n%s", log)
	}
}

// fullDiskAndARun skips the test where there is no /dev/full, and
// otherwise serves a research run that finishes at once.
func fullDiskAndARun(t *testing.T) *sim.Server {
	t.Helper()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{"research"}, Speed: 1000, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// closedPipe is a stdout whose reader went away after n bytes.
type closedPipe struct {
	mu sync.Mutex
	n  int
}

func (c *closedPipe) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n <= 0 {
		return 0, &os.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}
	}
	c.n -= len(b)
	return len(b), nil
}

// A stdout closed while the run goes on (firewatch ... | head -1) ends
// watching at once and cleanly: exit 8, said once, the summary written.
func TestClosedStdoutEndsWatching(t *testing.T) {
	t.Parallel()
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{"research"}, Speed: 1, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	for _, mode := range []string{"plain", "json"} {
		file := filepath.Join(dir, mode+".json")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var errOut strings.Builder
		code := Execute(ctx, []string{"watch", srv.Jobs[0].ID, "--api-url", srv.URL, "--api-key", srv.Key, "--interval", "100ms", "-o", mode, "--summary", file, "--archive", filepath.Join(dir, "a.db")},
			strings.NewReader(""), &closedPipe{n: 10}, &errOut)
		cancel()
		if code != ExitOutput || strings.Count(errOut.String(), "stdout") != 1 || !strings.Contains(errOut.String(), "closed pipe") {
			t.Fatalf("%s: exit %d, stderr %q", mode, code, errOut.String())
		}
		var sum map[string]any
		b, _ := os.ReadFile(file)
		if err := json.Unmarshal(b, &sum); err != nil || sum["state"] != "running" {
			t.Fatalf("%s: summary %q: %v", mode, b, err)
		}
	}
}

// --summary to a full disk: said once, exit 8 for a run that succeeded.
func TestSummaryToAFullDisk(t *testing.T) {
	t.Parallel()
	srv := fullDiskAndARun(t)
	db := filepath.Join(t.TempDir(), "a.db")
	_, errOut, code := run(t, context.Background(), "watch", srv.Jobs[0].ID, "--api-url", srv.URL, "--api-key", srv.Key,
		"--interval", "100ms", "-o", "json", "--summary", "/dev/full", "--archive", db)
	if code != ExitOutput || strings.Count(errOut, "--summary") != 1 || !strings.Contains(errOut, "no space left") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	// --summary - on a stdout that is closed by then: said once too.
	code = Execute(context.Background(), []string{"watch", srv.Jobs[0].ID, "--api-url", srv.URL, "--api-key", srv.Key, "--interval", "100ms", "-o", "json", "--summary", "-", "--archive", db},
		strings.NewReader(""), &closedPipe{n: 1 << 30}, &strings.Builder{})
	if code != ExitOK {
		t.Fatalf("a stdout that works: exit %d", code)
	}
	var errs strings.Builder
	code = Execute(context.Background(), []string{"replay", "-", "-o", "json", "--summary", "-"},
		strings.NewReader(`{"success":true,"id":"x","events":[]}`), &closedPipe{n: 0}, &errs)
	// The replayed run has no outcome (exit 1, which says more than 8).
	if code != ExitFailed || strings.Count(errs.String(), "stdout") != 1 {
		t.Fatalf("closed stdout: exit %d, stderr %q", code, errs.String())
	}
}
