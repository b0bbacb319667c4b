package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/runs"
)

// startSim starts the simulator for a test, without rate limits (speed 50
// unless told), and closes it when the test ends.
func startSim(t *testing.T, o sim.Options) *sim.Server {
	t.Helper()
	if o.Speed == 0 {
		o.Speed = 50
	}
	o.RateLimit = -1
	srv, err := sim.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// TestWatchArchivesAndReplayEqualsRecording: a watch writes its run into the
// archive poll by poll; replaying the archived run gives what replaying its
// --record file gives.
func TestWatchArchivesAndReplayEqualsRecording(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}})
	dir := t.TempDir()
	db, rec := filepath.Join(dir, "a.db"), filepath.Join(dir, "run.ndjson")
	t.Setenv("FIREWATCH_ARCHIVE", db)
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	id := srv.Jobs[0].ID
	if _, errOut, code := run(t, context.Background(), "watch", id, "-o", "json", "--interval", "100ms", "--record", rec); code != 0 {
		t.Fatalf("watch: %d %s", code, errOut)
	}
	fromFile, _, code1 := run(t, context.Background(), "replay", rec, "-o", "json", "--summary", "-")
	fromArchive, errOut, code2 := run(t, context.Background(), "replay", id, "-o", "json", "--summary", "-")
	if code1 != 0 || code2 != 0 || fromFile != fromArchive || fromFile == "" {
		t.Fatalf("replay of the archived run differs from the recording's (%d, %d): %s", code1, code2, errOut)
	}
	// report takes the job id too, from the archive: no key, no request.
	t.Setenv("FIRECRAWL_API_KEY", "")
	before := srv.Stats().Requests
	if md, errOut, code := run(t, context.Background(), "report", id, "--format", "md"); code != 0 || !strings.Contains(md, id) || srv.Stats().Requests != before {
		t.Fatalf("report from the archive: exit %d, %d requests\n%s", code, srv.Stats().Requests-before, errOut)
	}
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.Get(context.Background(), srv.URL, id)
	if err != nil || r.Outcome != "succeeded" || !r.Complete || r.Events == 0 || r.Summary == nil {
		t.Fatalf("archived run: %+v %v", r, err)
	}
	b, _ := os.ReadFile(db)
	if bytes.Contains(b, []byte(srv.Key)) {
		t.Fatal("the key is in the archive")
	}
}

// TestArchivePassRequests: a pass fetches each run it does not hold with one
// trace request, a second pass none.
func TestArchivePassRequests(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, History: 45})
	t.Setenv("FIREWATCH_ARCHIVE", filepath.Join(t.TempDir(), "a.db"))
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	waitSimFinished(t, srv)
	before := srv.Stats().ByRoute["GET trace"]
	if _, errOut, code := run(t, context.Background(), "archive", "--once"); code != 0 {
		t.Fatalf("first pass: %d %s", code, errOut)
	}
	traces := srv.Stats().ByRoute["GET trace"] - before
	if traces != 46 {
		t.Fatalf("first pass: %d trace requests for 46 runs", traces)
	}
	_, errOut, code := run(t, context.Background(), "archive", "--once")
	if code != 0 || srv.Stats().ByRoute["GET trace"]-before != 46 {
		t.Fatalf("second pass fetched again: %d %s", srv.Stats().ByRoute["GET trace"]-before-46, errOut)
	}
	if !strings.Contains(errOut, "46 runs seen, 0 fetched") {
		t.Errorf("second pass said %q", errOut)
	}
	out, _, code := run(t, context.Background(), "history", "-o", "json")
	if code != 0 || strings.Count(out, "\n") != 46 {
		t.Fatalf("history: %d lines, exit %d", strings.Count(out, "\n"), code)
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &line); err != nil {
		t.Fatal(err)
	}
	want := []string{"id", "status", "outcome", "complete", "prompt", "model", "effort", "maxCredits", "createdAt", "finishedAt", "creditsUsed",
		"billedCredits", "attention", "creditsByAgent", "cancelRequested", "expired"}
	if len(line) != len(want) {
		t.Fatalf("history JSON fields: %v", line)
	}
	for _, k := range want {
		if _, ok := line[k]; !ok {
			t.Errorf("history JSON lacks %q", k)
		}
	}
}

