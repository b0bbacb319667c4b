// Package textwrap wraps plain text from the server in time linear in its
// length, whatever its shape: a 20 MB text that is one word costs as much
// as 20 MB of prose. (Measuring the rest of a long word again for every
// piece cut from it made the details of such a text take minutes.)
package textwrap

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"
)

// Width is the number of cells plain text s takes (wide characters count
// two), as the UI measures it.
func Width(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] < 0x20 {
			return ansi.StringWidthWc(s)
		}
	}
	return len(s)
}

// Hang breaks s (one line: no newlines) into lines: the first at most w1
// cells, the others at most w2, at spaces where it can; a word longer than
// a line is cut into pieces at grapheme cluster boundaries. A line never
// starts with the spaces it was broken at.
func Hang(s string, w1, w2 int) []string { return hang(s, w1, w2, Width) }

// hang is Hang measuring with width (the tests count what it measures).
func hang(s string, w1, w2 int, width func(string) int) []string {
	w1, w2 = max(1, w1), max(1, w2)
	var out []string
	var line strings.Builder
	lineW, limit := 0, w1
	flush := func() {
		out = append(out, line.String())
		line.Reset()
		lineW, limit = 0, w2
	}
	first := true
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == ' ' {
			j++
		}
		k := j
		for k < len(s) && s[k] != ' ' {
			k++
		}
		sp, word := s[i:j], s[j:k]
		i = k
		if lineW == 0 && !first {
			sp = "" // a wrapped line starts with its word
		}
		first = false
		ww := width(word) // once per word: linear
		if lineW > 0 && lineW+len(sp)+ww > limit && ww <= w2 {
			flush()
			sp = ""
		}
		if lineW+len(sp) > limit {
			sp = sp[:max(0, limit-lineW)]
		}
		line.WriteString(sp)
		lineW += len(sp)
		if lineW+ww <= limit {
			line.WriteString(word)
			lineW += ww
			continue
		}
		// Cut the word into pieces, walking it once. ASCII pieces are
		// slices of a known length.
		if ww == len(word) {
			for word != "" {
				if lineW >= limit {
					flush()
				}
				n := min(len(word), limit-lineW)
				line.WriteString(word[:n])
				lineW += n
				word = word[n:]
			}
			continue
		}
		for word != "" {
			c, rest := cluster(word)
			cw := width(c)
			if lineW > 0 && lineW+cw > limit {
				flush()
			}
			line.WriteString(c)
			lineW += cw
			word = rest
		}
	}
	if lineW > 0 || line.Len() > 0 || len(out) == 0 {
		out = append(out, line.String())
	}
	return out
}

// cluster splits off the first grapheme cluster of s (one byte at a time
// for ASCII, the common case).
func cluster(s string) (string, string) {
	if s[0] < utf8.RuneSelf && (len(s) == 1 || s[1] < utf8.RuneSelf) {
		return s[:1], s[1:]
	}
	c, rest, _, _ := uniseg.FirstGraphemeClusterInString(s, -1)
	return c, rest
}

// Lines is Hang for text with newlines: each line wrapped to w.
func Lines(s string, w int) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, Hang(l, w, w)...)
	}
	return out
}
