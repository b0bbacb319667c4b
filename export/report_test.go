package export

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/model"
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
	t.Parallel()
	for _, c := range []struct{ fixture, name string }{
		{"succeeded.json", "research"},
		{"failed.json", "failure"},
		{"running.json", "running"},
	} {
		for _, f := range []string{FormatHTML, FormatMarkdown} {
			t.Run(c.name+"."+f, func(t *testing.T) {
				s := loadFixture(t, c.fixture)
				if c.name == "research" {
					// What the run was asked, as a recording's header says.
					s.SetRequest(model.Request{Prompt: "Compare the pricing of the top 5 web-scraping APIs.\nCite <sources>.",
						Model: "spark-2", Effort: "high", URLs: []string{"https://www.scrapingbee.com", "https://www.zyte.com"}, MaxCredits: 400})
				}
				var b bytes.Buffer
				if err := Report(&b, s, f, ReportOptions{Version: "test"}); err != nil {
					t.Fatal(err)
				}
				golden(t, "report-"+c.name+"."+f+".golden", b.Bytes())
			})
		}
	}
}

// TestReportAttention: what package attention raised during the run (here
// a loop: the same call with the same parameters again and again) and the
// estimated credits per agent are in both reports.
func TestReportAttention(t *testing.T) {
	t.Parallel()
	s := model.NewStore()
	if _, err := s.Ingest(manyCalls(6)); err != nil {
		t.Fatal(err)
	}
	var md, html bytes.Buffer
	if err := Report(&md, s, FormatMarkdown, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Report(&html, s, FormatHTML, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "- **loop** o: ") {
		t.Errorf("no loop item in the Markdown:\n%s", md.String())
	}
	if !strings.Contains(html.String(), `<span class="badge warn">loop</span> <strong>o</strong>`) {
		t.Errorf("no loop item in the HTML")
	}
}
