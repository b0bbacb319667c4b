package poller

import (
	"context"
	"errors"
	"time"

	"github.com/firewatch/firewatch/text"
)

// OutsideError types the failure of a request firewatch sends somewhere
// other than the service (a notification's webhook), so that Retry decides
// its waits as it does for the service's own requests. Either status is
// the answer's (err nil; header is its Retry-After) or err is why no
// answer came (status 0; timeout bounds the request). Its strings hold no
// server text beyond a sanitised reason.
func OutsideError(op string, status int, header string, err error, timeout time.Duration) *Error {
	if err == nil {
		e := &Error{Kind: classify(op, status, ""), Op: op, Status: status}
		if e.Kind == KindRateLimited || e.Kind == KindServer {
			e.RetryAfter = retryAfterHeader(header, time.Now())
		}
		return e
	}
	e := &Error{Op: op, Err: err}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		e.Kind, e.detail = KindTimeout, "no answer within "+text.Duration(timeout)
		return e
	}
	e.Kind, e.detail = KindNetwork, text.Sanitize(netReason(err, false))
	return e
}
