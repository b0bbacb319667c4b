package cli

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// startSim starts the simulator for a test, without rate limits (speed
// 400 unless told: a research run lasts 150 ms), and closes it when the
// test ends.
func startSim(t *testing.T, o sim.Options) *sim.Server {
	t.Helper()
	if o.Speed == 0 {
		o.Speed = 400
	}
	o.RateLimit = -1
	srv, err := sim.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// startHeldSim is startSim with the runs held at their start until the
// first trace request: the watch under test sees its run going, however
// busy the machine.
func startHeldSim(t *testing.T, o sim.Options) *sim.Server {
	t.Helper()
	o.Held = true
	srv := startSim(t, o)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for srv.Stats().ByRoute["GET trace"] == 0 {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
		srv.Release()
	}()
	return srv
}

// TestWatchArchivesAndReplayEqualsRecording: a watch writes its run into the
// archive poll by poll; replaying the archived run gives what replaying its
// --record file gives.
func TestWatchArchivesAndReplayEqualsRecording(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}})
	dir := t.TempDir()
	db, rec := filepath.Join(dir, "a.db"), filepath.Join(dir, "run.ndjson")
	id := srv.Jobs[0].ID
	if _, errOut, code := run(t, context.Background(), "watch", id, "-o", "json", "--interval", "100ms", "--record", rec,
		"--archive", db, "--api-url", srv.URL, "--api-key", srv.Key); code != 0 {
		t.Fatalf("watch: %d %s", code, errOut)
	}
	fromFile, _, code1 := run(t, context.Background(), "replay", rec, "-o", "json", "--summary", "-", "--archive", db)
	fromArchive, errOut, code2 := run(t, context.Background(), "replay", id, "-o", "json", "--summary", "-", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key)
	if code1 != 0 || code2 != 0 || fromFile != fromArchive || fromFile == "" {
		t.Fatalf("replay of the archived run differs from the recording's (%d, %d): %s", code1, code2, errOut)
	}
	// report takes the job id too, from the archive: no key, no request.
	before := srv.Stats().Requests
	if md, errOut, code := run(t, context.Background(), "report", id, "--format", "md", "--archive", db, "--api-url", srv.URL); code != 0 || !strings.Contains(md, id) || srv.Stats().Requests != before {
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

// TestWatchForgottenRun: watch JOB_ID of a run the service answers 404 for
// is shown from the archive, with the archived outcome's exit code, and 1
// for a run archived while it was still processing.
func TestWatchForgottenRun(t *testing.T) {
	t.Parallel()
	live := startSim(t, sim.Options{Scenarios: []string{"failure"}, Speed: 60})
	dir := t.TempDir()
	db, rec := filepath.Join(dir, "a.db"), filepath.Join(dir, "run.ndjson")
	id := live.Jobs[0].ID
	if _, errOut, code := run(t, context.Background(), "watch", id, "--api-url", live.URL, "--api-key", live.Key, "-o", "json", "--interval", "100ms", "--record", rec,
		"--archive", filepath.Join(dir, "other.db")); code != 1 {
		t.Fatalf("watch: %d %s", code, errOut)
	}
	// The same run (same seed, same id) on a service that has forgotten it.
	gone := startSim(t, sim.Options{Scenarios: []string{"failure"}, Retention: time.Nanosecond})
	to := []string{"--archive", db, "--api-url", gone.URL, "--api-key", gone.Key}
	// Not archived: the 404 is the service's refusal.
	if _, _, code := run(t, context.Background(), append([]string{"watch", id, "-o", "plain"}, to...)...); code != ExitRejected {
		t.Fatalf("not archived: exit %d", code)
	}
	r, polls, _, err := archiving.ReadRecording(context.Background(), nil, rec)
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
	out, errOut, code := run(t, context.Background(), append([]string{"watch", id, "-o", "plain"}, to...)...)
	if code != 1 || !strings.Contains(errOut, "no longer has run") || !strings.Contains(out, "failed") {
		t.Fatalf("from the archive: exit %d\n%s\n%s", code, out, errOut)
	}

	// Archived while processing: recorded from the same run held at its
	// start (never released), so that it cannot end before --timeout.
	slow := startSim(t, sim.Options{Scenarios: []string{"failure"}, Held: true})
	early := filepath.Join(dir, "early.ndjson")
	if _, errOut, code := run(t, context.Background(), "watch", id, "--api-url", slow.URL, "--api-key", slow.Key, "-o", "json", "--interval", "100ms",
		"--timeout", "1500ms", "--record", early, "--archive", filepath.Join(dir, "other.db")); code != ExitTimeout {
		t.Fatalf("watch of the slow run: %d %s", code, errOut)
	}
	r, polls, _, err = archiving.ReadRecording(context.Background(), nil, early)
	if err != nil || r.Complete || len(polls) == 0 {
		t.Fatalf("the early recording: %+v %d %v", r, len(polls), err)
	}
	r.Service = gone.URL
	st, _ = archive.Open(context.Background(), db)
	if _, err := st.Prune(context.Background(), "", time.Time{}, id); err != nil {
		t.Fatal(err)
	}
	if err := st.ReplaceRun(context.Background(), r, polls, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, errOut, code = run(t, context.Background(), append([]string{"watch", id, "-o", "plain"}, to...)...)
	if code != 1 || !strings.Contains(errOut, "still processing") ||
		!strings.Contains(errOut, "what the archive holds of the run ends before the run finished") || strings.Contains(errOut, "recording") {
		t.Fatalf("archived while processing: exit %d %s", code, errOut)
	}
}

// TestArchiveFailureKeepsWatching: an archive that cannot be written is
// said once and the watch keeps its exit code.
func TestArchiveFailureKeepsWatching(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}})
	dir := t.TempDir()
	bad := filepath.Join(dir, "not-a-db")
	os.WriteFile(bad, []byte("this is not a database, and must stay as it is\n"), 0o600)
	_, errOut, code := run(t, context.Background(), "watch", srv.Jobs[0].ID, "--api-url", srv.URL, "--api-key", srv.Key, "-o", "plain", "--interval", "100ms", "--archive", bad)
	if code != 0 || strings.Count(errOut, "not archiving") != 1 || !strings.Contains(errOut, bad) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if b, _ := os.ReadFile(bad); string(b) != "this is not a database, and must stay as it is\n" {
		t.Fatal("the file was changed")
	}
	// Commands that only use the archive exit 2.
	if _, _, code := run(t, context.Background(), "history", "-o", "json", "--archive", bad); code != ExitUsage {
		t.Fatalf("history on a corrupt archive: exit %d", code)
	}
}

