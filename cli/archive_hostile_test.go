package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/charmbracelet/x/vt"
	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/ui/runs"
	"github.com/firewatch/firewatch/ui/screen"
)

// faulty stands before a service and answers requests whose path starts
// with one of its prefixes with a 500, while broken is set.
type faulty struct {
	next     http.Handler
	prefixes []string
	broken   atomic.Bool
}

func (f *faulty) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.broken.Load() {
		for _, p := range f.prefixes {
			if strings.HasPrefix(r.URL.Path, p) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				fmt.Fprint(w, `{"success":false,"error":"Internal server error"}`)
				return
			}
		}
	}
	f.next.ServeHTTP(w, r)
}

// instantRetry retries as the client does, without waiting.
var instantRetry = poller.Retry{Sleep: func(ctx context.Context, d time.Duration) bool { return ctx.Err() == nil }}

// runRetry runs firewatch in-process with retries that do not wait.
func runRetry(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = execute(context.Background(), args, strings.NewReader(""), &out, &errOut, instantRetry)
	return out.String(), errOut.String(), code
}

// TestArchivePassSkipsWhatItCannotRead: a run the service cannot give (a
// trace that answers 500 for ever) is skipped and said on its own line with
// why, keeping what was read of it; a run one of whose snapshots answers 500
// is archived without it; a first-generation run, which has no trace (400),
// is archived as what it has (its list item and status); the pass archives
// the others and exits 0. The next pass fetches what was missing, and not
// the first-generation run again. Only a pass that could archive nothing
// fails, with the code of its failure (1 for a 5xx).
func TestArchivePassSkipsWhatItCannotRead(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioResearch, sim.ScenarioFirstGen, sim.ScenarioFailure}})
	waitSimFinished(t, srv)
	a, b, c := srv.Jobs[0].ID, srv.Jobs[1].ID, srv.Jobs[2].ID
	front := &faulty{next: srv, prefixes: []string{"/v2/agent/" + a + "/snapshots/", "/v2/agent/" + c + "/trace"}}
	front.broken.Store(true)
	hs := httptest.NewServer(front)
	defer hs.Close()
	db := filepath.Join(t.TempDir(), "a.db")
	args := []string{"archive", "--once", "--api-url", hs.URL, "--api-key", srv.Key, "--archive", db}

	_, errOut, code := runRetry(t, args...)
	if code != 0 {
		t.Fatalf("first pass: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"run " + c + " skipped: its trace could not be read; its list item and status are kept (trace: ",
		"(500)",
		"run " + a + " archived without ",
		"run " + b + " archived without a trace: a first-generation run has none",
		"2 fetched",
		"1 skipped",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the first pass does not say %q:\n%s", want, errOut)
		}
	}
	st := openTestArchive(t, db)
	ra, err := st.Get(context.Background(), hs.URL, a)
	if err != nil || ra.Polls == 0 || ra.Gaps == 0 || !ra.Complete {
		t.Fatalf("the run without its snapshots: %+v %v", ra, err)
	}
	if rb, err := st.Get(context.Background(), hs.URL, b); err != nil || rb.Polls != 0 || rb.Status != "completed" || rb.Prompt == "" || !rb.Complete {
		t.Fatalf("the first-generation run's list item and status: %+v %v", rb, err)
	}
	if rc, err := st.Get(context.Background(), hs.URL, c); err != nil || rc.Polls != 0 || rc.Status == "" {
		t.Fatalf("the run whose trace answered 500: %+v %v", rc, err)
	}
	if snaps, _ := st.Stats(context.Background()); snaps.SnapshotBytes != 0 {
		t.Fatalf("snapshots stored while they answered 500: %d bytes", snaps.SnapshotBytes)
	}
	st.Close()

	front.broken.Store(false)
	traces := srv.Stats().ByRoute["GET trace"]
	_, errOut, code = runRetry(t, args...)
	if code != 0 || !strings.Contains(errOut, "2 fetched") || strings.Contains(errOut, "skipped") || strings.Contains(errOut, b) {
		t.Fatalf("second pass: exit %d\n%s", code, errOut)
	}
	if n := srv.Stats().ByRoute["GET trace"] - traces; n != 2 {
		t.Errorf("the second pass asked for %d traces, want 2 (not the first-generation run's)", n)
	}
	st = openTestArchive(t, db)
	if ra, err := st.Get(context.Background(), hs.URL, a); err != nil || ra.Gaps != 0 {
		t.Fatalf("the run's snapshots were not fetched again: %+v %v", ra, err)
	}
	if stats, _ := st.Stats(context.Background()); stats.SnapshotBytes == 0 {
		t.Fatal("no snapshot stored by the second pass")
	}
	if rc, err := st.Get(context.Background(), hs.URL, c); err != nil || rc.Polls == 0 {
		t.Fatalf("the run whose trace answered 500 was not fetched again: %+v %v", rc, err)
	}
	st.Close()

	// A pass that can read nothing but the list archives nothing: its
	// code is its failure's (a 5xx: 1).
	all := &faulty{next: srv, prefixes: []string{"/v2/agent/"}}
	all.broken.Store(true)
	hs2 := httptest.NewServer(all)
	defer hs2.Close()
	_, errOut, code = runRetry(t, "archive", "--once", "--api-url", hs2.URL, "--api-key", srv.Key, "--archive", filepath.Join(t.TempDir(), "b.db"))
	if code != ExitFailed || !strings.Contains(errOut, "none of the 3 runs to fetch could be archived") {
		t.Fatalf("a pass that archives nothing: exit %d\n%s", code, errOut)
	}
}

