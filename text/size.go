package text

import "strconv"

// Size is the one size style, a byte count for people: "512 B", "9.9 kB",
// "12 kB", "1.5 MB", "12 MB". Digits are cut, never rounded up, so a size
// is never shown larger than it is (9 990 B is "9.9 kB").
func Size(n int) string {
	switch {
	case n < 1000:
		return itoa(n) + " B"
	case n < 10_000:
		return itoa(n/1000) + "." + itoa(n%1000/100) + " kB"
	case n < 1_000_000:
		return itoa(n/1000) + " kB"
	case n < 10_000_000:
		return itoa(n/1_000_000) + "." + itoa(n%1_000_000/100_000) + " MB"
	}
	return itoa(n/1_000_000) + " MB"
}

func itoa(i int) string { return strconv.Itoa(i) }
