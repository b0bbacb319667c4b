package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/cli/internal/scrape"
	"github.com/firewatch/firewatch/text"
)

// scrape's flags: the request's (internal/scrape) and --interact.
type scrapeOptions struct {
	scrape.Options
	Interact bool
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

Formats: ` + strings.Join(scrape.Formats, ", ") + ` (comma-separated or
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
	f.StringSliceVar(&s.Formats, "formats", nil, "formats: "+strings.Join(scrape.Formats, ", ")+" (default markdown)")
	f.BoolVar(&s.OnlyMainContent, "only-main-content", true, "only the page's main content (no navigation, header, footer); the service's default")
	f.IntVar(&s.WaitFor, "wait-for", 0, "wait this many milliseconds for the page before scraping it (0 to 60000)")
	f.BoolVar(&s.Mobile, "mobile", false, "scrape as a mobile device")
	f.StringVar(&s.JSONPrompt, "json-prompt", "", "extract JSON as this prompt describes (the json format)")
	f.StringVar(&s.JSONSchema, "json-schema", "", "extract JSON of the JSON Schema in `FILE` (the json format)")
	f.BoolVar(&s.Screenshot, "screenshot", false, "take a full-page screenshot (its URL is printed)")
	f.BoolVar(&s.Interact, "interact", false, "then open the interact console on the scrape's browser (a terminal is needed)")
	_ = cmd.RegisterFlagCompletionFunc("formats", cobra.FixedCompletions(scrape.Formats, cobra.ShellCompDirectiveNoFileComp))
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badUsage("%v", err) })
	return cmd
}

func (a *app) scrape(cmd *cobra.Command, o *interactOptions, s *scrapeOptions, rawURL string) error {
	if err := checkOutput(o, OutputAuto, OutputPlain, OutputJSON); err != nil {
		return err
	}
	req, err := s.Request(rawURL, cmd.Flags().Changed)
	if err != nil {
		return asUsage(err)
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
		scrape.Print(a.print, req, res)
	}
	if s.Interact {
		if res.ScrapeID == "" {
			return &failure{Err: fmt.Errorf("the scrape's answer has no data.metadata.scrapeId: nothing to interact with")}
		}
		return a.runConsole(ctx, c, o, res.ScrapeID, debug)
	}
	return nil
}
