package export

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the report goldens in testdata")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden (run with -update after checking): got %d bytes, want %d", name, len(got), len(want))
	}
}

// TestReportGoldens: the HTML and Markdown reports of the research
// (succeeded) and failure runs.
func TestReportGoldens(t *testing.T) {
	for _, c := range []struct{ fixture, name string }{
		{"succeeded.json", "research"},
		{"failed.json", "failure"},
		{"running.json", "running"},
	} {
		for _, f := range []string{FormatHTML, FormatMarkdown} {
			t.Run(c.name+"."+f, func(t *testing.T) {
				s := loadFixture(t, c.fixture)
				var b bytes.Buffer
				if err := Report(&b, s, f, ReportOptions{Version: "test"}); err != nil {
					t.Fatal(err)
				}
				golden(t, "report-"+c.name+"."+f+".golden", b.Bytes())
			})
		}
	}
}
