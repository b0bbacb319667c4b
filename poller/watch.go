package poller

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/internal/panics"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// Defaults and bounds of the watch loop.
const (
	DefaultInterval    = 2 * time.Second
	MinInterval        = 100 * time.Millisecond
	DefaultMaxInterval = 10 * time.Second
	DefaultTail        = 3
	DefaultTailMax     = 30 * time.Second
	DefaultTokenEvery  = time.Minute

	// SlowAfter is how many polls in a row must bring nothing new before
	// the interval starts to grow; it then grows by half at each further
	// empty poll, up to MaxInterval.
	SlowAfter = 3

	// Retry policy: capped exponential backoff with full jitter. The n-th
	// failure in a row waits a random time in [0, min(BackoffCap,
	// BackoffBase·2^(n-1))], at least MinInterval. A delay the server asks
	// for is honoured instead (see ratelimit.go).
	BackoffBase = 500 * time.Millisecond
	BackoffCap  = 30 * time.Second
)

// WatchOptions configure a Watcher. The zero value means the defaults.
type WatchOptions struct {
	// Interval between trace polls; default 2s; values below 100ms are
	// raised to 100ms.
	Interval time.Duration
	// MaxInterval caps the slow-down when polls bring nothing new for a
	// while; default 10s; never below Interval.
	MaxInterval time.Duration
	// Tail is how many polls in a row must bring nothing new after
	// run.finished before the watch stops; 0 means the default 3; a
	// negative value stops at the poll that brought run.finished.
	Tail int
	// TailMax caps the tail window (from the poll that brought
	// run.finished); default 30s.
	TailMax  time.Duration
	LiveView bool // ask for activeBrowserSessions (liveView=true)
	// TokenEvery is how often the team's token usage is refreshed; it is
	// also fetched once at the start. Default 1 minute; negative: never.
	TokenEvery time.Duration
	// Record, if set, receives the recording: NDJSON, a header line, then
	// one line per poll that changed something (see the package doc). A
	// line is one Write, but for a long one (past 256 KiB), which comes in
	// several cut between events; the Write that ends a line ends with
	// its newline, and no other holds one.
	Record io.Writer
	// Request is what the run was asked to do, as far as the caller knows
	// it; the recording's header carries it.
	Request model.Request
	// Decoder, if set, is the run's decoder to go on with (Client.NewDecoder):
	// a watch that takes over from another process's polls has decoded
	// them, and its first poll then brings only what they did not hold.
	// nil: a decoder of its own, that has seen nothing.
	Decoder *model.Decoder
	// TailFrom, if set, is when run.finished was seen before this watch
	// began (by the decoder it goes on with): the watch starts in the tail
	// window, which began then.
	TailFrom time.Time
}

// Update is what the watch loop hands its sink, one at a time.
type Update struct {
	Poll *model.Poll // the new data of a good poll (nil otherwise); merge it: store.Merge(Poll)
	// Request is what the run was asked to do, from a recording's header
	// (Replay, before the first poll): store.SetRequest(*Request).
	Request *model.Request
	// Actors is who started or cancelled the run through a hub (the
	// archive's record, a hub's action): store.SetActors(*Actors).
	Actors *model.Actors
	// Thread is the run's thread and turn (a hub's lookup of the run):
	// store.SetThread(*Thread).
	Thread *model.Thread
	Tokens *TokenUsage // when a token-usage fetch succeeded
	Health Health
	Err    error // the failed attempt's *Error when the loop retries
	Done   bool  // last update: the run is over and the tail window closed
}

