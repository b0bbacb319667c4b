package describe

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// Credits is "312 credits (4,680 tokens)" (one credit is 15 tokens); the
// count itself is text.Credits ("1 credit").
func Credits(credits float64) string {
	return text.Credits(credits) + " (" + Tokens(credits*model.TokensPerCredit) + " tokens)"
}

// RunCredits is a finished run's credits, saying which figure is billed:
// the service does not bill a failed run, whatever creditsUsed says.
func RunCredits(r *model.Run) string {
	s := Credits(r.CreditsUsed)
	if r.State == model.StateFinished && r.Outcome == model.OutcomeFailed && r.CreditsUsed > 0 {
		s += " used, 0 billed (a failed run is not billed)"
	}
	return s
}

// Tokens is a whole number with thousands separators: "4,680" (text.Whole).
func Tokens(n float64) string { return text.Whole(n) }

// OneLine makes s safe and single-line: it sanitises it (escape sequences,
// control, bidi and zero-width characters go), collapses runs of white space
// (newlines and tabs included) into one space, trims it and cuts it to max
// display cells with "…". max <= 0 means no limit.
func OneLine(s string, max int) string {
	cut := false
	if max > 0 && len(s) > max*8+64 {
		// Bound the work on huge strings: no cell takes more than 8 bytes
		// in practice.
		i := max*8 + 64
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s, cut = s[:i], true
	}
	s = text.Sanitize(s)
	if needsCollapse(s) {
		s = strings.Join(strings.Fields(s), " ")
	}
	if cut {
		s += "…"
	}
	return Truncate(s, max)
}

// needsCollapse reports whether s has white space other than single inner
// spaces.
func needsCollapse(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return true
	}
	prev := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' && prev == ' ', c == '\n', c == '\t', c == '\r', c == '\v', c == '\f':
			return true
		case c >= 0x80:
			// Non-ASCII white space (NBSP, NEL, ...): let Fields decide.
			r, _ := utf8.DecodeRuneInString(s[i:])
			if r == 0x85 || r == 0xa0 || r == 0x1680 || (r >= 0x2000 && r <= 0x200a) || r == 0x202f || r == 0x205f || r == 0x3000 {
				return true
			}
		}
		prev = c
	}
	return false
}

// Truncate cuts an already single-line, sanitised s to max display cells,
// ending with "…" when cut. max <= 0 means no limit.
func Truncate(s string, max int) string {
	if max <= 0 || ansi.StringWidth(s) <= max {
		return s
	}
	return ansi.Truncate(s, max, "…")
}

// Width is the display width of a sanitised string in cells.
func Width(s string) int { return ansi.StringWidth(s) }

// ASCII replaces the non-ASCII symbols this package puts into kinds and
// details ("…", "✓", "✗", "→") with ASCII, for --ascii. Text from the
// server is left as it is.
func ASCII(s string) string { return text.ASCII(s) }

// JSON is a short one-line form of a JSON value such as a tool call's
// parameters or result: an object's members as key=value
// ({"query":"web scraping","limit":5} → `query="web scraping" limit=5`),
// nested objects in braces, arrays of a few scalars inline and other arrays
// as "[N items]", long strings cut with "…". null is "null"; an absent value
// (empty v) is "". The result is never wider than max cells (max <= 0: no
// limit). Text that is not JSON is shown as text.
func JSON(v jsontext.Value, max int) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return ""
	}
	w := &jsonWriter{limit: 1 << 16}
	if max > 0 {
		w.limit = max*4 + 64
	}
	dec := jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	err := w.value(dec, 0)
	switch {
	case errors.Is(err, errFull):
		w.b.WriteString("…")
	case err != nil:
		return OneLine(string(v), max)
	}
	return Truncate(w.b.String(), max)
}

var errFull = errors.New("full")

type jsonWriter struct {
	b     strings.Builder
	limit int
}

func (w *jsonWriter) check() error {
	if w.b.Len() > w.limit {
		return errFull
	}
	return nil
}

