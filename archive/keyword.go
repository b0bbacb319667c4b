package archive

import (
	"strings"

	"github.com/firewatch/firewatch/text"
)

// A keyword DSN is pgx's (and libpq's) other form of a PostgreSQL DSN:
// "host=db.example user=fw password='it''s' dbname=fw sslmode=disable".
// It is read here by pgx's rules (whitespace between pairs, spaces around
// '=', a value quoted with ' or not, \ escaping the next character), only
// to tell it from a file name and to find its password.

// kvPair is one keyword=value of a keyword DSN; start and end are where its
// value stands in the DSN (quotes included).
type kvPair struct {
	key, value string
	start, end int
}

type kvDSN []kvPair

// pgKeywords are the keywords one of which makes a string of
// keyword=value pairs a PostgreSQL DSN rather than an odd file name.
var pgKeywords = map[string]bool{
	"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true, "password": true,
	"service": true, "sslmode": true, "connect_timeout": true, "search_path": true,
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// keywordDSN reads s as a keyword DSN: ok when all of it is keyword=value
// pairs with keywords of lower-case letters and '_', one of them a
// PostgreSQL connection keyword.
func keywordDSN(s string) (kvDSN, bool) {
	var out kvDSN
	known := false
	i := 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) {
			break
		}
		k := i
		for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] == '_') {
			i++
		}
		key := s[k:i]
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if key == "" || i == len(s) || s[i] != '=' {
			return nil, false
		}
		i++
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		start := i
		var val strings.Builder
		if i < len(s) && s[i] == '\'' {
			i++
			for ; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, false // unterminated quote
			}
			i++
		} else {
			for ; i < len(s) && !isSpace(s[i]); i++ {
				if s[i] == '\\' {
					if i+1 == len(s) {
						break
					}
					i++
				}
				val.WriteByte(s[i])
			}
			if i < len(s) && s[i] == '\\' {
				i++ // a trailing backslash ends the value
			}
		}
		known = known || pgKeywords[key]
		out = append(out, kvPair{key: key, value: val.String(), start: start, end: i})
	}
	return out, known && len(out) > 0
}

// get is the last value of key ("" when absent), as pgx reads it.
func (kv kvDSN) get(key string) string {
	v := ""
	for _, p := range kv {
		if p.key == key {
			v = p.value
		}
	}
	return v
}

// redacted is s (the DSN kv was read from) with every password value
// replaced by text.Redacted.
func (kv kvDSN) redacted(s string) string {
	var b strings.Builder
	at := 0
	for _, p := range kv {
		if p.key != "password" || p.start == p.end {
			continue
		}
		b.WriteString(s[at:p.start])
		b.WriteString(text.Redacted)
		at = p.end
	}
	b.WriteString(s[at:])
	return b.String()
}
