package cli

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/scrapeopts"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
	uicrawl "github.com/firewatch/firewatch/ui/crawl"
)

// firewatch crawl URL|ID: start a crawl and watch it, watch one, or cancel
// one; and crawl-preview's offer to start what it previewed.

// crawlOptions are crawl's flags.
type crawlOptions struct {
	interactOptions
	Prompt            string
	Limit             int
	IncludePaths      []string
	ExcludePaths      []string
	MaxDiscoveryDepth int
	Sitemap           string
	CrawlEntireDomain bool
	AllowSubdomains   bool
	AllowExternal     bool
	IgnoreQuery       bool
	Delay             time.Duration
	MaxConcurrency    int
	ScrapeOptions     string
	Timeout           time.Duration
	Detach            bool
	Cancel            bool
	Summary           string
	PagesDir          string
	Poll              bool
	Interval          time.Duration

	// v1 names, refused with the v2 name
	v1MaxDepth, v1IgnoreSitemap, v1Backward string
}

// crawlStartFlags are the flags that only a new crawl takes.
var crawlStartFlags = []string{"prompt", "limit", "include-path", "exclude-path", "max-discovery-depth", "sitemap",
	"crawl-entire-domain", "allow-subdomains", "allow-external-links", "ignore-query-parameters", "delay",
	"max-concurrency", "scrape-options", "detach"}

func (a *app) crawlCommand() *cobra.Command {
	o := &crawlOptions{}
	cmd := &cobra.Command{
		Use:   "crawl URL|CRAWL_ID",
		Short: "Start a crawl and watch its pages arrive, watch or cancel one",
		Long: `Start a crawl of URL (POST /v2/crawl) and watch it: on a terminal a screen
with the pages as they arrive (enter reads one, c cancels), else one line
per page and per status change (--output plain) or NDJSON (--output json).
The crawl's id always goes to stderr ("firewatch: started crawl ID") and
the --debug log; when the start request fails in a way that may have
started it (no usable id, a 5xx), that is said: look with firewatch team.

With a CRAWL_ID (a UUID): watch a crawl that is running or done; --cancel
cancels it. Watching uses the WebSocket on /v2/crawl/{id}, and polls the
status when the socket cannot be opened or closes early.

Options use the v2 names: --max-discovery-depth (not --max-depth),
--sitemap only|skip|include (not --ignore-sitemap), --crawl-entire-domain
(not --allow-backward-links).

Exit codes: 0 completed (failed pages are counted on stderr), 1 failed, 2
bad usage (nothing sent), 3 cancelled, 6 the service refused (400, 401,
402, 403, 404 or an expired crawl, 429 after retries), 7 --timeout passed,
8 an output could not be written, 130 interrupted.`,
		Example: `  firewatch crawl https://docs.example.com --limit 50 --include-path '^/docs/.*'
  firewatch crawl https://example.com --prompt 'only the blog' --output json | jq -c 'select(.type=="document")'
  id=$(firewatch crawl https://example.com --detach) && firewatch crawl $id --pages-dir pages/
  firewatch crawl $id --cancel`,
		Args: exactlyOne("a URL to crawl or a crawl id"),
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.crawl(cmd, o, args[0])) },
	}
	o.registerCommon(cmd, "auto (tui on a terminal, else plain), tui, plain or json")
	f := cmd.Flags()
	f.StringVar(&o.Prompt, "prompt", "", "say in words what to crawl; the service derives the options (see crawl-preview)")
	f.IntVar(&o.Limit, "limit", 0, "the most pages the crawl scrapes (its page cap; the service's default when unset)")
	f.StringArrayVar(&o.IncludePaths, "include-path", nil, "a regular expression URL paths must match (repeat for several; commas are part of the regex)")
	f.StringArrayVar(&o.ExcludePaths, "exclude-path", nil, "a regular expression of URL paths to skip (repeat for several)")
	f.IntVar(&o.MaxDiscoveryDepth, "max-discovery-depth", 0, "how many links deep to discover pages")
	f.StringVar(&o.Sitemap, "sitemap", "", "only (the sitemap's URLs only), skip (ignore it) or include (default)")
	f.BoolVar(&o.CrawlEntireDomain, "crawl-entire-domain", false, "follow links to sibling and parent paths, not only below the URL")
	f.BoolVar(&o.AllowSubdomains, "allow-subdomains", false, "follow links to subdomains")
	f.BoolVar(&o.AllowExternal, "allow-external-links", false, "follow links to other sites")
	f.BoolVar(&o.IgnoreQuery, "ignore-query-parameters", false, "treat URLs that differ only in their query as one")
	f.DurationVar(&o.Delay, "delay", 0, "wait between pages, e.g. 500ms or 2s (sent in seconds)")
	f.IntVar(&o.MaxConcurrency, "max-concurrency", 0, "the most pages scraped at once")
	f.StringVar(&o.ScrapeOptions, "scrape-options", "", "the pages' scrape options: a JSON object, or a file holding one")
	f.DurationVar(&o.Timeout, "timeout", 0, "give up watching after this long (exit 7); the crawl goes on")
	f.BoolVar(&o.Detach, "detach", false, "start the crawl, print its id on stdout and exit")
	f.BoolVar(&o.Cancel, "cancel", false, "cancel the crawl CRAWL_ID")
	f.StringVar(&o.Summary, "summary", "", "write a JSON summary of the crawl to this file at the end")
	f.StringVar(&o.PagesDir, "pages-dir", "", "write each page's markdown to a file in this directory as it arrives")
	f.StringVar(&o.SaveDir, "save-dir", "", "where the screen's save key writes a page (default: the current directory)")
	f.BoolVar(&o.Poll, "poll", false, "poll the status instead of opening the WebSocket")
	f.DurationVar(&o.Interval, "interval", 2*time.Second, "between two polls")
	f.StringVar(&o.v1MaxDepth, "max-depth", "", "v1 name: use --max-discovery-depth")
	f.StringVar(&o.v1IgnoreSitemap, "ignore-sitemap", "", "v1 name: use --sitemap skip")
	f.StringVar(&o.v1Backward, "allow-backward-links", "", "v1 name: use --crawl-entire-domain")
	for _, n := range []string{"ignore-sitemap", "allow-backward-links"} {
		f.Lookup(n).NoOptDefVal = "true"
	}
	for _, n := range []string{"max-depth", "ignore-sitemap", "allow-backward-links"} {
		_ = f.MarkHidden(n)
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badUsage("%v", err) })
	return cmd
}

