package poller

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/firewatch/firewatch/text"
)

// Kind tells errors apart. Use errors.As to get the *Error and read its Kind.
type Kind int

const (
	// KindInvalidID: the job id is not a UUID. ValidateJobID reports it
	// without making a request; a 400 "Invalid job ID" from the server too.
	KindInvalidID Kind = iota + 1
	// KindFirstGeneration: 400 on the trace or a snapshot: the job ran on
	// the first model generation, which records no trace.
	KindFirstGeneration
	// KindUnauthorized: 401 or 403, the key is missing or not accepted.
	KindUnauthorized
	// KindNotFound: 404 (or 410 Gone), the job (or snapshot) is unknown or
	// expired (results are kept for 24 hours).
	KindNotFound
	// KindAlreadyFinished: 409 on cancel, the run had already ended.
	KindAlreadyFinished
	// KindAlreadyCancelled: 409 on cancel, a cancellation was already
	// requested.
	KindAlreadyCancelled
	// KindRateLimited: 429. RetryAfter holds the delay the server asked for.
	KindRateLimited
	// KindServer: 5xx, or an answer no HTTP client should get (an
	// unfollowed redirect, a 2xx body saying it failed).
	KindServer
	// KindNetwork: no answer: connection refused, reset or dropped, DNS, TLS.
	KindNetwork
	// KindTimeout: no complete answer within the per-request timeout, or 408.
	KindTimeout
	// KindMalformed: a 2xx answer whose body cannot be used (not JSON,
	// truncated, no events array, too large).
	KindMalformed
	// KindInsecure: refused to send the key over plain http:// to a host
	// that is not loopback (New, or a redirect), or to another address
	// than the service's (a redirect).
	KindInsecure
	// KindBadRequest: any other 4xx (a 400 that is not about the id or the
	// generation, 402, 405, 413, 422...).
	KindBadRequest
)

var kindNames = map[Kind]string{
	KindInvalidID:        "invalid id",
	KindFirstGeneration:  "first generation",
	KindUnauthorized:     "unauthorized",
	KindNotFound:         "not found",
	KindAlreadyFinished:  "already finished",
	KindAlreadyCancelled: "already cancelled",
	KindRateLimited:      "rate limited",
	KindServer:           "server error",
	KindNetwork:          "network",
	KindTimeout:          "timeout",
	KindMalformed:        "malformed",
	KindInsecure:         "insecure",
	KindBadRequest:       "bad request",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Error is every failure of a request the client made (or refused to make).
// Its strings never contain the API key: ServerMessage is sanitised with
// text.Sanitize and scrubbed, Err is wrapped so that its message is
// scrubbed too, and Error() scrubs its whole result.
type Error struct {
	Kind          Kind
	Op            string        // "trace", "snapshot", "cancel", "status", "list runs", "token usage", "active crawls"
	Status        int           // HTTP status, 0 if none
	ServerMessage string        // the body's "error" string, sanitised, one line, at most 300 characters
	RetryAfter    time.Duration // the delay the server asked for (Retry-After header, retry_after_seconds, "retry after Ns"); 0 when none
	Err           error         // underlying cause (network, decode...), its message scrubbed of the key
	// Code is the body's "code" (a follow-up's refusal: ThreadBusy...),
	// sanitised; RunID the body's "runId" when it is a UUID (thread_busy:
	// the turn still running).
	Code, RunID string

	// detail is a human description of the cause for kinds whose fixed
	// sentence is not enough (network, timeout, malformed, invalid id).
	detail  string
	secrets *text.Secrets // redacted from Error()'s result (the key among them)
	// tooLarge: a 2xx answer larger than firewatch reads; the request
	// itself may well have done its work (an interact call's code ran).
	tooLarge bool
}

// Error is a sentence a person understands, the server's own message and,
// where it helps, what to do, e.g.
//
//	trace: not found or expired (404): "Agent job not found" — results are kept for 24 hours
func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.sentence())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (%d)", e.Status)
	}
	if e.ServerMessage != "" {
		fmt.Fprintf(&b, ": %q", e.ServerMessage)
	}
	if h := e.hint(); h != "" {
		b.WriteString(" — ")
		b.WriteString(h)
	}
	return e.secrets.Redact(b.String())
}

func (e *Error) sentence() string {
	switch e.Kind {
	case KindInvalidID:
		if e.detail != "" {
			return "invalid job id: " + e.detail
		}
		if e.Op == "snapshot" {
			return "invalid id"
		}
		return "invalid job id"
	case KindFirstGeneration:
		return "no trace for this job"
	case KindUnauthorized:
		return "unauthorised"
	case KindNotFound:
		return "not found or expired"
	case KindAlreadyFinished:
		if e.Op == OpCancelCrawl {
			return "the crawl is already over"
		}
		return "the run has already finished"
	case KindAlreadyCancelled:
		return "the run is already cancelled"
	case KindRateLimited:
		return "rate limited"
	case KindServer:
		if e.detail != "" {
			return "server error: " + e.detail
		}
		return "server error"
	case KindNetwork:
		return "network error: " + orDefault(e.detail, "no connection")
	case KindTimeout:
		if e.Status == 408 {
			return "the server timed out"
		}
		return orDefault(e.detail, "timed out")
	case KindMalformed:
		if e.tooLarge {
			return "answer not read: " + e.detail
		}
		return "malformed response: " + orDefault(e.detail, "the body cannot be used")
	case KindInsecure:
		return orDefault(e.detail, "refusing to send the API key over plain http")
	case KindBadRequest:
		if e.Status == 400 || e.Status == 0 {
			return "request refused"
		}
		return "request refused by the service"
	}
	return "request failed"
}

