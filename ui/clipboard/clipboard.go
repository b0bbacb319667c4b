// Package clipboard copies text to the clipboard of the terminal the program
// runs in, with the OSC 52 escape sequence. It works over SSH, because the
// terminal emulator on the user's desk does the copying, not the machine the
// program runs on.
//
// What makes it work:
//
//   - The terminal must support OSC 52 writes: kitty, WezTerm, iTerm2 (enable
//     "Applications in terminal may access clipboard"), Alacritty, foot,
//     Windows Terminal, Ghostty, recent xterm (allowWindowOps / disallowedWindowOps
//     must allow SetSelection), Konsole 24.02+, and others. GNOME Terminal and
//     other VTE terminals ignore it.
//   - Inside tmux (TMUX set), the sequence is sent twice: once plain, which tmux
//     takes when `set -g set-clipboard on` is set (tmux then sets its own buffer
//     and forwards it to the outer terminal), and once wrapped in tmux's DCS
//     passthrough, which tmux forwards as it is when `set -g allow-passthrough on`
//     is set (tmux 3.3 and later; before 3.3 passthrough was always allowed).
//     Either setting is enough; with neither, tmux drops both silently.
//   - Inside GNU screen (STY set, or TERM=screen*), the sequence is wrapped in
//     screen's DCS passthrough, in chunks of at most 768 bytes.
//
// Many terminals cap the size of an OSC 52 sequence (xterm and tmux around
// 100 kB, some less). Above Options.Limit the copy is refused with an error
// that says how much was asked for and how much fits, so the caller can offer
// to save to a file instead.
//
// The text is sanitised before it is encoded (text.Sanitize: escape
// sequences, control characters other than newline and tab, bidi and
// zero-width characters are removed), so that nothing from the server can
// reach the clipboard, and from there a shell, as control characters.
package clipboard

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/text"
)

// DefaultLimit is the largest escape sequence Sequence builds by default, in
// bytes. About 74 kB of text fits in it (base64 takes 4 bytes for 3).
const DefaultLimit = 100_000

// screenChunk is GNU screen's limit on the length of a string sequence.
const screenChunk = 768

// Options say where the program runs and how much may be sent.
type Options struct {
	// Getenv reads the environment (TMUX, STY, TERM); nil means os.Getenv.
	Getenv func(key string) string
	// Limit is the largest sequence, in bytes, that may be sent; 0 means
	// DefaultLimit.
	Limit int
}

func (o Options) getenv(k string) string {
	if o.Getenv == nil {
		return os.Getenv(k)
	}
	return o.Getenv(k)
}

func (o Options) limit() int {
	if o.Limit <= 0 {
		return DefaultLimit
	}
	return o.Limit
}

// Multiplexer is what sits between the program and the terminal.
type Multiplexer int

const (
	None   Multiplexer = iota
	Tmux               // TMUX is set
	Screen             // STY is set, or TERM starts with "screen" outside tmux
)

func (m Multiplexer) String() string {
	switch m {
	case Tmux:
		return "tmux"
	case Screen:
		return "screen"
	}
	return "none"
}

// Detect tells which multiplexer the environment names.
func (o Options) Detect() Multiplexer {
	switch {
	case o.getenv("TMUX") != "":
		return Tmux
	case o.getenv("STY") != "" || strings.HasPrefix(o.getenv("TERM"), "screen"):
		return Screen
	}
	return None
}

// ErrEmpty is returned when there is nothing left to copy after sanitising.
var ErrEmpty = errors.New("nothing to copy")

// TooLargeError is returned when the text does not fit in Options.Limit.
type TooLargeError struct {
	Size int // bytes of text asked for, after sanitising
	Max  int // bytes of text that would fit
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("too large to copy to the clipboard: %s (the terminal takes at most %s with OSC 52)",
		text.Size(e.Size), text.Size(e.Max))
}

// Sequence returns the bytes that copy text to the clipboard: the OSC 52
// sequence with the sanitised text base64-encoded, wrapped for the
// multiplexer named by the environment. It fails with ErrEmpty when nothing
// is left to copy and with a *TooLargeError above the limit.
func Sequence(s string, opts Options) ([]byte, error) {
	s = text.Sanitize(s)
	if s == "" {
		return nil, ErrEmpty
	}
	mux := opts.Detect()
	limit := opts.limit()
	if base64.StdEncoding.EncodedLen(len(s)) > limit {
		// Too large whatever the framing: do not build it.
		return nil, &TooLargeError{Size: len(s), Max: maxText(limit, mux)}
	}
	seq := ansi.SetSystemClipboard(s)
	var out, largest string
	switch mux {
	case Tmux:
		wrapped := ansi.TmuxPassthrough(seq)
		out, largest = seq+wrapped, wrapped
	case Screen:
		out = ansi.ScreenPassthrough(seq, screenChunk)
		largest = out
	default:
		out, largest = seq, seq
	}
	if len(largest) > limit {
		return nil, &TooLargeError{Size: len(s), Max: maxText(limit, mux)}
	}
	return []byte(out), nil
}

// framing is what the largest sequence sent adds to the base64 payload of n
// bytes: "ESC ] 52 ; c ;" and BEL, plus tmux's "ESC P tmux ;", the doubled
// ESC and "ESC \", or screen's "ESC P" and "ESC \" around each chunk.
func framing(mux Multiplexer, n int) int {
	const osc52 = len("\x1b]52;c;\a")
	switch mux {
	case Tmux:
		return osc52 + len("\x1bPtmux;\x1b\x1b\\")
	case Screen:
		chunks := (osc52 + n + screenChunk - 1) / screenChunk
		return osc52 + 4*chunks
	}
	return osc52
}

// maxText is the longest text whose largest sequence fits in limit.
func maxText(limit int, mux Multiplexer) int {
	// Text comes in 3-byte groups of 4 base64 bytes; search down from the
	// bound that ignores framing.
	n := limit / 4 * 3
	for n > 0 && base64.StdEncoding.EncodedLen(n)+framing(mux, base64.StdEncoding.EncodedLen(n)) > limit {
		n -= 3
	}
	return max(n, 0)
}

// CopiedMsg reports the outcome of Copy: Err is nil when the sequence was
// written (whether the terminal honoured it cannot be known).
type CopiedMsg struct {
	What  string // the caller's label, e.g. "tool call id"
	Bytes int    // bytes of text copied, after sanitising
	Err   error
}

// Status is a one-line message for the footer: "copied tool call id (36 B)"
// or the reason it was not copied.
func (m CopiedMsg) Status() string {
	if m.Err != nil {
		return "not copied: " + m.Err.Error()
	}
	return fmt.Sprintf("copied %s (%s)", m.What, text.Size(m.Bytes))
}

// Copy returns a command that writes the OSC 52 sequence for text to the
// terminal, through tea.Raw (the program writes it as it is, between
// frames), and reports a CopiedMsg labelled what. When the text cannot be
// copied, only the CopiedMsg with the error is reported.
//
// tea.SetClipboard is not used because it never wraps the sequence for tmux
// or screen and has no size limit.
func Copy(s, what string, opts Options) tea.Cmd {
	seq, err := Sequence(s, opts)
	if err != nil {
		return func() tea.Msg { return CopiedMsg{What: what, Err: err} }
	}
	n := len(text.Sanitize(s))
	return tea.Batch(
		tea.Raw(string(seq)),
		func() tea.Msg { return CopiedMsg{What: what, Bytes: n} },
	)
}
