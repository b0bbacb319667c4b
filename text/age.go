package text

import (
	"strconv"
	"time"
)

// Age is how old an item of a list is, in its largest unit: "just now",
// "45s ago", "3m ago", "5h ago", "2d ago" ("" for a zero time). Ago is for
// a live figure that moves every second; a list of runs going back days
// reads better in whole units that keep the column narrow.
func Age(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < -time.Minute:
		return "unknown"
	case d < 5*time.Second:
		return "just now"
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s ago"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h ago"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d ago"
}