// Health is the state of the loop, for the UI's status line and the plain
// output.
type Health struct {
	LastGood time.Time     // last good trace poll
	Polls    int           // good polls so far
	Failures int           // consecutive failures
	NextTry  time.Time     // when the next trace request is due
	Reason   string        // why the next try is when it is, with the delay: "rate limited, retrying in 12s"; "" when healthy
	Cause    string        // the last failure in a few words: "rate limited", "server error 503", "network: connection reset"; "" when healthy
	Wait     time.Duration // the delay chosen after the last failure
	Paused   bool
	// LiveView: the last trace request asked for live-view links (a
	// screen shared by several people shows what the one poll asks).
	LiveView bool
	Tail     bool          // run.finished seen; in the tail window
	Interval time.Duration // the current interval (after slow-down)

	TokensHidden bool   // token usage 404'd: hide it quietly
	Done         bool   // the watch is over
	Replay       bool   // the updates come from Replay, not the service
	RecordError  string // the recording stopped because writing failed

	// Recorded is when the recording received the poll just replayed
	// (zero for saved trace bodies, which carry no such time), and Speed
	// the replay's pace: the replay's clock runs from Recorded at Speed
	// times the wall clock's rate.
	Recorded time.Time
	Speed    float64

	// Via names the process whose polls the watch shows when they are
	// another's, read from a shared archive ("hub on office-1 (pid
	// 4242)"); "" when the watch polls the service itself.
	Via string
}

// String is a short human form: "ok · last poll 2s ago", "retrying in 8s:
// rate limited", "paused".
func (h Health) String() string { return h.StringAt(time.Now()) }

// StringAt is String relative to now.
func (h Health) StringAt(now time.Time) string {
	var s string
	switch {
	case h.Done:
		s = "finished"
		if h.Replay {
			s = "replay finished"
		}
	case h.Paused:
		return "paused"
	case h.Replay:
		s = "replay"
	case h.Failures > 0:
		s = "retrying"
		if wait := h.NextTry.Sub(now); wait > 0 {
			// Whole seconds, rounded up: a status line redrawn every
			// second counts down 3s, 2s, 1s.
			s += " in " + text.Elapsed((wait + time.Second - 1).Truncate(time.Second))
		} else {
			s += " now"
		}
		cause := h.Cause
		if cause == "" {
			cause = h.Reason
		}
		if cause != "" {
			s += ": " + cause
		}
		if !h.LastGood.IsZero() {
			s += " · last good poll " + text.Ago(now.Sub(h.LastGood))
		}
		return s
	case h.Polls == 0:
		return "connecting"
	case h.Tail:
		s = "run finished, waiting for late events"
	case h.Via != "":
		s = "ok, polled by " + h.Via
	default:
		s = "ok"
	}
	if !h.LastGood.IsZero() && !h.Replay {
		s += " · last poll " + text.Ago(now.Sub(h.LastGood))
	}
	return s
}

// clock is the loop's time source; tests replace it.
type clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed, and a
	// function that releases the timer.
	After(d time.Duration) (<-chan time.Time, func())
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) After(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}

// Watcher follows one run. Create it with Client.Watch, then call Run once.
type Watcher struct {
	c     *Client
	jobID string
	o     WatchOptions

	// Test seams.
	clock       clock
	jitter      func(n int64) int64 // uniform in [0, n)
	minInterval time.Duration
	backoffBase time.Duration
	backoffCap  time.Duration

	paused   atomic.Bool
	liveView atomic.Bool
	wake     chan struct{} // pause changed
	pollNow  chan struct{}
	running  atomic.Bool
}

// Watch returns a Watcher for the run jobID. Nothing is requested before
// Run; Run checks the id first.
func (c *Client) Watch(jobID string, o WatchOptions) *Watcher {
	w := &Watcher{
		c:           c,
		jobID:       jobID,
		o:           o,
		clock:       realClock{},
		jitter:      rand.Int64N,
		minInterval: MinInterval,
		backoffBase: BackoffBase,
		backoffCap:  BackoffCap,
		wake:        make(chan struct{}, 1),
		pollNow:     make(chan struct{}, 1),
	}
	w.liveView.Store(o.LiveView)
	return w
}

// SetPaused stops (true) or resumes (false) trace requests and token-usage
// fetches. A request in flight completes. Safe from any goroutine.
func (w *Watcher) SetPaused(p bool) {
	if w.paused.Swap(p) != p {
		signal(w.wake)
	}
}

// PollNow skips the wait before the next trace request. It never starts a
// request while one is in flight (a request in flight answers it), does
// nothing while paused, and does not cut short a delay the server asked for
// (429 / Retry-After). Safe from any goroutine.
func (w *Watcher) PollNow() { signal(w.pollNow) }

