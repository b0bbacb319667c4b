package interact

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// The scrollback shows as many of an output's last lines as its height
// leaves room for, at least minTail; keepTail are kept for it. The whole
// is in the content viewer (ctrl+o).
const (
	minTail  = 12
	keepTail = 500
)

// maxTailLine is the most bytes of one line the scrollback keeps: wider
// than any screen, so a 10 MB line costs each frame 2 KiB, not its size
// (the whole stays for ctrl+o and ctrl+s).
const maxTailLine = 2048

// maxSentLines is how many lines of what was sent the scrollback shows.
const maxSentLines = 8

// output is one output (stdout, stderr or the agent's answer), sanitised
// once when it arrived: its whole, its size and line count, and its tail.
type output struct {
	whole string
	lines int      // lines in whole
	tail  []string // the last keepTail lines, each at most maxTailLine bytes and "…"
}

func newText(raw string) output {
	if raw == "" {
		return output{}
	}
	s := strings.TrimSuffix(text.Sanitize(raw), "\n")
	t := output{whole: s, lines: strings.Count(s, "\n") + 1}
	// Walk back from the end: the cost is the tail's, not the whole's.
	end := len(s)
	for i := 0; i < keepTail && end >= 0; i++ {
		j := strings.LastIndexByte(s[:end], '\n')
		t.tail = append(t.tail, capLine(s[j+1:end]))
		end = j
		if j < 0 {
			break
		}
	}
	for i, j := 0, len(t.tail)-1; i < j; i, j = i+1, j-1 {
		t.tail[i], t.tail[j] = t.tail[j], t.tail[i]
	}
	return t
}

// capLine cuts l to maxTailLine bytes at a rune's start, marked "…".
func capLine(l string) string {
	if len(l) <= maxTailLine {
		return l
	}
	i := maxTailLine
	for i > 0 && !utf8.RuneStart(l[i]) {
		i--
	}
	return l[:i] + "…"
}

// exchange is one call: what was sent and what came back.
type exchange struct {
	n        int // 1-based
	prompt   bool
	language string
	timeout  int
	sent     string // sanitised
	started  time.Time
	running  bool
	dur      time.Duration

	stdout, stderr, output output
	exitCode               *int
	killed                 bool
	exception              string // sanitised
	err                    string // the call failed: message and what to do, sanitised

	// lines are the rendered lines at width w and scrollback height h
	// (nil: not rendered yet).
	lines []string
	w, h  int
}

// result is what a finished call brings: prepared off the update loop.
type result struct {
	n         int
	dur       time.Duration
	res       *poller.InteractResult
	stdout    output
	stderr    output
	output    output
	exception string
	err       error
}

// prepare sanitises and cuts the answer (in the command, not the update
// loop: a 10 MB stdout is read once, here).
func prepare(n int, res *poller.InteractResult, err error, dur time.Duration) result {
	r := result{n: n, res: res, err: err, dur: dur}
	if res == nil {
		return r
	}
	r.stdout = newText(res.Stdout)
	r.stderr = newText(res.Stderr)
	if res.HasOutput {
		r.output = newText(res.Output)
	}
	r.exception = text.Sanitize(res.Error)
	return r
}

func (e *exchange) finish(r result) {
	e.running = false
	e.dur = r.dur
	e.lines = nil
	if r.err != nil {
		e.err = text.Sanitize(errText(r.err))
		return
	}
	e.stdout, e.stderr, e.output = r.stdout, r.stderr, r.output
	e.exitCode = r.res.ExitCode
	e.killed = r.res.Killed
	e.exception = r.exception
}

// errText is the error's message; a *poller.Error already says what to do.
func errText(err error) string {
	var pe *poller.Error
	if errors.As(err, &pe) {
		return pe.Error()
	}
	return err.Error()
}

// whole is everything the call printed, for the viewer and for saving.
func (e *exchange) whole() string {
	var b strings.Builder
	if e.output.whole != "" {
		b.WriteString(e.output.whole)
		b.WriteString("\n")
	}
	if e.stdout.whole != "" {
		b.WriteString(e.stdout.whole)
		b.WriteString("\n")
	}
	if e.stderr.whole != "" {
		if b.Len() > 0 {
			b.WriteString("\n--- stderr ---\n")
		}
		b.WriteString(e.stderr.whole)
		b.WriteString("\n")
	}
	return b.String()
}

func (e *exchange) hasOutput() bool {
	return e.output.whole != "" || e.stdout.whole != "" || e.stderr.whole != ""
}

// hardWrap cuts s's lines longer than w cells into lines of w cells, cheaply
// for ASCII (a 10 MB line is sliced, not measured rune by rune).
func hardWrap(s string, w int) string {
	if w < 1 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/max(w, 1) + 1)
	for len(s) > 0 {
		line := s
		rest := ""
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, rest = s[:i], s[i+1:]
		}
		switch {
		case len(line) <= w:
			b.WriteString(line)
		case isASCII(line):
			for len(line) > w {
				b.WriteString(line[:w])
				b.WriteByte('\n')
				line = line[w:]
			}
			b.WriteString(line)
		default:
			b.WriteString(ansi.Hardwrap(line, w, true))
		}
		if rest != "" || strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
		s = rest
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] == '\t' {
			return false
		}
	}
	return true
}
