package cli

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// scrape's own flags.
type scrapeOptions struct {
	Formats         []string
	OnlyMainContent bool
	WaitFor         int
	Mobile          bool
	JSONPrompt      string
	JSONSchema      string
	Screenshot      bool
	Interact        bool
}

// The v2 string formats; json and screenshot also come from their flags.
var scrapeFormats = []string{"markdown", "html", "rawHtml", "links", "summary", "images", "screenshot", "json"}

// v1 names people still type, and what v2 calls them.
var v1Formats = map[string]string{
	"extract":             "json (--json-prompt / --json-schema)",
	"screenshot@fullpage": "screenshot (--screenshot)",
	"content":             "markdown",
	"rawhtml":             "rawHtml",
	"llm-extraction":      "json (--json-prompt / --json-schema)",
}

func (a *app) scrapeCommand() *cobra.Command {
	o := &interactOptions{}
	s := &scrapeOptions{}
	cmd := &cobra.Command{
		Use:   "scrape URL",
		Short: "Scrape one page (POST /v2/scrape); --interact opens the console on its browser",
		Long: `Scrape one page with the service's v2 scrape: the content in the formats
asked (markdown by default) goes to stdout, the scrape id
(data.metadata.scrapeId, what interact takes) to stderr. --output json
prints the response's data as one line.

Formats: ` + strings.Join(scrapeFormats, ", ") + ` (comma-separated or
repeated). --json-prompt and --json-schema ask for the json format (the
object form {"type":"json",...}); --screenshot for a full-page screenshot
(its URL).`,
		Example: `  firewatch scrape https://example.com
  firewatch scrape https://example.com/pricing --formats markdown,links --only-main-content
  firewatch scrape https://example.com --json-prompt 'the plans and their prices' -o json | jq .json
  firewatch scrape https://example.com --interact`,
		Args: exactlyOne("a URL (http or https)"),
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.scrape(cmd, o, s, args[0])) },
	}
	o.registerCommon(cmd, "auto (plain), plain or json")
	o.registerConsole(cmd)
	consoleFlags(cmd, "--interact")
	f := cmd.Flags()
	f.StringSliceVar(&s.Formats, "formats", nil, "formats: "+strings.Join(scrapeFormats, ", ")+" (default markdown)")
	f.BoolVar(&s.OnlyMainContent, "only-main-content", true, "only the page's main content (no navigation, header, footer); the service's default")
	f.IntVar(&s.WaitFor, "wait-for", 0, "wait this many milliseconds for the page before scraping it (0 to 60000)")
	f.BoolVar(&s.Mobile, "mobile", false, "scrape as a mobile device")
	f.StringVar(&s.JSONPrompt, "json-prompt", "", "extract JSON as this prompt describes (the json format)")
	f.StringVar(&s.JSONSchema, "json-schema", "", "extract JSON of the JSON Schema in `FILE` (the json format)")
	f.BoolVar(&s.Screenshot, "screenshot", false, "take a full-page screenshot (its URL is printed)")
	f.BoolVar(&s.Interact, "interact", false, "then open the interact console on the scrape's browser (a terminal is needed)")
	_ = cmd.RegisterFlagCompletionFunc("formats", cobra.FixedCompletions(scrapeFormats, cobra.ShellCompDirectiveNoFileComp))
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badUsage("%v", err) })
	return cmd
}

// scrapeRequest builds the request from the flags, or says what is wrong.
func scrapeRequest(cmd *cobra.Command, s *scrapeOptions, rawURL string) (*poller.ScrapeRequest, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, badUsage("%q is not a URL firewatch can scrape: it must start with http:// or https:// and name a host", text.Sanitize(rawURL))
	}
	req := &poller.ScrapeRequest{URL: u.String(), WaitFor: s.WaitFor, Mobile: s.Mobile}
	if s.WaitFor < 0 || s.WaitFor > 60000 {
		return nil, badUsage("--wait-for %d: it must be from 0 to 60000 milliseconds", s.WaitFor)
	}
	if cmd.Flags().Changed("only-main-content") {
		v := s.OnlyMainContent
		req.OnlyMainContent = &v
	}
	seen := map[string]bool{}
	add := func(f poller.Format) {
		if !seen[f.Type] {
			seen[f.Type] = true
			req.Formats = append(req.Formats, f)
		}
	}
	for _, name := range s.Formats {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if v2, ok := v1Formats[strings.ToLower(name)]; ok && name != "rawHtml" {
			return nil, badUsage("--formats %s: that is a v1 name; in v2 it is %s", text.Sanitize(name), v2)
		}
		known := false
		for _, k := range scrapeFormats {
			known = known || k == name
		}
		if !known {
			return nil, badUsage("--formats %q: it must be among %s", text.Sanitize(name), strings.Join(scrapeFormats, ", "))
		}
		switch name {
		case "json":
			if s.JSONPrompt == "" && s.JSONSchema == "" {
				return nil, badUsage("--formats json needs --json-prompt or --json-schema")
			}
		case "screenshot":
			add(poller.Format{Type: "screenshot", FullPage: true})
		default:
			add(poller.Format{Type: name})
		}
	}
	if s.JSONPrompt != "" || s.JSONSchema != "" {
		jf := poller.Format{Type: "json", Prompt: s.JSONPrompt}
		if s.JSONSchema != "" {
			b, err := os.ReadFile(s.JSONSchema)
			if err != nil {
				return nil, badUsage("--json-schema: %v", err)
			}
			v := jsontext.Value(b)
			if err := v.Compact(); err != nil || v.Kind() != '{' {
				return nil, badUsage("--json-schema %s: not a JSON object (a JSON Schema such as {\"type\":\"object\",\"properties\":{...}})", s.JSONSchema)
			}
			jf.Schema = v
		}
		add(jf)
	}
	if s.Screenshot {
		add(poller.Format{Type: "screenshot", FullPage: true})
	}
	if len(req.Formats) > 0 && !seen["markdown"] && len(s.Formats) == 0 {
		// Flags for json or a screenshot add to the default, not replace it.
		req.Formats = append([]poller.Format{{Type: "markdown"}}, req.Formats...)
	}
	return req, nil
}

