// Package cell is the screens' one way to fit a line or a column to a
// width in terminal cells.
package cell

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Fit cuts s (styled or plain) to w cells, ending with tail when it is
// cut ("" for none, "…"), and pads it with spaces to exactly w cells.
func Fit(s string, w int, tail string) string {
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, tail)
	}
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}