func waitSimFinished(t *testing.T, srv *sim.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, j := range srv.Jobs {
		if err := srv.WaitFinished(ctx, j.ID); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWatchForgottenRun: watch JOB_ID of a run the service answers 404 for
// is shown from the archive, with the archived outcome's exit code, and 1
// for a run archived while it was still processing.
func TestWatchForgottenRun(t *testing.T) {
	live := startSim(t, sim.Options{Scenarios: []string{"failure"}})
	dir := t.TempDir()
	db, rec := filepath.Join(dir, "a.db"), filepath.Join(dir, "run.ndjson")
	t.Setenv("FIREWATCH_ARCHIVE", filepath.Join(dir, "other.db"))
	id := live.Jobs[0].ID
	if _, errOut, code := run(t, context.Background(), "watch", id, "--api-url", live.URL, "--api-key", live.Key, "-o", "json", "--interval", "100ms", "--record", rec); code != 1 {
		t.Fatalf("watch: %d %s", code, errOut)
	}
	// The same run (same seed, same id) on a service that has forgotten it.
	gone := startSim(t, sim.Options{Scenarios: []string{"failure"}, Retention: time.Nanosecond})
	t.Setenv("FIREWATCH_ARCHIVE", db)
	t.Setenv("FIRECRAWL_API_URL", gone.URL)
	t.Setenv("FIRECRAWL_API_KEY", gone.Key)
	// Not archived: the 404 is the service's refusal.
	if _, _, code := run(t, context.Background(), "watch", id, "-o", "plain"); code != ExitRejected {
		t.Fatalf("not archived: exit %d", code)
	}
	r, polls, _, err := readRecording(context.Background(), nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	r.Service = gone.URL
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.ReplaceRun(context.Background(), r, polls, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	out, errOut, code := run(t, context.Background(), "watch", id, "-o", "plain")
	if code != 1 || !strings.Contains(errOut, "no longer has run") || !strings.Contains(out, "failed") {
		t.Fatalf("from the archive: exit %d\n%s\n%s", code, out, errOut)
	}

	// Archived while processing: the first two polls only.
	st, _ = archive.Open(context.Background(), db)
	r.Complete, r.Outcome, r.Summary, r.SummaryEncoded = false, "", nil, nil
	if _, err := st.Prune(context.Background(), "", time.Time{}, id); err != nil {
		t.Fatal(err)
	}
	if err := st.ReplaceRun(context.Background(), r, polls[:1], nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, errOut, code = run(t, context.Background(), "watch", id, "-o", "plain")
	if code != 1 || !strings.Contains(errOut, "still processing") ||
		!strings.Contains(errOut, "what the archive holds of the run ends before the run finished") || strings.Contains(errOut, "recording") {
		t.Fatalf("archived while processing: exit %d %s", code, errOut)
	}
}

// TestArchiveFailureKeepsWatching: an archive that cannot be written is
// said once and the watch keeps its exit code.
func TestArchiveFailureKeepsWatching(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}})
	dir := t.TempDir()
	bad := filepath.Join(dir, "not-a-db")
	os.WriteFile(bad, []byte("this is not a database, and must stay as it is\n"), 0o600)
	t.Setenv("FIREWATCH_ARCHIVE", bad)
	_, errOut, code := run(t, context.Background(), "watch", srv.Jobs[0].ID, "--api-url", srv.URL, "--api-key", srv.Key, "-o", "plain", "--interval", "100ms")
	if code != 0 || strings.Count(errOut, "not archiving") != 1 || !strings.Contains(errOut, bad) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if b, _ := os.ReadFile(bad); string(b) != "this is not a database, and must stay as it is\n" {
		t.Fatal("the file was changed")
	}
	// Commands that only use the archive exit 2.
	if _, _, code := run(t, context.Background(), "history", "-o", "json"); code != ExitUsage {
		t.Fatalf("history on a corrupt archive: exit %d", code)
	}
}

// TestDemoDoesNotArchive: the demo never writes to the user's archive.
func TestDemoDoesNotArchive(t *testing.T) {
	db := filepath.Join(t.TempDir(), "a.db")
	t.Setenv("FIREWATCH_ARCHIVE", db)
	if _, errOut, code := run(t, context.Background(), "demo", "--speed", "50", "-o", "json", "--interval", "100ms"); code != 0 {
		t.Fatalf("demo: %d %s", code, errOut)
	}
	if _, err := os.Stat(db); err == nil {
		t.Fatal("the demo created the archive")
	}
}

// TestParseFailOn: a wrong --fail-on item is bad usage (the grammar's
// cases are compare's TestParseFailOn).
func TestParseFailOn(t *testing.T) {
	if _, err := parseFailOn("nope:+1"); codeOf(err) != ExitUsage {
		t.Fatalf("%v: exit %d", err, codeOf(err))
	}
}

// cost applies the one billing rule: billed unless failed; a run whose
// outcome is not known (known only in part, or only from the service's
// status word) is counted apart, never guessed.
func TestCostBuckets(t *testing.T) {
	day := func(d int) *time.Time { t := time.Date(2026, 11, d, 12, 0, 0, 0, time.UTC); return &t }
	f := func(v float64) *float64 { return &v }
	list := []archive.Run{
		{ID: "a", CreatedAt: day(16), Status: "completed", Outcome: "succeeded", Complete: true, CreditsUsed: f(0.1), Model: "spark-1"},
		{ID: "b", CreatedAt: day(16), Status: "failed", Outcome: "failed", Complete: true, CreditsUsed: f(0.2), Model: "spark-1"},
		{ID: "c", CreatedAt: day(17), Status: "cancelled", Outcome: "cancelled", Complete: true, CreditsUsed: f(0.3), Label: "x"},
		{ID: "d", CreatedAt: day(17), Status: "failed", Outcome: "credit_limit_reached", Complete: true, CreditsUsed: f(150)},
		{ID: "e", CreatedAt: day(18), Status: "processing", CreditsUsed: f(46), Events: 40},      // a watch left early
		{ID: "f", CreatedAt: day(18), Status: "failed", CreditsUsed: f(9)},                       // the service's word only
		{ID: "g", CreatedAt: day(23), Status: "completed", Outcome: "succeeded", Complete: true}, // no figure
	}
	rep := buildCost("week", list, time.Now())
	if len(rep.Buckets) != 2 || rep.Buckets[0].Key != "2026-W47" || rep.Buckets[1].Key != "2026-W48" {
		t.Fatalf("%+v", rep.Buckets)
	}
	var sum, billed float64
	for _, b := range rep.Buckets {
		sum += b.CreditsUsed
		billed += b.BilledCredits
	}
	want := costTotal{Runs: 7, CreditsUsed: 205.6, BilledCredits: 150.4, FailedRuns: 1, FailedCredits: 0.2, UnknownRuns: 2, UnknownCredits: 55}
	if rep.Total != want || sum != rep.Total.CreditsUsed || billed != rep.Total.BilledCredits {
		t.Fatalf("totals %+v, want %+v; buckets add to %v / %v", rep.Total, want, sum, billed)
	}
	if b := rep.Buckets[0]; b.FailedRuns != 1 || b.FailedCredits != 0.2 || b.UnknownRuns != 2 || b.UnknownCredits != 55 {
		t.Fatalf("week 47 %+v", b)
	}
	lab := buildCost("label", list, time.Now())
	if lab.Buckets[len(lab.Buckets)-1].Key != "" && lab.Buckets[0].Key != "" {
		t.Fatalf("no label bucket: %+v", lab.Buckets)
	}
}

func TestParseAge(t *testing.T) {
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"7d": now.Add(-7 * 24 * time.Hour), "2w": now.Add(-14 * 24 * time.Hour), "36h": now.Add(-36 * time.Hour),
		"2026-11-01": time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), "2026-11-01T10:00:00Z": time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC),
	} {
		if got, err := parseAge(in, now); err != nil || !got.Equal(want) {
			t.Errorf("parseAge(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "7x", "-3d", "yesterday"} {
		if _, err := parseAge(bad, now); err == nil {
			t.Errorf("parseAge(%q) accepted", bad)
		}
	}
}

// TestCompareExitCodes: compare is a regression gate. 0 when no threshold is
// crossed, 1 only when one is; bad usage, an unreadable file, a service
// failing (a 5xx after the retries) are 2, the service refusing an id 6, a
// failed output 8: never 1 for anything but a crossed threshold.
func TestCompareExitCodes(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research", "failure"}, Speed: 200})
	dir := t.TempDir()
	t.Setenv("FIREWATCH_ARCHIVE", "off")
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	recs := []string{filepath.Join(dir, "ok.ndjson"), filepath.Join(dir, "failed.ndjson")}
	for i, rec := range recs {
		if _, errOut, code := run(t, context.Background(), "watch", srv.Jobs[i].ID, "-o", "json", "--interval", "100ms", "--record", rec); code != i {
			t.Fatalf("watch %d: exit %d %s", i, code, errOut)
		}
	}
	unknown := "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"same run", []string{recs[0], recs[0], "--fail-on", "creditsUsed:+1%,outcome"}, ExitOK},
		{"changed, no gate", []string{recs[0], recs[1], "-o", "json"}, ExitOK},
		{"outcome crossed", []string{recs[0], recs[1], "--fail-on", "outcome"}, ExitFailed},
		{"bad --fail-on", []string{recs[0], recs[1], "--fail-on", "nonsense:+1"}, ExitUsage},
		{"missing file", []string{recs[0], filepath.Join(dir, "missing.ndjson")}, ExitUsage},
		{"not a recording", []string{recs[0], dir}, ExitUsage},
		{"id the service refuses", []string{recs[0], unknown}, ExitRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := run(t, context.Background(), append([]string{"compare"}, tc.args...)...)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\n%s", code, tc.want, errOut)
			}
		})
	}
	t.Run("service failing", func(t *testing.T) {
		front := &hostile.Refuser{Next: srv, Method: "GET", Route: "/v2/agent/", N: 100, Status: 503}
		hs := httptest.NewServer(front)
		defer hs.Close()
		t.Setenv("FIRECRAWL_API_URL", hs.URL)
		retry := poller.Retry{Sleep: func(ctx context.Context, d time.Duration) bool { return true }}
		var out, errOut bytes.Buffer
		code := execute(context.Background(), []string{"compare", recs[0], srv.Jobs[0].ID}, strings.NewReader(""), &out, &errOut, retry)
		if code != ExitUsage || !strings.Contains(errOut.String(), "503") {
			t.Fatalf("exit %d, want %d after the 503s\n%s", code, ExitUsage, errOut.String())
		}
	})
	t.Run("output failing", func(t *testing.T) {
		var errOut bytes.Buffer
		code := Execute(context.Background(), []string{"compare", recs[0], recs[1], "--fail-on", "outcome"}, strings.NewReader(""), failWriter{}, &errOut)
		if code != ExitOutput {
			t.Fatalf("exit %d, want %d\n%s", code, ExitOutput, errOut.String())
		}
	})
}

