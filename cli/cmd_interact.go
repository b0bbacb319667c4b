package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/cli/internal/exitcode"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/interact"
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
	if !validLang(o.Language) {
		return nil, badUsage("--language %q: it must be one of %s", text.Sanitize(o.Language), strings.Join(poller.InteractLanguages, ", "))
	}
	if o.Timeout < poller.MinInteractTimeout || o.Timeout > poller.MaxInteractTimeout {
		return nil, badUsage("--timeout %d: it must be from %d to %d seconds", o.Timeout, poller.MinInteractTimeout, poller.MaxInteractTimeout)
	}
	if o.SaveDir != "" {
		if fi, err := os.Stat(o.SaveDir); err != nil || !fi.IsDir() {
			return nil, badUsage("--save-dir %q: not a directory firewatch can save into", o.SaveDir)
		}
	}
	f := cmd.Flags()
	hasCode, hasPrompt := f.Changed("code"), f.Changed("prompt")
	switch {
	case o.Stop && (hasCode || hasPrompt):
		return nil, badUsage("--stop ends the session: give it without --code or --prompt")
	case o.Stop:
		return nil, nil
	case hasCode && hasPrompt:
		return nil, badUsage("give --code or --prompt, not both")
	case !hasCode && !hasPrompt:
		return nil, nil // the console
	}
	req := &poller.InteractRequest{Language: o.Language, Timeout: o.Timeout, Origin: "firewatch"}
	if hasPrompt {
		if strings.TrimSpace(o.Prompt) == "" {
			return nil, badUsage("--prompt is empty")
		}
		req.Prompt = o.Prompt
		return req, nil
	}
	code := o.Code
	if code == "-" {
		b, err := io.ReadAll(io.LimitReader(a.stdin, 4*poller.MaxInteractCode+1))
		if err != nil {
			return nil, badUsage("--code -: reading stdin: %v", err)
		}
		code = strings.TrimSuffix(string(b), "\n")
	}
	if code == "" {
		return nil, badUsage("--code is empty: give the code to run (at least 1 character)")
	}
	req.Code = code
	if err := req.Validate(); err != nil {
		return nil, badUsage("--code: %v", err)
	}
	return req, nil
}

func validLang(l string) bool {
	for _, x := range poller.InteractLanguages {
		if x == l {
			return true
		}
	}
	return false
}