// SetLiveView switches liveView=true on or off for the next requests. Safe
// from any goroutine.
func (w *Watcher) SetLiveView(on bool) { w.liveView.Store(on) }

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// options returns o with the defaults filled in.
func (w *Watcher) options() WatchOptions {
	o := w.o
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Interval < w.minInterval {
		o.Interval = w.minInterval
	}
	if o.MaxInterval <= 0 {
		o.MaxInterval = DefaultMaxInterval
	}
	if o.MaxInterval < o.Interval {
		o.MaxInterval = o.Interval
	}
	switch {
	case o.Tail == 0:
		o.Tail = DefaultTail
	case o.Tail < 0:
		o.Tail = 0
	}
	if o.TailMax <= 0 {
		o.TailMax = DefaultTailMax
	}
	if o.TokenEvery == 0 {
		o.TokenEvery = DefaultTokenEvery
	}
	return o
}

type tokenResult struct {
	t   *TokenUsage
	err error
}

// loop is the state of one Run.
type loop struct {
	w    *Watcher
	o    WatchOptions
	dec  *model.Decoder
	rec  *recorder
	sink func(Update)
	h    Health

	nextTrace time.Time
	hold      time.Time // PollNow does not cut a wait before this (server-asked delays)
	attempt   int       // consecutive failures
	idle      int       // good polls in a row with nothing new (outside the tail)
	interval  time.Duration
	credits   float64
	hasCredit bool

	tailStart time.Time
	tailEmpty int

	// body is the trace body buffer, reused from poll to poll (see
	// readBody): nothing keeps a body past its poll (the decoder copies
	// what it keeps, the recording writes before the next poll).
	body bodyBuf
	// decodedAsRead: the last body read into body was decoded and the
	// decoder took it, so the part of the next body that is the same as it
	// needs no comparing again (model.Decoder.DecodeSame). The decoder
	// redacts the secrets from what it keeps, in every form.
	decodedAsRead bool
}

var (
	traceQuery     url.Values
	traceQueryLive = url.Values{"liveView": {"true"}}
)