// check checks the flags; nothing is sent before it passes.
func (o *crawlOptions) check(cmd *cobra.Command, isID bool) error {
	f := cmd.Flags()
	for v1, v2 := range map[string]string{"max-depth": "--max-discovery-depth N", "ignore-sitemap": "--sitemap skip", "allow-backward-links": "--crawl-entire-domain"} {
		if f.Changed(v1) {
			return badUsage("--%s is the v1 name, which v2 no longer takes: use %s", v1, v2)
		}
	}
	if err := checkOutput(&o.interactOptions, OutputAuto, OutputTUI, OutputPlain, OutputJSON); err != nil {
		return err
	}
	if isID {
		for _, n := range crawlStartFlags {
			if f.Changed(n) {
				return badUsage("--%s is for starting a crawl: give a URL, not a crawl id", n)
			}
		}
	} else if o.Cancel {
		return badUsage("--cancel needs a crawl id (a UUID), not a URL")
	}
	if o.Sitemap != "" && o.Sitemap != "only" && o.Sitemap != "skip" && o.Sitemap != "include" {
		return badUsage("--sitemap %q: it must be only, skip or include", text.Sanitize(o.Sitemap))
	}
	for _, c := range []struct {
		name string
		v    int
		min  int
	}{{"limit", o.Limit, 1}, {"max-discovery-depth", o.MaxDiscoveryDepth, 0}, {"max-concurrency", o.MaxConcurrency, 1}} {
		if f.Changed(c.name) && c.v < c.min {
			return badUsage("--%s %d: it must be at least %d", c.name, c.v, c.min)
		}
	}
	if o.Delay < 0 || o.Timeout < 0 {
		return badUsage("--delay and --timeout must not be negative")
	}
	if o.Interval < 250*time.Millisecond {
		return badUsage("--interval %s: it must be at least 250ms", o.Interval)
	}
	if o.Detach && (o.Summary != "" || o.PagesDir != "") {
		return badUsage("--detach does not watch: --summary and --pages-dir need the watch")
	}
	return nil
}