// TestDemoDoesNotArchive: the demo never writes to the user's archive.
func TestDemoDoesNotArchive(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "a.db")
	if _, errOut, code := run(t, context.Background(), "demo", "--speed", "400", "-o", "json", "--interval", "100ms", "--archive", db); code != 0 {
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

// TestCompareExitCodes: compare is a regression gate. 0 when no threshold is
// crossed, 1 only when one is; bad usage, an unreadable file, a service
// failing (a 5xx after the retries) are 2, the service refusing an id 6, a
// failed output 8: never 1 for anything but a crossed threshold.
func TestCompareExitCodes(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research", "failure"}, Speed: 200})
	dir := t.TempDir()
	to := []string{"--archive", "off", "--api-url", srv.URL, "--api-key", srv.Key}
	recs := []string{filepath.Join(dir, "ok.ndjson"), filepath.Join(dir, "failed.ndjson")}
	for i, rec := range recs {
		if _, errOut, code := run(t, context.Background(), append([]string{"watch", srv.Jobs[i].ID, "-o", "json", "--interval", "100ms", "--record", rec}, to...)...); code != i {
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
			_, errOut, code := run(t, context.Background(), append(append([]string{"compare"}, tc.args...), to...)...)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\n%s", code, tc.want, errOut)
			}
		})
	}
	t.Run("service failing", func(t *testing.T) {
		front := &hostile.Refuser{Next: srv, Method: "GET", Route: "/v2/agent/", N: 100, Status: 503}
		hs := httptest.NewServer(front)
		defer hs.Close()
		retry := poller.Retry{Sleep: func(ctx context.Context, d time.Duration) bool { return true }}
		var out, errOut bytes.Buffer
		code := execute(context.Background(), []string{"compare", recs[0], srv.Jobs[0].ID, "--archive", "off", "--api-url", hs.URL, "--api-key", srv.Key},
			strings.NewReader(""), &out, &errOut, retry)
		if code != ExitUsage || !strings.Contains(errOut.String(), "503") {
			t.Fatalf("exit %d, want %d after the 503s\n%s", code, ExitUsage, errOut.String())
		}
	})
	t.Run("output failing", func(t *testing.T) {
		var errOut bytes.Buffer
		code := Execute(context.Background(), []string{"compare", recs[0], recs[1], "--fail-on", "outcome", "--archive", "off"}, strings.NewReader(""), failWriter{}, &errOut)
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

// A run archived by a watch holds what one archived by the pass holds: its
// request (asked at the start) and its status with the result (asked once
// it finished).
func TestWatchArchivesRequestAndResult(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}})
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

// archive import keeps what a recording's header says the run was asked.
func TestImportKeepsTheRequest(t *testing.T) {
	t.Parallel()
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
