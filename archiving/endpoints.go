package archiving

import (
	"context"
	"errors"

	"github.com/firewatch/firewatch/poller"
)

// What a pass knows of the endpoints it asks for each run (a run's status,
// its trace, its snapshots). One whose requests failed for a run (a 5xx,
// the network, a timeout, a malformed answer: what the retries could not
// get past) is asked without retries (429s are still waited out) until it
// answers again; one that failed so for offAfter runs in a row is asked no
// more in this pass: the parts of the runs it serves are left for the next
// pass, which asks again, and the pass says so once.

// offAfter is how many runs in a row an endpoint fails for before the
// pass stops asking it.
const offAfter = 3

// Endpoint names (poller.Error.Op's).
const (
	epStatus   = "status"
	epTrace    = "trace"
	epSnapshot = "snapshot"
)

// endpoints is one pass's view of the service's endpoints; nil: every
// endpoint is always asked, with the client's retries (the runs screen's
// completions).
type endpoints struct {
	failing map[string]int   // runs in a row it failed for
	off     map[string]error // asked no more in this pass: its last failure
	// turnedOff is told once of each endpoint the pass stops asking.
	turnedOff func(op string, runs int, err error)
}

func newEndpoints(turnedOff func(op string, runs int, err error)) *endpoints {
	return &endpoints{failing: map[string]int{}, off: map[string]error{}, turnedOff: turnedOff}
}

// failure reports whether err is the endpoint failing (not the run's own
// answer, a body too large to keep, a 429, or the pass interrupted).
func failure(err error) bool {
	var pe *poller.Error
	return err != nil && errors.As(err, &pe) && pe.Retryable() && pe.Kind != poller.KindRateLimited && !pe.TooLarge() &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// offErr is why the pass asks op no more, nil when it still asks it.
func (e *endpoints) offErr(op string) error {
	if e == nil {
		return nil
	}
	return e.off[op]
}

// client is the client to ask op with: c, or c retrying 429s only while
// op is failing.
func (e *endpoints) client(c *poller.Client, op string) *poller.Client {
	if e == nil || e.failing[op] == 0 {
		return c
	}
	return quick(c)
}

// quick is c retrying 429s only: for an endpoint failing now.
func quick(c *poller.Client) *poller.Client {
	r := c.Retry()
	r.RateLimitOnly = true
	return c.WithRetry(r)
}

// ran records how op did for one run: answered (ok), failed (err), or
// neither (err nil, not ok: not asked, or only 429s and refusals).
func (e *endpoints) ran(op string, ok bool, err error) {
	if e == nil || e.off[op] != nil {
		return
	}
	switch {
	case ok:
		e.failing[op] = 0
	case failure(err):
		e.failing[op]++
		if e.failing[op] >= offAfter {
			e.off[op] = err
			if e.turnedOff != nil {
				e.turnedOff(op, e.failing[op], err)
			}
		}
	}
}

// answered reports whether err is an answer about the run (nil, or a
// refusal such as a 404): the endpoint works.
func answered(err error) bool {
	var pe *poller.Error
	return err == nil || errors.As(err, &pe) && !pe.Retryable()
}
