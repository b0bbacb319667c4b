package text

import (
	"bytes"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Redacted is what a secret is replaced with wherever it appears.
const Redacted = "[redacted]"

// Secrets is the set of strings (the API key, and any secret added later: a
// password in a DSN, an exporter's header) that must never reach any
// output. One value is made per run of firewatch and given to each path
// out: the client (which redacts every answer but the trace), the model's
// decoder (the trace's events), the writers of stderr and the debug log,
// and the printers of server JSON. A nil *Secrets holds nothing.
//
// A server may echo a secret in a form that becomes its bytes only after
// one of our transformations: a letter written as a JSON \u escape (or
// \/), a zero-width or bidi character, a control character or a whole
// escape sequence inside it. So redaction happens after them: RedactJSON
// for JSON written out as JSON (every string whose unescaped or sanitised
// content holds a secret is replaced), Sanitize for a server string shown
// as text, Redact for our own strings (an error message, a log line). A
// secret is matched case-sensitively and whole; one split over two JSON
// strings is two harmless halves and is not looked for.
//
// A password (AddPassword) is a secret of another kind: a person chose it,
// and it may be an ordinary word ("firewatch"), which redacted wherever it
// appears would make every line unreadable. It is redacted only where it
// stands as a password: see RedactPassword.
type Secrets struct {
	mu   sync.Mutex
	list atomic.Pointer[[]string]
	pws  atomic.Pointer[[][]string] // each password's forms (passwordForms)
}

// NewSecrets returns a set holding the given secrets.
func NewSecrets(secrets ...string) *Secrets {
	s := &Secrets{}
	for _, k := range secrets {
		s.Add(k)
	}
	return s
}

// Add adds k (at least 8 bytes; shorter ones would redact ordinary text
// and are ignored) to the set. It is safe to call while others read it.
func (s *Secrets) Add(k string) {
	if s == nil || len(k) < 8 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.all()
	for _, have := range list {
		if have == k {
			return
		}
	}
	list = append(list[:len(list):len(list)], k)
	s.list.Store(&list)
}

// AddPassword adds a password (a DSN's; any length) to the set: from then
// on every method redacts it where it stands as a password
// (RedactPassword), and nowhere else.
func (s *Secrets) AddPassword(pw string) {
	if s == nil || pw == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.passwords()
	for _, have := range list {
		if have[0] == pw {
			return
		}
	}
	list = append(list[:len(list):len(list)], passwordForms(pw))
	s.pws.Store(&list)
}

func (s *Secrets) passwords() [][]string {
	if s == nil {
		return nil
	}
	if p := s.pws.Load(); p != nil {
		return *p
	}
	return nil
}

func (s *Secrets) all() []string {
	if s == nil {
		return nil
	}
	if p := s.list.Load(); p != nil {
		return *p
	}
	return nil
}

// Holds reports whether str holds a secret as it is.
func (s *Secrets) Holds(str string) bool {
	for _, k := range s.all() {
		if strings.Contains(str, k) {
			return true
		}
	}
	for _, forms := range s.passwords() {
		for _, f := range forms {
			if strings.Contains(str, f) && redactForm(str, f) != str {
				return true
			}
		}
	}
	return false
}

// Redact replaces every secret in str with Redacted.
func (s *Secrets) Redact(str string) string {
	for _, k := range s.all() {
		if strings.Contains(str, k) {
			str = strings.ReplaceAll(str, k, Redacted)
		}
	}
	for _, forms := range s.passwords() {
		str = redactForms(str, forms)
	}
	return str
}

// Sanitize is the package's Sanitize with the secrets redacted from its
// result (sanitising can rebuild a secret sent with characters inside it).
func (s *Secrets) Sanitize(str string) string { return s.Redact(Sanitize(str)) }

// RedactJSON returns the JSON value v with every string (member names
// included) whose content, once unescaped and once sanitised, holds a
// secret replaced by its sanitised content with the secret redacted.
// changed is false, and v is returned as it is, when no string can hold
// one: a quick scan rules that out for almost every value, so calling it
// on every new event costs little. A value that is not valid JSON is
// returned unchanged when it cannot hold a secret, and otherwise as a JSON
// string of its redacted, sanitised text.
func (s *Secrets) RedactJSON(v []byte) (out []byte, changed bool) {
	list, pws := s.all(), s.passwords()
	if len(list) == 0 && len(pws) == 0 {
		return v, false
	}
	may := false
	for _, k := range list {
		if mayHold(v, k) {
			may = true
			break
		}
	}
	for _, forms := range pws {
		for _, f := range forms {
			may = may || mayHold(v, f)
		}
	}
	if !may {
		return v, false
	}
	return s.redactJSON(v)
}

// redactJSON walks v and replaces the strings that hold a secret where
// they stand; every other byte of v is kept as it was sent. Re-encoding
// the value instead would write the characters the server escaped (a C1
// control, a bidi override) raw, and the JSON printed to a terminal would
// carry them.
func (s *Secrets) redactJSON(v []byte) ([]byte, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var out []byte
	at := 0 // v[:at] is in out
	for {
		if dec.PeekKind() == '"' {
			raw, err := dec.ReadValue()
			if err != nil {
				return s.unwalkable(v), true
			}
			str, ok := unquote(raw)
			if !ok {
				return s.unwalkable(v), true
			}
			if r, ok := s.redactString(str); ok {
				end := int(dec.InputOffset())
				begin := end - len(raw)
				out = append(out, v[at:begin]...)
				out = appendQuote(out, r) // nothing a terminal acts on raw
				at = end
			}
		} else if _, err := dec.ReadToken(); err != nil {
			return s.unwalkable(v), true
		}
		if dec.StackDepth() == 0 {
			break
		}
	}
	if out == nil {
		return v, false
	}
	out = append(out, v[at:int(dec.InputOffset())]...)
	return bytes.TrimSpace(out), true
}

// unquote is the content of the JSON string raw; invalid UTF-8 in it is
// allowed, as the decoder allows it.
func unquote(raw []byte) (string, bool) {
	if b, err := jsontext.AppendUnquote(nil, raw); err == nil {
		return string(b), true
	}
	tok, err := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowInvalidUTF8(true)).ReadToken()
	if err != nil || tok.Kind() != '"' {
		return "", false
	}
	return tok.String(), true
}