func openTestArchive(t *testing.T, dsn string) archive.Store {
	t.Helper()
	st, err := archive.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// keyRouter is one service address for two teams: each request goes to the
// simulator whose key it carries.
type keyRouter map[string]http.Handler

func (k keyRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, key, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if h, ok := k[key]; ok {
		h.ServeHTTP(w, r)
		return
	}
	w.WriteHeader(http.StatusUnauthorized)
}

// TestTwoTeamsOneArchive: a work key and a personal key (two teams) on one
// service and one archive: each team's pass archives its runs and never
// marks the other team's runs expired; a run of its own that its list no
// longer shows is marked expired.
func TestTwoTeamsOneArchive(t *testing.T) {
	t.Parallel()
	work := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioResearch}, Seed: 11})
	home := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioFailure}, Seed: 12})
	waitSimFinished(t, work)
	waitSimFinished(t, home)
	hs := httptest.NewServer(keyRouter{work.Key: work, home.Key: home})
	defer hs.Close()
	db := filepath.Join(t.TempDir(), "a.db")
	pass := func(key string) {
		t.Helper()
		if _, errOut, code := runRetry(t, "archive", "--once", "--api-url", hs.URL, "--api-key", key, "--archive", db); code != 0 ||
			strings.Contains(errOut, "no longer kept") {
			t.Fatalf("pass: exit %d\n%s", code, errOut)
		}
	}
	pass(work.Key)
	pass(home.Key)
	pass(work.Key)
	pass(home.Key)
	expired := func() map[string]bool {
		out, errOut, code := run(t, context.Background(), "history", "-o", "json", "--api-url", hs.URL, "--archive", db)
		if code != 0 {
			t.Fatalf("history: exit %d\n%s", code, errOut)
		}
		got := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var h struct {
				ID      string `json:"id"`
				Expired bool   `json:"expired"`
			}
			if err := json.Unmarshal([]byte(line), &h); err != nil {
				t.Fatal(err)
			}
			got[h.ID] = h.Expired
		}
		return got
	}
	w, h := work.Jobs[0].ID, home.Jobs[0].ID
	if got := expired(); len(got) != 2 || got[w] || got[h] {
		t.Fatalf("after both teams' passes: %v", got)
	}
	// The work team's run leaves its list: its own pass marks it, the
	// other team's does not.
	st := openTestArchive(t, db)
	gone := "0193a1b2-c3d4-4e5f-8a6b-7c8d9e0f1a2b"
	at := time.Now().Add(-time.Hour)
	if err := st.ReplaceRun(context.Background(), &archive.Run{Service: hs.URL, ID: gone, Team: archive.TeamOf(work.Key), CreatedAt: &at, Complete: true},
		[]archive.Poll{{ReceivedAt: at, Line: []byte(`{"receivedAt":"2026-11-25T20:50:31Z","trace":{"events":[]}}`)}}, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	pass(home.Key)
	if got := expired(); got[gone] {
		t.Fatal("the personal key's pass marked the work team's run expired")
	}
	if _, errOut, code := runRetry(t, "archive", "--once", "--api-url", hs.URL, "--api-key", work.Key, "--archive", db); code != 0 ||
		!strings.Contains(errOut, "1 no longer kept by the service") {
		t.Fatalf("the work key's pass: exit %d\n%s", code, errOut)
	}
	if got := expired(); !got[gone] || got[w] || got[h] {
		t.Fatalf("after the work team's pass: %v", got)
	}
}

