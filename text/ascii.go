package text

import "strings"

// Ellipsis is the one ASCII fallback for "…".
const Ellipsis = "..."

// asciiPairs is the one ASCII fallback table: every non-ASCII symbol
// firewatch writes itself, with its ASCII spelling. The theme's ASCII symbols
// (the states, arrow, ellipsis, up, down) are taken from it, so a state has
// one symbol in every pane and in the timeline's text ("tool ✓" is "tool +"
// beside a "+" in the tool calls pane).
var asciiPairs = []string{
	"…", Ellipsis, "·", "-", "—", "-", "→", "->", "←", "<", "↑", "^", "↓", "v",
	"×", "x", "“", "\"", "”", "\"",
	"≈", "~", // an estimate (attention)
	// States: running, succeeded (and ok), failed, cancelled, refused,
	// unfinished, pending or closed, a warning, paused, a browser
	// session, stalled, looping.
	"●", "*", "✓", "+", "✗", "x", "⊘", "/", "⊖", "-", "◌", "?", "○", "o", "▲", "^", "‖", "=", "◉", "@",
	"⏸", "||", "↻", "%",
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
