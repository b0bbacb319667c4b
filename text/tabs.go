package text

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// ExpandTabs replaces tabs with spaces to the next multiple of 4 columns,
// for text laid out in terminal cells (wide characters take two).
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