// TestFailOnUnusedToolWarns: a --fail-on threshold on a tool neither run
// called cannot cross for these runs: compare says so, naming the tool and
// the tools the runs did call, and keeps its exit code (a gate on a tool
// that a candidate may start to call is a gate that makes sense).
func TestFailOnUnusedToolWarns(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 200})
	rec := filepath.Join(t.TempDir(), "run.ndjson")
	if _, errOut, code := run(t, context.Background(), "watch", srv.Jobs[0].ID, "-o", "json", "--interval", "100ms", "--record", rec,
		"--api-url", srv.URL, "--api-key", srv.Key, "--archive", "off"); code != 0 {
		t.Fatalf("watch: exit %d\n%s", code, errOut)
	}
	_, errOut, code := run(t, context.Background(), "compare", rec, rec, "-o", "json", "--fail-on", "toolCalls:mcp__tools__scrap:+1,toolCalls:mcp__tools__scrape:+1", "--archive", "off")
	if code != 0 || strings.Count(errOut, "neither run called") != 1 ||
		!strings.Contains(errOut, "--fail-on toolCalls:mcp__tools__scrap:+1: neither run called mcp__tools__scrap (they called ") ||
		!strings.Contains(errOut, "mcp__tools__scrape") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
}

// TestUnknownEnumsAreUsage: an unknown --status of history or --by of cost
// is bad usage (exit 2) that names the values, not an empty answer.
func TestUnknownEnumsAreUsage(t *testing.T) {
	t.Setenv("FIREWATCH_ARCHIVE", filepath.Join(t.TempDir(), "a.db"))
	for _, args := range [][]string{
		{"history", "-o", "json", "--status", "bogus"},
		{"history", "-o", "plain", "--status", "Completedd"},
		{"cost", "--by", "bogus"},
	} {
		out, errOut, code := run(t, context.Background(), args...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, "use one of") {
			t.Errorf("%v: exit %d %q\n%s", args, code, out, errOut)
		}
	}
	if _, errOut, code := run(t, context.Background(), "history", "-o", "json", "--status", "Canceled"); code != 0 {
		t.Errorf("--status Canceled: exit %d\n%s", code, errOut)
	}
}