// Run follows the run to its end, calling sink (from Run's goroutine, in
// order, never concurrently) with every good poll, failed attempt, token
// usage and change of health.
//
// It returns nil when run.finished was seen and the tail window closed (the
// last Update has Done set); ctx.Err() when ctx ends; and at once the
// *Error of a request that must not be retried: a 400/401/403/404 (or other
// 4xx) on the trace, or an invalid job id (then without any request). In
// the tail window such an error only closes the window (the run is over,
// its final state known): it comes in an Update, then the Done one, and Run
// returns nil.
// Retryable failures (429, 5xx, 408, network, timeout, malformed bodies)
// are retried as the package doc describes; they never clear or rewind
// anything: the decoder keeps its state and the next good poll continues.
func (w *Watcher) Run(ctx context.Context, sink func(Update)) error {
	if err := w.c.checkJob("trace", w.jobID); err != nil {
		return err
	}
	if !w.running.CompareAndSwap(false, true) {
		return errors.New("poller: Watcher.Run called twice")
	}
	if sink == nil {
		sink = func(Update) {}
	}
	o := w.options()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()

	l := &loop{w: w, o: o, dec: o.Decoder, sink: sink, interval: o.Interval}
	if l.dec == nil {
		l.dec = w.c.newDecoder()
	}
	l.dec.SetRunID(w.jobID) // another run's events decide nothing here
	l.h.Interval = o.Interval
	now := w.clock.Now()
	if !o.TailFrom.IsZero() {
		l.h.Tail, l.tailStart = true, o.TailFrom
	}
	if o.Record != nil {
		l.rec = &recorder{w: o.Record, secrets: w.c.secrets}
		l.dec.KeepTop()
		l.rec.header(w.jobID, w.c.base, now, o.Request)
		l.checkRecord()
	}
	l.nextTrace = now
	l.h.NextTry = now

	tokens := o.TokenEvery > 0
	nextToken := now
	tokenBusy := false
	tokenCh := make(chan tokenResult, 1)
	tokenDone := func(r tokenResult) {
		tokenBusy = false
		nextToken = w.clock.Now().Add(o.TokenEvery)
		var e *Error
		switch {
		case r.err == nil:
			sink(Update{Tokens: r.t, Health: l.h})
		case ctx.Err() != nil:
		case errors.As(r.err, &e) && e.Kind == KindNotFound:
			w.c.logf("watch: token usage not available, hiding it: %v", r.err)
			l.h.TokensHidden = true
			sink(Update{Health: l.h})
		default:
			w.c.logf("watch: token usage skipped: %v", r.err)
		}
	}

	w.c.logf("watch %s: every %s (up to %s when idle), tail %d polls / %s", w.jobID, text.Duration(o.Interval), text.Duration(o.MaxInterval), o.Tail, text.Duration(o.TailMax))
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		select {
		case r := <-tokenCh:
			tokenDone(r)
		default:
		}
		now = w.clock.Now()
		if p := w.paused.Load(); p != l.h.Paused {
			l.h.Paused = p
			w.c.logf("watch: paused=%v", p)
			sink(Update{Health: l.h})
		}
		paused := l.h.Paused
		if !paused && tokens && !tokenBusy && !l.h.TokensHidden && !now.Before(nextToken) {
			tokenBusy = true
			wg.Add(1)
			panics.Go(ctx, func() {
				defer wg.Done()
				t, err := w.c.TokenUsage(ctx)
				tokenCh <- tokenResult{t, err}
			})
		}
		if !paused && !now.Before(l.nextTrace) {
			done, err := l.poll(ctx)
			if err != nil {
				return err
			}
			if done {
				return nil
			}
			continue
		}

		// Wait for the next deadline or a signal.
		var due time.Time
		if !paused {
			due = l.nextTrace
			if tokens && !tokenBusy && !l.h.TokensHidden && nextToken.Before(due) {
				due = nextToken
			}
		}
		var timer <-chan time.Time
		stop := func() {}
		if !due.IsZero() {
			timer, stop = w.clock.After(due.Sub(now))
		}
		select {
		case <-ctx.Done():
			stop()
			return ctx.Err()
		case <-timer:
		case <-w.wake:
		case <-w.pollNow:
			if now := w.clock.Now(); !w.paused.Load() && !now.Before(l.hold) {
				w.c.logf("watch: poll now")
				l.nextTrace = now
			}
		case r := <-tokenCh:
			tokenDone(r)
		}
		stop()
	}
}

// poll makes one trace request and handles its outcome. done is true when
// the tail window closed.
func (l *loop) poll(ctx context.Context) (done bool, err error) {
	w := l.w
	var body []byte
	same := 0
	err = w.c.checkJob("trace", w.jobID)
	if err == nil {
		q := traceQuery
		l.h.LiveView = w.liveView.Load()
		if l.h.LiveView {
			q = traceQueryLive
		}
		body, same, err = w.c.trace(ctx, w.jobID, q, &l.body)
		if err == nil && !l.decodedAsRead {
			same = 0
		}
		if err == nil || l.body.n == 0 {
			l.decodedAsRead = false // set again below once this body is taken
		}
	}
	received := w.clock.Now()
	// A PollNow that came while the request was in flight is answered by it.
	select {
	case <-w.pollNow:
	default:
	}
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return l.failed(err, received)
	}
	p, top, derr := l.decode(body, same)
	if derr != nil {
		return l.failed(w.c.decodeError(derr, body), received)
	}
	l.decodedAsRead = true

	// A good poll.
	l.h.Polls++
	l.h.LastGood = received
	l.h.Failures, l.attempt = 0, 0
	l.h.Reason, l.h.Cause, l.h.Wait = "", "", 0
	l.hold = time.Time{}

	fresh := len(p.Events) > 0 || len(p.Rejected) > 0
	active := fresh
	if p.HasCredits && (!l.hasCredit || p.CreditsUsed > l.credits) {
		active = active || l.hasCredit // the first figure is not news
		l.credits, l.hasCredit = p.CreditsUsed, true
	}
	if l.rec != nil {
		l.rec.poll(received, top, p)
		l.checkRecord()
	}

	switch {
	case p.Finished && !l.h.Tail:
		l.h.Tail = true
		l.tailStart = received
		l.tailEmpty = 0
		w.c.logf("watch: run.finished seen; tail window of %d empty polls, at most %s", l.o.Tail, text.Duration(l.o.TailMax))
	case l.h.Tail && fresh:
		l.tailEmpty = 0
		w.c.logf("watch: %d late events in the tail window", len(p.Events))
	case l.h.Tail:
		l.tailEmpty++
	}

	// Slow down when nothing happens; back to the interval as soon as
	// something does. The tail window polls at the interval.
	switch {
	case active || l.h.Tail:
		l.idle = 0
		l.interval = l.o.Interval
	default:
		l.idle++
		if l.idle >= SlowAfter && l.interval < l.o.MaxInterval {
			l.interval = min(l.interval*3/2, l.o.MaxInterval)
		}
	}
	l.h.Interval = l.interval
	l.nextTrace = received.Add(l.interval)

	if l.h.Tail {
		deadline := l.tailStart.Add(l.o.TailMax)
		if l.tailEmpty >= l.o.Tail || !received.Before(deadline) {
			done = true
		} else if l.nextTrace.After(deadline) {
			l.nextTrace = deadline // one last look at the cap
		}
	}
	l.h.NextTry = l.nextTrace
	if len(p.Events) > 0 {
		w.c.logf("watch: poll %d: %d new events of %d", l.h.Polls, len(p.Events), p.Total)
	}
	l.sink(Update{Poll: p, Health: l.h})
	if done {
		l.finish()
	}
	return done, nil
}

