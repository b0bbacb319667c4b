package cli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/cli/internal/crawlprint"
	"github.com/firewatch/firewatch/cli/internal/crawlrun"
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
	a.crawlEnv().Preview(a.print, p, o.Output == OutputJSON)
	return a.offerCrawl(ctx, o, c, start, u.String(), p, debug)
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
		if !crawlprint.AskStart(f, a.stderr) {
			return nil
		}
	}
	req, err := crawlrun.PreviewRequest(rawURL, p)
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
	defer keep.Close()
	keep.Started(s.ID, req.URL)
	if !screen {
		fmt.Fprintf(a.stderr, "firewatch: firewatch crawl %s watches it\n", s.ID)
		return nil
	}
	co := &crawlOptions{Interval: 2 * time.Second, keep: keep}
	co.Output, co.NoColor, co.ASCII = OutputTUI, o.NoColor, o.ASCII
	return a.watchCrawl(ctx, svc, co, s.ID, req.URL, debug)
}
