package text

import (
	"bytes"
	"testing"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// The patched github.com/charmbracelet/x/ansi (third_party/ansi) has its
// parser's transition table as a generated literal and fills its zero-width
// tables on first use: the literal must be the generated table, and every
// nonspacing or enclosing mark and format character past ASCII, in the BMP
// or above it, must still measure zero columns.
func TestAnsiCopyTables(t *testing.T) {
	if !bytes.Equal(parser.Table, parser.GenerateTransitionTable()) {
		t.Fatal("parser.Table differs from GenerateTransitionTable(): run go generate in third_party/ansi")
	}
	n := 0
	check := func(r rune) {
		n++
		if w := ansi.StringWidthWc("a" + string(r)); w != 1 {
			t.Errorf("U+%04X measures %d columns after an a, want 0", r, w-1)
		}
	}
	for _, tab := range []*unicode.RangeTable{unicode.Mn, unicode.Me, unicode.Cf} {
		for _, r16 := range tab.R16 {
			for r := rune(r16.Lo); r <= rune(r16.Hi); r += rune(r16.Stride) {
				if r >= 0xa0 {
					check(r)
				}
			}
		}
		for _, r32 := range tab.R32 {
			for r := rune(r32.Lo); r <= rune(r32.Hi); r += rune(r32.Stride) {
				check(r)
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d zero-width runes checked", n)
	}
	if w := ansi.StringWidthWc("a\u00e9\u4e2d"); w != 4 {
		t.Errorf("a, é and a wide CJK character measure %d columns, want 4", w)
	}
}