// failed handles a failed trace request: a refusal ends the watch, anything
// retryable schedules the next try.
func (l *loop) failed(err error, received time.Time) (bool, error) {
	w := l.w
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Kind: KindNetwork, Op: "trace", Err: scrubErr(err, w.c.secrets), secrets: w.c.secrets}
	}
	if !e.Retryable() {
		if l.h.Tail {
			// The run is over and its final state is in hand: a refusal
			// now (the job expired, the key was revoked...) only ends the
			// tail window early.
			w.c.logf("watch: tail window ended by: %v", e)
			l.h.Cause = e.Short()
			l.sink(Update{Err: e, Health: l.h})
			l.finish()
			return true, nil
		}
		w.c.logf("watch: giving up: %v", e)
		return false, e
	}
	l.attempt++
	wait, _ := l.retry().Delay(e, l.attempt) // retryable, and a poller never gives up
	d := wait.Delay
	l.hold = time.Time{}
	if wait.Hold {
		l.hold = received.Add(d)
	}
	l.nextTrace = received.Add(d)
	l.h.Failures = l.attempt
	l.h.NextTry = l.nextTrace
	l.h.Cause = e.Short()
	l.h.Wait = d
	l.h.Reason = wait.String()
	w.c.logf("watch: attempt failed (%d in a row): %v; retrying in %s", l.attempt, e, text.Duration(d))

	if l.h.Tail {
		deadline := l.tailStart.Add(l.o.TailMax)
		switch {
		case l.nextTrace.After(deadline) && l.hold.After(deadline), !received.Before(deadline):
			// The run is over and the tail window has run out, or will
			// before the server lets us try again: what was received is
			// the final state.
			l.sink(Update{Err: e, Health: l.h})
			l.finish()
			return true, nil
		case l.nextTrace.After(deadline):
			// One last look at the cap.
			l.nextTrace = deadline
			l.h.NextTry, l.h.Wait = deadline, deadline.Sub(received)
			l.h.Reason = l.h.Cause + ", retrying in " + text.Duration(l.h.Wait)
		}
	}
	l.sink(Update{Err: e, Health: l.h})
	return false, nil
}

func (l *loop) finish() {
	l.h.Done = true
	l.h.NextTry = time.Time{}
	l.h.Reason, l.h.Cause = "", ""
	l.w.c.logf("watch: done after %d polls", l.h.Polls)
	l.sink(Update{Health: l.h, Done: true})
}

// retry is the watch's policy: the one of ratelimit.go as a poller's
// (never giving up, no 429 waited less than the interval), its backoff
// jittered.
func (l *loop) retry() Retry {
	return Retry{Tries: -1, Base: l.w.backoffBase, Cap: l.w.backoffCap, Interval: l.o.Interval, Min: l.w.minInterval, Jitter: l.w.jitter}
}

