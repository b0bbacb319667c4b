package ui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
)

// Text helpers. Every row the UI draws is built from plain-text segments
// (already sanitised by the model) with a style each; a row is cut or
// padded to its box's exact width so that panes joined side by side stay
// aligned and a resize never leaves stray cells.
//
// Widths are measured per rune with wcwidth, the method Bubble Tea's
// renderer uses by default.

// flat makes s one line: newlines, tabs and carriage returns become spaces.
func flat(s string) string {
	if !strings.ContainsAny(s, "\n\t\r") {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\t', '\r':
			return ' '
		}
		return r
	}, s)
}

// asciiOnly makes s plain ASCII, for terminals and locales without UTF-8:
// known symbols get their ASCII spelling, any other rune outside
// printable ASCII becomes '?'.
func asciiOnly(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			s = text.ASCII(s)
			return strings.Map(func(r rune) rune {
				if r >= utf8.RuneSelf {
					return '?'
				}
				return r
			}, s)
		}
	}
	return s
}

// width is the number of cells plain text s takes.
func width(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] < 0x20 {
			return ansi.StringWidthWc(s)
		}
	}
	return len(s)
}

// cut shortens plain text s to at most w cells, ending with tail when it
// had to cut. It slices s: no copy of the kept part.
func cut(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	if isASCII(s) {
		if len(s) <= w {
			return s
		}
		tw := width(tail)
		if tw >= w {
			return s[:w]
		}
		return s[:w-tw] + tail
	}
	if width(s) <= w {
		return s
	}
	tw := width(tail)
	if tw >= w {
		tail, tw = "", 0
	}
	used := 0
	for i, r := range s {
		rw := runeWidth(r)
		if used+rw > w-tw {
			return s[:i] + tail
		}
		used += rw
	}
	return s
}

// isASCII reports whether s is printable ASCII only (one cell a byte).
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] < 0x20 || s[i] == 0x7f {
			return false
		}
	}
	return true
}

// runeWidth is the cells one rune takes, by wcwidth.
func runeWidth(r rune) int {
	if r >= 0x20 && r < 0x7f {
		return 1
	}
	var b [utf8.UTFMax]byte
	n := utf8.EncodeRune(b[:], r)
	return ansi.StringWidthWc(string(b[:n]))
}