// request builds the body from the flags.
func (o *crawlOptions) request(cmd *cobra.Command, rawURL string) (*poller.CrawlRequest, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, badUsage("%q is neither a crawl id (a UUID) nor a URL to crawl (http:// or https://)", describe.OneLine(text.Sanitize(rawURL), 100))
	}
	f := cmd.Flags()
	r := &poller.CrawlRequest{URL: u.String(), Prompt: o.Prompt, IncludePaths: o.IncludePaths, ExcludePaths: o.ExcludePaths,
		Sitemap: o.Sitemap, Integration: "firewatch"}
	intFlag := func(name string, v int) *int {
		if f.Changed(name) {
			return &v
		}
		return nil
	}
	boolFlag := func(name string, v bool) *bool {
		if f.Changed(name) {
			return &v
		}
		return nil
	}
	r.Limit = intFlag("limit", o.Limit)
	r.MaxDiscoveryDepth = intFlag("max-discovery-depth", o.MaxDiscoveryDepth)
	r.MaxConcurrency = intFlag("max-concurrency", o.MaxConcurrency)
	r.CrawlEntireDomain = boolFlag("crawl-entire-domain", o.CrawlEntireDomain)
	r.AllowSubdomains = boolFlag("allow-subdomains", o.AllowSubdomains)
	r.AllowExternalLinks = boolFlag("allow-external-links", o.AllowExternal)
	r.IgnoreQueryParameters = boolFlag("ignore-query-parameters", o.IgnoreQuery)
	if f.Changed("delay") {
		s := o.Delay.Seconds()
		r.Delay = &s
	}
	if o.ScrapeOptions != "" {
		v, err := readScrapeOptions(o.ScrapeOptions)
		if err != nil {
			return nil, err
		}
		r.ScrapeOptions = v
	}
	if err := r.Validate(); err != nil {
		return nil, badUsage("%v", err)
	}
	return r, nil
}

// readScrapeOptions reads --scrape-options (JSON, or a file of it) and
// refuses the v1 leftovers the team view flags.
func readScrapeOptions(s string) (jsontext.Value, error) {
	b := []byte(s)
	if t := strings.TrimSpace(s); !strings.HasPrefix(t, "{") {
		fb, err := os.ReadFile(s)
		if err != nil {
			return nil, badUsage("--scrape-options: neither a JSON object nor a readable file: %v", err)
		}
		b = fb
	}
	v := jsontext.Value(bytes.TrimSpace(b)).Clone()
	if err := v.Compact(); err != nil || v.Kind() != '{' {
		return nil, badUsage("--scrape-options: not a JSON object")
	}
	var renamed []string
	for _, op := range scrapeopts.Render(v) {
		if op.Renamed != "" {
			renamed = append(renamed, op.Name+" ("+op.Renamed+")")
		}
	}
	if len(renamed) > 0 {
		return nil, badUsage("--scrape-options has v1 leftovers v2 refuses: %s", strings.Join(renamed, "; "))
	}
	return v, nil
}

