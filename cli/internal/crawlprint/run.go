// Package crawlprint shows a crawl watch without the crawl screen, and
// what is said beside the screen: the plain and JSON lines of its statuses
// and pages (Watch), --pages-dir (Pages), the closing counts on stderr
// (Env.SayEnd), --summary (Env.WriteSummary), the screen's outputs and how
// it ended (ScreenOutputs), and crawl-preview's list of options (Preview)
// and its question (AskStart). Where the output goes is given as an Env, a
// value the command layer fills in; nothing here reaches back into it.
package crawlprint

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// Env is where a crawl's output goes.
type Env struct {
	Stdout, Stderr io.Writer
	// Secrets are redacted from the pages, their index, the JSON lines and
	// the summary.
	Secrets *text.Secrets
	// OutputError is the error of an output that could not be written
	// (name: "stdout", "--pages-dir", "--summary"): the command's exit 8.
	OutputError func(name string, err error) error
}

// Run is what a watch learned, for the summary and the exit code.
type Run struct {
	ID, URL     string
	Status      string
	Completed   int
	Total       int
	Credits     *float64
	ExpiresAt   time.Time
	Pages       int
	Failed      int
	Robots      int
	Start       time.Time
	Transport   string
	Requests    int
	Duplicates  int
	FailedPages []poller.CrawlError // the first ones, for stderr
	// Late are pages the check at the end found undelivered and fetched
	// then; Missing the pages the crawl counts that were never delivered.
	Late, Missing int
	// ErrorsAfterEnd: Failed and Robots were read after the crawl ended
	// (so pages missing can be counted against its completed figure).
	ErrorsAfterEnd bool
	Demo           bool // the demo's crawl: it cannot be watched again
}

// MissingPages is how many pages the crawl completed were never
// delivered: the ones the watch could not read, or, once the failed pages
// were read after the crawl ended, its completed figure past the pages
// delivered and failed, whichever is more. (The simulator counts a failed
// page as completed and the service may not: either way the figure is
// never too high.)
func (r *Run) MissingPages() int {
	m := r.Missing
	if r.ErrorsAfterEnd && poller.CrawlTerminal(r.Status) {
		m = max(m, r.Completed-r.Pages-r.Failed)
	}
	return m
}

// Credits is a crawl's credits for people: "1 credit", "? credits"
// before the service said.
func Credits(c *float64) string {
	if c == nil {
		return "? credits"
	}
	return text.Credits(*c)
}

// SayEnd is the closing counts line on stderr, the same for plain and
// JSON output and for the crawl screen once it is left: the status, the
// pages, the failed and robots-blocked ones and the credits; then the
// first failed pages, the pages fetched late and those never delivered,
// and, for a crawl still going (not the demo's), how to watch it again.
// Nothing when no status was ever read.
func (e Env) SayEnd(run *Run) {
	if run.Status == "" {
		return
	}
	fmt.Fprintf(e.Stderr, "firewatch: crawl %s %s: %s, %d failed, %d blocked by robots.txt, %s\n",
		run.ID, run.Status, describe.Count(run.Pages, "page"), run.Failed, run.Robots, Credits(run.Credits))
	shown := min(len(run.FailedPages), 5)
	for _, f := range run.FailedPages[:shown] {
		fmt.Fprintf(e.Stderr, "firewatch:   failed %s: %s\n", describe.OneLine(f.URL, 100), describe.OneLine(f.Error, 100))
	}
	if more := run.Failed - shown; shown > 0 && more > 0 {
		fmt.Fprintf(e.Stderr, "firewatch:   … and %d more (GET /v2/crawl/%s/errors)\n", more, run.ID)
	}
	if run.Late > 0 {
		fmt.Fprintf(e.Stderr, "firewatch:   %s the WebSocket had not delivered came from the status list at the end\n", describe.Count(run.Late, "page"))
	}
	if m := run.MissingPages(); m > 0 {
		fmt.Fprintf(e.Stderr, "firewatch:   %s the crawl completed could not be fetched: they are not in the output (--debug FILE says why)\n", describe.Count(m, "page"))
	}
	if !poller.CrawlTerminal(run.Status) && !run.Demo {
		fmt.Fprintf(e.Stderr, "firewatch:   the crawl goes on: firewatch crawl %s watches it again\n", run.ID)
	}
}

// WriteSummary writes --summary to path ("": none); a failure is said on
// stderr and returned.
func (e Env) WriteSummary(path string, run *Run) error {
	if path == "" {
		return nil
	}
	type summary struct {
		ID            string   `json:"id"`
		URL           string   `json:"url"`
		Status        string   `json:"status"`
		Completed     int      `json:"completed"`
		Total         int      `json:"total"`
		CreditsUsed   *float64 `json:"creditsUsed"`
		Pages         int      `json:"pages"`
		FailedPages   int      `json:"failedPages"`
		RobotsBlocked int      `json:"robotsBlocked"`
		MissingPages  int      `json:"missingPages"`
		DurationMs    int64    `json:"durationMs"`
	}
	b, _ := json.Marshal(summary{ID: run.ID, URL: run.URL, Status: run.Status, Completed: run.Completed, Total: run.Total,
		CreditsUsed: run.Credits, Pages: run.Pages, FailedPages: run.Failed, RobotsBlocked: run.Robots, MissingPages: run.MissingPages(),
		DurationMs: time.Since(run.Start).Milliseconds()})
	b, _ = e.Secrets.RedactJSON(b)
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		oe := e.OutputError("--summary", err)
		fmt.Fprintf(e.Stderr, "firewatch: %v\n", oe)
		return oe
	}
	return nil
}
