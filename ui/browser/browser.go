// Package browser opens a link in the user's web browser when the program
// runs on a desktop, and says why it cannot otherwise, so that the caller can
// copy the link instead (see package clipboard) and tell the user so.
//
// A desktop is: macOS (open), Windows (rundll32 url.dll,FileProtocolHandler),
// or Linux and the BSDs with a graphical session (DISPLAY or WAYLAND_DISPLAY
// set) that is not reached over SSH (SSH_CONNECTION and SSH_TTY unset), where
// xdg-open is used. Over SSH a browser would open on the remote machine, if
// anywhere, so it is never tried.
//
// Only absolute http and https links with a host are opened; anything else
// (javascript:, file:, data:, links with spaces, control, bidi or zero-width
// characters) is refused. No shell is involved: the link is one argument of
// the opener.
package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// MaxURL is the longest link that is opened.
const MaxURL = 8192

// Timeout bounds how long Open waits for the opener.
const Timeout = 10 * time.Second

// ErrNoDesktop is wrapped by the error Open returns when no browser can be
// opened here; the message says why ("over SSH", "no DISPLAY...").
var ErrNoDesktop = errors.New("cannot open a browser here")

// ErrBadURL is wrapped by the error Open and Check return for a link that
// must not be opened.
var ErrBadURL = errors.New("not an http(s) link")

// Opener decides whether and how a link can be opened. The zero value is not
// usable; use New, or set every field (tests do).
type Opener struct {
	GOOS   string                  // runtime.GOOS
	Getenv func(key string) string // os.Getenv
	// Run runs the opener program with its arguments; New's runs it with
	// no stdin/stdout/stderr (so that nothing it prints reaches the screen)
	// and reports its failure if it exits within a few seconds.
	Run func(ctx context.Context, name string, args ...string) error
	// Remote, when set, says why the program's screen is not this
	// machine's (a hub's SSH session): a browser would open here, on the
	// wrong desk, so none is, whatever the system.
	Remote string
}

// New returns the Opener for this machine.
func New() Opener {
	return Opener{GOOS: runtime.GOOS, Getenv: os.Getenv, Run: run}
}

// settle is how long run waits for the opener to exit: xdg-open and open
// return at once, but some openers stay in the foreground as long as the
// browser they started runs. Such an opener is left running (and reaped
// when it exits) and the open counts as done.
var settle = 3 * time.Second

func run(ctx context.Context, name string, args ...string) error {
	// Nil stdin, stdout and stderr are /dev/null: the opener must not
	// write over the screen or read the terminal.
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t := time.NewTimer(settle)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return nil
	case <-ctx.Done():
		return nil
	}
}

// Command returns the program and arguments that open link here, or an
// error wrapping ErrNoDesktop that says why none can. It does not check the
// link (see Check).
func (o Opener) Command(link string) (name string, args []string, err error) {
	if o.Remote != "" {
		return "", nil, fmt.Errorf("%w: %s", ErrNoDesktop, o.Remote)
	}
	switch o.GOOS {
	case "darwin":
		return "open", []string{link}, nil
	case "windows":
		// rundll32 rather than "cmd /c start": cmd.exe would interpret &
		// and other characters of the link.
		return "rundll32", []string{"url.dll,FileProtocolHandler", link}, nil
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly", "solaris", "illumos":
		if o.Getenv("SSH_CONNECTION") != "" || o.Getenv("SSH_TTY") != "" {
			return "", nil, fmt.Errorf("%w: running over SSH", ErrNoDesktop)
		}
		if o.Getenv("DISPLAY") == "" && o.Getenv("WAYLAND_DISPLAY") == "" {
			return "", nil, fmt.Errorf("%w: no graphical session (DISPLAY and WAYLAND_DISPLAY are unset)", ErrNoDesktop)
		}
		return "xdg-open", []string{link}, nil
	}
	return "", nil, fmt.Errorf("%w: no known way to open a browser on %s", ErrNoDesktop, o.GOOS)
}

// CanOpen reports whether a browser can be opened here, and if not, why.
func (o Opener) CanOpen() (ok bool, why string) {
	if _, _, err := o.Command("https://example.com"); err != nil {
		return false, err.Error()
	}
	return true, ""
}

// Check returns nil for a link that may be opened: an absolute http or https
// URL with a host, at most MaxURL bytes, without spaces, control, bidi or
// zero-width characters. Otherwise the error wraps ErrBadURL.
func Check(link string) error {
	if link == "" {
		return fmt.Errorf("%w: empty", ErrBadURL)
	}
	if len(link) > MaxURL {
		return fmt.Errorf("%w: longer than %d bytes", ErrBadURL, MaxURL)
	}
	for _, r := range link {
		switch {
		case r == utf8.RuneError:
			return fmt.Errorf("%w: invalid UTF-8", ErrBadURL)
		case r <= ' ' || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			return fmt.Errorf("%w: contains a space or control character", ErrBadURL)
		case unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) || r == '\u2028' || r == '\u2029':
			return fmt.Errorf("%w: contains an invisible or formatting character", ErrBadURL)
		}
	}
	u, err := url.Parse(link)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return fmt.Errorf("%w: no scheme", ErrBadURL)
	default:
		return fmt.Errorf("%w: scheme %q is not allowed", ErrBadURL, u.Scheme)
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("%w: no host", ErrBadURL)
	}
	return nil
}

// Open opens link in a browser, or fails: with an error wrapping ErrBadURL
// for a link that must not be opened, wrapping ErrNoDesktop when no browser
// can be opened here, or the opener's own error. It blocks until the opener
// exits (at most Timeout): call it from a command, not from Update.
func (o Opener) Open(ctx context.Context, link string) error {
	if err := Check(link); err != nil {
		return err
	}
	name, args, err := o.Command(link)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	if err := o.Run(ctx, name, args...); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// OpenedMsg reports the outcome of OpenCmd.
type OpenedMsg struct {
	URL string
	Err error
}

// NoDesktop reports whether the link was not opened because no browser can
// be opened here: the caller should copy it instead and say so.
func (m OpenedMsg) NoDesktop() bool { return errors.Is(m.Err, ErrNoDesktop) }

// OpenCmd returns a command that opens link and reports an OpenedMsg. The
// decision is taken now (so a refusal costs no goroutine work); the opener
// runs in the command.
func (o Opener) OpenCmd(link string) tea.Cmd {
	if err := Check(link); err != nil {
		return func() tea.Msg { return OpenedMsg{URL: link, Err: err} }
	}
	if _, _, err := o.Command(link); err != nil {
		return func() tea.Msg { return OpenedMsg{URL: link, Err: err} }
	}
	return func() tea.Msg {
		return OpenedMsg{URL: link, Err: o.Open(context.Background(), link)}
	}
}
