package text

import (
	"testing"

	"github.com/mattn/go-runewidth"
)

// The patched go-runewidth (third_party/runewidth) paints its low width
// table and its joiner bitmap on first use instead of in init: widths below
// U+0300, in both East Asian modes, and the joiner fast paths of StringWidth
// must answer as before.
func TestRunewidthCopyLazyTables(t *testing.T) {
	narrow := &runewidth.Condition{StrictEmojiNeutral: true}
	wide := &runewidth.Condition{EastAsianWidth: true, StrictEmojiNeutral: true}
	loose := &runewidth.Condition{EastAsianWidth: true} // no LUT: runeWidthNoLUT
	for r := rune(0); r < 0x300; r++ {
		want := 1
		if r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0xad {
			want = 0
		}
		if got := narrow.RuneWidth(r); got != want {
			t.Errorf("RuneWidth(U+%04X) = %d, want %d", r, got, want)
		}
		if w, l := wide.RuneWidth(r), loose.RuneWidth(r); w != l {
			t.Errorf("U+%04X: East Asian width %d from the table, %d without it", r, w, l)
		}
	}
	if got := wide.RuneWidth(0xa1); got != 2 { // ambiguous
		t.Errorf("East Asian RuneWidth(U+00A1) = %d, want 2", got)
	}
	for s, want := range map[string]int{
		"abc": 3, "e\u0301": 1, "a\u0301b": 2, "中文": 4, "\r\n": 0,
		"👍🏽": 2, "👨\u200d👩\u200d👧": 2, "ok \u0915\u094d\u0937": 5,
	} {
		if got := narrow.StringWidth(s); got != want {
			t.Errorf("StringWidth(%q) = %d, want %d", s, got, want)
		}
	}
}