func (e *Error) hint() string {
	if h := scrapeHint(e); h != "" {
		return h
	}
	switch e.Kind {
	case KindFirstGeneration:
		return "traces exist only for runs on the second model generation (Spark 2)"
	case KindUnauthorized:
		return "check the API key (FIRECRAWL_API_KEY)"
	case KindNotFound:
		if e.Op == "trace" || e.Op == "status" || e.Op == "cancel" || e.Op == "snapshot" {
			return "results are kept for 24 hours"
		}
	case KindRateLimited:
		if e.RetryAfter > 0 {
			return "the service asks to wait " + text.Duration(e.RetryAfter)
		}
	}
	return ""
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether trying again later can succeed: rate limits,
// 5xx, 408, network errors, timeouts and malformed or truncated bodies.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case KindRateLimited, KindServer, KindNetwork, KindTimeout, KindMalformed:
		return true
	}
	return false
}

// TooLarge reports whether e is a 2xx answer larger than firewatch reads:
// the run's own (a trace, a snapshot too large), not the service failing.
func (e *Error) TooLarge() bool { return e.tooLarge }

// Refusal reports whether the service refused the request for good: 400,
// 401, 403, 404 and other 4xx except 408, 409 and 429 (invalid id and
// first-generation jobs included). The CLI exits 6 on these. A 409 on
// cancel is an answer (already finished / cancelled), not a refusal.
func (e *Error) Refusal() bool {
	switch e.Kind {
	case KindInvalidID, KindFirstGeneration, KindUnauthorized, KindNotFound, KindBadRequest:
		return true
	}
	return false
}

// Short is the cause in a few words, for a status line: "rate limited",
// "server error 503", "network: connection reset", "timed out",
// "malformed response".
func (e *Error) Short() string {
	var s string
	switch e.Kind {
	case KindRateLimited:
		s = "rate limited"
	case KindServer:
		switch {
		case e.Status == 200 && e.ServerMessage != "":
			// {"success":false,"error":"..."} with a 200: the message is
			// all there is to say.
			s = "the service says " + strconv.Quote(truncateRunes(e.ServerMessage, 100))
		case e.Status != 0:
			s = "server error " + strconv.Itoa(e.Status)
		default:
			s = "server error"
		}
	case KindNetwork:
		s = "network: " + orDefault(e.detail, "no connection")
	case KindTimeout:
		if e.Status == 408 {
			s = "server timeout 408"
		} else {
			s = "timed out"
		}
	case KindMalformed:
		if e.tooLarge {
			s = "answer too large"
		} else if strings.Contains(e.detail, "truncated") || strings.Contains(e.detail, "ends too early") {
			s = "truncated response"
		} else {
			// Say why, not only that: "malformed response: events[3]:
			// invalid character 'x' ..." (the detail is clean already).
			s = "malformed response"
			if e.detail != "" {
				s += ": " + truncateRunes(e.detail, 100)
			}
		}
	default:
		s = e.sentence()
		if e.Status != 0 {
			s += " " + strconv.Itoa(e.Status)
		}
	}
	return e.secrets.Redact(s)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// redacted replaces the key wherever it occurs.
const redacted = text.Redacted

// scrubbedError carries an underlying error whose message has been scrubbed
// of the key; Unwrap still gives the original for errors.Is / errors.As.
type scrubbedError struct {
	msg string
	err error
}

func (s *scrubbedError) Error() string { return s.msg }
func (s *scrubbedError) Unwrap() error { return s.err }

func scrubErr(err error, secrets *text.Secrets) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := secrets.Redact(msg)
	if clean == msg {
		return err
	}
	return &scrubbedError{msg: clean, err: err}
}

// cleanMessage turns a server string into one safe line: control
// characters and escapes removed and the secrets redacted
// (text.Secrets.Sanitize: after sanitising, which can join the pieces of a
// key), white space collapsed, at most maxMessage runes.
func cleanMessage(s string, secrets *text.Secrets) string {
	s = secrets.Sanitize(s)
	s = strings.Join(strings.Fields(s), " ")
	return truncateRunes(secrets.Redact(s), maxMessage)
}

const maxMessage = 300