// TestPruneAsksFirst: a cut-off at or after now would delete every run: it
// is refused (exit 2, nothing deleted) unless --all; --dry-run says what
// would go and deletes nothing; the crawls go by the same rule.
func TestPruneAsksFirst(t *testing.T) {
	db := filepath.Join(t.TempDir(), "a.db")
	t.Setenv("FIREWATCH_ARCHIVE", db)
	st := openTestArchive(t, db)
	for i := range 3 {
		at := time.Now().Add(-time.Duration(i*48) * time.Hour)
		if err := st.PutRun(context.Background(), &archive.Run{Service: "http://x", ID: fmt.Sprint("r", i), CreatedAt: &at}); err != nil {
			t.Fatal(err)
		}
	}
	for i, age := range []time.Duration{72 * time.Hour, time.Minute} {
		at := time.Now().Add(-age)
		if err := st.(archive.CrawlKeeper).PutCrawl(context.Background(), &archive.Crawl{Service: "http://x", ID: fmt.Sprint("c", i), Status: "completed", CreatedAt: &at}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	crawls := func() int {
		st := openTestArchive(t, db)
		defer st.Close()
		cs, _ := st.(archive.CrawlKeeper).Crawls(context.Background(), archive.CrawlQuery{})
		return len(cs)
	}
	runs := func() int {
		st := openTestArchive(t, db)
		defer st.Close()
		s, _ := st.Stats(context.Background())
		return s.Runs
	}
	for _, cut := range []string{"0", "0s", "2999-01-01", time.Now().Add(time.Hour).Format(time.RFC3339)} {
		if _, errOut, code := run(t, context.Background(), "archive", "prune", "--before", cut); code != ExitUsage || !strings.Contains(errOut, "--all") || runs() != 3 {
			t.Fatalf("--before %s: exit %d, %d runs left\n%s", cut, code, runs(), errOut)
		}
	}
	out, errOut, code := run(t, context.Background(), "archive", "prune", "--before", "1d", "--dry-run")
	if code != 0 || !strings.Contains(out, "would prune 2 runs") || !strings.Contains(out, "and 1 crawl;") || !strings.Contains(out, "nothing was deleted") || runs() != 3 || crawls() != 2 {
		t.Fatalf("--dry-run: exit %d %q\n%s", code, out, errOut)
	}
	if out, _, code := run(t, context.Background(), "archive", "prune", "--before", "2999-01-01", "--all", "--dry-run"); code != 0 || !strings.Contains(out, "would prune 3 runs") {
		t.Fatalf("--all --dry-run: exit %d %q", code, out)
	}
	if out, _, code := run(t, context.Background(), "archive", "prune", "--all"); code != 0 || !strings.Contains(out, "pruned 3 runs") || !strings.Contains(out, "and 2 crawls") || runs() != 0 || crawls() != 0 {
		t.Fatalf("--all: exit %d %q", code, out)
	}
}

// TestHistoryScreenPagesSharedTimes: the history screen pages through the
// archive by a key no two runs share: 65 runs created at one instant are
// all listed, each once, 20 a page.
func TestHistoryScreenPagesSharedTimes(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "a.db")
	st := openTestArchive(t, db)
	defer st.Close()
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for i := range 65 {
		if err := st.PutRun(context.Background(), &archive.Run{Service: "http://x", ID: fmt.Sprintf("run-%03d", i), CreatedAt: &at}); err != nil {
			t.Fatal(err)
		}
	}
	s := archiving.NewListing(nil, st, archive.Query{Service: "http://x"})
	seen := map[string]int{}
	var before time.Time
	for pages := 0; pages < 10; pages++ {
		l, err := s.Runs(context.Background(), before)
		if err != nil {
			t.Fatal(err)
		}
		fresh := 0
		for _, r := range l.Runs {
			if seen[r.ID] == 0 {
				fresh++
			}
			seen[r.ID]++
		}
		next, done, why := poller.PageStep(before, l, fresh)
		if done {
			if why != nil {
				t.Fatalf("paging stopped: %v", why)
			}
			break
		}
		before = next
		// The screen refreshes its first page between pages.
		if _, err := s.Runs(context.Background(), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 65 {
		t.Fatalf("%d of 65 runs listed", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s listed %d times", id, n)
		}
	}

	// The screen itself, scrolled to the end: the oldest run is there.
	m := runs.New(runs.Config{Service: archiving.NewListing(nil, st, archive.Query{Service: "http://x"}), NoColor: true})
	tm := teatest.NewTestModel(t, screen.Root{S: m}, teatest.WithInitialTermSize(120, 40))
	// To the bottom at each look, until the last run is on the screen
	// (pages come as the selection nears the end of what is loaded). The
	// screen is read through a terminal emulator: the renderer redraws
	// only the cells that change, so "run-000" need not be in the bytes.
	// (teatest gives the program's bytes as written, before a terminal's
	// newline translation.)
	emu := vt.NewEmulator(120, 40)
	go io.Copy(io.Discard, emu) // its answers to the program's queries
	defer emu.InputPipe().(io.Closer).Close()
	fed := 0
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		emu.Write(bytes.ReplaceAll(b[fed:], []byte("\n"), []byte("\r\n"))) // a terminal's ONLCR
		fed = len(b)
		tm.Send(tea.KeyPressMsg{Code: 'G', Text: "G"})
		return strings.Contains(emu.String(), "run-000")
	}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if m.Loaded() != 65 {
		t.Fatalf("the screen loaded %d of 65 runs", m.Loaded())
	}
}

// TestArchiveCommandsEndAtASignal: a signal (the cause the signal context
// gives) ends the commands that read or write the archive with 130, not
// with the archive's or the query's error (exit 2 before).
func TestArchiveCommandsEndAtASignal(t *testing.T) {
	db := filepath.Join(t.TempDir(), "a.db")
	t.Setenv("FIREWATCH_ARCHIVE", db)
	st := openTestArchive(t, db)
	st.Close()
	for _, args := range [][]string{
		{"history", "-o", "json"}, {"history", "-o", "plain"}, {"cost"}, {"archive", "prune", "--before", "1d"},
		{"archive", "import", "/dev/zero"},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errInterrupted)
		var out, errOut bytes.Buffer
		if code := execute(ctx, args, strings.NewReader(""), &out, &errOut, poller.Retry{}); code != ExitInterrupted {
			t.Errorf("%v: exit %d\n%s", args, code, errOut.String())
		}
	}
}

// cancelAfter is a stdout that ends the command's context (a signal) once
// n bytes were written to it, and counts what was written.
type cancelAfter struct {
	n      int
	cancel func(error)
	b      bytes.Buffer
	writes int
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	c.writes++
	c.b.Write(p)
	if c.b.Len() >= c.n {
		c.cancel(errInterrupted)
	}
	return len(p), nil
}

// TestHistoryJSONStreamsAndStops: history -o json writes its lines as the
// archive gives the runs, the first ones long before the last, and a signal
// stops it there with 130.
func TestHistoryJSONStreamsAndStops(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "a.db")
	// Enough runs for several of -o json's 64 KiB writes.
	const n = 500
	fillArchive(t, db, "http://x", n)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	out := &cancelAfter{n: 1, cancel: cancel}
	var errOut bytes.Buffer
	code := execute(ctx, []string{"history", "-o", "json", "--all-services", "--archive", db}, strings.NewReader(""), out, &errOut, poller.Retry{})
	lines := bytes.Count(out.b.Bytes(), []byte("\n"))
	if code != ExitInterrupted || lines == 0 || lines >= n {
		t.Fatalf("exit %d after %d of %d lines\n%s", code, lines, n, errOut.String())
	}
	// Uninterrupted, every line, in several writes.
	out = &cancelAfter{n: 1 << 40, cancel: func(error) {}}
	if code := execute(context.Background(), []string{"history", "-o", "json", "--all-services", "--archive", db}, strings.NewReader(""), out, &errOut, poller.Retry{}); code != 0 ||
		bytes.Count(out.b.Bytes(), []byte("\n")) != n || out.writes < 2 {
		t.Fatalf("exit %d, %d lines in %d writes", code, bytes.Count(out.b.Bytes(), []byte("\n")), out.writes)
	}
}