func (l *loop) checkRecord() {
	if l.rec.err != nil && l.h.RecordError == "" {
		l.h.RecordError = cleanMessage(l.rec.err.Error(), l.w.c.secrets)
		l.w.c.logf("watch: recording stopped: %v", l.rec.err)
	}
}

// decode decodes a trace body with the run's decoder. A body the decoder
// rejects (truncated, not JSON...) leaves it as it was: the next good body
// continues (TestTruncatedBodyLosesNothing holds the decoder to that).
// When recording, the decoder keeps the top-level members the recording
// writes as received (model.Decoder.KeepTop): the body is read once, and
// the part that is the same as the last body's is not read again.
func (l *loop) decode(body []byte, same int) (*model.Poll, traceTop, error) {
	p, err := l.dec.DecodeSame(body, same)
	if err != nil || l.rec == nil {
		return p, traceTop{}, err
	}
	return p, topOf(p), nil
}

// topOf is the top-level members a decoder that keeps them (KeepTop)
// found in p's body, as the recording writes them.
func topOf(p *model.Poll) traceTop {
	return traceTop{success: p.Top.Success, id: p.Top.ID, credits: p.Top.CreditsUsed, live: p.Top.LiveSessions}
}

// decodeError wraps a decoding failure of a 2xx trace body.
func (c *Client) decodeError(err error, body []byte) *Error {
	e := &Error{Kind: KindMalformed, Op: "trace", Status: 200, Err: scrubErr(err, c.secrets), secrets: c.secrets}
	var de *model.DecodeError
	if errors.As(err, &de) {
		e.detail = cleanMessage(de.Msg, c.secrets)
		if de.Field != "" {
			e.detail = cleanMessage(de.Field, c.secrets) + ": " + e.detail
		}
		if de.ServerError != "" {
			// {"success":false,"error":"..."} with a 2xx status: believe
			// the message and treat it as what it says (a server error
			// when it names nothing more precise), not as a body that
			// cannot be read.
			e.ServerMessage = cleanMessage(de.ServerError, c.secrets)
			e.Kind = classifyText("trace", e.ServerMessage)
			if e.Kind == KindRateLimited {
				o, _ := parseObject(body)
				e.RetryAfter = bodyRetryAfter(o, e.ServerMessage)
			}
		}
	} else {
		e.detail = cleanMessage(err.Error(), c.secrets)
	}
	return e
}

// traceTop holds the raw top-level members of a trace body (besides
// events) that the recording keeps as received.
type traceTop struct {
	success, id, credits, live jsontext.Value
}

var scanOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// scanTrace checks that body is one complete JSON object and returns its
// success, id, creditsUsed and activeBrowserSessions members (copies).
func scanTrace(body []byte) (traceTop, error) {
	var top traceTop
	dec := jsontext.NewDecoder(bytes.NewReader(body), scanOpts...)
	tok, err := dec.ReadToken()
	if err != nil {
		return top, err
	}
	if tok.Kind() != '{' {
		return top, errors.New("not an object")
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return top, err
		}
		var dst *jsontext.Value
		switch name.String() {
		case "success":
			dst = &top.success
		case "id":
			dst = &top.id
		case "creditsUsed":
			dst = &top.credits
		case "activeBrowserSessions":
			dst = &top.live
		}
		if dst == nil {
			if err := dec.SkipValue(); err != nil {
				return top, err
			}
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			return top, err
		}
		*dst = bytes.Clone(v)
	}
	if _, err := dec.ReadToken(); err != nil {
		return top, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the object")
		}
		return top, err
	}
	return top, nil
}

// compactJSON removes the white space outside strings from a valid JSON
// value, so that a pretty-printed server's values fit on one NDJSON line.
// Everything else is kept byte for byte.
func compactJSON(v []byte) []byte {
	if !bytes.ContainsAny(v, "\n\r") {
		return v
	}
	out := make([]byte, 0, len(v))
	inStr, esc := false, false
	for _, c := range v {
		switch {
		case inStr:
			out = append(out, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			if c == '"' {
				inStr = true
			}
			out = append(out, c)
		}
	}
	return out
}
