package textwrap

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestHang(t *testing.T) {
	for _, tc := range []struct {
		s      string
		w1, w2 int
		want   []string
	}{
		{"", 10, 10, []string{""}},
		{"hello world", 20, 20, []string{"hello world"}},
		{"hello world", 5, 5, []string{"hello", "world"}},
		{"hello   world", 8, 8, []string{"hello", "world"}},
		{"hello   world", 20, 20, []string{"hello   world"}},
		{"abcdefghij", 4, 3, []string{"abcd", "efg", "hij"}},
		{"ab abcdefghij", 4, 4, []string{"ab a", "bcde", "fghi", "j"}},
		{"a 中文字符", 4, 4, []string{"a 中", "文字", "符"}},
		{"e\u0301e\u0301e\u0301", 2, 2, []string{"e\u0301e\u0301", "e\u0301"}},
		{"  indented text", 20, 10, []string{"  indented text"}},
	} {
		if got := Hang(tc.s, tc.w1, tc.w2); !slices.Equal(got, tc.want) {
			t.Errorf("Hang(%q, %d, %d) = %q, want %q", tc.s, tc.w1, tc.w2, got, tc.want)
		}
	}
}

// Every line fits, nothing is lost but the spaces lines were broken at.
func TestHangKeepsEverything(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("word ", 50),
		strings.Repeat("x", 1000),
		strings.Repeat("日本語", 100) + " end",
		"short " + strings.Repeat("y", 333) + " tail words here",
	} {
		for _, w := range []int{2, 7, 40} {
			lines := Hang(s, w, w)
			for _, l := range lines {
				if Width(l) > w {
					t.Fatalf("w=%d: line %q is %d wide", w, l, Width(l))
				}
			}
			if got, want := strings.ReplaceAll(strings.Join(lines, ""), " ", ""), strings.ReplaceAll(s, " ", ""); got != want {
				t.Fatalf("w=%d: text changed", w)
			}
		}
	}
}

// Linear: every byte of the text is measured a bounded number of times,
// whatever its shape: one word of a megabyte, in ASCII or wide characters,
// or prose. (The old wrapper measured the rest of a long word again for
// every piece cut from it: a megabyte took 8 s.) Counted, not timed.
func TestHangIsLinear(t *testing.T) {
	for name, s := range map[string]string{
		"one ASCII word": strings.Repeat("w", 1<<20),
		"one wide word":  strings.Repeat("日本", 1<<17),
		"prose":          strings.Repeat("a few words ", 1<<16),
		"long and short": strings.Repeat(strings.Repeat("x", 5000)+" y ", 200),
	} {
		measured := 0
		lines := hang(s, 80, 60, func(x string) int { measured += len(x); return Width(x) })
		if measured > 2*len(s) {
			t.Errorf("%s: %d bytes measured for %d bytes of text", name, measured, len(s))
		}
		if len(lines) < len(s)/(80*3) {
			t.Errorf("%s: %d lines", name, len(lines))
		}
	}
}

func BenchmarkHangOneWord(b *testing.B) {
	for _, n := range []int{1 << 20, 20 << 20} {
		s := strings.Repeat("w", n)
		b.Run(strings.TrimSuffix(strings.TrimSuffix(time.Duration(n).String(), "ns"), "µs")+"B", func(b *testing.B) {
			for b.Loop() {
				Hang(s, 80, 80)
			}
		})
	}
}

func TestLayout(t *testing.T) {
	got := Layout([]Para{{Text: "key: a value that wraps", Indent: 5}, {Text: ""}, {Text: "x"}}, 12)
	want := []Piece{{0, "key: a value"}, {0, "     that"}, {0, "     wraps"}, {1, ""}, {2, "x"}}
	if !slices.Equal(got, want) {
		t.Fatalf("%+v", got)
	}
	if Big([]Para{{Text: strings.Repeat("x", AsyncBytes)}}) || !Big([]Para{{Text: strings.Repeat("x", AsyncBytes+1)}}) {
		t.Fatal("Big")
	}
	msg := LayoutCmd("me", 3, []Para{{Text: "abc"}}, 2)().(LaidMsg)
	if msg.Owner != "me" || msg.Gen != 3 || msg.W != 2 || len(msg.Pieces) != 2 {
		t.Fatalf("%+v", msg)
	}
}
