package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	uicrawl "github.com/firewatch/firewatch/ui/crawl"
)

// crawlRun is what a watch learned, for the summary and the exit code.
type crawlRun struct {
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

// printCrawl is the plain and JSON output.
func (a *app) printCrawl(ctx context.Context, c uicrawl.Service, o *crawlOptions, id, crawlURL string, watch poller.CrawlWatchOptions) error {
	run := &crawlRun{ID: id, URL: crawlURL, Start: time.Now()}
	var pages *pageWriter
	if o.PagesDir != "" {
		var err error
		if pages, err = newPageWriter(o.PagesDir, a.secrets); err != nil {
			return &outputError{name: "--pages-dir", err: err}
		}
	}
	wctx, stopWatch := context.WithCancelCause(ctx)
	defer stopWatch(nil)
	var outErr error
	write := func(b []byte) {
		if outErr != nil {
			return
		}
		if _, err := a.stdout.Write(b); err != nil {
			outErr = &outputError{name: "stdout", err: err}
			stopWatch(outErr)
		}
	}
	// A plain status line is printed when the status or the transport
	// changes, and at the end when its figures differ from the last one
	// printed: the last line is never stale.
	var last []byte
	lastPlain, lastKey := "", ""
	status := func(final bool) {
		if o.Output == OutputJSON {
			type line struct {
				Type        string   `json:"type"`
				ID          string   `json:"id"`
				Status      string   `json:"status"`
				Completed   int      `json:"completed"`
				Total       int      `json:"total"`
				CreditsUsed *float64 `json:"creditsUsed"`
				ExpiresAt   *string  `json:"expiresAt"`
				Transport   string   `json:"transport"`
			}
			l := line{Type: "status", ID: id, Status: run.Status, Completed: run.Completed, Total: run.Total, CreditsUsed: run.Credits, Transport: run.Transport}
			if !run.ExpiresAt.IsZero() {
				s := run.ExpiresAt.UTC().Format(time.RFC3339Nano)
				l.ExpiresAt = &s
			}
			b, _ := json.Marshal(l)
			if !bytes.Equal(b, last) {
				last = b
				write(escapeForTerminal(append(b, '\n')))
			}
			return
		}
		s := fmt.Sprintf("status %s %d/%d pages, %s (%s)", run.Status, run.Completed, run.Total, crawlCredits(run.Credits), run.Transport)
		if key := run.Status + "|" + run.Transport; key != lastKey || final && s != lastPlain {
			lastKey, lastPlain = key, s
			write([]byte(s + "\n"))
		}
	}
	final, stats, err := c.WatchCrawl(wctx, id, watch, func(u poller.CrawlUpdate) {
		switch {
		case u.Transport != "":
			run.Transport = u.Transport
			if u.Why != "" && o.Output != OutputJSON {
				fmt.Fprintf(a.stderr, "firewatch: polling: %s\n", u.Why)
			}
		case u.Wait != nil:
			fmt.Fprintf(a.stderr, "firewatch: %s: %s\n", poller.OpCrawlStatus, u.Wait)
		case u.Status != nil:
			run.Status, run.Completed, run.Total = u.Status.Status, u.Status.Completed, u.Status.Total
			if u.Status.CreditsUsed != nil {
				run.Credits = u.Status.CreditsUsed
			}
			if !u.Status.ExpiresAt.IsZero() {
				run.ExpiresAt = u.Status.ExpiresAt
			}
			status(false)
		case u.Doc != nil:
			run.Pages++
			d := u.Doc
			if o.Output == OutputJSON {
				b := append([]byte(`{"type":"document","document":`), eventLine(nil, d.Raw, a.secrets)...)
				write(escapeForTerminal(append(b, "}\n"...)))
			} else {
				write([]byte(fmt.Sprintf("page %s %s %s %s\n", pageStatus(d.StatusCode), orDash(describe.OneLine(d.URL, 200)),
					strconv.Quote(describe.OneLine(d.Title, 80)), text.Size(d.Size()))))
			}
			if pages != nil {
				if err := pages.write(d); err != nil && outErr == nil {
					outErr = &outputError{name: "--pages-dir", err: err}
					stopWatch(outErr)
				}
			}
		}
	})
	run.Requests, run.Duplicates, run.Late, run.Missing = stats.Requests, stats.Duplicates, stats.Late, stats.Missing
	if final != nil {
		run.Status, run.Completed, run.Total = final.Status, final.Completed, final.Total
		if final.CreditsUsed != nil {
			run.Credits = final.CreditsUsed
		}
		status(true)
	}
	if pages != nil {
		if err := pages.Close(); err != nil && outErr == nil {
			outErr = &outputError{name: "--pages-dir", err: err}
		}
	}
	end := &crawlEnd{err: err}
	if final != nil {
		end.status = final.Status
	}
	if ctx.Err() != nil && (err != nil || final == nil) {
		end.err = context.Cause(ctx) // --timeout, a signal
	}
	if outErr != nil {
		fmt.Fprintf(a.stderr, "firewatch: %v\n", outErr)
		end.output = outErr
		a.writeCrawlSummary(o, run)
		return end
	}
	if final != nil {
		// The failed and robots-blocked pages, for stderr and the summary.
		ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
		if e, err := c.CrawlErrorsOf(ectx, id); err == nil {
			run.Failed, run.Robots, run.FailedPages, run.ErrorsAfterEnd = len(e.Errors), len(e.RobotsBlocked), e.Errors, true
		}
		cancel()
		a.sayCrawlEnd(run)
	}
	if serr := a.writeCrawlSummary(o, run); serr != nil {
		end.output = serr
	}
	return end.orNil()
}

// crawlCredits is a crawl's credits for people: "1 credit", "? credits"
// before the service said.
func crawlCredits(c *float64) string {
	if c == nil {
		return "? credits"
	}
	return text.Credits(*c)
}

func pageStatus(n int) string {
	if n == 0 {
		return "---"
	}
	return strconv.Itoa(n)
}

// writeCrawlSummary writes --summary; a failure is said on stderr and
// returned.
func (a *app) writeCrawlSummary(o *crawlOptions, run *crawlRun) error {
	if o.Summary == "" {
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
		CreditsUsed: run.Credits, Pages: run.Pages, FailedPages: run.Failed, RobotsBlocked: run.Robots, MissingPages: run.missing(),
		DurationMs: time.Since(run.Start).Milliseconds()})
	b, _ = a.secrets.RedactJSON(b)
	if err := os.WriteFile(o.Summary, append(b, '\n'), 0o644); err != nil {
		oe := &outputError{name: "--summary", err: err}
		fmt.Fprintf(a.stderr, "firewatch: %v\n", oe)
		return oe
	}
	return nil
}
