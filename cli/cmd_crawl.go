package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/cli/internal/crawlprint"
	"github.com/firewatch/firewatch/cli/internal/crawlrun"
	"github.com/firewatch/firewatch/cli/internal/outputs"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
	uicrawl "github.com/firewatch/firewatch/ui/crawl"
)

// firewatch crawl URL|ID: start a crawl and watch it, watch one, or cancel
// one. Its body and archive record: internal/crawlrun; its plain and JSON
// output, --pages-dir and --summary: internal/crawlprint.

// crawlOptions are crawl's flags.
type crawlOptions struct {
	interactOptions
	crawlrun.Options // the flags only a start takes
	// keep is the archive the crawl is kept in (nil: none, the demo's).
	keep     *crawlrun.Archive
	Timeout  time.Duration
	Detach   bool
	Cancel   bool
	Summary  string
	PagesDir string
	Poll     bool
	Interval time.Duration
	Notify   notifyOptions // --notify and its kin (notify.go)

	// v1 names, refused with the v2 name
	v1MaxDepth, v1IgnoreSitemap, v1Backward string
	// demo: the crawl is the demo's simulator's, gone with firewatch.
	demo bool
}

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
	o.Notify.register(cmd.Flags(), false)
	f := cmd.Flags()
	f.StringVar(&o.Options.Prompt, "prompt", "", "say in words what to crawl; the service derives the options (see crawl-preview)")
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
	if !isID && o.Cancel {
		return badUsage("--cancel needs a crawl id (a UUID), not a URL")
	}
	if err := o.Options.Check(f.Changed, isID); err != nil {
		return asUsage(err)
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
	return o.Notify.check(f)
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
		if req, err = o.Request(arg, cmd.Flags().Changed); err != nil {
			return asUsage(err)
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
	if !o.Detach && !o.Cancel {
		if err := a.checkCrawlOutputs(o); err != nil {
			return err
		}
	}
	id, crawlURL := strings.ToLower(arg), ""
	o.keep = a.keepCrawls(ctx, svc, nil)
	defer o.keep.Close()
	if !isID {
		s, err := c.StartCrawl(ctx, req)
		if err != nil {
			return a.startFailed(ctx, "crawl", "firewatch team", err, debug)
		}
		// The id reaches stderr and the debug log whatever becomes of
		// stdout.
		id, crawlURL = s.ID, req.URL
		a.started("crawl", id, debug)
		o.keep.Started(id, crawlURL)
		if o.Detach {
			// A failed write is exit 8 (a.print); the id is on stderr.
			_, err := fmt.Fprintln(a.print, id)
			return err
		}
	}
	return a.watchCrawl(ctx, svc, o, id, crawlURL, debug)
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
		return &failure{Err: fmt.Errorf("cancel crawl: the service answered status %q, not cancelled", st)}
	}
	fmt.Fprintf(a.stderr, "firewatch: crawl %s cancelled\n", id)
	return nil
}

// watchCrawl follows the crawl on the screen or in printed lines. Its
// polls wait as a.retry says (each wait said in the watch's output); the
// other requests' waits are said on stderr, or on the screen. What its
// client does goes to debug (nil: nowhere).
func (a *app) watchCrawl(ctx context.Context, svc service, o *crawlOptions, id, crawlURL string, debug *debugLog) error {
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, o.Timeout, errTimeout)
		defer cancel()
	}
	watch := poller.CrawlWatchOptions{Interval: o.Interval, NoSocket: o.Poll, Retry: a.retry}
	if err := a.checkCrawlOutputs(o); err != nil {
		return err
	}
	termOut, _ := isTerminal(a.stdout)
	if o.Output == OutputTUI || o.Output == OutputAuto && termOut && a.onTerminal() {
		return a.crawlScreen(ctx, svc, o, id, crawlURL, watch, debug)
	}
	c, err := a.client(svc, debug, nil)
	if err != nil {
		return err
	}
	ws, _, _, err := a.notifyCrawl(o.keep.Watch(c, crawlURL), &o.Notify, crawlURL, nil, svc)
	if err != nil {
		return err
	}
	end, err := crawlprint.Watch(ctx, ws, a.crawlEnv(), crawlprint.Options{JSON: o.Output == OutputJSON, PagesDir: o.PagesDir,
		Summary: o.Summary}, id, crawlURL, watch)
	if err != nil {
		return err
	}
	return crawlEndOf(end)
}

// crawlEndOf is the command's error for how a crawl watch ended: nil
// when the crawl completed with every output written.
func crawlEndOf(e crawlprint.End) error {
	return (&crawlEnd{Status: e.Status, Err: e.Err, Output: e.Output}).OrNil()
}

// crawlEnv is where a crawl's output goes, and its failures' errors.
func (a *app) crawlEnv() crawlprint.Env {
	return crawlprint.Env{Stdout: a.stdout, Stderr: a.stderr, Secrets: a.secrets,
		OutputError: func(name string, err error) error { return &outputError{Name: name, Err: err} }}
}

