package poller

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/firewatch/firewatch/text"
)

// Every wait before asking again is decided in this file (Retry.Delay):
// after a 429, a 5xx, a timeout or a network failure, for every caller (the
// client's one-shot methods, the watch loop, the runs screen). Here too is
// where a delay the service asks for is read (the Retry-After header, the
// body's retry_after_seconds, the message's "retry after Ns") and bounded.

// MaxRetryAfter is the longest a delay the service asks for is waited: a
// 429 asking for ten minutes is waited out in full (asking sooner only earns
// another 429); one asking for longer than an hour is tried again after an
// hour, and what is said names both figures.
const MaxRetryAfter = time.Hour

// Defaults of a Retry's zero fields.
const (
	DefaultTries     = 5                // tries in all, the first included
	DefaultRetryBase = time.Second      // the first retry's wait when the service names none
	DefaultRetryCap  = 30 * time.Second // the longest such wait
)

// Retry is the one policy for asking again after a failure that asking
// again may cure (Error.Retryable: a 429, a 5xx, a timeout, the network,
// a malformed answer). The n-th retry waits the delay the service asked
// for (clamped to [Interval, MaxRetryAfter]), else Base·2^(n-1) capped at
// Cap (and, for a 429, at least Interval); never less than Min. After
// Tries tries in all the caller gives up with the last error. A 429 about
// the browser sessions of a scrape is not retried: waiting does not free
// one. The zero value is the one-shot commands' policy.
type Retry struct {
	Tries    int           // tries in all; 0: DefaultTries; negative: never give up (a poller)
	Base     time.Duration // 0: DefaultRetryBase
	Cap      time.Duration // 0: DefaultRetryCap
	Interval time.Duration // a poller's interval: no 429 is waited less
	Min      time.Duration // no wait is shorter
	// Jitter, if set, spreads the backoff: the wait is Jitter(n+1) for a
	// backoff of n nanoseconds (full jitter); nil: the backoff itself, so
	// that the same failures give the same waits.
	Jitter func(n int64) int64
	// RateLimitOnly retries only 429s: for a request that must not be
	// sent twice (starting a run, running code) unless it was refused.
	RateLimitOnly bool
	// Notify, if set, is told before each wait, to say it to whoever
	// waits (a line on stderr, the screen).
	Notify func(Wait)
	// Sleep replaces the timer (tests): it waits d or until ctx ends and
	// reports whether d passed.
	Sleep func(ctx context.Context, d time.Duration) bool
}

// Wait is one wait before asking again.
type Wait struct {
	Err   *Error        // the failure
	Delay time.Duration // how long the wait is
	Asked time.Duration // the delay the service asked for (0: none)
	Retry int           // 1 for the first retry
	Tries int           // tries in all; 0: no limit
	Hold  bool          // the service's own delay (a 429): nothing is asked sooner
}

// String is the wait for people: "rate limited, retrying in 12s (1/4)";
// a capped delay names what was asked too.
func (w Wait) String() string {
	s := w.Err.Short() + ", retrying in " + text.Duration(w.Delay)
	if w.Asked > w.Delay {
		// Capped (MaxRetryAfter): say what was asked and what is done.
		s = w.Err.Short() + ", the service asks to wait " + text.Duration(w.Asked) + "; retrying in " + text.Duration(w.Delay)
	}
	if w.Tries > 0 {
		s += fmt.Sprintf(" (%d/%d)", w.Retry, w.Tries-1)
	}
	return s
}

// Delay is the wait before retry n (1 for the first) after err; ok is
// false when asking again cannot help or the tries are used up.
func (r Retry) Delay(err error, n int) (w Wait, ok bool) {
	var e *Error
	if !errors.As(err, &e) || !e.Retryable() || e.SessionLimit() || r.RateLimitOnly && e.Kind != KindRateLimited {
		return Wait{}, false
	}
	tries := r.tries()
	if tries > 0 && n >= tries {
		return Wait{}, false
	}
	w = Wait{Err: e, Asked: e.RetryAfter, Retry: n, Tries: max(tries, 0)}
	switch {
	case e.RetryAfter > 0:
		w.Delay, w.Hold = min(max(e.RetryAfter, r.Interval), MaxRetryAfter), true
	case e.Kind == KindRateLimited:
		w.Delay, w.Hold = max(r.backoff(n), r.Interval), true
	default:
		w.Delay = r.backoff(n)
	}
	w.Delay = max(w.Delay, r.Min)
	return w, true
}

// rateLimitOnly is r retrying 429s alone.
func (r Retry) rateLimitOnly() Retry {
	r.RateLimitOnly = true
	return r
}

func (r Retry) tries() int {
	if r.Tries == 0 {
		return DefaultTries
	}
	return r.Tries
}

// backoff is the n-th retry's own wait: Base·2^(n-1) capped at Cap,
// jittered when Jitter is set.
func (r Retry) backoff(n int) time.Duration {
	base, ceil := cmp.Or(r.Base, DefaultRetryBase), cmp.Or(r.Cap, DefaultRetryCap)
	d := ceil
	if n < 20 {
		d = min(ceil, base<<max(n-1, 0))
	}
	if r.Jitter != nil {
		d = time.Duration(r.Jitter(int64(d) + 1))
	}
	return d
}

// Do calls fn until it succeeds, fails for good or the tries are used up,
// waiting Delay between tries and telling Notify of each wait. It returns
// fn's last error, or ctx's when ctx ends during a wait.
func (r Retry) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	for n := 1; ; n++ {
		err := fn(ctx)
		if err == nil || ctx.Err() != nil {
			return err
		}
		w, ok := r.Delay(err, n)
		if !ok {
			return err
		}
		if r.Notify != nil {
			r.Notify(w)
		}
		if !r.sleep(ctx, w.Delay) {
			return ctx.Err()
		}
	}
}

// Call is Do for a function with a result.
func Call[T any](ctx context.Context, r Retry, fn func(ctx context.Context) (T, error)) (T, error) {
	var v T
	err := r.Do(ctx, func(ctx context.Context) error {
		var err error
		v, err = fn(ctx)
		return err
	})
	return v, err
}

func (r Retry) sleep(ctx context.Context, d time.Duration) bool {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
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
// not overflow); Retry.Delay clamps further, to MaxRetryAfter.
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