func (a *app) crawl(cmd *cobra.Command, o *crawlOptions, arg string) error {
	arg = strings.TrimSpace(arg)
	isID := poller.ValidateJobID(arg) == nil
	if err := o.check(cmd, isID); err != nil {
		return err
	}
	var req *poller.CrawlRequest
	if !isID {
		var err error
		if req, err = o.request(cmd, arg); err != nil {
			return err
		}
	}
	svc, err := a.service(o.APIURL, o.APIKey)
	if err != nil {
		return err
	}
	c, err := a.client(svc, nil, nil) // its waits said on stderr
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	debug, err := a.openDebug(o.Debug, "crawl "+text.Sanitize(arg))
	if err != nil {
		return err
	}
	defer debug.Close()
	if o.Cancel {
		return a.cancelCrawl(ctx, c, strings.ToLower(arg))
	}
	id, crawlURL := strings.ToLower(arg), ""
	if !isID {
		s, err := c.StartCrawl(ctx, req)
		if err != nil {
			return a.startFailed(ctx, "crawl", "firewatch team", err, debug)
		}
		// The id reaches stderr and the debug log whatever becomes of
		// stdout.
		id, crawlURL = s.ID, req.URL
		a.started("crawl", id, debug)
		if o.Detach {
			// A failed write is exit 8 (a.print); the id is on stderr.
			_, err := fmt.Fprintln(a.print, id)
			return err
		}
	}
	return a.watchCrawl(ctx, svc, o, id, crawlURL)
}

func (a *app) cancelCrawl(ctx context.Context, c *poller.Client, id string) error {
	st, err := c.CancelCrawl(ctx, id)
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		var pe *poller.Error
		if errors.As(err, &pe) && pe.Kind == poller.KindAlreadyFinished {
			return fmt.Errorf("crawl %s is already over: %w", id, err)
		}
		return err
	}
	if !strings.EqualFold(st, "cancelled") && !strings.EqualFold(st, "canceled") {
		return &failure{fmt.Errorf("cancel crawl: the service answered status %q, not cancelled", st)}
	}
	fmt.Fprintf(a.stderr, "firewatch: crawl %s cancelled\n", id)
	return nil
}

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
	FailedPages []poller.CrawlError
}

// watchCrawl follows the crawl on the screen or in printed lines. Its
// polls wait as a.retry says (each wait said in the watch's output); the
// other requests' waits are said on stderr, or on the screen.
func (a *app) watchCrawl(ctx context.Context, svc service, o *crawlOptions, id, crawlURL string) error {
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, o.Timeout, errTimeout)
		defer cancel()
	}
	watch := poller.CrawlWatchOptions{Interval: o.Interval, NoSocket: o.Poll, Retry: a.retry}
	termOut, _ := isTerminal(a.stdout)
	if o.Output == OutputTUI {
		if err := checkTUI(a.stdin, termOut); err != nil {
			return err
		}
	}
	if o.Output == OutputTUI || o.Output == OutputAuto && termOut && a.onTerminal() {
		notes, say := screenNotes()
		c, err := a.client(svc, nil, say)
		if err != nil {
			return err
		}
		start := time.Now()
		// --pages-dir on the screen too: each page as it arrives (on the
		// watch's goroutine); the first failure is kept, for exit 8.
		var onDoc func(*poller.CrawlDoc)
		var pagesMu sync.Mutex
		var pagesErr error
		if o.PagesDir != "" {
			pages, err := newPageWriter(o.PagesDir, a.secrets)
			if err != nil {
				return &outputError{name: "--pages-dir", err: err}
			}
			onDoc = func(d *poller.CrawlDoc) {
				pagesMu.Lock()
				defer pagesMu.Unlock()
				if pagesErr != nil {
					return
				}
				if err := pages.write(d); err != nil {
					pagesErr = &outputError{name: "--pages-dir", err: err}
				}
			}
		}
		res, err := uicrawl.Run(ctx, uicrawl.Config{Service: c, ID: id, URL: crawlURL, NoColor: o.NoColor || noColorEnv(),
			ASCII: o.ASCII, SaveDir: o.SaveDir, Watch: watch, Secrets: a.secrets, Notes: notes, OnDoc: onDoc})
		// --summary is written however the screen ended (a signal too).
		s := res.Seen
		serr := a.writeCrawlSummary(o, &crawlRun{ID: id, URL: crawlURL, Status: s.Status, Completed: s.Completed, Total: s.Total,
			Credits: s.Credits, Pages: s.Pages, Failed: s.Failed, Robots: s.Robots, Start: start})
		pagesMu.Lock()
		if pagesErr != nil {
			fmt.Fprintf(a.stderr, "firewatch: %v\n", pagesErr)
			serr = cmp.Or(serr, pagesErr)
		}
		pagesMu.Unlock()
		if err != nil && ctx.Err() == nil {
			return &failure{err}
		}
		return screenEnd(ctx, res, serr)
	}
	c, err := a.client(svc, nil, nil)
	if err != nil {
		return err
	}
	return a.printCrawl(ctx, c, o, id, crawlURL, watch)
}

