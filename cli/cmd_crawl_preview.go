package cli

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/text"
)

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