// TestDSNPasswordRedacted: a password in --archive joins the secrets every
// output redacts from the moment the DSN is read, wherever it stands as a
// password: the DSN itself, quoted back in an argument or an error.
func TestDSNPasswordRedacted(t *testing.T) {
	const pw = "hunter2-correct-horse"
	dsn := "postgres://fw:" + pw + "@127.0.0.1:1/fw?connect_timeout=1"
	for _, args := range [][]string{
		{"history", "-o", "json", "--archive", dsn},
		{"compare", dsn, dsn, "--archive", dsn},
		{"cost", "--by", dsn, "--archive", dsn},
	} {
		out, errOut, code := run(t, context.Background(), args...)
		t.Setenv("FIREWATCH_ARCHIVE", dsn) // the same from the environment
		out2, errOut2, code2 := run(t, context.Background(), args[:len(args)-2]...)
		out, errOut = out+out2, errOut+errOut2
		if code != ExitUsage || code2 != ExitUsage || strings.Contains(out+errOut, pw) || !strings.Contains(out+errOut, "[redacted]") {
			t.Errorf("%v: exit %d, output %q %q", args[0], code, out, errOut)
		}
	}
}

// TestDSNPasswordThatIsAWord: a DSN's password is redacted where it stands
// as the DSN's password, not wherever the word appears: a password that is
// also a common word ("firewatch", the user's and the database's name too)
// leaves every other line readable. The keyword form (host=... password=...)
// is PostgreSQL's, not a file named after the whole string, and its password
// is redacted alike.
func TestDSNPasswordThatIsAWord(t *testing.T) {
	const pw = "firewatch"
	for _, dsn := range []string{
		"postgres://firewatch:" + pw + "@127.0.0.1:1/firewatch?connect_timeout=1",
		"host=127.0.0.1 port=1 user=firewatch password=" + pw + " dbname=firewatch connect_timeout=1",
		"host=127.0.0.1 port=1 user=firewatch password='" + pw + "' dbname=firewatch connect_timeout=1",
	} {
		dir := t.TempDir()
		t.Chdir(dir)
		_, errOut, code := run(t, context.Background(), "history", "-o", "json", "--archive", dsn)
		if code != ExitUsage || !strings.HasPrefix(errOut, "firewatch: archive ") || !strings.Contains(errOut, "[redacted]") {
			t.Errorf("%s: exit %d\n%s", dsn, code, errOut)
		}
		for _, form := range []string{":" + pw + "@", "password=" + pw, "password='" + pw} {
			if strings.Contains(errOut, form) {
				t.Errorf("%s: the password is shown: %s", dsn, errOut)
			}
		}
		if !strings.Contains(errOut, "user=firewatch") && !strings.Contains(errOut, "//firewatch:") {
			t.Errorf("%s: the user's name was redacted with the password: %s", dsn, errOut)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("%s: taken as an SQLite file: %v", dsn, entries)
		}
	}
}