func (a *app) scrape(cmd *cobra.Command, o *interactOptions, s *scrapeOptions, rawURL string) error {
	if err := checkOutput(o, OutputAuto, OutputPlain, OutputJSON); err != nil {
		return err
	}
	req, err := scrapeRequest(cmd, s, rawURL)
	if err != nil {
		return err
	}
	if s.Interact {
		if term, _ := isTerminal(a.stdout); !term {
			return badUsage("--interact opens the console, which needs a terminal; use firewatch interact SCRAPE_ID --code ... in scripts")
		}
		if _, err := a.checkInteract(cmd, o, "00000000-0000-4000-8000-000000000000"); err != nil {
			return err
		}
	}
	c, err := a.interactClient(o)
	if err != nil {
		return err
	}
	debug, err := a.openDebug(o.Debug, "scrape "+text.Sanitize(req.URL))
	if err != nil {
		return err
	}
	defer debug.Close()
	ctx := cmd.Context()
	res, err := c.Scrape(ctx, req)
	if err != nil {
		debug.Printf("the scrape failed: %v", err)
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	if res.ScrapeID != "" {
		// The scrape is billed: its id goes to stderr and the debug log
		// before its content.
		fmt.Fprintf(a.stderr, "Scrape ID: %s\n", res.ScrapeID)
		debug.Printf("scraped: scrape %s", res.ScrapeID)
	}
	if o.Output == OutputJSON {
		fmt.Fprintf(a.print, "%s\n", a.compactLine(res.Data))
	} else {
		a.printScrape(req, res)
	}
	if s.Interact {
		if res.ScrapeID == "" {
			return &failure{Err: fmt.Errorf("the scrape's answer has no data.metadata.scrapeId: nothing to interact with")}
		}
		return a.runConsole(ctx, c, o, res.ScrapeID, debug)
	}
	return nil
}

// printScrape writes the content of each format asked, sanitised; with
// more than one, each under a "--- name ---" line.
func (a *app) printScrape(req *poller.ScrapeRequest, res *poller.ScrapeResult) {
	names := []string{"markdown"}
	if len(req.Formats) > 0 {
		names = names[:0]
		for _, f := range req.Formats {
			names = append(names, f.Type)
		}
	}
	for _, name := range names {
		var body string
		switch name {
		case "markdown":
			body = res.Markdown
		case "html":
			body = res.HTML
		case "rawHtml":
			body = res.RawHTML
		case "summary":
			body = res.Summary
		case "links":
			body = strings.Join(res.Links, "\n")
		case "screenshot":
			body = res.Screenshot
		case "json":
			if res.JSON != nil {
				v := res.JSON.Clone()
				if err := v.Indent(jsontext.WithIndent("  ")); err == nil {
					body = string(v)
				} else {
					body = string(res.JSON)
				}
			}
		case "images":
			var imgs []string
			if d, ok := dataField(res.Data, "images"); ok {
				_ = json.Unmarshal(d, &imgs)
			}
			body = strings.Join(imgs, "\n")
		}
		if len(names) > 1 {
			fmt.Fprintf(a.print, "--- %s ---\n", name)
		}
		body = strings.TrimSuffix(text.Sanitize(body), "\n")
		if body != "" {
			io.WriteString(a.print, body+"\n")
		}
	}
}

func dataField(data jsontext.Value, name string) (jsontext.Value, bool) {
	var m map[string]jsontext.Value
	if json.Unmarshal(data, &m) != nil {
		return nil, false
	}
	v, ok := m[name]
	return v, ok
}