// unwalkable is what RedactJSON makes of a value that may hold a secret
// but cannot be walked (not JSON, or nested past the reader's depth
// limit): its sanitised text as a JSON string, the secrets redacted. When
// sanitising does not bring the secret out (it hides behind a JSON escape,
// which only a walk decodes), the whole value is replaced instead.
func (s *Secrets) unwalkable(v []byte) []byte {
	str := s.Sanitize(string(v))
	if !strings.Contains(str, Redacted) {
		str = Redacted + " (a value that could not be read as JSON and may hold a secret)"
	}
	b, _ := jsontext.AppendQuote(nil, str)
	return b
}

// redactString reports whether s, as it is or once sanitised, holds a
// secret, and if so returns the sanitised s with the secrets redacted.
func (s *Secrets) redactString(str string) (string, bool) {
	clean := str
	if !IsSafe(str) {
		clean = sanitize(str)
	}
	for _, k := range s.all() {
		if strings.Contains(clean, k) || strings.Contains(str, k) {
			return s.Redact(clean), true
		}
	}
	for _, forms := range s.passwords() {
		if redactForms(clean, forms) != clean || redactForms(str, forms) != str {
			return s.Redact(clean), true
		}
	}
	return "", false
}

// mayHold reports whether the JSON text v could hold k once its escapes are
// decoded and the string is sanitised: false is certain, true is a maybe.
// Sanitising only removes characters, and only these: escape sequences
// (which may swallow printable characters after an ESC or a C1 control),
// other C0 and C1 controls but newline and tab, DEL, and non-ASCII format
// characters. So k can only be rebuilt where its bytes stand in order with
// nothing but such characters between them. For a key of printable ASCII
// (an API key is), a candidate is followed from each place k's first byte
// appears, escaped or not, over what sanitising would remove; an ESC or a
// C1 control on the way is a maybe (what it swallows is not worked out
// here). Any other key falls back to a looser test: k's bytes in order
// anywhere in v.
func mayHold(v []byte, k string) bool {
	if len(k) == 0 {
		return true
	}
	if !printableASCII(k) {
		return subsequence(v, k)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c != k[0] && c != '\\' {
			continue
		}
		if matchFrom(v, i, k) {
			return true
		}
	}
	return false
}

// unit is one character of JSON text at v[i]: its byte (c), or for a \u
// escape its rune (r, c = 0 unless r is ASCII; a surrogate pair is one
// rune); n is how many bytes of v it takes.
func unit(v []byte, i int) (c byte, r rune, n int) {
	c = v[i]
	if c != '\\' || i+1 >= len(v) {
		return c, rune(c), 1
	}
	switch e := v[i+1]; e {
	case 'u':
		if i+6 <= len(v) {
			if r, ok := hex4(v[i+2 : i+6]); ok {
				if r < 0x80 {
					return byte(r), r, 6
				}
				if utf16.IsSurrogate(r) && i+12 <= len(v) && v[i+6] == '\\' && v[i+7] == 'u' {
					if lo, ok := hex4(v[i+8 : i+12]); ok {
						if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
							return 0, pair, 12
						}
					}
				}
				return 0, r, 6
			}
		}
		return 'u', 'u', 2
	case 'n':
		return '\n', '\n', 2
	case 't':
		return '\t', '\t', 2
	case 'r':
		return '\r', '\r', 2
	case 'b':
		return '\b', '\b', 2
	case 'f':
		return '\f', '\f', 2
	default:
		return e, rune(e), 2
	}
}