// listOnly is a runs service that gives one page and nothing else.
type listOnly struct {
	runs.Service
	page []poller.RunInfo
}

func (l listOnly) Runs(context.Context, time.Time) (*poller.RunList, error) {
	return &poller.RunList{Runs: append([]poller.RunInfo(nil), l.page...)}, nil
}

// The service reports a cancelled or credit-limited run as failed; where
// the archive read the run's trace, the runs screen's live rows carry its
// outcome (which the row and the details pane show).
func TestLiveRowsShowTheArchivedOutcome(t *testing.T) {
	ctx := context.Background()
	st, err := archive.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const svc = "http://service.test"
	for id, outcome := range map[string]string{"run-cancelled": "cancelled", "run-failed": "failed", "run-capped": "credit_limit_reached"} {
		if err := st.PutRun(ctx, &archive.Run{Service: svc, ID: id, Status: "failed"}); err != nil {
			t.Fatal(err)
		}
		if err := st.SetDerived(ctx, &archive.Run{Service: svc, ID: id, Outcome: outcome, Complete: true}); err != nil {
			t.Fatal(err)
		}
	}
	live := listOnly{page: []poller.RunInfo{{ID: "run-cancelled", Status: "failed"}, {ID: "run-failed", Status: "failed"},
		{ID: "run-capped", Status: "failed"}, {ID: "run-unknown", Status: "failed"}}}
	s := &archiveService{live: live, st: st, q: archive.Query{Service: svc}}
	l, err := s.Runs(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range l.Runs {
		got[r.ID] = r.Status
		if r.Known != nil {
			got[r.ID] += "/" + r.Known.Outcome
		}
	}
	want := map[string]string{"run-cancelled": "failed/cancelled", "run-failed": "failed/failed", "run-capped": "failed/credit_limit_reached", "run-unknown": "failed"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("statuses %v, want %v", got, want)
	}
}

// A run archived by a watch holds what one archived by the pass holds: its
// request (asked at the start) and its status with the result (asked once
// it finished).
func TestWatchArchivesRequestAndResult(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, Speed: 50})
	id := srv.Jobs[0].ID
	db := filepath.Join(t.TempDir(), "a.db")
	if _, errOut, code := run(t, context.Background(), "watch", id, "-o", "plain", "--interval", "100ms",
		"--api-url", srv.URL, "--api-key", srv.Key, "--archive", db); code != 0 {
		t.Fatalf("watch: exit %d\n%s", code, errOut)
	}
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.Get(context.Background(), srv.URL, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Prompt == "" || r.Model == "" || r.Effort == "" {
		t.Errorf("request not archived: prompt %q, model %q, effort %q", r.Prompt, r.Model, r.Effort)
	}
	if len(r.Result) == 0 || r.ExpiresAt == nil || r.Status != "completed" || r.Outcome != "succeeded" {
		t.Errorf("status not archived: result %d bytes, expiresAt %v, status %q, outcome %q", len(r.Result), r.ExpiresAt, r.Status, r.Outcome)
	}
}

