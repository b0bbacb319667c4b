package text

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