// screenNotes is where the crawl screen's client says its waits: say
// queues a line for the screen's footer (dropped when the screen is behind).
func screenNotes() (<-chan string, func(string)) {
	ch := make(chan string, 8)
	return ch, func(line string) {
		select {
		case ch <- line:
		default:
		}
	}
}

// screenEnd is how the crawl screen ended: the crawl's status, the error
// that stopped its watch, or ctx's cause (--timeout, a signal), or the
// user leaving it before the end; summaryErr is --summary's failure (8).
func screenEnd(ctx context.Context, res uicrawl.Result, summaryErr error) error {
	end := &crawlEnd{status: res.Status, err: res.Err, output: summaryErr}
	switch {
	case ctx.Err() != nil:
		end.err = context.Cause(ctx)
	case end.err == nil && !poller.CrawlTerminal(res.Status):
		end.err = errQuit
	}
	return end.orNil()
}

// printCrawl is the plain and JSON output.
func (a *app) printCrawl(ctx context.Context, c *poller.Client, o *crawlOptions, id, crawlURL string, watch poller.CrawlWatchOptions) error {
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
	var last []byte
	status := func() {
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
		s := fmt.Sprintf("status %s %d/%d pages, %s credits (%s)", run.Status, run.Completed, run.Total, crawlCredits(run.Credits), run.Transport)
		if string(last) != run.Status+"|"+run.Transport {
			last = []byte(run.Status + "|" + run.Transport)
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
			status()
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
	run.Requests, run.Duplicates = stats.Requests, stats.Duplicates
	if final != nil {
		run.Status, run.Completed, run.Total = final.Status, final.Completed, final.Total
		if final.CreditsUsed != nil {
			run.Credits = final.CreditsUsed
		}
		status()
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
			run.Failed, run.Robots, run.FailedPages = len(e.Errors), len(e.RobotsBlocked), e.Errors
		}
		cancel()
		msg := fmt.Sprintf("firewatch: crawl %s %s: %s, %d failed, %d blocked by robots.txt, %s credits",
			id, final.Status, describe.Count(run.Pages, "page"), run.Failed, run.Robots, crawlCredits(run.Credits))
		fmt.Fprintln(a.stderr, msg)
		for i, e := range run.FailedPages {
			if i == 5 {
				fmt.Fprintf(a.stderr, "firewatch:   … and %d more (GET /v2/crawl/%s/errors)\n", len(run.FailedPages)-5, id)
				break
			}
			fmt.Fprintf(a.stderr, "firewatch:   failed %s: %s\n", describe.OneLine(e.URL, 100), describe.OneLine(e.Error, 100))
		}
	}
	if serr := a.writeCrawlSummary(o, run); serr != nil {
		end.output = serr
	}
	return end.orNil()
}

func crawlCredits(c *float64) string {
	if c == nil {
		return "?"
	}
	return strconv.FormatFloat(*c, 'f', -1, 64)
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
		DurationMs    int64    `json:"durationMs"`
	}
	b, _ := json.Marshal(summary{ID: run.ID, URL: run.URL, Status: run.Status, Completed: run.Completed, Total: run.Total,
		CreditsUsed: run.Credits, Pages: run.Pages, FailedPages: run.Failed, RobotsBlocked: run.Robots,
		DurationMs: time.Since(run.Start).Milliseconds()})
	b, _ = a.secrets.RedactJSON(b)
	if err := os.WriteFile(o.Summary, append(b, '\n'), 0o644); err != nil {
		oe := &outputError{name: "--summary", err: err}
		fmt.Fprintf(a.stderr, "firewatch: %v\n", oe)
		return oe
	}
	return nil
}

