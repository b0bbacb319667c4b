package poller

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// DefaultBaseURL is the service's address when neither the flag nor
// FIRECRAWL_API_URL gives one.
const DefaultBaseURL = "https://api.firecrawl.dev"

// Version is firewatch's version, set by the CLI; it goes into the
// User-Agent header "firewatch/<Version>".
var Version = "dev"

// Environment variables for the base URL and the key (the names
// every official Firecrawl client uses).
const (
	EnvBaseURL = "FIRECRAWL_API_URL"
	EnvAPIKey  = "FIRECRAWL_API_KEY"
)

// DefaultTimeout is the per-request timeout when Config.Timeout is 0.
const DefaultTimeout = 30 * time.Second

// Body size limits. A trace of 100 000 events is about 50 MB. An error
// answer is read up to maxErrorBody only: its "error" string is all that is
// used, and a server that sends an endless error page must not cost memory
// or turn a quick 5xx into a timeout.
const (
	maxTraceBody = 256 << 20
	maxOtherBody = 64 << 20
	maxErrorBody = 64 << 10
)

// Config configures a Client.
type Config struct {
	BaseURL    string        // already resolved by the caller (see ResolveBaseURL); "" means DefaultBaseURL
	APIKey     string        // sent as "Authorization: Bearer <key>"; "" sends no Authorization header
	Timeout    time.Duration // per request, reading the body included; default 30s
	HTTPClient *http.Client  // optional; default: keep-alive transport with gzip
	// Retry, if set, is the policy of every request but the watch loop's
	// (ratelimit.go); its Notify says each wait to whoever waits. nil: each
	// request is sent once.
	Retry *Retry
	// Secrets, if set, is the set the key is added to and every answer
	// is redacted with (see text.Secrets); nil: a set of the key alone.
	Secrets *text.Secrets
	// Logf, if set, gets one debug line per request and per decision of
	// the watch loop. It never receives the key: every line is redacted with Secrets.
	Logf func(format string, args ...any)
}

// EnvGzip turns off asking for gzip when "0", "off", "false" or "no".
const EnvGzip = "FIREWATCH_GZIP"

// GzipEnabled reports whether requests ask for gzip ($FIREWATCH_GZIP).
func GzipEnabled() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(EnvGzip))) {
	case "0", "off", "false", "no":
		return false
	}
	return true
}

// ResolveBaseURL returns flag if set, else $FIRECRAWL_API_URL, else
// DefaultBaseURL, without surrounding spaces or trailing slashes.
func ResolveBaseURL(flag string) string {
	s := strings.TrimSpace(flag)
	if s == "" {
		s = strings.TrimSpace(os.Getenv(EnvBaseURL))
	}
	if s == "" {
		s = DefaultBaseURL
	}
	return strings.TrimRight(s, "/")
}

// Client talks to the service's v2 endpoints. It is safe for concurrent
// use. It asks again after a failure only as its Config.Retry says (the
// watch loop has its own, the same policy as a poller's: see Watch).
type Client struct {
	base    string // scheme://host[:port][/path], no trailing slash, no /v2
	origin  string // scheme://host:port of base, for redirects
	key     string
	secrets *text.Secrets
	retry   Retry
	timeout time.Duration
	hc      *http.Client
	logFn   func(format string, args ...any)
	now     func() time.Time // for Retry-After dates; tests replace it
	pacer   Pacer            // nil: requests are sent at once (WithPacer)

	maxTrace int64 // the trace body limit when not 0 (tests)
}

// New checks cfg and returns a client. It refuses, with an *Error of kind
// KindInsecure, to send a key over plain http:// to a host that is not
// loopback (localhost, 127.0.0.0/8, ::1). A base URL that is not an http or
// https URL is an error, and so is a key with white space or control
// characters inside (a key pasted with its line break): it could not be
// sent as a header. A trailing "/v2" on the base URL is tolerated.
func New(cfg Config) (*Client, error) {
	u, err := cfg.base()
	if err != nil {
		return nil, err
	}
	secrets := cfg.Secrets
	if secrets == nil {
		secrets = text.NewSecrets()
	}
	secrets.Add(cfg.APIKey)
	path := strings.TrimRight(u.EscapedPath(), "/")
	path = strings.TrimSuffix(path, "/v2")
	c := &Client{
		base:    u.Scheme + "://" + u.Host + path,
		origin:  origin(u),
		key:     cfg.APIKey,
		secrets: secrets,
		retry:   Retry{Tries: 1},
		timeout: cfg.Timeout,
		logFn:   cfg.Logf,
		now:     time.Now,
	}
	if cfg.Retry != nil {
		c.retry = *cfg.Retry
	}
	return c.init(cfg), nil
}

