package ansi

import (
	"html"
	"slices"
	"strings"
)

// RenderContext holds the current rendering options and state.
type RenderContext struct {
	options Options

	blockStack *BlockStack
	table      *TableElement
}

// NewRenderContext returns a new RenderContext.
func NewRenderContext(options Options) RenderContext {
	return RenderContext{
		options:    options,
		blockStack: &BlockStack{},
		table:      &TableElement{},
	}
}

// SanitizeHTML sanitizes HTML content: its text, without tags, comments
// or the content of the elements whose content is not text (script,
// style...), with character references decoded.
func (ctx RenderContext) SanitizeHTML(s string, trimSpaces bool) string {
	s = htmlText(s)
	if trimSpaces {
		s = strings.TrimSpace(s)
	}
	return s
}

// htmlText is what bluemonday's StrictPolicy kept of s, unescaped: the text
// of s as an HTML tokenizer splits it, without tags, comments, doctypes and
// processing instructions, and without the content of the elements that
// skipContent names. It stands in for bluemonday, whose package-level
// regular expressions (and gorilla/css's) cost every command ~5 ms at
// start-up, and for golang.org/x/net/html's tokenizer, whose entity table is
// built at start-up too; the standard library's html.UnescapeString builds
// its table on first use. firewatch's tests compare it with x/net/html's
// tokenizer.
func htmlText(s string) string {
	var b strings.Builder
	skip := 0 // depth inside elements whose content is dropped
	// text writes t unless it lies inside a dropped element, with CR LF
	// and CR made LF. In raw text (the content of script, style, textarea
	// and the like) NULs become U+FFFD; character references are decoded
	// when unescape is set (all text but raw text, and textarea's and
	// title's).
	text := func(t string, unescape, raw bool) {
		if skip > 0 || t == "" {
			return
		}
		if strings.IndexByte(t, '\r') >= 0 {
			t = strings.ReplaceAll(strings.ReplaceAll(t, "\r\n", "\n"), "\r", "\n")
		}
		if raw {
			t = strings.ReplaceAll(t, "\x00", "\uFFFD")
		}
		if unescape {
			t = html.UnescapeString(t)
		}
		b.WriteString(t)
	}
	for s != "" {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			text(s, true, false)
			break
		}
		text(s[:i], true, false)
		s = s[i:]
		switch {
		case s == "</":
			text(s, false, false)
			s = ""
		case strings.HasPrefix(s, "<!--"):
			s = skipComment(s[4:])
		case len(s) > 1 && (s[1] == '!' || s[1] == '?'):
			s = skipPast(s[2:], ">")
		case len(s) > 2 && s[1] == '/' && isASCIILetter(s[2]):
			var name string
			name, s = tagName(s[2:])
			s, _ = skipTag(s)
			if skipContent(name) && skip > 0 {
				skip--
			}
		case len(s) > 2 && s[1] == '/' && s[2] == '>':
			s = s[3:]
		case len(s) > 1 && s[1] == '/':
			s = skipPast(s[2:], ">")
		case len(s) > 1 && isASCIILetter(s[1]):
			var name string
			var selfClosing bool
			name, s = tagName(s[1:])
			s, selfClosing = skipTag(s)
			if skipContent(name) && !selfClosing {
				skip++
			}
			switch name {
			case "plaintext":
				text(s, false, true)
				s = ""
			case "script":
				j := scriptEnd(s)
				text(s[:j], false, true)
				s = s[j:]
			case "iframe", "noembed", "noframes", "noscript", "style", "textarea", "title", "xmp":
				// Raw text: no tags inside, up to the element's own end tag.
				j := rawTextEnd(s, name)
				text(s[:j], name == "textarea" || name == "title", true)
				s = s[j:]
			}
		default:
			text("<", false, false)
			s = s[1:]
		}
	}
	return b.String()
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// skipPast returns what follows the first sep in s, or "" without one.
func skipPast(s, sep string) string {
	if i := strings.Index(s, sep); i >= 0 {
		return s[i+len(sep):]
	}
	return ""
}

// skipComment returns what follows the comment whose "<!--" s follows, as
// an HTML tokenizer ends it: at "-->", "--!>", or "<!-->" and "<!--->".
func skipComment(s string) string {
	dashes, beginning := 0, true
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '-':
			dashes++
			continue
		case '>':
			if dashes >= 2 || beginning {
				return s[i+1:]
			}
		case '!':
			if dashes >= 2 && i+1 < len(s) {
				i++
				if s[i] == '>' {
					return s[i+1:]
				}
				if s[i] == '-' {
					dashes, beginning = 1, false
					continue
				}
			}
		}
		dashes, beginning = 0, false
	}
	return ""
}

// tagName returns the lower-cased tag name at the start of s and what
// follows it.
func tagName(s string) (string, string) {
	i := 0
	for i < len(s) && !isHTMLSpace(s[i]) && s[i] != '/' && s[i] != '>' {
		i++
	}
	return strings.ToLower(s[:i]), s[i:]
}