// pageWriter writes each page's markdown to a file of its own in dir,
// named from its URL (uicrawl.PageFileName), never over another file, the
// secrets redacted.
type pageWriter struct {
	dir     string
	secrets *text.Secrets
	mu      sync.Mutex
	names   map[string]bool
}

func newPageWriter(dir string, secrets *text.Secrets) (*pageWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &pageWriter{dir: dir, secrets: secrets, names: map[string]bool{}}, nil
}

func (p *pageWriter) write(d *poller.CrawlDoc) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	base := uicrawl.PageFileName(d.URL)
	for n := 1; n < 10000; n++ {
		name := base + ".md"
		if n > 1 {
			name = base + "-" + strconv.Itoa(n) + ".md"
		}
		if p.names[name] {
			continue
		}
		// O_EXCL: an existing file (or a symlink planted there) is
		// never written through.
		f, err := os.OpenFile(filepath.Join(p.dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			p.names[name] = true
			continue
		}
		if err != nil {
			return err
		}
		p.names[name] = true
		_, err = io.WriteString(f, p.secrets.Redact(d.Markdown))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return errors.New("too many pages with the same name")
}

// ---- crawl-preview's offer ----

// offerCrawl asks whether to start the previewed crawl (or starts it with
// --start). The question goes to stderr and the answer is one key read
// from the terminal: piped stdin is never read.
func (a *app) offerCrawl(ctx context.Context, c *poller.Client, start bool, rawURL string, p *poller.CrawlPreview, debug *debugLog) error {
	if !start {
		f, ok := a.stdin.(*os.File)
		errTerm, _ := isTerminal(a.stderr.w)
		if !ok || !term.IsTerminal(f.Fd()) || !errTerm {
			return nil
		}
		fmt.Fprint(a.stderr, "Start this crawl? [y/N] ")
		yes, err := readKey(f)
		if err != nil || !yes {
			fmt.Fprintln(a.stderr, "no")
			return nil
		}
		fmt.Fprintln(a.stderr, "yes")
	}
	req, err := previewRequest(rawURL, p)
	if err != nil {
		return &failure{err}
	}
	s, err := c.StartCrawl(ctx, req)
	if err != nil {
		return a.startFailed(ctx, "crawl", "firewatch team", err, debug)
	}
	a.started("crawl", s.ID, debug)
	fmt.Fprintf(a.stderr, "firewatch: firewatch crawl %s watches it\n", s.ID)
	return nil
}

// readKey reads one key from the terminal f in raw mode, what was typed
// before the question dropped: y or Y is yes.
func readKey(f *os.File) (bool, error) {
	st, err := term.MakeRaw(f.Fd())
	if err != nil {
		return false, err
	}
	defer term.Restore(f.Fd(), st)
	flushInput(f.Fd())
	var b [8]byte
	n, err := f.Read(b[:])
	if err != nil {
		return false, err
	}
	return n == 1 && (b[0] == 'y' || b[0] == 'Y'), nil
}

// previewRequest is the previewed options as a v2 POST /v2/crawl body:
// the v2 options only (the preview's maxDepth dropped, the prompt not
// sent again: the options are what it derived).
func previewRequest(rawURL string, p *poller.CrawlPreview) (*poller.CrawlRequest, error) {
	keep := map[string]bool{"includePaths": true, "excludePaths": true, "maxDiscoveryDepth": true, "sitemap": true,
		"ignoreQueryParameters": true, "limit": true, "crawlEntireDomain": true, "allowExternalLinks": true,
		"allowSubdomains": true, "delay": true, "maxConcurrency": true, "scrapeOptions": true}
	obj := map[string]jsontext.Value{}
	for _, op := range p.Options {
		if keep[op.Name] && op.Value.Kind() != 'n' {
			obj[op.Name] = op.Value
		}
	}
	b, _ := json.Marshal(obj)
	var v struct {
		IncludePaths          []string       `json:"includePaths"`
		ExcludePaths          []string       `json:"excludePaths"`
		MaxDiscoveryDepth     *int           `json:"maxDiscoveryDepth"`
		Sitemap               string         `json:"sitemap"`
		IgnoreQueryParameters *bool          `json:"ignoreQueryParameters"`
		Limit                 *int           `json:"limit"`
		CrawlEntireDomain     *bool          `json:"crawlEntireDomain"`
		AllowExternalLinks    *bool          `json:"allowExternalLinks"`
		AllowSubdomains       *bool          `json:"allowSubdomains"`
		Delay                 *float64       `json:"delay"`
		MaxConcurrency        *int           `json:"maxConcurrency"`
		ScrapeOptions         jsontext.Value `json:"scrapeOptions"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("the preview's options cannot be sent as a crawl: %v", err)
	}
	r := &poller.CrawlRequest{URL: rawURL, IncludePaths: v.IncludePaths, ExcludePaths: v.ExcludePaths, MaxDiscoveryDepth: v.MaxDiscoveryDepth,
		Sitemap: v.Sitemap, IgnoreQueryParameters: v.IgnoreQueryParameters, Limit: v.Limit, CrawlEntireDomain: v.CrawlEntireDomain,
		AllowExternalLinks: v.AllowExternalLinks, AllowSubdomains: v.AllowSubdomains, Delay: v.Delay, MaxConcurrency: v.MaxConcurrency,
		ScrapeOptions: v.ScrapeOptions, Integration: "firewatch"}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("the preview's options cannot be sent as a crawl: %v", err)
	}
	return r, nil
}

// crawlFromTeam opens the crawl screen of an active crawl picked on the
// runs screen's team tab; back reports esc (back to the list).
func (a *app) crawlFromTeam(ctx context.Context, svc service, o *watchOptions, id, crawlURL string) (back bool, err error) {
	notes, say := screenNotes()
	c, err := a.client(svc, nil, say)
	if err != nil {
		return false, err
	}
	res, err := uicrawl.Run(ctx, uicrawl.Config{Service: a.hub.crawlService(c), ID: id, URL: crawlURL, Back: true, ASCII: o.ASCII || a.sessionASCII(),
		NoColor: o.NoColor || a.noColorEnv(), Watch: poller.CrawlWatchOptions{Retry: a.retry},
		Secrets: a.secrets, Notes: notes, Terminal: a.hub.terminal(), ReadOnly: a.hub.readOnlyText()},
		uicrawl.RunOptions{Input: a.stdin, Output: a.stdout})
	switch {
	case ctx.Err() != nil:
		return false, context.Cause(ctx) // a signal: 130 like every screen
	case err != nil:
		return false, &failure{err}
	case res.Interrupted:
		return false, errInterrupted // Ctrl-C; q leaves the runs screen with 0
	}
	return res.Back, nil
}

// demoCrawl is demo --crawl: a crawl of the in-process simulator's site,
// with failed, robots-blocked and hostile pages, watched as crawl watches
// one (the screen on a terminal, else plain or JSON lines).
func (a *app) demoCrawl(cmd *cobra.Command, wo *watchOptions, d *demoOptions) error {
	if err := checkSpeed(d.Speed); err != nil {
		return err
	}
	ctx := cmd.Context()
	srv, err := sim.Start(ctx, sim.Options{Speed: d.Speed, Seed: d.Seed, Scrapes: -1, CrawlPages: 120,
		CrawlStep: 1500 * time.Millisecond, CrawlMarkdownBytes: 4 << 10, CrawlPageDocs: 25})
	if err != nil {
		return err
	}
	defer srv.Close()
	svc := service{baseURL: srv.URL, key: srv.Key}
	if err := a.use(svc); err != nil {
		return err
	}
	id := srv.StartCrawl("https://docs.example.com/", 100)
	o := &crawlOptions{Timeout: wo.Timeout, Summary: wo.Summary, Interval: max(250*time.Millisecond, time.Duration(float64(2*time.Second)/d.Speed))}
	o.Output, o.NoColor, o.ASCII = wo.Output, wo.NoColor, wo.ASCII
	if o.Output == "" {
		o.Output = OutputAuto
	}
	fmt.Fprintf(a.stderr, "firewatch: demo: crawl %s of the simulated https://docs.example.com/\n", id)
	return a.watchCrawl(ctx, svc, o, id, "https://docs.example.com/")
}