func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// classify maps an HTTP status (and the server's message) to a Kind.
func classify(op string, status int, msg string) Kind {
	lower := strings.ToLower(msg)
	switch {
	case status == 400:
		switch {
		case invalidIDText.MatchString(lower):
			return KindInvalidID
		case firstGenText.MatchString(lower):
			return KindFirstGeneration
		case op == "trace":
			// The id was checked before the request: a 400 on the trace
			// is the first-generation answer whatever its wording.
			return KindFirstGeneration
		}
		return KindBadRequest
	case status == 401 || status == 403:
		return KindUnauthorized
	case status == 404 || status == 410:
		// 410 Gone: expired, as far as a client can tell.
		return KindNotFound
	case status == 408:
		return KindTimeout
	case status == 409:
		if op == "cancel" {
			return conflictKind(lower)
		}
		return KindBadRequest
	case status == 429:
		return KindRateLimited
	case status == 501:
		// Not Implemented: a deployment without the endpoint (a
		// self-hosted service's activity); asking again will not help.
		return KindBadRequest
	case status >= 500:
		return KindServer
	case status >= 400:
		return KindBadRequest
	}
	// 1xx, 3xx (an unfollowed redirect): nothing a client can use; a
	// proxy in the way may recover.
	return KindServer
}

// classifyText is for a 2xx answer whose body says it failed
// ({"success":false,"error":"..."}): the message is all there is.
func classifyText(op, msg string) Kind {
	lower := strings.ToLower(msg)
	switch {
	case op == "cancel" && strings.Contains(lower, "already"):
		return conflictKind(lower)
	case invalidIDText.MatchString(lower):
		return KindInvalidID
	case firstGenText.MatchString(lower):
		return KindFirstGeneration
	case strings.Contains(lower, "unauthori") || strings.Contains(lower, "invalid token") || strings.Contains(lower, "token missing"):
		return KindUnauthorized
	case strings.Contains(lower, "not found") || strings.Contains(lower, "could not find") || strings.Contains(lower, "expired"):
		return KindNotFound
	case strings.Contains(lower, "rate limit"):
		return KindRateLimited
	}
	return KindServer
}

// conflictKind tells the two 409 answers of a cancel apart by the message
// (lower case): "Agent is already cancelled" (or "canceled", "cancellation
// was already requested") says the cancellation is under way; anything
// else ("Agent already finished", "Cannot cancel: the agent has already
// completed") says the run is over. "cancel" alone decides nothing: the
// second kind of message may say "cannot cancel" too.
func conflictKind(lower string) Kind {
	if alreadyCancelledText.MatchString(lower) {
		return KindAlreadyCancelled
	}
	return KindAlreadyFinished
}

var (
	alreadyCancelledText = regexp.MustCompile(`(?:already|been|is|was|being)\s+(?:being\s+)?cancel|cancellation\s+(?:(?:was|has\s+been|is)\s+)?already|already\s+(?:been\s+)?requested`)
	invalidIDText        = regexp.MustCompile(`invalid (job |snapshot )?id|must be a valid uuid`)
	firstGenText         = regexp.MustCompile(`spark 2|spark-2|second[- ]generation|only available for`)
)

// transportError turns an error from sending a request or reading its
// answer into an *Error. A context that ended is returned as it is: it is
// the caller's own doing.
func (c *Client) transportError(parent context.Context, op string, err error, reading bool, timeout time.Duration) error {
	if perr := parent.Err(); perr != nil {
		return perr
	}
	var pe *Error
	if errors.As(err, &pe) {
		// A refusal of CheckRedirect: name the request it stopped.
		if pe.Op == "" {
			cp := *pe
			cp.Op = op
			return &cp
		}
		return pe
	}
	e := &Error{Op: op, Err: scrubErr(err, c.secrets), secrets: c.secrets}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errTimeout) || isTimeout(err) {
		e.Kind = KindTimeout
		// The request's own timeout (an interact call's is its --timeout
		// and the client's), not the client's default.
		e.detail = "no answer within " + text.Duration(timeout)
		if reading {
			e.detail = "the answer did not arrive in full within " + text.Duration(timeout)
		}
		return e
	}
	e.Kind = KindNetwork
	e.detail = netReason(err, reading)
	return e
}

var errTimeout = errors.New("timeout")

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// netReason is a network failure in a few words.
func netReason(err error, reading bool) string {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recErr tls.RecordHeaderError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EPIPE):
		return "connection broken"
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return "host unreachable"
	case errors.As(err, &dns):
		return "cannot resolve " + text.Sanitize(dns.Name)
	case errors.As(err, &cert), errors.As(err, &unknownAuth), errors.As(err, &hostErr):
		return "TLS certificate not accepted"
	case errors.As(err, &recErr):
		return "TLS handshake failed (is it an http:// server?)"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		if reading {
			return "connection dropped mid-response"
		}
		return "connection closed by the server"
	}
	if reading {
		return "connection dropped mid-response"
	}
	// The innermost message, without the "Get \"URL\": " prefix.
	msg := err.Error()
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
		msg = u.Error()
	}
	return truncateRunes(text.Sanitize(msg), 80)
}
