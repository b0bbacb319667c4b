package crawlprint

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	uicrawl "github.com/firewatch/firewatch/ui/crawl"
)

// printer shows a crawl watch without the screen, as the watch's printers
// show a run (watchprint): on stdout a plain line per status change and
// per page, or NDJSON (a status object whenever its figures change, each
// document as the service sent it); --pages-dir beside them; a change of
// transport and a wait on stderr. The first output that fails ends the
// watch (stop) and is the exit code's (8).
type printer struct {
	env   Env
	json  bool
	run   *Run
	pages *Pages // --pages-dir; nil without
	stop  context.CancelCauseFunc
	err   error // the first output that failed
	// A plain status line is printed when the status or the transport
	// changes, and at the end when its figures differ from the last one
	// printed: the last line is never stale.
	last               []byte // the last JSON status line
	lastPlain, lastKey string
}

// Options are what a crawl watch without the screen prints and writes.
type Options struct {
	JSON     bool   // NDJSON, not plain lines
	PagesDir string // --pages-dir; "" for none
	Summary  string // --summary; "" for none
}

// newPrinter prints the crawl id of crawlURL as o says; stop ends its
// watch.
func newPrinter(env Env, o Options, id, crawlURL string, stop context.CancelCauseFunc) (*printer, error) {
	p := &printer{env: env, json: o.JSON, run: &Run{ID: id, URL: crawlURL, Start: time.Now()}, stop: stop}
	if o.PagesDir != "" {
		var err error
		if p.pages, err = OpenPages(o.PagesDir, env.Secrets); err != nil {
			return nil, env.OutputError("--pages-dir", err)
		}
	}
	return p, nil
}

// fail keeps the first output that failed and ends the watch.
func (p *printer) fail(name string, err error) {
	if p.err == nil {
		p.err = p.env.OutputError(name, err)
		p.stop(p.err)
	}
}

func (p *printer) write(b []byte) {
	if p.err != nil {
		return
	}
	if _, err := p.env.Stdout.Write(b); err != nil {
		p.fail("stdout", err)
	}
}

// update is the watch's sink: one update of the crawl.
func (p *printer) update(u poller.CrawlUpdate) {
	run := p.run
	switch {
	case u.Transport != "":
		run.Transport = u.Transport
		if u.Why != "" && !p.json {
			fmt.Fprintf(p.env.Stderr, "firewatch: polling: %s\n", u.Why)
		}
	case u.Wait != nil:
		fmt.Fprintf(p.env.Stderr, "firewatch: %s: %s\n", poller.OpCrawlStatus, u.Wait)
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
func (p *printer) status(final bool) {
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
	s := fmt.Sprintf("status %s %d/%d pages, %s (%s)", run.Status, run.Completed, run.Total, Credits(run.Credits), run.Transport)
	if key := run.Status + "|" + run.Transport; key != p.lastKey || final && s != p.lastPlain {
		p.lastKey, p.lastPlain = key, s
		p.write([]byte(s + "\n"))
	}
}

// doc prints a page as it arrives, and writes it to --pages-dir.
func (p *printer) doc(d *poller.CrawlDoc) {
	p.run.Pages++
	if p.json {
		b := append([]byte(`{"type":"document","document":`), watchprint.EventLine(nil, d.Raw, p.env.Secrets)...)
		p.write(watchprint.EscapeForTerminal(append(b, "}\n"...)))
	} else {
		p.write([]byte(fmt.Sprintf("page %s %s %s %s\n", pageStatus(d.StatusCode), watchprint.OrDash(describe.OneLine(d.URL, 200)),
			strconv.Quote(describe.OneLine(d.Title, 80)), text.Size(d.Size()))))
	}
	if p.pages != nil {
		if err := p.pages.Write(d); err != nil {
			p.fail("--pages-dir", err)
		}
	}
}

func pageStatus(n int) string {
	if n == 0 {
		return "---"
	}
	return strconv.Itoa(n)
}

// ended takes how the watch ended: its last status, printed once more
// when its figures changed, and its counts; --pages-dir is closed.
func (p *printer) ended(final *poller.CrawlStatus, stats poller.CrawlWatchStats) {
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
			p.err = p.env.OutputError("--pages-dir", err)
		}
	}
}

// End is how a crawl watch ended: the crawl's last status ("" when none
// came), the error that stopped watching (nil: the crawl ended; ctx's
// cause, a refusal) and an output that failed (already said).
type End struct {
	Status string
	Err    error
	Output error
}

// Watch is the plain and JSON output of a crawl's watch: the printer fed
// by the watch, then the closing counts (Env.SayEnd) and --summary. Its
// error is --pages-dir's when it cannot be opened: nothing was watched.
func Watch(ctx context.Context, c uicrawl.Service, env Env, o Options, id, crawlURL string, watch poller.CrawlWatchOptions) (End, error) {
	wctx, stopWatch := context.WithCancelCause(ctx)
	defer stopWatch(nil)
	p, err := newPrinter(env, o, id, crawlURL, stopWatch)
	if err != nil {
		return End{}, err
	}
	final, stats, err := c.WatchCrawl(wctx, id, watch, p.update)
	p.ended(final, stats)
	run := p.run
	end := End{Err: err}
	if final != nil {
		end.Status = final.Status
	}
	if ctx.Err() != nil && (err != nil || final == nil) {
		end.Err = context.Cause(ctx) // --timeout, a signal
	}
	if p.err != nil {
		fmt.Fprintf(env.Stderr, "firewatch: %v\n", p.err)
		end.Output = p.err
		env.WriteSummary(o.Summary, run)
		return end, nil
	}
	if final != nil {
		// The failed and robots-blocked pages, for stderr and the summary.
		ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
		if e, err := c.CrawlErrorsOf(ectx, id); err == nil {
			run.Failed, run.Robots, run.FailedPages, run.ErrorsAfterEnd = len(e.Errors), len(e.RobotsBlocked), e.Errors, true
		}
		cancel()
		env.SayEnd(run)
	}
	if serr := env.WriteSummary(o.Summary, run); serr != nil {
		end.Output = serr
	}
	return end, nil
}
