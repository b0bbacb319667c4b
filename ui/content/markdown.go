package content

import (
	"regexp"
	"strconv"
	"strings"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/text"
)

// renderMarkdown renders untrusted markdown with glamour so that only the
// sanitised text, glamour's own SGR styling and OSC 8 hyperlinks with
// well-formed link targets reach the output:
//
//  1. the source is sanitised (text.Sanitize);
//  2. numeric character references that would decode to a character
//     Sanitize removes (&#27; is an ESC, &#x202e; a bidi override) are
//     replaced by U+FFFD, since goldmark decodes them after step 1;
//  3. the output is filtered: SGR sequences are kept, OSC 8 hyperlinks are
//     kept only when their target is printable ASCII without spaces (else
//     the text stays and the link goes), every other escape sequence is
//     dropped, and the text between them is sanitised again (named
//     entities such as &lrm; decode to format characters);
//  4. trailing padding is trimmed and each line cut to the width.
func renderMarkdown(src, style string, width int) ([]string, error) {
	src = neutraliseCharRefs(text.Sanitize(src))
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(width))
	if err != nil {
		return nil, err
	}
	out, err := r.Render(src)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(filterOutput(out), "\n")
	for i, l := range lines {
		l = trimPadding(l)
		if ansi.StringWidth(l) > width {
			l = ansi.Truncate(l, width, "")
		}
		lines[i] = closeLink(l)
	}
	// Drop the blank lines glamour puts around the document.
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines, nil
}

var charRef = regexp.MustCompile(`&#(?:[xX]([0-9a-fA-F]{1,8})|([0-9]{1,9}));`)

// neutraliseCharRefs replaces numeric character references to characters
// text.Sanitize would remove (and invalid ones) with U+FFFD.
func neutraliseCharRefs(s string) string {
	if !strings.Contains(s, "&#") {
		return s
	}
	return charRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := charRef.FindStringSubmatch(ref)
		var n uint64
		var err error
		if m[1] != "" {
			n, err = strconv.ParseUint(m[1], 16, 32)
		} else {
			n, err = strconv.ParseUint(m[2], 10, 32)
		}
		if err != nil || n == 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff) {
			return "\uFFFD"
		}
		r := string(rune(n))
		// C1 references are remapped to Windows-1252 by HTML rules and by
		// goldmark, but not all of them: treat the whole range as unsafe.
		if n >= 0x80 && n <= 0x9f || text.Sanitize(r) != r || n == '\n' || n == '\t' {
			return "\uFFFD"
		}
		return ref
	})
}

// filterOutput keeps SGR sequences, safe OSC 8 hyperlinks, newlines and
// sanitised text.
func filterOutput(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	text := func(t string) { b.WriteString(text.Sanitize(t)) }
	start := 0
	for i := 0; i < len(s); {
		if s[i] != 0x1b {
			i++
			continue
		}
		text(s[start:i])
		n := seqLen(s[i:])
		seq := s[i : i+n]
		switch {
		case isSGR(seq):
			b.WriteString(seq)
		case strings.HasPrefix(seq, "\x1b]8;"):
			if link, ok := safeHyperlink(seq); ok {
				b.WriteString(link)
			}
		}
		i += n
		start = i
	}
	text(s[start:])
	return b.String()
}

// seqLen is the length of the escape sequence at the start of s (s[0] is
// ESC): CSI up to its final byte, OSC/DCS/APC/PM/SOS up to BEL or ST, else
// ESC and one byte. An unterminated sequence runs to the end.
func seqLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if c := s[i]; c >= 0x40 && c <= 0x7e {
				return i + 1
			} else if c < 0x20 || c > 0x3f {
				return i // malformed: stop before it
			}
		}
		return len(s)
	case ']', 'P', '_', '^', 'X':
		for i := 2; i < len(s); i++ {
			switch s[i] {
			case 0x07:
				return i + 1
			case 0x1b:
				if i+1 < len(s) && s[i+1] == '\\' {
					return i + 2
				}
				return i // an ESC that does not end it: drop up to there
			}
		}
		return len(s)
	}
	return 2
}

var sgrRe = regexp.MustCompile(`^\x1b\[[0-9;:]*m$`)

func isSGR(seq string) bool { return sgrRe.MatchString(seq) }

// safeHyperlink returns an OSC 8 sequence rebuilt from seq when its
// parameters and target are harmless.
func safeHyperlink(seq string) (string, bool) {
	body := strings.TrimPrefix(seq, "\x1b]8;")
	switch {
	case strings.HasSuffix(body, "\a"):
		body = body[:len(body)-1]
	case strings.HasSuffix(body, "\x1b\\"):
		body = body[:len(body)-2]
	default:
		return "", false // unterminated
	}
	params, uri, ok := strings.Cut(body, ";")
	if !ok || len(uri) > 2048 {
		return "", false
	}
	for _, c := range []byte(params) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '=' || c == ':' || c == '-' || c == '_' || c == '.') {
			return "", false
		}
	}
	for _, c := range []byte(uri) {
		if c <= 0x20 || c >= 0x7f {
			return "", false
		}
	}
	if uri != "" {
		lower := strings.ToLower(uri)
		if !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") && !strings.HasPrefix(lower, "mailto:") {
			return "", false
		}
	}
	return "\x1b]8;" + params + ";" + uri + "\a", true
}

// closeLink ends a hyperlink left open at the end of a line, so that it
// cannot spread over what is drawn after the line.
func closeLink(l string) string {
	i := strings.LastIndex(l, "\x1b]8;")
	if i < 0 || strings.HasPrefix(l[i:], "\x1b]8;;\a") {
		return l
	}
	return l + "\x1b]8;;\a"
}

var trailingPad = regexp.MustCompile(`(?:\x1b\[[0-9;:]*m| )+$`)

// trimPadding removes the spaces (and the SGR around them) glamour pads
// lines with, then closes any style left open.
func trimPadding(l string) string {
	t := trailingPad.ReplaceAllString(l, "")
	if t != l && strings.Contains(t, "\x1b[") {
		t += "\x1b[m"
	}
	return t
}

// GlamourStyle names a glamour standard style: "dark", "light", "notty"
// (no colour; for NO_COLOR) or "ascii".
type GlamourStyle = string

// Glamour styles.
const (
	GlamourDark  GlamourStyle = "dark"
	GlamourLight GlamourStyle = "light"
	GlamourNoTTY GlamourStyle = "notty"
	GlamourASCII GlamourStyle = "ascii"
)
