package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/sim"
)

// export, report and replay take FILE or JOB_ID by one rule: an existing
// file (or -) is a file, otherwise a UUID is a job id fetched from the
// service.
func TestFileOrJobID(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioFailure}, Speed: 1000, Seed: 4})
	job := srv.Jobs[0].ID
	if err := srv.WaitFinished(ctx, job); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	sink := newOTLPSink(t)
	out, errOut, code := run(t, ctx, "export", job, "--api-url", srv.URL, "--otlp-endpoint", sink.URL)
	if code != ExitOK || !strings.Contains(out, "exported") || len(sink.spans) == 0 {
		t.Fatalf("export JOB_ID: exit %d, %q, %q", code, out, errOut)
	}
	out, errOut, code = run(t, ctx, "replay", job, "--api-url", srv.URL, "-o", "plain")
	if code != ExitFailed || !strings.Contains(out, "failed") {
		t.Fatalf("replay JOB_ID: exit %d (want the run's, %d): %q %q", code, ExitFailed, out, errOut)
	}
	// A file named like a job id is the file.
	dir := t.TempDir()
	named := filepath.Join(dir, job)
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(named, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code = run(t, ctx, "report", named, "-o", "md")
	if code != ExitOK || !strings.Contains(out, "5eb381f7") {
		t.Errorf("report of a file named like a job id: exit %d, %.100q", code, out)
	}
	// Neither a file nor a job id: the file's error.
	if _, errOut, code := run(t, ctx, "export", "no-such-run"); code != ExitUsage || !strings.Contains(errOut, "no-such-run") {
		t.Errorf("export no-such-run: exit %d, %q", code, errOut)
	}
}

// report's -o is the output mode, as on every command: -o md writes
// Markdown to stdout, --file writes a file, a file name given to -o is
// refused with a message that names --file.
func TestReportOutputMode(t *testing.T) {
	ctx := context.Background()
	out, _, code := run(t, ctx, "report", fixture, "-o", "md")
	if code != ExitOK || !strings.HasPrefix(out, "## firewatch report") {
		t.Errorf("-o md: exit %d, %.80q", code, out)
	}
	_, errOut, code := run(t, ctx, "report", fixture, "-o", "report.html")
	if code != ExitUsage || !strings.Contains(errOut, "--file report.html") {
		t.Errorf("-o report.html: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat("report.html"); err == nil {
		t.Error("-o report.html wrote a file")
	}
	file := filepath.Join(t.TempDir(), "r.md")
	if _, errOut, code := run(t, ctx, "report", fixture, "--file", file); code != ExitOK {
		t.Fatalf("--file: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(file); !strings.HasPrefix(string(b), "## firewatch report") {
		t.Errorf("--file r.md wrote %.80q", b)
	}
	if out, _, code := run(t, ctx, "report", fixture, "--format", "md"); code != ExitOK || !strings.HasPrefix(out, "## firewatch report") {
		t.Errorf("--format md (the alias): exit %d", code)
	}
}
