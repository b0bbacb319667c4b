package cli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// firewatch crawl-preview URL PROMPT, and its offer to start the crawl it
// previewed (offerCrawl).

func (a *app) crawlPreviewCommand() *cobra.Command {
	o := &interactOptions{}
	start := false
	cmd := &cobra.Command{
		Use:   "crawl-preview URL PROMPT",
		Short: "Show the crawl options the service derives from a prompt (POST /v2/crawl/params-preview)",
		Long: `Show the crawl options the service would derive from a natural-language
PROMPT for a crawl of URL, before starting one: paths to include or
exclude, depth, subdomains, external links. Plain output is an aligned
list; --output json prints the response's data as one line.

On a terminal it then asks "Start this crawl? [y/N]" (one key, read from
the terminal, never from piped stdin); y starts it and opens the crawl
screen, as firewatch crawl does (its closing counts go to stderr when you
leave it). --start starts it without asking, for scripts. The crawl gets
the previewed options (v2 names; the prompt is not sent again) and its id
goes to stderr.`,
		Example: `  firewatch crawl-preview https://docs.example.com 'only the API reference, 2 levels deep'
  firewatch crawl-preview https://example.com 'the whole blog except tag pages' -o json | jq .includePaths`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return badUsage("%s needs a URL and a PROMPT (quote the prompt), got %d argument(s)", cmd.CommandPath(), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runE(a.crawlPreview(cmd, o, args[0], args[1], start))
		},
	}
	o.registerCommon(cmd, "auto (plain), plain or json")
	cmd.Flags().BoolVar(&start, "start", false, "start the previewed crawl without asking")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badUsage("%v", err) })
	return cmd
}

func (a *app) crawlPreview(cmd *cobra.Command, o *interactOptions, rawURL, prompt string, start bool) error {
	if err := checkOutput(o, OutputAuto, OutputPlain, OutputJSON); err != nil {
		return err
	}
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return badUsage("%q is not a URL to crawl: it must start with http:// or https:// and name a host", text.Sanitize(rawURL))
	}
	if strings.TrimSpace(prompt) == "" {
		return badUsage("the PROMPT is empty: say in words what to crawl")
	}
	c, err := a.interactClient(o)
	if err != nil {
		return err
	}
	debug, err := a.openDebug(o.Debug, "crawl-preview "+text.Sanitize(u.String()))
	if err != nil {
		return err
	}
	defer debug.Close()
	ctx := cmd.Context()
	p, err := c.CrawlParamsPreview(ctx, u.String(), prompt)
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	if o.Output == OutputJSON {
		fmt.Fprintf(a.print, "%s\n", a.compactLine(p.Data))
		return a.offerCrawl(ctx, o, c, start, u.String(), p, debug)
	}
	// Bounded cells: a hostile name or value neither widens every row nor
	// prints megabytes on one line.
	w := 0
	for _, op := range p.Options {
		w = max(w, ansi.StringWidth(describe.OneLine(op.Name, maxNameCells)))
	}
	for _, op := range p.Options {
		name := describe.OneLine(op.Name, maxNameCells)
		fmt.Fprintf(a.print, "%s%s  %s\n", name, strings.Repeat(" ", w-ansi.StringWidth(name)), describe.OneLine(previewValue(op.Value), maxValueCells))
	}
	if p.Warning != "" {
		fmt.Fprintf(a.stderr, "firewatch: the service warns: %s\n", p.Warning)
	}
	return a.offerCrawl(ctx, o, c, start, u.String(), p, debug)
}

// The widest option name and value crawl-preview prints, in cells.
const (
	maxNameCells  = 40
	maxValueCells = 2000
)

// previewValue is an option's value for the aligned list: strings as they
// are, empty lists as "(none)", other values as compact JSON; sanitised.
func previewValue(v jsontext.Value) string {
	switch v.Kind() {
	case '"':
		var s string
		_ = json.Unmarshal(v, &s)
		return text.Sanitize(s)
	case 'n':
		return "(not set)"
	case '[':
		var items []jsontext.Value
		if json.Unmarshal(v, &items) == nil {
			if len(items) == 0 {
				return "(none)"
			}
			parts := make([]string, len(items))
			for i, it := range items {
				parts[i] = previewValue(it)
			}
			return strings.Join(parts, ", ")
		}
	}
	return text.Sanitize(string(compactJSON(v))) // the client redacted the answer
}

// offerCrawl asks whether to start the previewed crawl (or starts it with
// --start). The question goes to stderr and the answer is one key read
// from the terminal: piped stdin is never read. A crawl started by that
// answer opens the crawl screen when stdout is a terminal too (its id is
// said first); with --start, or stdout elsewhere, its id goes to stderr
// with how to watch it.
func (a *app) offerCrawl(ctx context.Context, o *interactOptions, c *poller.Client, start bool, rawURL string, p *poller.CrawlPreview, debug *debugLog) error {
	screen := false
	if !start {
		f, ok := a.stdin.(*os.File)
		errTerm, _ := isTerminal(a.stderr.w)
		if !ok || !term.IsTerminal(f.Fd()) || !errTerm {
			return nil
		}
		screen, _ = isTerminal(a.stdout)
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
		return &failure{Err: err}
	}
	s, err := c.StartCrawl(ctx, req)
	if err != nil {
		return a.startFailed(ctx, "crawl", "firewatch team", err, debug)
	}
	a.started("crawl", s.ID, debug)
	svc, err := a.service(o.APIURL, o.APIKey)
	if err != nil {
		return err
	}
	keep := a.keepCrawls(ctx, svc, nil)
	defer keep.close()
	keep.started(s.ID, req.URL)
	if !screen {
		fmt.Fprintf(a.stderr, "firewatch: firewatch crawl %s watches it\n", s.ID)
		return nil
	}
	co := &crawlOptions{Interval: 2 * time.Second, keep: keep}
	co.Output, co.NoColor, co.ASCII = OutputTUI, o.NoColor, o.ASCII
	return a.watchCrawl(ctx, svc, co, s.ID, req.URL, debug)
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
