package watchprint

import (
	"bytes"
	"fmt"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// JSON writes NDJSON: one line per new event, exactly the object the
// server sent, in the order first seen. Nothing else goes to stdout;
// connection trouble, the heartbeat and the closing line go to stderr.
type JSON struct {
	w   Watch
	buf []byte
}

// NewJSON is the JSON printer of w.
func NewJSON(w Watch) *JSON { return &JSON{w: w} }

// jsonBatch is how many bytes of whole lines the printer gathers before a
// write: a first poll of a long run brings thousands of events at once,
// and one write per line made that many system calls.
const jsonBatch = 64 << 10

// Events writes one poll's new events, a line each.
func (p *JSON) Events(evs []*model.Event) {
	// Whole lines only, one write per batch and at least one per poll: a
	// reader never sees half a line, and jq gets each event as soon as
	// the poll that brought it is read.
	p.buf = p.buf[:0]
	for _, e := range evs {
		start := len(p.buf)
		p.buf = append(EventLine(p.buf, e.Raw, p.w.Secrets), '\n')
		if p.w.Width > 0 || p.w.Remote {
			// A person reads this on a terminal (a hub session's output
			// is shown on one, pty or not): the same JSON, with the
			// characters a terminal could act on written as escapes.
			line := p.buf[start:]
			if esc := EscapeForTerminal(line); &esc[0] != &line[0] {
				p.buf = append(p.buf[:start], esc...)
			}
		}
		if len(p.buf) >= jsonBatch {
			p.flush()
		}
	}
	p.flush()
}

func (p *JSON) flush() {
	if len(p.buf) == 0 {
		return
	}
	if _, err := p.w.Stdout.Write(p.buf); err != nil {
		p.w.debugf("writing stdout: %v", err)
	}
	p.buf = p.buf[:0]
	if cap(p.buf) > 4*jsonBatch {
		p.buf = nil // one huge event: let it go
	}
}

// EventLine appends raw as one line. The server may pretty-print; every
// newline or carriage return in valid JSON text is white space between
// tokens (inside strings they must be escaped), so the value is compacted,
// or when it cannot be (it is kept even if not strictly valid) those bytes
// become spaces. All fields stay as they were sent.
func EventLine(dst []byte, raw jsontext.Value, secrets *text.Secrets) []byte {
	raw, _ = secrets.RedactJSON(raw) // the key in any form (the model's events are already)
	if bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 {
		return append(dst, raw...)
	}
	v := raw.Clone()
	if err := v.Compact(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)); err == nil {
		return append(dst, v...)
	}
	start := len(dst)
	dst = append(dst, raw...)
	for i := start; i < len(dst); i++ {
		if dst[i] == '\n' || dst[i] == '\r' {
			dst[i] = ' '
		}
	}
	return dst
}

// Health says a change of the connection's health on stderr.
func (p *JSON) Health(msg string) {
	fmt.Fprintf(p.w.Stderr, "firewatch: %s\n", msg)
}

// Heartbeat says the run is still going on stderr.
func (p *JSON) Heartbeat(idle time.Duration) {
	fmt.Fprintf(p.w.Stderr, "firewatch: %s\n", HeartbeatText(p.w, idle, false))
}

// End writes the run in one line on stderr.
func (p *JSON) End(note string) {
	fmt.Fprintf(p.w.Stderr, "firewatch: %s\n", outcomeLine(p.w, note, false))
}

// outcomeLine is the run in one line: "run 3f2a9c1e succeeded in 1m02s ·
// 312 credits (4,680 tokens)", with the fatal error when it did not
// succeed, or where it stands and why watching stopped when it has not
// finished.
func outcomeLine(w Watch, note string, ascii bool) string {
	s := w.Run.Store
	r := s.Run()
	const dot = " · "
	line := "run"
	if id := r.ID; id != "" {
		line += " " + describe.ShortID(id)
	} else if w.JobID != "" {
		line += " " + describe.ShortID(w.JobID)
	}
	if r.State == model.StateFinished {
		line += " " + OrDash(string(r.Outcome))
		if d, ok := r.Duration(); ok {
			line += " in " + text.Duration(d)
		}
		switch {
		case r.Outcome == model.OutcomeCreditLimitReached:
			b := w.Run.Tracker().Burn()
			line += ": " + describe.CapHit(b.Cap, b.CapAssumed, r.CreditsUsed)
		case r.Outcome != model.OutcomeSucceeded && r.Error != nil:
			line += ": " + describe.Error(r.Error)
		}
	} else {
		line += " still running"
		if r.CancelRequested {
			line += " (cancel requested)"
		}
		if r.Phase != "" {
			line += dot + string(r.Phase)
			if r.Message != "" {
				line += ": " + r.Message
			}
		}
		if note != "" {
			line += dot + note
		}
	}
	if r.HasCredits {
		line += dot + describe.Credits(r.CreditsUsed)
	}
	// Whole, not cut: it stays in the scrollback (the error in it is
	// bounded by describe.Error).
	line = describe.OneLine(line, 0)
	if ascii {
		line = text.ASCII(line)
	}
	return line
}

// HeartbeatText is "… still running: working — 'Comparing pricing' · 312
// credits · last event 45s ago".
func HeartbeatText(w Watch, idle time.Duration, ascii bool) string {
	r := w.Run.Store.Run()
	var b bytes.Buffer
	b.WriteString("… still running")
	if r.State == model.StateFinished {
		b.Reset()
		b.WriteString("… finished, waiting for late events")
	} else if r.CancelRequested {
		b.WriteString(" (cancel requested)")
	}
	if r.Phase != "" {
		b.WriteString(": " + string(r.Phase))
		if r.Message != "" {
			b.WriteString(" — '" + r.Message + "'")
		}
	}
	if r.HasCredits {
		b.WriteString(" · " + text.Credits(r.CreditsUsed))
	}
	if w.Run.Store.Len() == 0 {
		b.WriteString(" · no events yet")
	} else {
		b.WriteString(" · last event " + text.Elapsed(idle) + " ago")
	}
	line := describe.OneLine(b.String(), describe.MaxDetailWidth)
	if ascii {
		line = text.ASCII(line)
	}
	return line
}

// OrDash is s, or "-" for nothing.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// EscapeForTerminal rewrites a line of JSON so that no character a terminal
// could act on appears raw: C1 controls, DEL, bidi and other format
// characters (Unicode Cf), the line and paragraph separators, and invalid
// UTF-8. Outside strings JSON text is ASCII tokens and white space, so they
// can only sit inside strings, where the \uXXXX escape denotes the same
// character (invalid bytes become \ufffd, which they mean anyway). C0
// controls cannot appear raw in JSON strings; newlines were removed before.
func EscapeForTerminal(b []byte) []byte {
	clean := true
	for _, c := range b {
		if c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x7f {
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			out = append(out, `\ufffd`...)
		case r <= 0x9f, r == 0x2028, r == 0x2029, unicode.Is(unicode.Cf, r):
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		default:
			out = append(out, b[i:i+n]...)
		}
		i += max(n, 1)
	}
	return out
}
