package content

import "strings"

// htmlState is where the HTML tokenizer is at the start of a line.
type htmlState struct {
	inTag     bool
	inComment bool
	quote     byte // inside a quoted attribute value
}

// htmlLines lays HTML source out as text: sanitised, tabs expanded, wrapped
// to width, each line with the tag state at its start so that only visible
// lines need highlighting.
func htmlLines(src string, width int) []line {
	var out []line
	var st htmlState
	for _, l := range wrapText(src, width) {
		out = append(out, line{text: l, html: st})
		st = scanHTML(l, st, nil)
	}
	return out
}

// scanHTML advances the state over l; with emit, it also reports the runs
// of l (tag or text).
func scanHTML(l string, st htmlState, emit func(s string, tag bool)) htmlState {
	start := 0
	flush := func(end int, tag bool) {
		if emit != nil && end > start {
			emit(l[start:end], tag)
		}
		start = end
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case st.inComment:
			if strings.HasPrefix(l[i:], "-->") {
				i += 2
				flush(i+1, true)
				st.inComment = false
			}
		case st.inTag:
			switch {
			case st.quote != 0:
				if c == st.quote {
					st.quote = 0
				}
			case c == '"' || c == '\'':
				st.quote = c
			case c == '>':
				flush(i+1, true)
				st.inTag = false
			}
		case c == '<':
			if strings.HasPrefix(l[i:], "<!--") {
				flush(i, false)
				st.inComment = true
				i += 3
				continue
			}
			if i+1 < len(l) && (isLetter(l[i+1]) || l[i+1] == '/' || l[i+1] == '!' || l[i+1] == '?') {
				flush(i, false)
				st.inTag = true
			}
		}
	}
	flush(len(l), st.inTag || st.inComment)
	return st
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// renderHTML styles one laid-out line: tags and comments in Tag, the rest
// in Text.
func renderHTML(l line, s *Styles) string {
	var b strings.Builder
	scanHTML(l.text, l.html, func(run string, tag bool) {
		if tag {
			b.WriteString(s.Tag.Render(run))
		} else {
			b.WriteString(s.Text.Render(run))
		}
	})
	return b.String()
}
