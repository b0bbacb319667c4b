package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/sim"
)

// recordRun watches the simulator's research run with --record into a
// fresh archive and returns the run's id, the recording and the archive.
// The run waits for the watch's first poll, then lasts two seconds: the
// recording holds several polls of it.
func recordRun(t *testing.T) (id, rec, db string) {
	t.Helper()
	srv := startHeldSim(t, sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 30})
	dir := t.TempDir()
	rec, db = filepath.Join(dir, "run.ndjson"), filepath.Join(dir, "a.db")
	id = srv.Jobs[0].ID
	if _, errOut, code := run(t, context.Background(), "watch", id, "-o", "json", "--interval", "100ms", "--record", rec,
		"--api-url", srv.URL, "--api-key", srv.Key, "--archive", db); code != 0 {
		t.Fatalf("watch: exit %d\n%s", code, errOut)
	}
	return id, rec, db
}

// recordingLines is the recording's lines, its header first.
func recordingLines(t *testing.T, rec string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// TestImportKeepsTheMoreCompleteCopy: importing an earlier, shorter
// recording of a run the archive holds whole keeps the archive's copy (and
// says so); importing the whole recording over a partial copy replaces it.
func TestImportKeepsTheMoreCompleteCopy(t *testing.T) {
	t.Parallel()
	id, rec, db := recordRun(t)
	lines := recordingLines(t, rec)
	if len(lines) < 5 {
		t.Fatalf("a recording of %d lines", len(lines))
	}
	short := filepath.Join(t.TempDir(), "short.ndjson")
	os.WriteFile(short, append(bytes.Join(lines[:3], []byte("\n")), '\n'), 0o600)
	st := openTestArchive(t, db)
	whole, err := st.Get(context.Background(), "", id)
	st.Close()
	if err != nil || !whole.Complete || whole.Events == 0 {
		t.Fatalf("the watch's copy: %+v %v", whole, err)
	}
	out, errOut, code := run(t, context.Background(), "archive", "import", short, "--archive", db)
	if code != 0 || !strings.Contains(out, "kept "+id+" as the archive holds it (finished") || !strings.Contains(out, "not finished") {
		t.Fatalf("the shorter copy: exit %d %q\n%s", code, out, errOut)
	}
	st = openTestArchive(t, db)
	after, _ := st.Get(context.Background(), "", id)
	st.Close()
	if after.Polls != whole.Polls || after.Events != whole.Events || !after.Complete {
		t.Fatalf("the archive's copy changed: %d polls, %d events (was %d, %d)", after.Polls, after.Events, whole.Polls, whole.Events)
	}

	// The other way round: the part first, then the whole.
	db2 := filepath.Join(t.TempDir(), "b.db")
	for _, f := range []string{short, rec} {
		if out, errOut, code := run(t, context.Background(), "archive", "import", f, "--archive", db2); code != 0 || !strings.Contains(out, "imported "+id) {
			t.Fatalf("import %s: exit %d %q\n%s", f, code, out, errOut)
		}
	}
	st = openTestArchive(t, db2)
	got, _ := st.Get(context.Background(), "", id)
	st.Close()
	if !got.Complete || got.Events != whole.Events || got.Polls != len(lines)-1 {
		t.Fatalf("the whole recording over the part: %+v", got)
	}
}

// TestImportCutRecording: a recording whose last line was cut mid-line (a
// --record stopped by a crash) imports its complete polls, and says what it
// left out.
func TestImportCutRecording(t *testing.T) {
	t.Parallel()
	id, rec, _ := recordRun(t)
	lines := recordingLines(t, rec)
	b, _ := os.ReadFile(rec)
	last := lines[len(lines)-1]
	cut := filepath.Join(t.TempDir(), "cut.ndjson")
	os.WriteFile(cut, b[:len(b)-1-len(last)/2], 0o600)
	db := filepath.Join(t.TempDir(), "a.db")
	out, errOut, code := run(t, context.Background(), "archive", "import", cut, "--archive", db)
	if code != 0 || !strings.Contains(errOut, "its last line is cut short") || !strings.Contains(out, "imported "+id) {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	st := openTestArchive(t, db)
	defer st.Close()
	if r, err := st.Get(context.Background(), "", id); err != nil || r.Polls != len(lines)-2 {
		t.Fatalf("%+v %v: want %d polls", r, err, len(lines)-2)
	}
}

// TestImportBounded: every line an import reads is bounded: a first line
// that is no recording header (a file of zeros) and a poll line longer than
// any poll are refused (exit 2) without reading on, and nothing is
// archived.
func TestImportBounded(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	zeros := filepath.Join(dir, "zeros")
	os.WriteFile(zeros, make([]byte, 3<<20), 0o600)
	if _, errOut, code := run(t, context.Background(), "archive", "import", zeros, "--archive", db); code != ExitUsage || !strings.Contains(errOut, "not a --record recording") {
		t.Fatalf("zeros: exit %d\n%s", code, errOut)
	}
	defer func(n int) { archiving.MaxPollLine = n }(archiving.MaxPollLine)
	archiving.MaxPollLine = 64 << 10
	long := filepath.Join(dir, "long.ndjson")
	head := `{"firewatch":"recording","version":2,"jobId":"019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b","baseUrl":"http://x","startedAt":"2026-11-25T20:50:30Z"}`
	poll := `{"receivedAt":"2026-11-25T20:50:31Z","trace":{"events":[{"eventId":"e","type":"reasoning.summary","text":"` + strings.Repeat("x", 100<<10) + `"}]}}`
	os.WriteFile(long, []byte(head+"\n"+poll+"\n"), 0o600)
	if _, errOut, code := run(t, context.Background(), "archive", "import", long, "--archive", db); code != ExitUsage || !strings.Contains(errOut, "line 2 is longer than") {
		t.Fatalf("a long line: exit %d\n%s", code, errOut)
	}
	st := openTestArchive(t, db)
	defer st.Close()
	if s, _ := st.Stats(context.Background()); s.Runs != 0 {
		t.Fatalf("%d runs archived", s.Runs)
	}
}

// TestFullDiskIsExit8: an import into an archive whose disk is full fails
// with exit 8 (an output that cannot be written, as the README says) and
// says "no space left", not "disk I/O error" with exit 2.
func TestFullDiskIsExit8(t *testing.T) {
	disk := hostile.SmallDisk(t, 512<<10)
	db := filepath.Join(disk, "a.db")
	rec := filepath.Join(t.TempDir(), "big.ndjson")
	var b bytes.Buffer
	b.WriteString(`{"firewatch":"recording","version":2,"jobId":"019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b","baseUrl":"http://x","startedAt":"2026-11-25T20:50:30Z"}` + "\n")
	x := uint32(2463534242)
	for i := range 40 {
		fmt.Fprintf(&b, `{"receivedAt":"2026-11-25T20:51:%02dZ","trace":{"events":[{"eventId":"e%d","type":"reasoning.summary","text":"`, i, i)
		for range 32 << 10 {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			b.WriteByte('a' + byte(x%26))
		}
		b.WriteString(`"}]}}` + "\n")
	}
	os.WriteFile(rec, b.Bytes(), 0o600)
	_, errOut, code := run(t, context.Background(), "archive", "import", rec, "--archive", db)
	if code != ExitOutput || !strings.Contains(errOut, "no space left") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
}
