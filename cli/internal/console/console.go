// Package console is firewatch interact on a scrape's browser session:
// the full-screen console (ui/interact) with what is said around it, one
// call for scripts, and a stop. cli parses the flags and gives the
// client, the streams and started.go's rule as values.
package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/cli/internal/exitcode"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/interact"
)

// Logger is the command's --debug log.
type Logger interface {
	Printf(format string, args ...any)
}

// Flags are interact's flag values, --output already checked.
type Flags struct {
	JSON      bool // --output json
	Language  string
	Timeout   int
	SaveDir   string
	Code      string
	Prompt    string
	HasCode   bool // --code was given
	HasPrompt bool // --prompt was given
	Stop      bool
	NoColor   bool // --no-color or NO_COLOR
	ASCII     bool
}

// Request validates the flags and the code's bounds before a request
// (--code - reads it from stdin). nil: the console, or --stop.
func Request(f *Flags, stdin io.Reader) (*poller.InteractRequest, error) {
	if !slices.Contains(poller.InteractLanguages, f.Language) {
		return nil, exitcode.BadUsage("--language %q: it must be one of %s", text.Sanitize(f.Language), strings.Join(poller.InteractLanguages, ", "))
	}
	if f.Timeout < poller.MinInteractTimeout || f.Timeout > poller.MaxInteractTimeout {
		return nil, exitcode.BadUsage("--timeout %d: it must be from %d to %d seconds", f.Timeout, poller.MinInteractTimeout, poller.MaxInteractTimeout)
	}
	if f.SaveDir != "" {
		if fi, err := os.Stat(f.SaveDir); err != nil || !fi.IsDir() {
			return nil, exitcode.BadUsage("--save-dir %q: not a directory firewatch can save into", f.SaveDir)
		}
	}
	switch {
	case f.Stop && (f.HasCode || f.HasPrompt):
		return nil, exitcode.BadUsage("--stop ends the session: give it without --code or --prompt")
	case f.Stop:
		return nil, nil
	case f.HasCode && f.HasPrompt:
		return nil, exitcode.BadUsage("give --code or --prompt, not both")
	case !f.HasCode && !f.HasPrompt:
		return nil, nil // the console
	}
	req := &poller.InteractRequest{Language: f.Language, Timeout: f.Timeout, Origin: "firewatch"}
	if f.HasPrompt {
		if strings.TrimSpace(f.Prompt) == "" {
			return nil, exitcode.BadUsage("--prompt is empty")
		}
		req.Prompt = f.Prompt
		return req, nil
	}
	code := f.Code
	if code == "-" {
		b, err := io.ReadAll(io.LimitReader(stdin, 4*poller.MaxInteractCode+1))
		if err != nil {
			return nil, exitcode.BadUsage("--code -: reading stdin: %v", err)
		}
		code = strings.TrimSuffix(string(b), "\n")
	}
	if code == "" {
		return nil, exitcode.BadUsage("--code is empty: give the code to run (at least 1 character)")
	}
	req.Code = code
	if err := req.Validate(); err != nil {
		return nil, exitcode.BadUsage("--code: %v", err)
	}
	return req, nil
}

// Env is what a command on a browser session works with.
type Env struct {
	Client  *poller.Client
	Stdin   io.Reader // the console's keys
	Stdout  io.Writer // the console's screen
	Print   io.Writer // stdout for an answer (guarded)
	Stderr  io.Writer
	Secrets *text.Secrets
	Debug   Logger // nil: none
	// Started says that what with id started, on w and in the debug log
	// (started.go's rule).
	Started func(w io.Writer, what, id string)
	// MayHaveStarted reports whether a failed request may have opened
	// the session all the same.
	MayHaveStarted func(error) bool
	// Hold is stderr held while the console has the terminal, and the
	// function that writes out what was held.
	Hold func() (w io.Writer, release func())
}

func (e *Env) debugf(format string, args ...any) {
	if e.Debug != nil {
		e.Debug.Printf(format, args...)
	}
}