// The service lists every run it keeps: an archived run of the pass's team
// that a whole pass did not see is marked expired (history says so), one it
// saw is not.
func TestArchivePassMarksForgottenRuns(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, Speed: 50})
	db := filepath.Join(t.TempDir(), "a.db")
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	const forgotten = "0193a1b2-c3d4-4e5f-8a6b-7c8d9e0f1a2b"
	at := time.Now().Add(-time.Hour)
	if err := st.AppendPolls(context.Background(), srv.URL, forgotten, at, []archive.Poll{{ReceivedAt: at, Line: []byte(`{"receivedAt":"2026-11-25T20:50:31Z","trace":{"events":[]}}`)}}); err != nil {
		t.Fatal(err)
	}
	// Archived by a watch with the same key: its team's.
	if err := st.PutRun(context.Background(), &archive.Run{Service: srv.URL, ID: forgotten, Team: archive.TeamOf(srv.Key)}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	args := []string{"archive", "--once", "--api-url", srv.URL, "--api-key", srv.Key, "--archive", db}
	_, errOut, code := run(t, context.Background(), args...)
	if code != 0 || !strings.Contains(errOut, "1 no longer kept by the service") {
		t.Fatalf("first pass: exit %d\n%s", code, errOut)
	}
	if _, errOut, code = run(t, context.Background(), args...); code != 0 || strings.Contains(errOut, "no longer kept") {
		t.Fatalf("second pass: exit %d\n%s", code, errOut)
	}
	out, errOut, code := run(t, context.Background(), "history", "-o", "json", "--api-url", srv.URL, "--archive", db)
	if code != 0 {
		t.Fatalf("history: exit %d\n%s", code, errOut)
	}
	want := map[string]bool{forgotten: true, srv.Jobs[0].ID: false}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var h struct {
			ID      string `json:"id"`
			Expired bool   `json:"expired"`
		}
		if err := json.Unmarshal([]byte(line), &h); err != nil {
			t.Fatal(err)
		}
		if w, ok := want[h.ID]; !ok || w != h.Expired {
			t.Errorf("%s expired %v", h.ID, h.Expired)
		}
		delete(want, h.ID)
	}
	if len(want) > 0 {
		t.Errorf("not in history: %v", want)
	}
}

