package text

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Redacted is what a secret is replaced with wherever it appears.
const Redacted = "[redacted]"

// The secrets (the API key) that must never reach any output. A server may
// echo the key in a form that is not the key's own bytes and becomes them
// only after one of our transformations: a letter written as a JSON \u
// escape (or \/), a zero-width or bidi character, a control character or a
// whole escape sequence inside it. Unescaping JSON and sanitising (this
// package's Sanitize) both rebuild the key from such a form. So redaction
// happens after them, in the places every byte from the server passes
// through on its way out:
//
//   - Sanitize, which every server string passes before it is shown or
//     written as text, redacts the secrets from its result;
//   - RedactJSON, for JSON that is written out as JSON (the trace's events
//     re-emitted by --output json, recordings, the raw event views and
//     copies, exports, the one-shot commands' -o json): every string in it
//     whose unescaped or sanitised content holds a secret is replaced;
//   - Redact, for a string that is neither (an error message, a log line).
//
// The poller registers its key (AddSecret) when a client is made, so that
// every path out knows it without being told. The secret is matched
// case-sensitively and whole; a key split over two separate JSON strings is
// two harmless halves and is not looked for.
var secrets atomic.Pointer[[]string]

var secretsMu sync.Mutex

// AddSecret registers s (at least 8 bytes; shorter ones would redact
// ordinary text and are ignored) as a string no output may carry.
func AddSecret(s string) {
	if len(s) < 8 {
		return
	}
	secretsMu.Lock()
	defer secretsMu.Unlock()
	var list []string
	if p := secrets.Load(); p != nil {
		list = *p
	}
	for _, have := range list {
		if have == s {
			return
		}
	}
	list = append(list[:len(list):len(list)], s)
	secrets.Store(&list)
}

func secretList() []string {
	if p := secrets.Load(); p != nil {
		return *p
	}
	return nil
}

// HoldsSecret reports whether s holds a registered secret as it is.
func HoldsSecret(s string) bool {
	for _, k := range secretList() {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}

// Redact replaces every registered secret in s with Redacted.
func Redact(s string) string {
	for _, k := range secretList() {
		if strings.Contains(s, k) {
			s = strings.ReplaceAll(s, k, Redacted)
		}
	}
	return s
}

// RedactJSON returns the JSON value v with every string (member names
// included) whose content, once unescaped and once sanitised, holds a
// registered secret replaced by its sanitised content with the secret
// redacted. changed is false, and v is returned as it is, when no string
// can hold one: a quick scan rules that out for almost every value, so
// calling it on every new event costs little. A value that is not valid
// JSON is returned unchanged when it cannot hold a secret, and otherwise
// as a JSON string of its redacted, sanitised text.
func RedactJSON(v []byte) (out []byte, changed bool) {
	list := secretList()
	if len(list) == 0 {
		return v, false
	}
	may := false
	for _, k := range list {
		if mayHold(v, k) {
			may = true
			break
		}
	}
	if !may {
		return v, false
	}
	return redactJSON(v)
}

func redactJSON(v []byte) ([]byte, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var buf bytes.Buffer
	enc := jsontext.NewEncoder(&buf, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	changed := false
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			// Not JSON we can walk: keep it only as redacted text.
			s := Sanitize(string(v))
			b, _ := jsontext.AppendQuote(nil, s)
			return b, true
		}
		if tok.Kind() == '"' {
			s := tok.String()
			if r, ok := redactString(s); ok {
				tok = jsontext.String(r)
				changed = true
			}
		}
		if err := enc.WriteToken(tok); err != nil {
			s := Sanitize(string(v))
			b, _ := jsontext.AppendQuote(nil, s)
			return b, true
		}
		if dec.StackDepth() == 0 {
			break
		}
	}
	if !changed {
		return v, false
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), true
}

// redactString reports whether s, as it is or once sanitised, holds a
// secret, and if so returns the sanitised s with the secrets redacted.
func redactString(s string) (string, bool) {
	clean := s
	if !IsSafe(s) {
		clean = sanitize(s)
	}
	for _, k := range secretList() {
		if strings.Contains(clean, k) || strings.Contains(s, k) {
			return Redact(clean), true
		}
	}
	return "", false
}

// mayHold reports whether the JSON text v could hold k once its escapes are
// decoded and characters are removed from it (sanitising only removes, so
// the key must then be a subsequence of the unescaped text): false is
// certain, true is a maybe. k is matched byte by byte; a \u escape counts as
// the UTF-8 bytes of its rune.
func mayHold(v []byte, k string) bool {
	j := 0
	var rb [utf8.UTFMax]byte
	for i := 0; i < len(v) && j < len(k); {
		c := v[i]
		if c != '\\' || i+1 >= len(v) {
			if c == k[j] {
				j++
			}
			i++
			continue
		}
		e := v[i+1]
		if e != 'u' || i+6 > len(v) {
			switch e {
			case 'n':
				e = '\n'
			case 't':
				e = '\t'
			case 'r':
				e = '\r'
			case 'b':
				e = '\b'
			case 'f':
				e = '\f'
			}
			if e == k[j] {
				j++
			}
			i += 2
			continue
		}
		r, ok := hex4(v[i+2 : i+6])
		i += 6
		if !ok {
			continue
		}
		n := utf8.EncodeRune(rb[:], r)
		for _, b := range rb[:n] {
			if j < len(k) && b == k[j] {
				j++
			}
		}
	}
	return j == len(k)
}

func hex4(h []byte) (rune, bool) {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
