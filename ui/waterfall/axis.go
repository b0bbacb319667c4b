package waterfall

import (
	"fmt"
	"time"
)

// tickSteps are the ruler's candidate intervals.
var tickSteps = []time.Duration{
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// tickStep is the smallest step that puts at most maxTicks ticks in span.
func tickStep(span time.Duration, maxTicks int) time.Duration {
	maxTicks = max(maxTicks, 1)
	for _, s := range tickSteps {
		if span/s <= time.Duration(maxTicks) {
			return s
		}
	}
	s := tickSteps[len(tickSteps)-1]
	for span/s > time.Duration(maxTicks) {
		s *= 2
	}
	return s
}

// tickLabel formats an offset from the run's start for a ruler whose step
// is step: "0", "250ms", "1.5s", "45s", "1m30s", "2m", "1h05m".
func tickLabel(d, step time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d < time.Second && step < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		if step%time.Second != 0 {
			return trimZeros(fmt.Sprintf("%.3f", d.Seconds())) + "s"
		}
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		m, s := int(d.Minutes()), int(d.Seconds())%60
		if s == 0 && d%time.Second == 0 {
			return fmt.Sprintf("%dm", m)
		}
		if step%time.Second != 0 {
			return fmt.Sprintf("%dm%ss", m, trimZeros(fmt.Sprintf("%06.3f", (d%time.Minute).Seconds())))
		}
		return fmt.Sprintf("%dm%02ds", m, s)
	}
	h, m := int(d.Hours()), int(d.Minutes())%60
	if m == 0 {
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh%02dm", h, m)
}

func trimZeros(s string) string {
	for len(s) > 1 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