// skipTag returns what follows the '>' that closes the tag whose name s
// follows, reading its attributes as an HTML tokenizer does (quoted values
// may hold '>'), and whether it is a self-closing tag ("<br/>", but not
// "<p a=/>"); "" when the tag is not closed.
func skipTag(s string) (string, bool) {
	i := 0
	spaces := func() {
		for i < len(s) && isHTMLSpace(s[i]) {
			i++
		}
	}
	var keys []string
	lastValueEnd := -1 // the end of the last attribute's value
	spaces()
	for i < len(s) {
		if s[i] == '>' {
			return s[i+1:], i > 0 && s[i-1] == '/' && (keys == nil || i-1 != lastValueEnd-1)
		}
		// The attribute's name; '=' at its start belongs to it.
		start := i
		for i < len(s) {
			c := s[i]
			if c == '=' && i == start {
				i++
				continue
			}
			if c == '=' || c == '/' || c == '>' || isHTMLSpace(c) {
				break
			}
			i++
		}
		key, valueEnd := strings.ToLower(s[start:i]), i
		// Its value.
		spaces()
		switch {
		case i >= len(s):
		case s[i] == '/':
			i++
		case s[i] == '=':
			i++
			spaces()
			switch {
			case i >= len(s), s[i] == '>':
			case s[i] == '"' || s[i] == '\'':
				j := strings.IndexByte(s[i+1:], s[i])
				if j < 0 {
					return "", false
				}
				valueEnd = i + 1 + j
				i = valueEnd + 1
			default:
				for i < len(s) && s[i] != '>' && !isHTMLSpace(s[i]) {
					i++
				}
				valueEnd = i
			}
		}
		if key != "" && !slices.Contains(keys, key) {
			keys, lastValueEnd = append(keys, key), valueEnd
		}
		spaces()
	}
	return "", false
}

// rawTextEnd is the index in s of the end tag of the raw text element name
// ("</name" followed by a space, '/' or '>', in any case), or len(s).
func rawTextEnd(s, name string) int {
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "</")
		if j < 0 {
			break
		}
		end, next := rawEndTag(s, i+j+2, name)
		if end >= 0 {
			return end
		}
		i = next
	}
	return len(s)
}

// rawEndTag reports where the end tag of name begins when s[i:], which
// follows "</", holds it: name in any case and a space, '/' or '>'. When
// it does not, end is -1 and next is where the tokenizer reads on: at the
// first byte that did not match, or at len(s).
func rawEndTag(s string, i int, name string) (end, next int) {
	for k := range len(name) {
		if i+k >= len(s) {
			return -1, len(s)
		}
		if s[i+k]|0x20 != name[k] {
			return -1, i + k
		}
	}
	e := i + len(name)
	if e >= len(s) {
		return -1, len(s)
	}
	if c := s[e]; isHTMLSpace(c) || c == '/' || c == '>' {
		return i - 2, 0
	}
	return -1, e
}

// scriptEnd is the index in s, a script element's content, of the
// "</script" that ends it, or len(s). It follows the HTML tokenizer's rules
// for script data, where "<!--" and a "<script" after it hide "</script>".
func scriptEnd(s string) int {
	const (
		data = iota
		dataLT
		escaped // after "<!--"
		escapedDash
		escapedDashDash
		escapedLT
		double // after "<!--" and "<script"
		doubleDash
		doubleDashDash
		doubleLT
	)
	st := data
	for i := 0; i < len(s); {
		c := s[i]
		i++
		switch st {
		case data:
			if c == '<' {
				st = dataLT
			}
		case dataLT:
			st = data
			switch c {
			case '/':
				end, next := rawEndTag(s, i, "script")
				if end >= 0 {
					return end
				}
				i = next
			case '!':
				if strings.HasPrefix(s[i:], "--") {
					i, st = i+2, escapedDashDash
				}
			default:
				i--
			}
		case escaped, escapedDash, escapedDashDash:
			switch {
			case c == '-':
				st = min(st+1, escapedDashDash)
			case c == '<':
				st = escapedLT
			case c == '>' && st == escapedDashDash:
				st = data
			default:
				st = escaped
			}
		case escapedLT:
			switch {
			case c == '/':
				end, next := rawEndTag(s, i, "script")
				if end >= 0 {
					return end
				}
				i, st = next, escaped
			case isASCIILetter(c):
				i--
				k := 0
				for k < len("script") && i+k < len(s) && s[i+k]|0x20 == "script"[k] {
					k++
				}
				switch {
				case i+k >= len(s):
					return len(s)
				case k < len("script"):
					i, st = i+k, escaped
				case isHTMLSpace(s[i+k]) || s[i+k] == '/' || s[i+k] == '>':
					i, st = i+k+1, double
				default:
					i, st = i+k, escaped
				}
			default:
				i, st = i-1, data
			}
		case double, doubleDash, doubleDashDash:
			switch {
			case c == '-':
				st = min(st+1, doubleDashDash)
			case c == '<':
				st = doubleLT
			case c == '>' && st == doubleDashDash:
				st = data
			default:
				st = double
			}
		case doubleLT:
			st = double
			if c != '/' {
				i--
				break
			}
			if end, next := rawEndTag(s, i, "script"); end >= 0 {
				i, st = end+len("</script>"), escaped
			} else {
				i = next
			}
		}
	}
	return len(s)
}

// skipContent names the elements whose content bluemonday drops along
// with the element.
func skipContent(name string) bool {
	switch name {
	case "frame", "frameset", "iframe", "noembed", "noframes", "noscript", "object", "script", "style", "title", "nostyle":
		return true
	}
	return false
}
