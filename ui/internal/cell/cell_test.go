package cell

import "testing"

func TestFit(t *testing.T) {
	for _, tc := range []struct {
		s    string
		w    int
		tail string
		want string
	}{
		{"abc", 5, "", "abc  "},
		{"abcdef", 4, "", "abcd"},
		{"abcdef", 4, "…", "abc…"},
		{"abcd", 4, "…", "abcd"},
		{"\x1b[1mabcdef\x1b[m", 3, "", "\x1b[1mabc\x1b[m"},
		{"日本語", 5, "", "日本 "},
		{"日本語", 5, "…", "日本…"},
	} {
		if got := Fit(tc.s, tc.w, tc.tail); got != tc.want {
			t.Errorf("Fit(%q, %d, %q) = %q, want %q", tc.s, tc.w, tc.tail, got, tc.want)
		}
	}
}