// Call makes one call and prints its answer; the error is its exit code.
func (e *Env) Call(ctx context.Context, f *Flags, id string, req *poller.InteractRequest) error {
	res, err := e.Client.Interact(ctx, id, req)
	if err != nil {
		e.debugf("the call failed: %v", err)
		if e.MayHaveStarted(err) {
			// It reached the service: the session may be open.
			msg := fmt.Sprintf("the call reached the service: the browser session of scrape %s may be open, and billed, until the service times it out; end it with: firewatch interact %s --stop", id, id)
			fmt.Fprintf(e.Stderr, "firewatch: %s\n", msg)
			e.debugf("%s", msg)
		}
		if ctx.Err() != nil {
			return exitcode.ErrInterrupted
		}
		return err
	}
	if res.LiveViewURL != "" || res.CDPURL != "" || res.InteractiveLiveViewURL != "" {
		e.debugf("the call ran; the browser session of scrape %s is open, and billed, until stopped or timed out", id)
	}
	return e.printCall(f, res)
}

// printCall writes one call's answer and returns its exit code.
func (e *Env) printCall(f *Flags, res *poller.InteractResult) error {
	if f.JSON {
		fmt.Fprintf(e.Print, "%s\n", CompactLine(e.Secrets, res.Raw))
		return &exitcode.InteractEnd{Res: res}
	}
	if res.HasOutput && res.Output != "" {
		fmt.Fprintln(e.Print, strings.TrimSuffix(text.Sanitize(res.Output), "\n"))
	}
	if res.Stdout != "" {
		io.WriteString(e.Print, text.Sanitize(res.Stdout))
	}
	if res.Stderr != "" {
		// The code's stderr ends its own line, whatever it sent.
		io.WriteString(e.Stderr, strings.TrimSuffix(text.Sanitize(res.Stderr), "\n")+"\n")
	}
	for _, l := range [][2]string{{"Live view", res.LiveViewURL}, {"Interactive live view (controls the browser)", res.InteractiveLiveViewURL}, {"CDP", res.CDPURL}} {
		if l[1] != "" {
			fmt.Fprintf(e.Stderr, "%s: %s\n", l[0], linkText(l[1]))
		}
	}
	switch {
	case res.Killed:
		fmt.Fprintf(e.Stderr, "firewatch: killed after %ds (the --timeout); nothing more ran\n", f.Timeout)
	case res.Error != "" && !strings.Contains(res.Stderr, res.Error):
		fmt.Fprintf(e.Stderr, "firewatch: exception: %s\n", text.Sanitize(res.Error))
	}
	return &exitcode.InteractEnd{Res: res}
}

// Stop stops the scrape's browser session (--stop).
func (e *Env) Stop(ctx context.Context, jsonOut bool, id string) error {
	res, err := e.Client.StopInteract(ctx, id)
	if err != nil {
		return err
	}
	if jsonOut {
		type out struct {
			ScrapeID          string   `json:"scrapeId"`
			Stopped           bool     `json:"stopped"`
			Message           string   `json:"message,omitempty"`
			SessionDurationMs int64    `json:"sessionDurationMs,omitzero"`
			CreditsBilled     *float64 `json:"creditsBilled,omitempty"`
		}
		b, _ := json.Marshal(out{id, !res.NoSession, res.Message, res.SessionDuration.Milliseconds(), res.CreditsBilled})
		fmt.Fprintf(e.Print, "%s\n", b)
		return nil
	}
	if res.NoSession {
		fmt.Fprintf(e.Stderr, "firewatch: no browser session to stop for scrape %s: %q — nothing is billed for it\n", id, res.Message)
		return nil
	}
	fmt.Fprintln(e.Stderr, "firewatch: "+stoppedText(id, res))
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

// StopOnSignal stops the browser session the console opened when a signal
// ended it (SIGHUP: the terminal is gone; SIGTERM, SIGINT) or a second
// Ctrl-C left the leave question unanswered: nobody answered, and the
// session is billed while open. What was done is said on stderr and in
// the debug log; why is the reason given with a stop.
func (e *Env) StopOnSignal(ctx context.Context, id, why string) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	res, err := e.Client.WithRetry(poller.Retry{Tries: 1}).StopInteract(sctx, id)
	var msg string
	switch {
	case err != nil:
		msg = fmt.Sprintf("interrupted: the browser session of scrape %s could not be stopped (%s); it stays open, and billed, until the service times it out; end it with: firewatch interact %s --stop", id, text.Sanitize(err.Error()), id)
	case res.NoSession:
		msg = fmt.Sprintf("interrupted: the browser session of scrape %s had already ended", id)
	default:
		msg = "interrupted: " + stoppedText(id, res) + ", since " + why
	}
	fmt.Fprintf(e.Stderr, "firewatch: %s\n", msg)
	e.debugf("%s", msg)
}

