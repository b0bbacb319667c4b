package jsonview

import (
	"strconv"
	"unicode"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/text"
)

// unquote decodes the JSON string literal raw. Invalid UTF-8 is replaced,
// never refused: untrusted payloads are shown, not rejected.
func unquote(raw []byte) string {
	b, _ := jsontext.AppendUnquote(nil, raw)
	return string(b)
}

// Text is the content of a decoded JSON string, sanitised for a terminal or
// the clipboard (text.Sanitize).
func Text(raw jsontext.Value) string {
	if raw.Kind() != '"' {
		return text.Sanitize(string(raw))
	}
	return text.Sanitize(unquote(raw))
}

// keyText formats a member name for a path: .name when it is an identifier,
// else ["quoted"].
func keyText(k string) string {
	ident := k != ""
	for i, r := range k {
		if !(r == '_' || r == '$' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			ident = false
			break
		}
	}
	if ident && text.Quote(k) == `"`+k+`"` {
		return "." + k
	}
	return "[" + text.Quote(k) + "]"
}

func itoa(i int) string { return strconv.Itoa(i) }
