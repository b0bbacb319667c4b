package poller

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Every 429 wait is decided in this file: where a delay the service asks for
// is read (the Retry-After header, the body's retry_after_seconds, the
// message's "retry after Ns"), how it is bounded, and how long the watch loop
// then waits.

// MaxRetryAfter is the longest the watch loop waits for a delay the service
// asks for: a 429 asking for ten minutes is waited out in full (polling
// sooner only earns another 429); one asking for longer than an hour is
// tried again after an hour, and the health line says both figures.
const MaxRetryAfter = time.Hour

// retryDelay is how long the watch loop waits after a retryable failure e,
// given the backoff it would otherwise use: a delay the server asks for is
// honoured, clamped to [interval, MaxRetryAfter]; a 429 that names no delay
// waits at least the interval. hold reports that the wait was the server's
// (no poll of any kind before it ends).
func retryDelay(e *Error, backoff, interval time.Duration) (d time.Duration, hold bool) {
	switch {
	case e.RetryAfter > 0:
		return min(max(e.RetryAfter, interval), MaxRetryAfter), true
	case e.Kind == KindRateLimited:
		return max(backoff, interval), true
	}
	return backoff, false
}

// statusRetryAfter is the delay a non-2xx answer asks for: its Retry-After
// header, else the delay in its body, else (for a 429) the "retry after Ns"
// of its message.
func statusRetryAfter(header string, now time.Time, body time.Duration, msg string, rateLimited bool) time.Duration {
	if d := retryAfterHeader(header, now); d > 0 {
		return d
	}
	if body > 0 {
		return body
	}
	if rateLimited {
		return retryAfterText(msg)
	}
	return 0
}

// "please retry after 12s", "retry after 1.5 seconds", "try again in 2 minutes"
var retryText = regexp.MustCompile(`(?i)(?:retry|try again)\s+(?:after|in)\s+(\d+(?:\.\d+)?)\s*(milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m)?\b`)

// bodyRetryAfter is the delay a rate-limit answer's body asks for:
// retry_after_seconds, else the "retry after Ns" of its message.
func bodyRetryAfter(o object, msg string) time.Duration {
	for _, name := range []string{"retry_after_seconds", "retryAfterSeconds"} {
		if f, ok := o.num(name); ok && f > 0 {
			return secondsDur(f)
		}
	}
	return retryAfterText(msg)
}

// retryAfterText reads the "retry after Ns" of a 429 message.
func retryAfterText(msg string) time.Duration {
	m := retryText.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil || f < 0 {
		return 0
	}
	unit := time.Second
	switch strings.ToLower(m[2]) {
	case "ms", "millisecond", "milliseconds":
		unit = time.Millisecond
	case "m", "min", "mins", "minute", "minutes":
		unit = time.Minute
	}
	return secondsDur(f * float64(unit) / float64(time.Second))
}

// retryAfterHeader reads a Retry-After header: delta-seconds (fractions
// accepted) or an HTTP date, relative to now.
func retryAfterHeader(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f <= 0 {
			return 0
		}
		return secondsDur(f)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, maxServerDelay)
		}
	}
	return 0
}

// maxServerDelay bounds a delay read from an answer (a nonsense value must
// not overflow); retryDelay clamps further, to MaxRetryAfter.
const maxServerDelay = 24 * time.Hour

// secondsDur converts seconds to a Duration, saturating at maxServerDelay.
func secondsDur(f float64) time.Duration {
	if f != f || f <= 0 {
		return 0
	}
	if f > maxServerDelay.Seconds() {
		return maxServerDelay
	}
	return time.Duration(f * float64(time.Second))
}

// RetryWait is how long a caller that polls besides the watch loop (the
// runs screen, runs --limit, team) waits before asking again after err:
// the watch loop's rule with interval as the backoff (a delay the service
// asked for, clamped to [interval, MaxRetryAfter]); ok is false when asking
// again cannot help (a refusal).
func RetryWait(err error, interval time.Duration) (d time.Duration, ok bool) {
	var e *Error
	if !errors.As(err, &e) {
		return interval, true
	}
	if !e.Retryable() {
		return 0, false
	}
	d, _ = retryDelay(e, interval, interval)
	return d, true
}
