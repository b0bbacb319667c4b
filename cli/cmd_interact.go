package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/cli/internal/console"
	"github.com/firewatch/firewatch/poller"
)

// interactOptions are the flags of interact, scrape and crawl-preview.
type interactOptions struct {
	APIURL   string
	APIKey   string
	Output   string
	NoColor  bool
	ASCII    bool
	SaveDir  string
	Code     string
	Prompt   string
	Language string
	Timeout  int
	Stop     bool
	Debug    string // the console's --debug log
}

func (o *interactOptions) registerCommon(cmd *cobra.Command, outputs string) {
	f := cmd.Flags()
	f.StringVar(&o.APIURL, "api-url", "", "service base URL (default $FIRECRAWL_API_URL, else https://api.firecrawl.dev)")
	f.StringVar(&o.APIKey, "api-key", "", "API key; prefer $FIRECRAWL_API_KEY, which stays out of the process list and shell history")
	f.StringVarP(&o.Output, "output", "o", OutputAuto, "output: "+outputs)
	f.BoolVar(&o.NoColor, "no-color", false, "no colour (also when NO_COLOR is set)")
	f.BoolVar(&o.ASCII, "ascii", false, "ASCII symbols only")
	f.StringVar(&o.Debug, "debug", "", "write a log of what was started or billed (a scrape, a crawl, a browser session) and of the console to `FILE` (never the key)")
}

func (o *interactOptions) registerConsole(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.Language, "language", "node", "language of the code: node, python or bash (agent-browser commands)")
	f.IntVar(&o.Timeout, "timeout", poller.DefaultInteractTimout, "seconds a call may run before it is killed, 1 to 300")
	f.StringVar(&o.SaveDir, "save-dir", "", "console: where ctrl+s saves an output (default: the current directory)")
}

// interactClient is the client of interact, scrape and crawl-preview.
func (a *app) interactClient(o *interactOptions) (*poller.Client, error) {
	s, err := a.service(o.APIURL, o.APIKey)
	if err != nil {
		return nil, err
	}
	return a.client(s, nil, nil)
}

func checkOutput(o *interactOptions, allowed ...string) error {
	o.Output = strings.ToLower(strings.TrimSpace(o.Output))
	for _, m := range allowed {
		if o.Output == m {
			return nil
		}
	}
	return badUsage("--output %q: it must be one of %s", o.Output, strings.Join(allowed, ", "))
}

func (a *app) interactCommand() *cobra.Command {
	o := &interactOptions{}
	cmd := &cobra.Command{
		Use:   "interact SCRAPE_ID",
		Short: "Use the browser a scrape left behind: a console, or one call with --code or --prompt",
		Long: `Work in the browser session of a scrape job (its data.metadata.scrapeId;
firewatch scrape URL prints it). The session starts, at the page the scrape
left, with the first call; it is billed until it is stopped or times out.

On a terminal, without --code or --prompt: a full-screen console with a
history, the session's live-view links and a question about the session
when you leave. The session's start goes to stderr ("firewatch: started
browser session of scrape ID", once the console has given the terminal
back) and to the --debug log at once.

For scripts, one call: --code CODE (- reads it from stdin) in node, python
or bash (agent-browser commands), or --prompt TEXT for the AI agent. The
code's stdout goes to stdout, its stderr and the session's links to stderr;
a prompt's answer to stdout. --output json prints the service's answer as
one line. --stop ends the session.

Exit codes: the code's own exit code when it ran (0 ok), 124 killed by
--timeout, 1 an exception, 6 the service refused (its message says why), 2
bad usage (nothing is sent).`,
		Example: `  firewatch interact $SCRAPE_ID
  firewatch interact $SCRAPE_ID --code 'await page.title()'
  firewatch interact $SCRAPE_ID --code 'print(await page.title())' --language python
  echo 'snapshot' | firewatch interact $SCRAPE_ID --code - --language bash
  firewatch interact $SCRAPE_ID --prompt 'click the pricing tab and list the plans'
  firewatch interact $SCRAPE_ID --stop`,
		Args: exactlyOne("a SCRAPE_ID (data.metadata.scrapeId of a scrape)"),
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.interact(cmd, o, args[0])) },
	}
	o.registerCommon(cmd, "auto (the console on a terminal, else plain), tui, plain or json")
	o.registerConsole(cmd)
	f := cmd.Flags()
	f.StringVar(&o.Code, "code", "", "run this code (- reads it from stdin), then exit")
	f.StringVar(&o.Prompt, "prompt", "", "have the AI agent carry out this task in the page, then exit")
	f.BoolVar(&o.Stop, "stop", false, "stop the scrape's browser session (DELETE) and exit")
	_ = cmd.RegisterFlagCompletionFunc("language", cobra.FixedCompletions(poller.InteractLanguages, cobra.ShellCompDirectiveNoFileComp))
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badUsage("%v", err) })
	return cmd
}

