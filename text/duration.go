package text

import (
	"strconv"
	"time"
)

// Duration is the one duration style: "850ms", "4.2s", "1m05s", "1h02m".
//
// Why this style: it has a fixed shape per magnitude (one decimal under a
// minute, zero-padded seconds under an hour), so columns of durations line
// up and a value never jumps between "75s" and "1m15s" depending on the
// screen; and it is short enough for a waterfall bar label. Plain output,
// the timeline, the waterfall, the details and the 429 retry text all use
// it.
func Duration(d time.Duration) string {
	if d < 0 {
		return "-" + Duration(-d)
	}
	if d < time.Second {
		if ms := d.Round(time.Millisecond); ms < time.Second {
			return strconv.FormatInt(int64(ms/time.Millisecond), 10) + "ms"
		}
	}
	if d < time.Minute {
		if t := int64((d + 50*time.Millisecond) / (100 * time.Millisecond)); t < 600 {
			return strconv.FormatInt(t/10, 10) + "." + strconv.FormatInt(t%10, 10) + "s"
		}
	}
	if d < time.Hour {
		if s := int64(d.Round(time.Second) / time.Second); s < 3600 {
			return strconv.FormatInt(s/60, 10) + "m" + pad2(s%60) + "s"
		}
	}
	m := int64(d.Round(time.Minute) / time.Minute)
	return strconv.FormatInt(m/60, 10) + "h" + pad2(m%60) + "m"
}

// Elapsed is a live, still-growing time in whole seconds: "45s", "1m05s".
// It is redrawn once a second, so tenths would only cost bytes; past a
// minute it is Duration.
func Elapsed(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	if d < time.Minute {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return Duration(d.Truncate(time.Second))
}

// Ago is how long ago something happened: "just now", "5s ago", "1m05s ago".
func Ago(d time.Duration) string {
	if d < time.Second {
		return "just now"
	}
	return Elapsed(d) + " ago"
}

func pad2(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// Remaining is a countdown to a deadline that is redrawn now and then, not
// every second: whole minutes, cut down ("45m", "1h05m", "23h48m"), and
// "<1m" in the last minute. It never shows seconds, which a screen that
// does not redraw every second could not keep true, and never more time
// than is left. The caller says "expired" when d <= 0.
func Remaining(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "<1m"
	case d < time.Hour:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	m := int64(d / time.Minute)
	return strconv.FormatInt(m/60, 10) + "h" + pad2(m%60) + "m"
}
