package text

import "strings"

// Ellipsis is the one ASCII fallback for "…".
const Ellipsis = "..."

// asciiPairs is the one ASCII fallback table: every non-ASCII symbol
// firewatch writes itself, with its ASCII spelling. The theme's ASCII symbols
// (arrow, ellipsis, up, down) are taken from it.
var asciiPairs = []string{
	"…", Ellipsis, "·", "-", "—", "-", "→", "->", "←", "<", "↑", "^", "↓", "v",
	"✓", "ok", "✗", "x", "×", "x", "“", "\"", "”", "\"",
	"≈", "~", // an estimate (attention)
}

// strings.NewReplacer only copies its pairs: the replacer is built on its
// first Replace, not before main.
var asciiReplacer = strings.NewReplacer(asciiPairs...)

// ASCII replaces the symbols of the table with their ASCII spelling; other
// text is left as it is.
func ASCII(s string) string { return asciiReplacer.Replace(s) }

// Fallback is the ASCII spelling of one symbol of the table (the symbol
// itself when the table does not have it).
func Fallback(sym string) string {
	for i := 0; i < len(asciiPairs); i += 2 {
		if asciiPairs[i] == sym {
			return asciiPairs[i+1]
		}
	}
	return sym
}