// Check is what New checks, without making a client: the key can be sent
// as a header, the base URL is one, and the key goes over https unless to
// loopback.
func (cfg Config) Check() error {
	_, err := cfg.base()
	return err
}

// base checks cfg and returns its base URL.
func (cfg Config) base() (*url.URL, error) {
	if strings.ContainsFunc(cfg.APIKey, func(r rune) bool { return r <= ' ' || r == 0x7f || unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return nil, errors.New("the API key contains white space or a control character (a line break?): check FIRECRAWL_API_KEY")
	}
	raw := strings.TrimSpace(cfg.BaseURL)
	if raw == "" {
		raw = DefaultBaseURL
	}
	u, err := url.Parse(raw)
	shown := truncateRunes(text.NewSecrets(cfg.APIKey).Sanitize(raw), 100)
	if err != nil {
		return nil, fmt.Errorf("invalid base URL %q: expected e.g. %s", shown, DefaultBaseURL)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("invalid base URL %q: it must start with https:// (or http:// for a local server)", shown)
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("invalid base URL %q: no host", shown)
	case u.User != nil:
		return nil, fmt.Errorf("invalid base URL: it must not contain a user name or password")
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("invalid base URL %q: it must not have a query or fragment", shown)
	}
	if u.Scheme == "http" && cfg.APIKey != "" && !isLoopback(u.Hostname()) {
		return nil, insecureError(u.Hostname(), text.NewSecrets(cfg.APIKey))
	}
	return u, nil
}

// NewTransport is the HTTP transport of a client, keeping up to idle
// connections to the service open: one for each client, or one that the
// clients of a process share (Config.HTTPClient: a hub's).
func NewTransport(idle int) *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = idle
	tr.IdleConnTimeout = 90 * time.Second
	// The transport asks for gzip and decompresses it (we set no
	// Accept-Encoding ourselves) unless FIREWATCH_GZIP=0: on a 10 MB
	// trace gzip saves ~90 % of the bytes for some CPU per poll
	// (README, "Bytes on the wire").
	tr.DisableCompression = !GzipEnabled()
	return tr
}

// init sets up the client's HTTP side.
func (c *Client) init(cfg Config) *Client {
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	var hc http.Client
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient // a copy: its CheckRedirect is wrapped below
	} else {
		hc.Transport = NewTransport(4)
	}
	hc.Timeout = 0 // the per-request timeout is a context deadline
	next := hc.CheckRedirect
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("stopped after 5 redirects")
		}
		if req.URL.Scheme != "https" && c.key != "" && !isLoopback(req.URL.Hostname()) {
			return insecureError(req.URL.Hostname(), c.secrets)
		}
		// Go would send the Authorization header on to the same host name
		// on another port, or to a subdomain: the key goes to the service
		// it was given for, nowhere else.
		if c.key != "" && origin(req.URL) != c.origin {
			return &Error{
				Kind:    KindInsecure,
				detail:  "the service redirected to another address (" + truncateRunes(text.Sanitize(req.URL.Host), 100) + "); refusing to send the API key there",
				secrets: c.secrets,
			}
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	c.hc = &hc
	return c
}

func insecureError(host string, secrets *text.Secrets) *Error {
	host = truncateRunes(text.Sanitize(host), 100)
	return &Error{
		Kind:    KindInsecure,
		detail:  fmt.Sprintf("refusing to send the API key over plain http:// to %s; use https:// (plain http is allowed only for localhost)", host),
		secrets: secrets,
	}
}

// origin is scheme://host:port of u, lower case, with the scheme's default
// port made explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// isLoopback reports whether host (no port) is localhost or a loopback IP.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// BaseURL is the address the client talks to (without /v2), for display.
func (c *Client) BaseURL() string { return c.base }

// Timeout is the per-request timeout.
func (c *Client) Timeout() time.Duration { return c.timeout }

// logf writes a debug line, scrubbed of the key.
func (c *Client) logf(format string, args ...any) {
	if c.logFn == nil {
		return
	}
	c.logFn("%s", c.secrets.Redact(fmt.Sprintf(format, args...)))
}

