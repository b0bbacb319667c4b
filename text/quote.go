package text

import (
	"unicode"
	"unicode/utf8"
)

// Quote returns s as a JSON string literal that is safe to show in a
// terminal and shows what s holds: quotes, backslashes, newlines, tabs and
// carriage returns are escaped as in JSON, and every character that
// Sanitize would remove (escape sequences' ESC, other C0 and C1
// controls, DEL, bidi controls and other format characters, U+2028/U+2029)
// is written as a visible \uXXXX escape instead of being dropped, so a
// payload carrying "\u001b[31m" is displayed as exactly that. Invalid UTF-8
// becomes U+FFFD.
func Quote(s string) string {
	return string(appendQuote(make([]byte, 0, len(s)+2), s))
}

func appendQuote(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				b = append(b, '\\', '"')
			case c == '\\':
				b = append(b, '\\', '\\')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c < 0x20 || c == 0x7f:
				b = appendU(b, rune(c))
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b = append(b, "\uFFFD"...)
		case unsafeRune(r):
			b = appendU(b, r)
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// unsafeRune reports whether r (at least U+0080) is one text.Sanitize
// removes or replaces.
func unsafeRune(r rune) bool {
	return r <= 0x9f || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r)
}

func appendU(b []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	if r > 0xffff {
		// Outside the BMP: a surrogate pair, as JSON writes it.
		r -= 0x10000
		hi, lo := 0xd800+(r>>10), 0xdc00+(r&0x3ff)
		b = appendU(b, hi)
		return appendU(b, lo)
	}
	return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}