// value writes the next value of dec. depth 0 is the top level, where an
// object's members are written without braces.
func (w *jsonWriter) value(dec *jsontext.Decoder, depth int) error {
	switch dec.PeekKind() {
	case '{':
		if depth >= 2 {
			raw, err := dec.ReadValue()
			if err != nil {
				return err
			}
			if len(bytes.TrimSpace(raw)) <= 2 || isEmptyObject(raw) {
				w.b.WriteString("{}")
			} else {
				w.b.WriteString("{…}")
			}
			return w.check()
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		if depth > 0 {
			w.b.WriteByte('{')
		}
		n := 0
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return err
			}
			if name.Kind() != '"' {
				return errors.New("object name is not a string")
			}
			if n > 0 {
				w.b.WriteByte(' ')
			}
			key := OneLine(name.String(), 32)
			if key == "" {
				key = `""`
			}
			w.b.WriteString(key)
			w.b.WriteByte('=')
			if err := w.value(dec, depth+1); err != nil {
				return err
			}
			n++
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		if depth > 0 {
			w.b.WriteByte('}')
		} else if n == 0 {
			w.b.WriteString("{}")
		}
		return w.check()
	case '[':
		return w.array(dec, depth)
	case 0:
		_, err := dec.ReadToken() // the error
		if err == nil {
			err = errors.New("no value")
		}
		return err
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	w.b.WriteString(scalar(tok, depth))
	return w.check()
}

// inlineItems is how many scalar items of an array are shown.
const inlineItems = 3

// array writes "[a, b, c]", "[a, b, c, +7 more]" for scalars, else
// "[N items]" (or "[]").
func (w *jsonWriter) array(dec *jsontext.Decoder, depth int) error {
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	var shown []string
	n, scalars := 0, true
	for dec.PeekKind() != ']' {
		switch k := dec.PeekKind(); k {
		case 0:
			_, err := dec.ReadToken()
			if err == nil {
				err = errors.New("no value")
			}
			return err
		case '{', '[':
			scalars = false
			if err := dec.SkipValue(); err != nil {
				return err
			}
		default:
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			if scalars && len(shown) < inlineItems {
				shown = append(shown, scalar(tok, depth+1))
			}
		}
		n++
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	switch {
	case n == 0:
		w.b.WriteString("[]")
	case !scalars:
		w.b.WriteString("[" + Count(n, "item") + "]")
	default:
		w.b.WriteString("[" + strings.Join(shown, ", "))
		if n > len(shown) {
			w.b.WriteString(", +" + Tokens(float64(n-len(shown))) + " more")
		}
		w.b.WriteString("]")
	}
	return w.check()
}

// scalar formats a string, number, boolean or null token. Strings are
// quoted and cut shorter the deeper they sit.
func scalar(tok jsontext.Token, depth int) string {
	switch tok.Kind() {
	case 'n':
		return "null"
	case 't':
		return "true"
	case 'f':
		return "false"
	case '0':
		return OneLine(tok.String(), 24)
	case '"':
		width := 80
		switch {
		case depth == 1:
			width = 60
		case depth > 1:
			width = 30
		}
		return strconv.Quote(OneLine(tok.String(), width))
	}
	return "?"
}

func isEmptyObject(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '{' {
		return false
	}
	return len(bytes.TrimSpace(raw[1:len(raw)-1])) == 0
}

// envelope are the fields every event carries; an unknown event's detail
// shows the others.
var envelope = map[string]bool{
	"schemaVersion": true, "eventId": true, "runId": true, "occurredAt": true,
	"producerSequence": true, "agent": true, "type": true,
}

// unknownFields is the object of raw's members that are not envelope
// fields, or raw itself when it cannot be read as an object.
func unknownFields(raw jsontext.Value) jsontext.Value {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return raw
	}
	out := []byte{'{'}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return raw
		}
		key := name.String()
		v, err := dec.ReadValue()
		if err != nil {
			return raw
		}
		if envelope[key] {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out, _ = jsontext.AppendQuote(out, key)
		out = append(out, ':')
		out = append(out, v...)
	}
	return append(out, '}')
}