// crawlScreen follows the crawl on the screen; once it is left, stderr has
// the closing counts line plain output ends with (crawlprint.Env.SayEnd).
func (a *app) crawlScreen(ctx context.Context, svc service, o *crawlOptions, id, crawlURL string, watch poller.CrawlWatchOptions, debug *debugLog) error {
	notes, say := crawlprint.ScreenNotes()
	c, err := a.client(svc, debug, say)
	if err != nil {
		return err
	}
	// --pages-dir on the screen too, each page as it arrives.
	outs, err := crawlprint.OpenScreenOutputs(a.crawlEnv(), crawlprint.Options{PagesDir: o.PagesDir, Summary: o.Summary}, id, crawlURL, o.demo)
	if err != nil {
		return err
	}
	ws, alerts, notified, err := a.notifyCrawl(o.keep.Watch(c, crawlURL), &o.Notify, crawlURL, say, svc)
	if err != nil {
		return err
	}
	res, err := uicrawl.Run(ctx, uicrawl.Config{Service: ws, ID: id, URL: crawlURL, NoColor: o.NoColor || a.noColorEnv(),
		ASCII: o.ASCII, SaveDir: o.SaveDir, Watch: watch, Secrets: a.secrets, Notes: notes, OnDoc: outs.OnDoc(), Alerts: alerts},
		uicrawl.RunOptions{Input: a.stdin, Output: a.stdout})
	notified(res.Focused, false)
	end := outs.End(ctx, res, errQuit)
	if err != nil && ctx.Err() == nil {
		return &failure{Err: err}
	}
	return crawlEndOf(end)
}

// checkCrawlOutputs checks, creating nothing, every output of a crawl
// watch before anything is started (and billed): the screen's terminal
// (--output tui), --summary, --pages-dir and --save-dir. A usage error
// (2) otherwise.
func (a *app) checkCrawlOutputs(o *crawlOptions) error {
	if o.Output == OutputTUI {
		termOut, _ := isTerminal(a.stdout)
		if err := checkTUI(a.stdin, termOut); err != nil {
			return err
		}
	}
	if o.Summary != "" {
		if err := checkWritable("--summary", o.Summary); err != nil {
			return err
		}
	}
	if err := crawlprint.CheckDirs(o.PagesDir, o.SaveDir, outputs.CanCreateIn); err != nil {
		return asUsage(err)
	}
	return nil
}

// crawlFromTeam opens the crawl screen of an active crawl picked on the
// runs screen's team tab; back reports esc (back to the list).
func (a *app) crawlFromTeam(ctx context.Context, svc service, o *watchOptions, id, crawlURL string) (back bool, err error) {
	notes, say := crawlprint.ScreenNotes()
	c, err := a.client(svc, nil, say)
	if err != nil {
		return false, err
	}
	keep := a.keepCrawls(ctx, svc, say)
	defer keep.Close()
	cs, alerts, notified, err := a.notifyCrawl(keep.Watch(a.hub.CrawlService(c), crawlURL), &o.Notify, crawlURL, say, svc)
	if err != nil {
		return false, err
	}
	res, err := uicrawl.Run(ctx, uicrawl.Config{Service: cs, ID: id, URL: crawlURL, Back: true, ASCII: o.ASCII || a.sessionASCII(),
		NoColor: o.NoColor || a.noColorEnv(), Watch: poller.CrawlWatchOptions{Retry: a.retry},
		Secrets: a.secrets, Notes: notes, Alerts: alerts, Terminal: a.hub.Terminal(), ReadOnly: a.hub.ReadOnly()},
		uicrawl.RunOptions{Input: a.stdin, Output: a.stdout})
	notified(res.Focused, res.Back)
	switch {
	case ctx.Err() != nil:
		return false, context.Cause(ctx) // a signal: 130 like every screen
	case err != nil:
		return false, &failure{Err: err}
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
	o := &crawlOptions{Timeout: wo.Timeout, Summary: wo.Summary, Interval: max(250*time.Millisecond, time.Duration(float64(2*time.Second)/d.Speed)), demo: true}
	o.Output, o.NoColor, o.ASCII, o.Notify = wo.Output, wo.NoColor, wo.ASCII, wo.Notify
	if o.Output == "" {
		o.Output = OutputAuto
	}
	fmt.Fprintf(a.stderr, "firewatch: demo: crawl %s of the simulated https://docs.example.com/\n", id)
	return a.watchCrawl(ctx, svc, o, id, "https://docs.example.com/", nil)
}

// keepCrawls opens the archive for a crawl of svc; nil when it is off or
// keeps no crawls (why is said through say, nil: stderr).
func (a *app) keepCrawls(ctx context.Context, svc service, say func(string)) *crawlrun.Archive {
	if say == nil {
		say = func(s string) { fmt.Fprintf(a.stderr, "firewatch: %s\n", s) }
	}
	st, err := a.openArchive(ctx, keepArchive, &lockNote{quiet: true})
	if err != nil {
		say("the crawl is not archived: " + err.Error())
		return nil
	}
	return crawlrun.Keep(st, svc.baseURL, archive.TeamOf(svc.key), a.hub.PersonName(), say)
}
