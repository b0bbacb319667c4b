package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/cli/internal/watchprint"
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

// crawlPrinter shows a crawl watch without the screen, as the watch's
// printers show a run (printer.go): on stdout a plain line per status
// change and per page, or NDJSON (a status object whenever its figures
// change, each document as the service sent it); --pages-dir beside them;
// a change of transport and a wait on stderr. The first output that fails
// ends the watch (stop) and is the exit code's (8).
type crawlPrinter struct {
	a     *app
	json  bool
	run   *crawlRun
	pages *pageWriter // --pages-dir; nil without
	stop  context.CancelCauseFunc
	err   error // the first output that failed
	// A plain status line is printed when the status or the transport
	// changes, and at the end when its figures differ from the last one
	// printed: the last line is never stale.
	last               []byte // the last JSON status line
	lastPlain, lastKey string
}

// newCrawlPrinter prints the crawl id of crawlURL as o says; stop ends
// its watch.
func (a *app) newCrawlPrinter(o *crawlOptions, id, crawlURL string, stop context.CancelCauseFunc) (*crawlPrinter, error) {
	p := &crawlPrinter{a: a, json: o.Output == OutputJSON, run: &crawlRun{ID: id, URL: crawlURL, Start: time.Now()}, stop: stop}
	if o.PagesDir != "" {
		var err error
		if p.pages, err = newPageWriter(o.PagesDir, a.secrets); err != nil {
			return nil, &outputError{Name: "--pages-dir", Err: err}
		}
	}
	return p, nil
}

// fail keeps the first output that failed and ends the watch.
func (p *crawlPrinter) fail(err *outputError) {
	if p.err == nil {
		p.err = err
		p.stop(err)
	}
}

func (p *crawlPrinter) write(b []byte) {
	if p.err != nil {
		return
	}
	if _, err := p.a.stdout.Write(b); err != nil {
		p.fail(&outputError{Name: "stdout", Err: err})
	}
}

// update is the watch's sink: one update of the crawl.
func (p *crawlPrinter) update(u poller.CrawlUpdate) {
	run := p.run
	switch {
	case u.Transport != "":
		run.Transport = u.Transport
		if u.Why != "" && !p.json {
			fmt.Fprintf(p.a.stderr, "firewatch: polling: %s\n", u.Why)
		}
	case u.Wait != nil:
		fmt.Fprintf(p.a.stderr, "firewatch: %s: %s\n", poller.OpCrawlStatus, u.Wait)
	case u.Status != nil:
		run.Status, run.Completed, run.Total = u.Status.Status, u.Status.Completed, u.Status.Total
		if u.Status.CreditsUsed != nil {
			run.Credits = u.Status.CreditsUsed
		}
		if !u.Status.ExpiresAt.IsZero() {
			run.ExpiresAt = u.Status.ExpiresAt
		}
		p.status(false)
	case u.Doc != nil:
		p.doc(u.Doc)
	}
}

// status prints the crawl's status (final: the watch has ended).
func (p *crawlPrinter) status(final bool) {
	run := p.run
	if p.json {
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
		l := line{Type: "status", ID: run.ID, Status: run.Status, Completed: run.Completed, Total: run.Total, CreditsUsed: run.Credits, Transport: run.Transport}
		if !run.ExpiresAt.IsZero() {
			s := run.ExpiresAt.UTC().Format(time.RFC3339Nano)
			l.ExpiresAt = &s
		}
		b, _ := json.Marshal(l)
		if !bytes.Equal(b, p.last) {
			p.last = b
			p.write(watchprint.EscapeForTerminal(append(b, '\n')))
		}
		return
	}
	s := fmt.Sprintf("status %s %d/%d pages, %s (%s)", run.Status, run.Completed, run.Total, crawlCredits(run.Credits), run.Transport)
	if key := run.Status + "|" + run.Transport; key != p.lastKey || final && s != p.lastPlain {
		p.lastKey, p.lastPlain = key, s
		p.write([]byte(s + "\n"))
	}
}

// doc prints a page as it arrives, and writes it to --pages-dir.
func (p *crawlPrinter) doc(d *poller.CrawlDoc) {
	p.run.Pages++
	if p.json {
		b := append([]byte(`{"type":"document","document":`), watchprint.EventLine(nil, d.Raw, p.a.secrets)...)
		p.write(watchprint.EscapeForTerminal(append(b, "}\n"...)))
	} else {
		p.write([]byte(fmt.Sprintf("page %s %s %s %s\n", pageStatus(d.StatusCode), watchprint.OrDash(describe.OneLine(d.URL, 200)),
			strconv.Quote(describe.OneLine(d.Title, 80)), text.Size(d.Size()))))
	}
	if p.pages != nil {
		if err := p.pages.write(d); err != nil {
			p.fail(&outputError{Name: "--pages-dir", Err: err})
		}
	}
}

// ended takes how the watch ended: its last status, printed once more
// when its figures changed, and its counts; --pages-dir is closed.
func (p *crawlPrinter) ended(final *poller.CrawlStatus, stats poller.CrawlWatchStats) {
	run := p.run
	run.Requests, run.Duplicates, run.Late, run.Missing = stats.Requests, stats.Duplicates, stats.Late, stats.Missing
	if final != nil {
		run.Status, run.Completed, run.Total = final.Status, final.Completed, final.Total
		if final.CreditsUsed != nil {
			run.Credits = final.CreditsUsed
		}
		p.status(true)
	}
	if p.pages != nil {
		if err := p.pages.Close(); err != nil && p.err == nil {
			p.err = &outputError{Name: "--pages-dir", Err: err}
		}
	}
}

// printCrawl is the plain and JSON output of a crawl's watch: the printer
// fed by the watch, then the closing counts (sayCrawlEnd) and --summary.
func (a *app) printCrawl(ctx context.Context, c uicrawl.Service, o *crawlOptions, id, crawlURL string, watch poller.CrawlWatchOptions) error {
	wctx, stopWatch := context.WithCancelCause(ctx)
	defer stopWatch(nil)
	p, err := a.newCrawlPrinter(o, id, crawlURL, stopWatch)
	if err != nil {
		return err
	}
	final, stats, err := c.WatchCrawl(wctx, id, watch, p.update)
	p.ended(final, stats)
	run := p.run
	end := &crawlEnd{Err: err}
	if final != nil {
		end.Status = final.Status
	}
	if ctx.Err() != nil && (err != nil || final == nil) {
		end.Err = context.Cause(ctx) // --timeout, a signal
	}
	if p.err != nil {
		fmt.Fprintf(a.stderr, "firewatch: %v\n", p.err)
		end.Output = p.err
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
		end.Output = serr
	}
	return end.OrNil()
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
		oe := &outputError{Name: "--summary", Err: err}
		fmt.Fprintf(a.stderr, "firewatch: %v\n", oe)
		return oe
	}
	return nil
}