// padRight pads plain text s with spaces to w cells (cutting it if longer).
func padRight(s string, w int) string {
	s = cut(s, w, "")
	if n := w - width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// toolCell is a tool's name for a column of w cells, as the timeline
// names it (describe.ToolName). Too long for the column, it keeps the end
// that tells tools apart: its MCP namespace dropped first
// ("…browser_navigate"), then cut on the left.
func toolCell(name string, w int, ellipsis string) string {
	full := describe.ToolName(name)
	if width(full) <= w {
		return full
	}
	if short := describe.ShortToolName(name); short != full && width(ellipsis+short) <= w {
		return ellipsis + short
	}
	return cutLeft(full, w, ellipsis)
}

// cutLeft keeps the end of s in w cells, with ellipsis in front when it is
// cut: for a path, whose file name matters more than its first folders.
func cutLeft(s string, w int, ellipsis string) string {
	if width(s) <= w {
		return s
	}
	if w <= width(ellipsis) {
		return cut(ellipsis, w, "")
	}
	rs := []rune(s)
	used := width(ellipsis)
	i := len(rs)
	for i > 0 && used+runeWidth(rs[i-1]) <= w {
		i--
		used += runeWidth(rs[i])
	}
	return ellipsis + string(rs[i:])
}

// padLeft right-aligns plain text s in w cells.
func padLeft(s string, w int) string {
	s = cut(s, w, "")
	if n := w - width(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
}

// row builds one line of a box from styled segments, never wider than its
// width, and pads it to exactly that width.
type row struct {
	b     strings.Builder
	w     int    // cells used
	max   int    // the box width
	tail  string // what marks a cut
	ascii bool
}

func newRow(max int, ascii bool) *row {
	r := &row{max: max, ascii: ascii, tail: "…"}
	if ascii {
		r.tail = text.Ellipsis
	}
	return r
}

// left is the number of cells still free.
func (r *row) left() int { return r.max - r.w }

// add appends s (plain text) in style st, cut to the room left.
func (r *row) add(st theme.Style, s string) *row {
	if s == "" || r.w >= r.max {
		return r
	}
	s = flat(s)
	if r.ascii {
		s = asciiOnly(s)
	}
	sw := width(s)
	if sw > r.max-r.w {
		s = cut(s, r.max-r.w, r.tail)
		sw = width(s)
	}
	r.b.WriteString(st.Render(s))
	r.w += sw
	return r
}

// addFixed appends s padded or cut to exactly w cells (or what is left).
// The padding takes the style too: a run of cells in one style needs one
// SGR sequence on the wire, where styled text, plain padding and styled
// text again would need three.
func (r *row) addFixed(st theme.Style, s string, w int) *row {
	w = min(w, r.max-r.w)
	if w <= 0 {
		return r
	}
	s = flat(s)
	if r.ascii {
		s = asciiOnly(s)
	}
	if width(s) > w {
		s = cut(s, w, r.tail)
	}
	if pad := w - width(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	r.b.WriteString(st.Render(s))
	r.w += w
	return r
}

// addCol appends a column: s cut to w cells, then padded with the
// separating space to w+1, all in one style.
func (r *row) addCol(st theme.Style, s string, w int) *row {
	s = flat(s)
	if r.ascii {
		s = asciiOnly(s)
	}
	if width(s) > w {
		s = cut(s, w, r.tail)
	}
	return r.addFixed(st, s, w+1)
}

// addRight appends s aligned to the right edge, if it fits after at least
// one space; it reports whether it did.
func (r *row) addRight(st theme.Style, s string) bool {
	if r.ascii {
		s = asciiOnly(s)
	}
	sw := width(s)
	if sw == 0 || r.w+1+sw > r.max {
		return false
	}
	r.space(r.max - r.w - sw)
	r.b.WriteString(st.Render(s))
	r.w += sw
	return true
}

// raw appends an already styled string of known width.
func (r *row) raw(s string, w int) *row {
	if w > r.max-r.w {
		return r
	}
	r.b.WriteString(s)
	r.w += w
	return r
}

func (r *row) space(n int) *row {
	n = min(n, r.max-r.w)
	if n > 0 {
		r.b.WriteString(strings.Repeat(" ", n))
		r.w += n
	}
	return r
}

// String pads the row to its width.
func (r *row) String() string {
	if r.w < r.max {
		r.b.WriteString(strings.Repeat(" ", r.max-r.w))
		r.w = r.max
	}
	return r.b.String()
}

// styled renders a whole line (cut and padded to w) in one style, the
// padding inside the style so that a selection bar spans the row.
func styled(st theme.Style, s string, w int, ascii bool) string {
	s = flat(s)
	tail := "…"
	if ascii {
		s, tail = asciiOnly(s), text.Ellipsis
	}
	if width(s) > w {
		s = cut(s, w, tail)
	}
	return st.Render(padRight(s, w))
}

// blank is a line of w spaces.
func blank(w int) string {
	if w <= 0 {
		return ""
	}
	return strings.Repeat(" ", w)
}

// wrap breaks plain text into lines of at most w cells, at spaces where it
// can; newlines in the text start new lines. At most max lines (0: no
// limit); the last one ends with tail when text was left over.
func wrap(s string, w, max int, tail string) []string {
	if w <= 0 {
		return nil
	}
	s = strings.ReplaceAll(s, "\t", " ")
	s = strings.ReplaceAll(s, "\r", "")
	var out []string
	for _, para := range strings.Split(s, "\n") {
		wrapped := ansi.WrapWc(para, w, "")
		out = append(out, strings.Split(wrapped, "\n")...)
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	if max > 0 && len(out) > max {
		out = out[:max]
		last := out[max-1]
		if width(last)+width(tail) > w {
			last = cut(last, w-width(tail), "")
		}
		out[max-1] = last + tail
	}
	return out
}