// Console shows the console on scrape id's browser.
func (e *Env) Console(ctx context.Context, f *Flags, id string) error {
	e.debugf("interact console, scrape %s", id)
	// The browser session a call opens is billed: said like every billed
	// start (started.go), on stderr once the console has given the
	// terminal back when stderr is that terminal.
	errw, release := e.Hold()
	defer release()
	b := &sessionBackend{Backend: interact.ClientBackend(e.Client.WithRetry(poller.Retry{Tries: 1}), id), e: e, id: id, errw: errw}
	res, err := interact.Run(ctx, interact.Config{
		// The console's calls ask once: a wait on a 429 would be unsaid
		// behind the screen; the error on screen names the service's delay.
		ScrapeID: id, Backend: b,
		Language: f.Language, Timeout: f.Timeout, NoColor: f.NoColor, ASCII: f.ASCII, SaveDir: f.SaveDir,
		Input: e.Stdin, Output: e.Stdout,
	})
	release()
	// open: a call opened the session, or failed in a way that may have.
	open := res.SessionOpen || b.maybe()
	switch {
	case res.Stopped:
		fmt.Fprintf(e.Stderr, "firewatch: %s (scrape %s)\n", res.StopNote, id)
	case open && errors.As(context.Cause(ctx), new(*exitcode.InterruptedError)):
		e.StopOnSignal(ctx, id, "nobody can be asked any more")
	case open && res.Interrupted:
		e.StopOnSignal(ctx, id, "ctrl+c left the question unanswered")
	case open && !res.SessionOpen:
		fmt.Fprintf(e.Stderr, "firewatch: a call failed after it reached the service: the browser session of scrape %s may be open, and billed, until the service times it out; end it with: firewatch interact %s --stop\n", id, id)
	case res.Kept || res.SessionOpen:
		fmt.Fprintf(e.Stderr, "firewatch: the browser session of scrape %s stays open, and billed, until the service times it out; end it with: firewatch interact %s --stop\n", id, id)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		// A signal: 130, also when the terminal it came with (SIGHUP) took
		// the console's last writes down with it.
		return exitcode.ErrInterrupted
	case res.OutputErr != nil:
		// The console drew into nothing: 8.
		return &exitcode.OutputError{Name: "stdout", Err: res.OutputErr}
	case err != nil:
		return err
	case res.Interrupted:
		return exitcode.ErrInterrupted
	}
	return nil
}

// sessionBackend is the console's Backend: the first answer that shows the
// scrape's browser session open (its links) says that it started, on
// stderr and in the debug log; a call that failed in a way that may have
// opened it (no answer in time, a 5xx) is noted in the debug log at once.
type sessionBackend struct {
	interact.Backend
	e    *Env
	id   string
	errw io.Writer

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
		b.e.Started(b.errw, "browser session of scrape", b.id)
	case err != nil && !b.unsure && b.e.MayHaveStarted(err):
		b.unsure = true
		b.e.debugf("a call failed after it reached the service (%v): the browser session of scrape %s may have started", err, b.id)
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

// CompactLine is v as one line of JSON, the secrets redacted.
func CompactLine(secrets *text.Secrets, v jsontext.Value) []byte {
	red, _ := secrets.RedactJSON(v) // the key, in whatever form the service echoed it
	return CompactJSON(red)
}

// CompactJSON is v on one line; v as it is when it is not JSON.
func CompactJSON(v []byte) []byte {
	c := jsontext.Value(v).Clone()
	if err := c.Compact(); err != nil {
		return v
	}
	return c
}
