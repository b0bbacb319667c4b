package text

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Whole is a figure rounded to a whole number, with thousands separators:
// "4,680" ("?" for NaN and infinities).
func Whole(n float64) string {
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return "?"
	}
	return group(strconv.FormatFloat(math.Round(n), 'f', 0, 64))
}

// Number is a figure for people: a whole number grouped ("1,250"), any
// other with one decimal ("12.5").
func Number(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "?"
	}
	if f == math.Trunc(f) || math.Abs(f) >= 1e15 {
		return Whole(f)
	}
	s := strconv.FormatFloat(f, 'f', 1, 64)
	i := strings.IndexByte(s, '.')
	return group(s[:i]) + s[i:]
}

// Credits is a count of credits for people, the one place that decides
// its noun: "1 credit", "0 credits", "12.5 credits", "2,500 credits".
func Credits(n float64) string {
	if Number(n) == "1" {
		return "1 credit"
	}
	return Number(n) + " credits"
}

// group puts thousands separators into a string of digits (with an optional
// leading minus).
func group(s string) string {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if len(s) > 3 {
		var b strings.Builder
		head := len(s) % 3
		if head > 0 {
			b.WriteString(s[:head])
		}
		for i := head; i < len(s); i += 3 {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(s[i : i+3])
		}
		s = b.String()
	}
	if neg && s != "0" {
		return "-" + s
	}
	return s
}

// Fixed is a figure as scripts and tables of deltas read it: a whole
// number plain ("1250"), any other with two decimals ("12.50").
func Fixed(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// Plural is "1 run", "2 runs": n and the word for it.
func Plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