// ValidateJobID checks that id is a UUID (8-4-4-4-12 hex digits) before any
// request is made. It returns an *Error of kind KindInvalidID.
func ValidateJobID(id string) error {
	if isUUID(id) {
		return nil
	}
	e := &Error{Kind: KindInvalidID}
	switch {
	case id == "":
		e.detail = "none given; a job id is a UUID like 019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
	case looksLikeKey(id):
		// Never echo something that may be the key.
		e.detail = "that looks like an API key, not a job id (a UUID like 019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b)"
	default:
		e.detail = fmt.Sprintf("%q is not a UUID like 019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", truncateRunes(text.Sanitize(id), 60))
	}
	return e
}

// isUUID reports whether s is a UUID in its canonical form (8-4-4-4-12
// hex digits; uuid.Parse also takes braces, a urn: prefix or no dashes).
func isUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

func looksLikeKey(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(s, "fc-") || strings.HasPrefix(s, "fco_") || strings.HasPrefix(s, "fcmcp_") || strings.HasPrefix(s, "bearer ")
}

// response is a completed HTTP exchange.
type response struct {
	status int
	header http.Header
	body   []byte
	same   int // bytes at the start of body that are the last body's in bb (sendBuf)
}

// do sends one request and reads the whole answer within the per-request
// timeout. It returns an *Error for transport failures and for non-2xx
// statuses; the ctx's own error when ctx ended.
func (c *Client) do(ctx context.Context, op, method, path string, query url.Values, limit int64) (*response, error) {
	return c.send(ctx, op, method, path, query, nil, 0, limit)
}

// send is do with a JSON body (nil: none) and a timeout for this request
// (0: the client's).
// It asks again after a failure as the client's Retry says. Its body is
// redacted of the secrets in every form (the trace's, read with sendBuf,
// is redacted event by event by the decoder instead).
func (c *Client) send(ctx context.Context, op, method, path string, query url.Values, reqBody []byte, timeout time.Duration, limit int64) (*response, error) {
	return c.sendWith(ctx, c.retry, op, method, path, query, reqBody, timeout, limit)
}

// sendWith is send with another policy than the client's (its Notify
// kept).
func (c *Client) sendWith(ctx context.Context, rp Retry, op, method, path string, query url.Values, reqBody []byte, timeout time.Duration, limit int64) (*response, error) {
	return Call(ctx, c.notifying(rp, op), func(ctx context.Context) (*response, error) {
		return c.sendOnce(ctx, op, method, path, query, reqBody, timeout, limit)
	})
}

// notifying is rp saying each of its waits in the debug log and to the
// client's own Notify.
func (c *Client) notifying(rp Retry, op string) Retry {
	notify := c.retry.Notify
	rp.Notify = func(w Wait) {
		c.logf("%s: %s", op, w)
		if notify != nil {
			notify(w)
		}
	}
	return rp
}

// sendOnce sends one request (sendBuf), its answer redacted.
func (c *Client) sendOnce(ctx context.Context, op, method, path string, query url.Values, reqBody []byte, timeout time.Duration, limit int64) (*response, error) {
	r, err := c.sendBuf(ctx, op, method, path, query, reqBody, timeout, limit, nil)
	if err == nil {
		r.body, _ = c.secrets.RedactJSON(r.body)
	}
	return r, err
}

// WithRetry is a client like c (the same connections) with policy r.
func (c *Client) WithRetry(r Retry) *Client {
	c2 := *c
	c2.retry = r
	return &c2
}

// Pacer paces the requests of a client made for background work (the
// archive pass, the runs screen's completions): it is asked before each
// request the client sends, tries of a retry included, and told of each
// 429 the service answers one of them with.
type Pacer interface {
	// Wait returns once the request may be sent, or with ctx's error.
	Wait(ctx context.Context) error
	// RateLimited is told of a 429 and the delay it asked for (0: none).
	RateLimited(retryAfter time.Duration)
}

// WithPacer is a client like c (the same connections and policy) whose
// every request waits for p first; nil: none.
func (c *Client) WithPacer(p Pacer) *Client {
	c2 := *c
	c2.pacer = p
	return &c2
}

// Retry is the client's policy.
func (c *Client) Retry() Retry { return c.retry }

// Secrets is the set the client redacts with (its key among them).
func (c *Client) Secrets() *text.Secrets { return c.secrets }

