// Package textfmt holds the small text formatters the terminal UI's views
// share: tab expansion for laying text out in cells, and byte counts.
package textfmt

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// ExpandTabs replaces tabs with spaces to the next multiple of 4 columns.
func ExpandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col += ansi.StringWidth(string(r))
	}
	return b.String()
}

// Size formats a byte count: 512 B, 12 kB, 1.5 MB.
func Size(n int) string {
	switch {
	case n < 1000:
		return itoa(n) + " B"
	case n < 10_000:
		return itoa(n/1000) + "." + itoa(n%1000/100) + " kB"
	case n < 1_000_000:
		return itoa(n/1000) + " kB"
	case n < 10_000_000:
		return itoa(n/1_000_000) + "." + itoa(n%1_000_000/100_000) + " MB"
	}
	return itoa(n/1_000_000) + " MB"
}

func itoa(i int) string { return strconv.Itoa(i) }
