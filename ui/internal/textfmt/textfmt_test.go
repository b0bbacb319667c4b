package textfmt

import "testing"

func TestExpandTabs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"no tabs", "no tabs"},
		{"\t", "    "},
		{"a\tb", "a   b"},
		{"abcd\te", "abcd    e"},
		{"ab\t\tc", "ab      c"},
		{"漢\tx", "漢  x"}, // a wide rune takes two columns
	} {
		if got := ExpandTabs(c.in); got != c.want {
			t.Errorf("ExpandTabs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSize(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{
		{0, "0 B"},
		{999, "999 B"},
		{1000, "1.0 kB"},
		{1550, "1.5 kB"},
		{9999, "9.9 kB"},
		{10_000, "10 kB"},
		{999_999, "999 kB"},
		{1_000_000, "1.0 MB"},
		{5_250_000, "5.2 MB"},
		{10_000_000, "10 MB"},
		{123_456_789, "123 MB"},
	} {
		if got := Size(c.n); got != c.want {
			t.Errorf("Size(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
