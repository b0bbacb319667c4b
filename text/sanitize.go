package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Sanitize makes a string from the server safe to show in a terminal:
//
//  1. escape sequences are removed whole: CSI (ESC [ or U+009B), OSC (ESC ]
//     or U+009D, up to BEL or ST), DCS, SOS, PM and APC strings (up to ST),
//     and two- or three-byte ESC sequences; an unterminated one is removed to
//     the end of the string;
//  2. then every other C0 and C1 control character except newline and tab
//     (carriage return, backspace, BEL, DEL...);
//  3. then bidi controls and zero-width and other format characters (the
//     Unicode category Cf, e.g. U+202E, U+200B, U+FEFF), and the line and
//     paragraph separators U+2028/U+2029, which become a newline;
//  4. invalid UTF-8 becomes U+FFFD.
//
// It knows no secrets: (*Secrets).Sanitize is Sanitize with them redacted.
//
// A string that needs none of this is returned as it is, without copying.
func Sanitize(s string) string {
	if IsSafe(s) {
		return s
	}
	return sanitize(s)
}

// SanitizeBytes is Sanitize for bytes; the result never shares b's memory.
func SanitizeBytes(b []byte) string {
	s := unsafe.String(unsafe.SliceData(b), len(b)) // read only, not kept
	if IsSafe(s) {
		return strings.Clone(s)
	}
	return sanitize(s)
}

// IsSafe reports whether s needs no sanitising: valid UTF-8 without
// control, format or separator characters other than newline and tab.
func IsSafe(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r <= 0x9f || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r) {
			return false
		}
		i += n
	}
	return true
}

const (
	esc = 0x1b
	bel = 0x07
	st  = 0x9c // C1 string terminator
)

func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			b.WriteRune(utf8.RuneError)
			i += max(n, 1)
			continue
		}
		switch {
		case r == esc:
			i = skipEscape(s, i+n)
			continue
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i+n)
			continue
		case r == 0x9d: // C1 OSC
			i = skipString(s, i+n)
			continue
		case r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 DCS, SOS, PM, APC
			i = skipString(s, i+n)
			continue
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			// other C0 and C1 controls, DEL
		case r == '\u2028' || r == '\u2029':
			b.WriteByte('\n')
		case unicode.Is(unicode.Cf, r):
			// bidi controls, zero-width and other format characters
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// skipEscape returns the index just past the escape sequence whose ESC ended
// at i.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch c := s[i]; {
	case c == '[':
		return skipCSI(s, i+1)
	case c == ']':
		return skipString(s, i+1)
	case c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, i+1)
	case c >= 0x20 && c <= 0x2f:
		// intermediates, then one final byte (e.g. ESC ( B)
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
			i++
		}
		return i
	case c >= 0x30 && c <= 0x7e:
		return i + 1 // two-byte sequence (ESC 7, ESC c, ESC M...)
	}
	return i // a lone ESC: drop just it
}

// skipCSI skips parameter and intermediate bytes and the final byte of a
// control sequence. Anything that cannot belong to it ends it early.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		case c >= 0x20 && c <= 0x3f:
			i++
		default:
			// Not part of a well-formed sequence: stop here and let the
			// main loop deal with c (it is a control or non-ASCII).
			return i
		}
	}
	return i
}

// skipString skips the body of OSC, DCS, SOS, PM and APC strings up to and
// including their terminator: ST (ESC \ or U+009C), or BEL (OSC and, as
// terminals accept it, the others too). Without a terminator it runs to the
// end of s.
func skipString(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case bel:
			return i + 1
		case esc:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			i++
		case 0xc2:
			if i+1 < len(s) && s[i+1] == st {
				return i + 2
			}
			i++
		default:
			i++
		}
	}
	return i
}