// A watch left early leaves the run incomplete in the archive, and every
// reader says so; the next pass completes it with one status and one
// trace request and only the snapshots the watch did not store, keeping
// the watch's polls; a second pass asks nothing more of it.
func TestPartialRunCompletedByThePass(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, Speed: 20})
	id := srv.Jobs[0].ID
	db := filepath.Join(t.TempDir(), "a.db")
	t.Setenv("FIREWATCH_ARCHIVE", db)
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	if _, errOut, code := run(t, context.Background(), "watch", id, "-o", "plain", "--interval", "100ms", "--timeout", "400ms"); code != ExitTimeout {
		t.Fatalf("watch: exit %d\n%s", code, errOut)
	}
	out, _, _ := run(t, context.Background(), "history", "-o", "json")
	var h struct {
		Complete      bool
		Outcome       *string
		BilledCredits *float64
	}
	if err := json.Unmarshal([]byte(out), &h); err != nil || h.Complete || h.Outcome != nil || h.BilledCredits != nil {
		t.Fatalf("history of the run left early: %s (%v)", out, err)
	}
	if out, _, _ := run(t, context.Background(), "cost", "-o", "json"); !strings.Contains(out, `"unknownRuns":1`) {
		t.Fatalf("cost of the run left early: %s", out)
	}
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	held, _ := st.Get(context.Background(), srv.URL, id)
	heldSnaps, _ := st.SnapshotIDs(context.Background(), srv.URL, id)
	st.Close()
	if held == nil || held.Polls == 0 {
		t.Fatalf("the watch left nothing: %+v", held)
	}
	waitSimFinished(t, srv)
	before := srv.Stats().ByRoute
	if _, errOut, code := run(t, context.Background(), "archive", "--once"); code != 0 {
		t.Fatalf("pass: exit %d\n%s", code, errOut)
	}
	after := srv.Stats().ByRoute
	st, err = archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.Get(context.Background(), srv.URL, id)
	if err != nil || !r.Complete || r.Outcome != "succeeded" || r.Polls != held.Polls+1 || r.Result == nil {
		t.Fatalf("after the pass: %+v %v (the watch left %d polls)", r, err, held.Polls)
	}
	snaps, _ := st.SnapshotIDs(context.Background(), srv.URL, id)
	if got := after["GET snapshot"] - before["GET snapshot"]; got != len(snaps)-len(heldSnaps) || after["GET trace"]-before["GET trace"] != 1 ||
		after["GET status"]-before["GET status"] != 1 {
		t.Errorf("the pass asked %d snapshots (%d held of %d), %d traces, %d statuses", got, len(heldSnaps), len(snaps),
			after["GET trace"]-before["GET trace"], after["GET status"]-before["GET status"])
	}
	again := srv.Stats().ByRoute
	if _, errOut, code := run(t, context.Background(), "archive", "--once"); code != 0 || srv.Stats().ByRoute["GET trace"] != again["GET trace"] ||
		srv.Stats().ByRoute["GET status"] != again["GET status"] {
		t.Fatalf("a second pass asked again: exit %d\n%s", code, errOut)
	}
}

