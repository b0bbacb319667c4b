package cli

import (
	"fmt"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
)

// sayCrawlEnd is the closing counts line on stderr, the same for plain and
// JSON output and for the crawl screen once it is left: the status, the
// pages, the failed and robots-blocked ones and the credits; then the
// first failed pages, the pages fetched late and those never delivered,
// and, for a crawl still going (not the demo's), how to watch it again.
// Nothing when no status was ever read.
func (a *app) sayCrawlEnd(run *crawlRun) {
	if run.Status == "" {
		return
	}
	fmt.Fprintf(a.stderr, "firewatch: crawl %s %s: %s, %d failed, %d blocked by robots.txt, %s\n",
		run.ID, run.Status, describe.Count(run.Pages, "page"), run.Failed, run.Robots, crawlCredits(run.Credits))
	shown := min(len(run.FailedPages), 5)
	for _, e := range run.FailedPages[:shown] {
		fmt.Fprintf(a.stderr, "firewatch:   failed %s: %s\n", describe.OneLine(e.URL, 100), describe.OneLine(e.Error, 100))
	}
	if more := run.Failed - shown; shown > 0 && more > 0 {
		fmt.Fprintf(a.stderr, "firewatch:   … and %d more (GET /v2/crawl/%s/errors)\n", more, run.ID)
	}
	if run.Late > 0 {
		fmt.Fprintf(a.stderr, "firewatch:   %s the WebSocket had not delivered came from the status list at the end\n", describe.Count(run.Late, "page"))
	}
	if m := run.missing(); m > 0 {
		fmt.Fprintf(a.stderr, "firewatch:   %s the crawl completed could not be fetched: they are not in the output (--debug FILE says why)\n", describe.Count(m, "page"))
	}
	if !poller.CrawlTerminal(run.Status) && !run.Demo {
		fmt.Fprintf(a.stderr, "firewatch:   the crawl goes on: firewatch crawl %s watches it again\n", run.ID)
	}
}

// missing is how many pages the crawl completed were never delivered: the
// ones the watch could not read, or, once the failed pages were read after
// the crawl ended, its completed figure past the pages delivered and
// failed, whichever is more. (The simulator counts a failed page as
// completed and the service may not: either way the figure is never too
// high.)
func (r *crawlRun) missing() int {
	m := r.Missing
	if r.ErrorsAfterEnd && poller.CrawlTerminal(r.Status) {
		m = max(m, r.Completed-r.Pages-r.Failed)
	}
	return m
}