// checkInteract validates everything before a request: the id, the
// flags, the code's bounds.
func (a *app) checkInteract(cmd *cobra.Command, o *interactOptions, id string) (*poller.InteractRequest, error) {
	if err := poller.ValidateJobID(id); err != nil {
		return nil, asUsage(fmt.Errorf("scrape id: %w", err))
	}
	if err := checkOutput(o, OutputAuto, OutputTUI, OutputPlain, OutputJSON); err != nil {
		return nil, err
	}
	return console.Request(a.consoleFlags(cmd, o), a.stdin)
}

// consoleFlags are o's values for package console; cmd (nil: none) says
// whether --code and --prompt were given.
func (a *app) consoleFlags(cmd *cobra.Command, o *interactOptions) *console.Flags {
	f := &console.Flags{JSON: o.Output == OutputJSON, Language: o.Language, Timeout: o.Timeout, SaveDir: o.SaveDir, Code: o.Code, Prompt: o.Prompt,
		Stop: o.Stop, NoColor: o.NoColor || a.noColorEnv(), ASCII: o.ASCII}
	if cmd != nil {
		f.HasCode, f.HasPrompt = cmd.Flags().Changed("code"), cmd.Flags().Changed("prompt")
	}
	return f
}

func (a *app) interact(cmd *cobra.Command, o *interactOptions, id string) error {
	req, err := a.checkInteract(cmd, o, id)
	if err != nil {
		return err
	}
	f := a.consoleFlags(cmd, o)
	isConsole := req == nil && !o.Stop
	if isConsole {
		term, _ := isTerminal(a.stdout)
		if o.Output == OutputPlain || o.Output == OutputJSON || (o.Output == OutputAuto && !term) {
			return badUsage("the console needs a terminal: give --code or --prompt for one call (or --stop)")
		}
	}
	c, err := a.interactClient(o)
	if err != nil {
		return err
	}
	debug, err := a.openDebug(o.Debug, "interact, scrape "+id)
	if err != nil {
		return err
	}
	defer debug.Close()
	ctx := cmd.Context()
	e := a.consoleEnv(c, debug)
	switch {
	case o.Stop:
		return e.Stop(ctx, f.JSON, id)
	case isConsole:
		return e.Console(ctx, f, id)
	}
	return e.Call(ctx, f, id, req)
}

// consoleEnv is what interact works with: this process's streams, the
// client c and the --debug log (nil: none).
func (a *app) consoleEnv(c *poller.Client, debug *debugLog) *console.Env {
	return &console.Env{Client: c, Stdin: a.stdin, Stdout: a.stdout, Print: a.print, Stderr: a.stderr, Secrets: a.secrets, Debug: debug,
		Started:        func(w io.Writer, what, id string) { a.startedOn(w, what, id, debug) },
		MayHaveStarted: mayHaveStarted,
		Hold: func() (io.Writer, func()) {
			errw := &heldWriter{w: a.stderr}
			errw.held, _ = isTerminal(a.stderr.w)
			return errw, errw.release
		}}
}

// runConsole shows the console on scrape id's browser; debug is the
// command's --debug log (nil: none).
func (a *app) runConsole(ctx context.Context, c *poller.Client, o *interactOptions, id string, debug *debugLog) error {
	return a.consoleEnv(c, debug).Console(ctx, a.consoleFlags(nil, o), id)
}

// compactLine is v as one line of JSON, the secrets redacted.
func (a *app) compactLine(v jsontext.Value) []byte { return console.CompactLine(a.secrets, v) }