// archive import keeps what a recording's header says the run was asked.
func TestImportKeepsTheRequest(t *testing.T) {
	dir := t.TempDir()
	rec, db := filepath.Join(dir, "run.ndjson"), filepath.Join(dir, "a.db")
	if _, errOut, code := run(t, context.Background(), "demo", "--scenario", "credit-limit", "--speed", "1000", "-o", "json", "--record", rec); code != ExitCreditLimit {
		t.Fatalf("demo: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := run(t, context.Background(), "archive", "import", rec, "--archive", db); code != 0 {
		t.Fatalf("import: exit %d\n%s", code, errOut)
	}
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(context.Background(), archive.Query{})
	if err != nil || len(list) != 1 {
		t.Fatalf("%d runs, %v", len(list), err)
	}
	r := list[0]
	if r.Prompt == "" || r.Model == "" || r.MaxCredits == nil || *r.MaxCredits != 150 || r.Outcome != "credit_limit_reached" || r.Status != "failed" {
		t.Fatalf("imported %+v", r)
	}
}

// The runs screen completes in the background a run its list shows over
// that the archive holds in part, and a run cancelled from it once it has
// ended; closing the screen stops the work.
func TestRunsScreenCompletesHeldRuns(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research", "cancel"}, Speed: 50})
	part, long := srv.Jobs[0].ID, srv.Jobs[1].ID
	db := filepath.Join(t.TempDir(), "a.db")
	t.Setenv("FIREWATCH_ARCHIVE", db)
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	if err := st.AppendPolls(context.Background(), srv.URL, part, at, []archive.Poll{{ReceivedAt: at, Line: []byte(`{"receivedAt":"2026-11-25T20:50:31Z","trace":{"events":[]}}`)}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := srv.WaitFinished(context.Background(), part); err != nil {
		t.Fatal(err)
	}
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	quiet := c.WithRetry(poller.Retry{Tries: 1})
	secrets := text.NewSecrets()
	a := &app{stderr: &scrubWriter{w: &strings.Builder{}, secrets: secrets}, secrets: secrets}
	list, closeArchive := a.runsWithArchive(context.Background(), quiet, quiet, service{baseURL: srv.URL})
	defer closeArchive()
	if _, err := list.Runs(context.Background(), time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := list.Cancel(context.Background(), long); err != nil {
		t.Fatal(err)
	}
	s := list.(*archiveService)
	deadline := time.Now().Add(20 * time.Second)
	for {
		held, err := s.st.Held(context.Background(), srv.URL, []string{part, long})
		if err != nil {
			t.Fatal(err)
		}
		if held[part].Outcome == "succeeded" && held[part].Complete && held[long].Outcome == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not completed in the background: %+v", held)
		}
		time.Sleep(20 * time.Millisecond)
	}
	r, err := s.st.Get(context.Background(), srv.URL, long)
	if err != nil || !r.CancelRequested || r.Status != "cancelled" {
		t.Fatalf("the cancelled run: %+v %v", r, err)
	}
}