func (a *app) interact(cmd *cobra.Command, o *interactOptions, id string) error {
	req, err := a.checkInteract(cmd, o, id)
	if err != nil {
		return err
	}
	console := req == nil && !o.Stop
	if console {
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
	switch {
	case o.Stop:
		return a.stopInteract(ctx, c, o, id)
	case console:
		return a.runConsole(ctx, c, o, id, debug)
	}
	res, err := c.Interact(ctx, id, req)
	if err != nil {
		debug.Printf("the call failed: %v", err)
		if mayHaveStarted(err) {
			// It reached the service: the session may be open.
			msg := fmt.Sprintf("the call reached the service: the browser session of scrape %s may be open, and billed, until the service times it out; end it with: firewatch interact %s --stop", id, id)
			fmt.Fprintf(a.stderr, "firewatch: %s\n", msg)
			debug.Printf("%s", msg)
		}
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	if res.LiveViewURL != "" || res.CDPURL != "" || res.InteractiveLiveViewURL != "" {
		debug.Printf("the call ran; the browser session of scrape %s is open, and billed, until stopped or timed out", id)
	}
	return a.printInteract(o, res)
}

// printInteract writes one call's answer and returns its exit code.
func (a *app) printInteract(o *interactOptions, res *poller.InteractResult) error {
	if o.Output == OutputJSON {
		fmt.Fprintf(a.print, "%s\n", a.compactLine(res.Raw))
	} else {
		if res.HasOutput && res.Output != "" {
			fmt.Fprintln(a.print, strings.TrimSuffix(text.Sanitize(res.Output), "\n"))
		}
		if res.Stdout != "" {
			io.WriteString(a.print, text.Sanitize(res.Stdout))
		}
		if res.Stderr != "" {
			// The code's stderr ends its own line, whatever it sent.
			io.WriteString(a.stderr, strings.TrimSuffix(text.Sanitize(res.Stderr), "\n")+"\n")
		}
		for _, l := range [][2]string{{"Live view", res.LiveViewURL}, {"Interactive live view (controls the browser)", res.InteractiveLiveViewURL}, {"CDP", res.CDPURL}} {
			if l[1] != "" {
				fmt.Fprintf(a.stderr, "%s: %s\n", l[0], linkText(l[1]))
			}
		}
		switch {
		case res.Killed:
			fmt.Fprintf(a.stderr, "firewatch: killed after %ds (the --timeout); nothing more ran\n", o.Timeout)
		case res.Error != "" && !strings.Contains(res.Stderr, res.Error):
			fmt.Fprintf(a.stderr, "firewatch: exception: %s\n", text.Sanitize(res.Error))
		}
	}
	return &exitcode.InteractEnd{Res: res}
}

func (a *app) stopInteract(ctx context.Context, c *poller.Client, o *interactOptions, id string) error {
	res, err := c.StopInteract(ctx, id)
	if err != nil {
		return err
	}
	if o.Output == OutputJSON {
		type out struct {
			ScrapeID          string   `json:"scrapeId"`
			Stopped           bool     `json:"stopped"`
			Message           string   `json:"message,omitempty"`
			SessionDurationMs int64    `json:"sessionDurationMs,omitzero"`
			CreditsBilled     *float64 `json:"creditsBilled,omitempty"`
		}
		b, _ := json.Marshal(out{id, !res.NoSession, res.Message, res.SessionDuration.Milliseconds(), res.CreditsBilled})
		fmt.Fprintf(a.print, "%s\n", b)
		return nil
	}
	if res.NoSession {
		fmt.Fprintf(a.stderr, "firewatch: no browser session to stop for scrape %s: %q — nothing is billed for it\n", id, res.Message)
		return nil
	}
	fmt.Fprintln(a.stderr, "firewatch: "+stoppedText(id, res))
	return nil
}

// linkText is a URL from the service as printed: an http(s) or ws(s) URL
// as it is; anything else (javascript:, data:, a file) is not a link, and
// is quoted as text.
func linkText(u string) string {
	l := strings.ToLower(u)
	for _, p := range []string{"https://", "http://", "wss://", "ws://"} {
		if strings.HasPrefix(l, p) {
			return u
		}
	}
	return fmt.Sprintf("(not a web address: %q)", u)
}

// stoppedText says that the browser session of scrape id was stopped, how
// long it ran and what it cost, when the service said.
func stoppedText(id string, res *poller.StopResult) string {
	msg := "stopped the browser session of scrape " + id
	if res.SessionDuration > 0 {
		msg += " after " + text.Duration(res.SessionDuration)
	}
	if res.CreditsBilled != nil {
		msg += " (" + text.Credits(*res.CreditsBilled) + " billed)"
	}
	return msg
}

// stopOnSignal stops the browser session the console opened when a signal
// ended it (SIGHUP: the terminal is gone; SIGTERM, SIGINT) or a second
// Ctrl-C left the leave question unanswered: nobody answered, and the
// session is billed while open. What was done is said on stderr and in
// the debug log; why is the reason given with a stop.
func (a *app) stopOnSignal(ctx context.Context, c *poller.Client, id string, debug *debugLog, why string) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	res, err := c.WithRetry(poller.Retry{Tries: 1}).StopInteract(sctx, id)
	var msg string
	switch {
	case err != nil:
		msg = fmt.Sprintf("interrupted: the browser session of scrape %s could not be stopped (%s); it stays open, and billed, until the service times it out; end it with: firewatch interact %s --stop", id, text.Sanitize(err.Error()), id)
	case res.NoSession:
		msg = fmt.Sprintf("interrupted: the browser session of scrape %s had already ended", id)
	default:
		msg = "interrupted: " + stoppedText(id, res) + ", since " + why
	}
	fmt.Fprintf(a.stderr, "firewatch: %s\n", msg)
	debug.Printf("%s", msg)
}

// runConsole shows the console on scrape id's browser; debug is the
// command's --debug log (nil: none).
func (a *app) runConsole(ctx context.Context, c *poller.Client, o *interactOptions, id string, debug *debugLog) error {
	debug.Printf("interact console, scrape %s", id)
	noColor := o.NoColor || a.noColorEnv()
	// The browser session a call opens is billed: said like every billed
	// start (started.go), on stderr once the console has given the
	// terminal back when stderr is that terminal.
	errw := &heldWriter{w: a.stderr}
	errw.held, _ = isTerminal(a.stderr.w)
	defer errw.release()
	b := &sessionBackend{Backend: interact.ClientBackend(c.WithRetry(poller.Retry{Tries: 1}), id), a: a, id: id, errw: errw, debug: debug}
	res, err := interact.Run(ctx, interact.Config{
		// The console's calls ask once: a wait on a 429 would be unsaid
		// behind the screen; the error on screen names the service's delay.
		ScrapeID: id, Backend: b,
		Language: o.Language, Timeout: o.Timeout, NoColor: noColor, ASCII: o.ASCII, SaveDir: o.SaveDir,
		Input: a.stdin, Output: a.stdout,
	})
	errw.release()
	// open: a call opened the session, or failed in a way that may have.
	open := res.SessionOpen || b.maybe()
	switch {
	case res.Stopped:
		fmt.Fprintf(a.stderr, "firewatch: %s (scrape %s)\n", res.StopNote, id)
	case open && errors.As(context.Cause(ctx), new(*interruptedError)):
		a.stopOnSignal(ctx, c, id, debug, "nobody can be asked any more")
	case open && res.Interrupted:
		a.stopOnSignal(ctx, c, id, debug, "ctrl+c left the question unanswered")
	case open && !res.SessionOpen:
		fmt.Fprintf(a.stderr, "firewatch: a call failed after it reached the service: the browser session of scrape %s may be open, and billed, until the service times it out; end it with: firewatch interact %s --stop\n", id, id)
	case res.Kept || res.SessionOpen:
		fmt.Fprintf(a.stderr, "firewatch: the browser session of scrape %s stays open, and billed, until the service times it out; end it with: firewatch interact %s --stop\n", id, id)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		// A signal: 130, also when the terminal it came with (SIGHUP) took
		// the console's last writes down with it.
		return errInterrupted
	case res.OutputErr != nil:
		// The console drew into nothing: 8.
		return &outputError{Name: "stdout", Err: res.OutputErr}
	case err != nil:
		return err
	case res.Interrupted:
		return errInterrupted
	}
	return nil
}

// sessionBackend is the console's Backend: the first answer that shows the
// scrape's browser session open (its links) says that it started, on
// stderr and in the debug log; a call that failed in a way that may have
// opened it (no answer in time, a 5xx) is noted in the debug log at once.
type sessionBackend struct {
	interact.Backend
	a     *app
	id    string
	errw  io.Writer
	debug *debugLog

	mu           sync.Mutex
	open, unsure bool
}

func (b *sessionBackend) Interact(ctx context.Context, req *poller.InteractRequest) (*poller.InteractResult, error) {
	res, err := b.Backend.Interact(ctx, req)
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.open:
	case err == nil && (res.LiveViewURL != "" || res.CDPURL != "" || res.InteractiveLiveViewURL != ""):
		b.open = true
		b.a.startedOn(b.errw, "browser session of scrape", b.id, b.debug)
	case err != nil && !b.unsure && mayHaveStarted(err):
		b.unsure = true
		b.debug.Printf("a call failed after it reached the service (%v): the browser session of scrape %s may have started", err, b.id)
	}
	return res, err
}

// maybe reports whether a call may have opened the session though no
// answer showed it open.
func (b *sessionBackend) maybe() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.unsure && !b.open
}

// compactLine is v as one line of JSON, the secrets redacted.
func (a *app) compactLine(v jsontext.Value) []byte {
	red, _ := a.secrets.RedactJSON(v) // the key, in whatever form the service echoed it
	return compactJSON(red)
}

// compactJSON is v on one line; v as it is when it is not JSON.
func compactJSON(v []byte) []byte {
	c := jsontext.Value(v).Clone()
	if err := c.Compact(); err != nil {
		return v
	}
	return c
}
