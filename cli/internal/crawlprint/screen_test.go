package crawlprint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/poller"
	uicrawl "github.com/firewatch/firewatch/ui/crawl"
)

type outputErr struct {
	name string
	err  error
}

func (e *outputErr) Error() string { return e.name + ": " + e.err.Error() }

// How the crawl screen ended: a crawl left before its end is quit, ctx's
// cause wins, a status that ends the crawl is no error; the closing counts
// and --summary are written however it ended, and --pages-dir has the
// pages the screen handed over.
func TestScreenOutputsEnd(t *testing.T) {
	quit, timeout := errors.New("quit"), errors.New("--timeout passed")
	expired, cancel := context.WithCancelCause(context.Background())
	cancel(timeout)
	for _, tc := range []struct {
		ctx    context.Context
		status string
		want   error
	}{
		{context.Background(), "completed", nil},
		{context.Background(), "scraping", quit},
		{expired, "scraping", timeout},
		{expired, "completed", timeout},
	} {
		dir := t.TempDir()
		var stderr strings.Builder
		env := Env{Stdout: &strings.Builder{}, Stderr: &stderr,
			OutputError: func(name string, err error) error { return &outputErr{name, err} }}
		sum := filepath.Join(dir, "s.json")
		s, err := OpenScreenOutputs(env, Options{PagesDir: filepath.Join(dir, "pages"), Summary: sum}, "c1", "https://e.com", false)
		if err != nil {
			t.Fatal(err)
		}
		s.OnDoc()(&poller.CrawlDoc{URL: "https://e.com/a", Markdown: "# a"})
		res := uicrawl.Result{Status: tc.status, Seen: uicrawl.Seen{Status: tc.status, Completed: 3, Total: 3, Pages: 1, Failed: 1, ErrorsAfterEnd: true}}
		end := s.End(tc.ctx, res, quit)
		if end.Status != tc.status || end.Err != tc.want || end.Output != nil {
			t.Errorf("%s, ctx err %v: end %+v, want err %v", tc.status, tc.ctx.Err(), end, tc.want)
		}
		if !strings.Contains(stderr.String(), "firewatch: crawl c1 "+tc.status+": 1 page, 1 failed") {
			t.Errorf("stderr %q", stderr.String())
		}
		// Of 3 completed, 1 delivered and 1 failed: 1 missing once the crawl is over.
		var v struct {
			Pages        int `json:"pages"`
			MissingPages int `json:"missingPages"`
		}
		wantMissing := 0
		if poller.CrawlTerminal(tc.status) {
			wantMissing = 1
		}
		if b, err := os.ReadFile(sum); err != nil || json.Unmarshal(b, &v) != nil || v.Pages != 1 || v.MissingPages != wantMissing {
			t.Errorf("%s: summary %s: %v", tc.status, b, err)
		}
		if files, _ := os.ReadDir(filepath.Join(dir, "pages")); len(files) != 2 {
			t.Errorf("%d files in --pages-dir, want the page and the index", len(files))
		}
	}
}
