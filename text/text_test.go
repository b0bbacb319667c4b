package text

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0ms"},
		{850 * time.Millisecond, "850ms"},
		{999*time.Millisecond + 400*time.Microsecond, "999ms"},
		{999*time.Millisecond + 600*time.Microsecond, "1.0s"},
		{4200 * time.Millisecond, "4.2s"},
		{4249 * time.Millisecond, "4.2s"},
		{4250 * time.Millisecond, "4.3s"},
		{59940 * time.Millisecond, "59.9s"},
		{59960 * time.Millisecond, "1m00s"},
		{65 * time.Second, "1m05s"},
		{59*time.Minute + 59*time.Second + 600*time.Millisecond, "1h00m"},
		{62 * time.Minute, "1h02m"},
		{26*time.Hour + 3*time.Minute, "26h03m"},
		{-1500 * time.Millisecond, "-1.5s"},
	} {
		if got := Duration(tc.d); got != tc.want {
			t.Errorf("Duration(%v) = %q, want %q", tc.d, got, tc.want)
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

func TestElapsedAndAgo(t *testing.T) {
	for _, tc := range []struct {
		d            time.Duration
		elapsed, ago string
	}{
		{0, "0s", "just now"},
		{1500 * time.Millisecond, "1s", "1s ago"},
		{45 * time.Second, "45s", "45s ago"},
		{75 * time.Second, "1m15s", "1m15s ago"},
	} {
		if got := Elapsed(tc.d); got != tc.elapsed {
			t.Errorf("Elapsed(%v) = %q, want %q", tc.d, got, tc.elapsed)
		}
		if got := Ago(tc.d); got != tc.ago {
			t.Errorf("Ago(%v) = %q, want %q", tc.d, got, tc.ago)
		}
	}
}

func TestASCII(t *testing.T) {
	if got := ASCII("a … b → c ✓ ✗ ·"); got != "a ... b -> c + x -" {
		t.Errorf("ASCII = %q", got)
	}
	if Fallback("…") != Ellipsis || Fallback("?") != "?" {
		t.Error("Fallback")
	}
}

// A count of credits has one noun rule: "1 credit", every other figure
// "credits", grouped, with one decimal when it has a fraction.
func TestCredits(t *testing.T) {
	for _, tc := range []struct {
		n    float64
		want string
	}{
		{0, "0 credits"},
		{1, "1 credit"},
		{1.5, "1.5 credits"},
		{2, "2 credits"},
		{2500, "2,500 credits"},
		{1234567.25, "1,234,567.2 credits"},
	} {
		if got := Credits(tc.n); got != tc.want {
			t.Errorf("Credits(%v) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// A countdown shows whole minutes cut down, never seconds: a screen that
// redraws now and then cannot keep a seconds figure true.
func TestRemaining(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{30 * time.Second, "<1m"},
		{time.Minute, "1m"},
		{45*time.Minute + 59*time.Second, "45m"},
		{time.Hour, "1h00m"},
		{65*time.Minute + 30*time.Second, "1h05m"},
		{23*time.Hour + 48*time.Minute + 59*time.Second, "23h48m"},
	} {
		if got := Remaining(tc.d); got != tc.want {
			t.Errorf("Remaining(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain":               `"plain"`,
		"a\"b\\c\n\t\r\b\f":   `"a\"b\\c\n\t\r\b\f"`,
		"\x1b[31mred":         `"\u001b[31mred"`,
		"\u009b2J \u202eRTL":  `"\u009b2J \u202eRTL"`,
		"zero\u200bwidth\x7f": `"zero\u200bwidth\u007f"`,
		"tag\U000E0041":       `"tag\udb40\udc41"`,
		"bad\xffutf8":         "\"bad\uFFFDutf8\"",
		"日本 🎉":                "\"日本 🎉\"",
		"line\u2028sep":       `"line\u2028sep"`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
		if got := Quote(in); Sanitize(got) != got {
			t.Errorf("Quote(%q) is not safe: %q", in, got)
		}
	}
}
