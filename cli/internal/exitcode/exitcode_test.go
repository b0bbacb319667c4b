package exitcode

import (
	"context"
	"errors"
	"syscall"
	"testing"

	"github.com/firewatch/firewatch/poller"
)

// TestCode: the kinds commands return and the code each gets, decided
// in this package alone.
func TestCode(t *testing.T) {
	out := &OutputError{Name: "stdout", Err: syscall.EPIPE}
	code := 3
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, 0},
		{"usage", BadUsage("--tail %d", 0), 2},
		{"cobra's own", errors.New("unknown flag: --x"), 2},
		{"failure", &Failure{errors.New("disk on fire")}, 1},
		{"a signal", ErrInterrupted, 130},
		{"the UI quit", ErrQuit, 130},
		{"a write that failed", out, 8},
		{"outputs failed after a clean end", &OutputsFailed{nil}, 8},
		{"outputs failed after an interrupt", &OutputsFailed{ErrInterrupted}, 8},
		{"outputs failed after a failed run", &OutputsFailed{&Failure{errors.New("x")}}, 1},
		{"refused", &poller.Error{Kind: poller.KindNotFound, Status: 404}, 6},
		{"a 5xx after the retries", &poller.Error{Kind: poller.KindServer, Status: 503}, 1},
		{"a 429 after the retries", &poller.Error{Kind: poller.KindRateLimited, Status: 429}, 6},
		{"an id refused before any request", &poller.Error{Kind: poller.KindInvalidID}, 2},
		{"interact killed", &InteractEnd{&poller.InteractResult{Killed: true}}, 124},
		{"interact exit code", &InteractEnd{&poller.InteractResult{ExitCode: &code}}, 3},
	} {
		if got := Code(tc.err); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}

// How a crawl watch ended → the exit code: a status that ends the crawl
// decides however watching ended; else the reason watching stopped; a
// failed output is 8 when the code would be 0 or 130.
func TestCrawlEndCodes(t *testing.T) {
	limited := &poller.Error{Kind: poller.KindRateLimited, Status: 429, Op: poller.OpCrawlStatus}
	server := &poller.Error{Kind: poller.KindServer, Status: 503, Op: poller.OpCrawlStatus}
	notFound := &poller.Error{Kind: poller.KindNotFound, Status: 404, Op: poller.OpCrawlStatus}
	out := &OutputError{Name: "stdout", Err: errors.New("closed")}
	for _, tc := range []struct {
		end  CrawlEnd
		want int
	}{
		{CrawlEnd{Status: "completed"}, OK},
		{CrawlEnd{Status: "failed"}, Failed},
		{CrawlEnd{Status: "cancelled"}, Cancelled},
		{CrawlEnd{Status: "cancelled", Err: ErrTimeout}, Cancelled},
		{CrawlEnd{Status: "scraping", Err: ErrTimeout}, Timeout},
		{CrawlEnd{Err: ErrInterrupted}, Interrupted},
		{CrawlEnd{Status: "scraping", Err: ErrQuit}, Interrupted},
		{CrawlEnd{Err: limited}, Rejected},
		{CrawlEnd{Err: notFound}, Rejected},
		{CrawlEnd{Err: server}, Failed},
		{CrawlEnd{Status: "completed", Output: out}, Output},
		{CrawlEnd{Err: context.Canceled, Output: out}, Output},
		{CrawlEnd{Status: "cancelled", Output: out}, Cancelled},
	} {
		if got := Code(&tc.end); got != tc.want {
			t.Errorf("%+v: exit %d, want %d", tc.end, got, tc.want)
		}
	}
}