// fillArchive adds n runs of service to the archive at db, with non-ASCII
// prompts (the slow case before).
func fillArchive(tb testing.TB, db, service string, n int) {
	tb.Helper()
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c := 12.5
	for i := range n {
		at := base.Add(time.Duration(i) * time.Minute)
		if err := st.PutRun(context.Background(), &archive.Run{Service: service, ID: fmt.Sprintf("019a2b3c-4d5e-7f60-8a9b-%012d", i),
			Prompt: fmt.Sprintf("Vergleiche die Preise von Anbieter %d – „Größe“, Café ☕", i), Model: "spark-2", Status: "completed",
			CreatedAt: &at, CreditsUsed: &c, Outcome: "succeeded"}); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestReadOnlyArchiveIsRead: an archive on a read-only file and folder is
// read by history, cost, compare and report; a watch says once that it does
// not archive into it and goes on; a pass, whose output is the archive,
// exits 8 saying it is read-only.
func TestReadOnlyArchiveIsRead(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioResearch}})
	waitSimFinished(t, srv)
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	id := srv.Jobs[0].ID
	if _, errOut, code := run(t, context.Background(), "archive", "--once", "--api-url", srv.URL, "--api-key", srv.Key, "--archive", db); code != 0 {
		t.Fatalf("pass: exit %d\n%s", code, errOut)
	}
	os.Chmod(db, 0o400)
	ro := filepath.Join(hostile.ReadOnlyDir(t, dir), "a.db")
	t.Setenv("FIREWATCH_ARCHIVE", ro)
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", "")
	for _, args := range [][]string{
		{"history", "-o", "json"}, {"history", "-o", "plain"}, {"cost", "-o", "json"},
		{"compare", id, id, "-o", "json"}, {"report", id, "--format", "md"},
	} {
		out, errOut, code := run(t, context.Background(), args...)
		if code != 0 || !strings.Contains(out, id) && args[0] != "cost" || args[0] == "cost" && !strings.Contains(out, `"runs":1`) {
			t.Errorf("%v on a read-only archive: exit %d\n%s\n%s", args, code, out, errOut)
		}
	}
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	if _, errOut, code := run(t, context.Background(), "watch", id, "-o", "plain", "--interval", "100ms"); code != 0 ||
		strings.Count(errOut, "not archiving") != 1 || !strings.Contains(errOut, "read-only") {
		t.Errorf("watch: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := run(t, context.Background(), "archive", "prune", "--before", "1d"); code != ExitOutput || !strings.Contains(errOut, "read-only") {
		t.Errorf("prune: exit %d\n%s", code, errOut)
	}
}