// newDecoder is a trace decoder that redacts the client's secrets.
func (c *Client) newDecoder() *model.Decoder {
	d := model.NewDecoder()
	d.SetSecrets(c.secrets)
	return d
}

// sendBuf is send reading a 2xx body into bb (see readBody), kept for the
// next call; nil bb: a buffer of its own.
func (c *Client) sendBuf(ctx context.Context, op, method, path string, query url.Values, reqBody []byte, timeout time.Duration, limit int64, bb *bodyBuf) (*response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	if timeout <= 0 {
		timeout = c.timeout
	}
	if c.pacer != nil {
		// Outside the request's timeout: the wait is the budget's.
		if err := c.pacer.Wait(ctx); err != nil {
			return nil, err
		}
	}
	rctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout)
	defer cancel()
	var rd io.Reader
	if reqBody != nil {
		rd = bytes.NewReader(reqBody)
	}
	req, err := http.NewRequestWithContext(rctx, method, u, rd)
	if err != nil {
		return nil, &Error{Kind: KindBadRequest, Op: op, Err: scrubErr(err, c.secrets), secrets: c.secrets}
	}
	if reqBody != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", "firewatch/"+Version)
	req.Header.Set("Accept", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		e := c.transportError(ctx, op, err, false, timeout)
		c.logf("%s %s: %v (%s)", method, path, e, time.Since(start).Round(time.Millisecond))
		return nil, e
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// An error answer: its status is the answer. Read a bounded part
		// of the body for the "error" string; a body that breaks off or
		// never ends changes nothing (unless the caller gave up).
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		body, _ = c.secrets.RedactJSON(body)
		c.logf("%s %s → %d (%d bytes read, %s)", method, path, resp.StatusCode, len(body), time.Since(start).Round(time.Millisecond))
		e := c.statusError(op, &response{status: resp.StatusCode, header: resp.Header, body: body})
		if c.pacer != nil && e.Kind == KindRateLimited && !e.SessionLimit() {
			c.pacer.RateLimited(e.RetryAfter)
		}
		return nil, e
	}
	var own bodyBuf
	if bb == nil {
		bb = &own
	}
	body, same, err := readBody(resp.Body, resp.ContentLength, limit, resp.Uncompressed, bb)
	var tooLarge *bodyTooLarge
	if errors.As(err, &tooLarge) {
		c.logf("%s %s → %d, body refused: %v", method, path, resp.StatusCode, tooLarge)
		return nil, &Error{Kind: KindMalformed, Op: op, Status: resp.StatusCode, detail: tooLarge.Error(), secrets: c.secrets, tooLarge: true}
	}
	if err != nil && isCorrupt(err) {
		c.logf("%s %s → %d, corrupt body: %v", method, path, resp.StatusCode, err)
		return nil, &Error{Kind: KindMalformed, Op: op, Status: resp.StatusCode, detail: "the compressed body is corrupt", Err: scrubErr(err, c.secrets), secrets: c.secrets}
	}
	if err != nil {
		if context.Cause(rctx) == errTimeout && ctx.Err() == nil {
			err = errTimeout
		}
		e := c.transportError(ctx, op, err, true, timeout)
		c.logf("%s %s → %d, then %v after %d bytes (%s)", method, path, resp.StatusCode, e, len(body), time.Since(start).Round(time.Millisecond))
		return nil, e
	}
	c.logf("%s %s → %d (%d bytes, %s)", method, path, resp.StatusCode, len(body), time.Since(start).Round(time.Millisecond))
	return &response{status: resp.StatusCode, header: resp.Header, body: body, same: same}, nil
}

// isCorrupt reports whether a body read failed because the gzip stream
// the transport decompresses is broken (a malformed answer, not a network
// failure).
func isCorrupt(err error) bool {
	var ce flate.CorruptInputError
	return errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.As(err, &ce)
}