// matchFrom reports whether k (printable ASCII) may be rebuilt starting at
// v[i]: see mayHold.
func matchFrom(v []byte, i int, k string) bool {
	j := 0
	for i < len(v) && j < len(k) {
		c, r, n := unit(v, i)
		i += n
		switch {
		case r < 0x80 && c == k[j]:
			j++
		case j == 0:
			return false // the first unit is k's first byte or nothing
		case c == 0x1b:
			return true // an escape sequence: what it swallows is a maybe
		case n == 1 && c >= 0x80:
			if c == 0xc2 && i < len(v) && v[i] >= 0x80 && v[i] <= 0x9f {
				return true // a raw C1 control: maybe a sequence too
			}
			// a byte of a non-ASCII character, which sanitising may
			// remove (a format character): k may go on after it
		case r >= 0x80 && r <= 0x9f:
			return true // an escaped C1 control
		case c == '\n' || c == '\t':
			return false // kept by sanitising: it breaks k
		case r < 0x20 || r == 0x7f || r >= 0x80:
			// removed by sanitising (a raw non-ASCII byte may be part of a
			// format character): k may go on after it
		default:
			return false
		}
	}
	return j == len(k)
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// subsequence reports whether the bytes of k appear in order in the
// unescaped JSON text v (a \u escape counts as the UTF-8 bytes of its rune).
func subsequence(v []byte, k string) bool {
	j := 0
	var rb [utf8.UTFMax]byte
	for i := 0; i < len(v) && j < len(k); {
		c, r, n := unit(v, i)
		i += n
		if n == 1 {
			if c == k[j] {
				j++
			}
			continue
		}
		m := utf8.EncodeRune(rb[:], r)
		for _, b := range rb[:m] {
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

// RedactPassword is str with pw redacted where it stands as a password:
// in a URL's user info ("user:PW@host"), or as the value of a password
// parameter or keyword ("password=PW", "password = 'PW'", "?password=PW&"),
// whole (up to the end of the value), raw or URL-escaped. Anywhere else the
// word is left as it is: a DSN's password may be an ordinary word.
func RedactPassword(str, pw string) string {
	if pw == "" {
		return str
	}
	return redactForms(str, passwordForms(pw))
}

// passwordForms are the ways pw is written in a DSN: as it is, then
// URL-escaped (a query, a path, user info).
func passwordForms(pw string) []string {
	forms := []string{pw}
	for _, f := range []string{url.QueryEscape(pw), url.PathEscape(pw), strings.TrimPrefix(url.UserPassword("", pw).String(), ":")} {
		if !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	return forms
}

func redactForms(str string, forms []string) string {
	for _, f := range forms {
		str = redactForm(str, f)
	}
	return str
}

func redactForm(str, f string) string {
	if !strings.Contains(str, f) {
		return str
	}
	var b strings.Builder
	at := 0
	for i := 0; i < len(str); {
		j := strings.Index(str[i:], f)
		if j < 0 {
			break
		}
		j += i
		end := j + len(f)
		if !asPassword(str, j, end) {
			i = j + 1
			continue
		}
		b.WriteString(str[at:j])
		b.WriteString(Redacted)
		at, i = end, end
	}
	if at == 0 {
		return str
	}
	b.WriteString(str[at:])
	return b.String()
}

// asPassword reports whether str[i:j] stands as a password: between a
// user info's ':' and '@', or a whole value after "password=".
func asPassword(str string, i, j int) bool {
	if i > 0 && str[i-1] == ':' && j < len(str) && str[j] == '@' {
		return true
	}
	if j < len(str) && !strings.ContainsRune(" \t\r\n&#'\";,)]}`", rune(str[j])) {
		return false // the value goes on: another password
	}
	k := i
	if k > 0 && (str[k-1] == '\'' || str[k-1] == '"') {
		k--
	}
	for k > 0 && (str[k-1] == ' ' || str[k-1] == '\t') {
		k--
	}
	if k == 0 || str[k-1] != '=' {
		return false
	}
	k--
	for k > 0 && (str[k-1] == ' ' || str[k-1] == '\t') {
		k--
	}
	const kw = "password"
	return k >= len(kw) && strings.EqualFold(str[k-len(kw):k], kw)
}