// statusError builds the *Error of a non-2xx answer: kind from the status
// and the message, the sanitised message, the delay asked for.
func (c *Client) statusError(op string, r *response) *Error {
	msg, retryAfterBody := errorBody(r.body)
	msg = cleanMessage(msg, c.secrets)
	e := &Error{Kind: classify(op, r.status, msg), Op: op, Status: r.status, ServerMessage: msg, secrets: c.secrets}
	if r.status >= 300 && r.status < 400 {
		e.detail = "unexpected redirect"
	} else if r.status < 200 {
		e.detail = "unexpected answer"
	}
	e.RetryAfter = statusRetryAfter(r.header.Get("Retry-After"), c.now(), retryAfterBody, msg, e.Kind == KindRateLimited)
	if o, ok := parseObject(r.body); ok {
		e.Code = text.Sanitize(o.sanitized("code"))
		if id := o.sanitized("runId"); isUUID(id) {
			e.RunID = strings.ToLower(id)
		}
	}
	return e
}

// errorBody reads an error answer: the "error" string (else "message", else
// error.message), and retry_after_seconds. A short plain-text body (not
// HTML) is taken as the message. Nothing about its shape is trusted.
func errorBody(body []byte) (msg string, retryAfter time.Duration) {
	o, ok := parseObject(body)
	if !ok {
		var s string
		if unmarshal(body, &s) == nil {
			return s, 0
		}
		t := strings.TrimSpace(string(body))
		if len(t) <= 200 && !strings.HasPrefix(t, "<") && !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
			return t, 0
		}
		return "", 0
	}
	if s, ok := o.str("error"); ok {
		msg = s
	} else if s, ok := o.str("message"); ok {
		msg = s
	} else if eo, ok := o.obj("error"); ok {
		msg, _ = eo.str("message")
	}
	return msg, bodyRetryAfter(o, "")
}

// failure checks a 2xx body that says {"success": false, "error": "..."}:
// a failure despite the status.
func (c *Client) failure(op string, status int, o object) error {
	if ok, present := o.boolean("success"); !present || ok {
		return nil
	}
	msg, _ := o.str("error")
	if msg == "" {
		msg, _ = o.str("message")
	}
	msg = cleanMessage(msg, c.secrets)
	e := &Error{Kind: classifyText(op, msg), Op: op, Status: status, ServerMessage: msg, secrets: c.secrets}
	if e.Kind == KindServer {
		e.detail = "the answer says it failed"
	}
	if e.Kind == KindRateLimited {
		e.RetryAfter = bodyRetryAfter(o, msg)
	}
	return e
}

func (c *Client) malformed(op string, status int, what string) *Error {
	return &Error{Kind: KindMalformed, Op: op, Status: status, detail: what, secrets: c.secrets}
}

func (c *Client) checkJob(op, jobID string) error {
	if err := ValidateJobID(jobID); err != nil {
		e := err.(*Error)
		e.Op = op
		e.secrets = c.secrets
		return e
	}
	return nil
}

// Trace fetches GET /v2/agent/{jobID}/trace (with liveView=true when asked)
// and returns the body of a 2xx answer, unparsed (decoding is the
// model's job) but redacted like every answer. Any other status is an *Error. A failure is retried as the
// client's Retry says (the watch loop's polls, which use trace, are not).
func (c *Client) Trace(ctx context.Context, jobID string, liveView bool) ([]byte, error) {
	if err := c.checkJob("trace", jobID); err != nil {
		return nil, err
	}
	var q url.Values
	if liveView {
		q = url.Values{"liveView": {"true"}}
	}
	r := c.retry
	notify := r.Notify
	r.Notify = func(w Wait) {
		c.logf("trace: %s", w)
		if notify != nil {
			notify(w)
		}
	}
	return Call(ctx, r, func(ctx context.Context) ([]byte, error) {
		body, _, err := c.trace(ctx, jobID, q, nil)
		if err == nil {
			body, _ = c.secrets.RedactJSON(body)
		}
		return body, err
	})
}

// trace is Trace reading the body into *buf (see sendBuf): the watch loop's
// buffer, reused from poll to poll. The body returned is valid until the
// next call with the same buffer; same is how many bytes at its start are
// those of the last body read into buf as they were received.
func (c *Client) trace(ctx context.Context, jobID string, q url.Values, buf *bodyBuf) (body []byte, same int, err error) {
	r, err := c.sendBuf(ctx, "trace", http.MethodGet, "/v2/agent/"+jobID+"/trace", q, nil, 0, c.traceLimit(), buf)
	if err != nil {
		return nil, 0, err
	}
	return r.body, r.same, nil
}

// traceLimit is the largest trace body read (maxTraceBody; tests lower it).
func (c *Client) traceLimit() int64 {
	if c.maxTrace > 0 {
		return c.maxTrace
	}
	return maxTraceBody
}
