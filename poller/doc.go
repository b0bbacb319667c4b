// Package poller talks to the service: a typed client for the v2 endpoints
// firewatch uses, the loop that follows an agent run to its end through
// rate limits and flaky networks, and the recording and replay of a watch.
//
// # Client
//
// New(Config) makes a Client for a base URL (see ResolveBaseURL: flag, then
// FIRECRAWL_API_URL, then https://api.firecrawl.dev) and a key (the CLI
// resolves it, once: cli/key.go). Every request carries
// "Authorization: Bearer <key>" and "User-Agent: firewatch/<Version>", runs
// under the caller's context and a per-request timeout (30 s by default,
// reading the body included), over a keep-alive transport that asks for
// gzip. New refuses to send a key over plain http:// to a host that is not
// loopback, and a key with white space or control characters inside. A
// redirect is followed only within the service's own address (scheme, host
// and port): the key is never sent anywhere else (Go's client would send it
// on to another port of the same host, or to a subdomain).
//
// A 2xx body is read whole, up to a limit (256 MB for the trace, 64 MB
// for the others): a body announcing more (Content-Length) is refused
// unread, and one that goes on past the limit (endless, chunked, or a gzip
// body that decompresses past it) is refused there, with that reason in
// the error; memory holds at most the limit (plus a 1 MB chunk and the
// last good body's buffer). The watch loop reads
// every trace body into one buffer sized from Content-Length (with room to
// grow) and kept from poll to poll, retries included: a steady poll makes
// no garbage in proportion to the body. While a body is the same as the
// last one it is read through a small scratch buffer and compared rather
// than written again, and only the part after the common prefix (less the
// key's length) is searched for the key when the last body held none: any
// form of the key inside the common prefix would have been in the last
// body too (TestScrubOnlyWhatChangedStillRedacts).
//
// The methods map one to one onto the endpoints: Trace (the raw body),
// Snapshot, Cancel, Status, Runs, TokenUsage and ActiveCrawls. Job ids are
// checked as UUIDs before any request (ValidateJobID). Every wait before
// asking again is decided by one policy, Retry (ratelimit.go): a client
// made with Config.Retry sends each one-shot request under it (starting a
// run is sent once; running code is retried only after a 429), telling
// Retry.Notify of each wait; without one a method sends once. The watch
// loop and the runs screen are pollers: the same Retry.Delay, never giving
// up. A crawl watch (crawl.go) polls with CrawlWatchOptions.Retry: the
// same Delay, each wait reported as a CrawlUpdate, giving up after its
// Tries failures in a row.
//
// # Errors
//
// Every failure is an *Error whose Kind a caller can switch on: invalid id,
// first-generation job, unauthorised, not found or expired, already
// finished / already cancelled (409 on cancel: an answer, not a crash),
// rate limited, server error, network, timeout, malformed body, insecure
// URL, other 4xx. Its Error() is a sentence a person understands with the
// server's own "error" string, sanitised (text.Sanitize) and cut to one
// line. Error bodies are read by status and "error" string; "success" may
// be missing and no shape is trusted; only their first 64 KB are read, and
// one that breaks off or never ends still gives the status's error. A 410
// counts as not found (expired). A 409 on cancel is "already cancelled"
// when its message says the cancellation is under way ("Agent is already
// cancelled"), else "already finished". A context that ended is returned
// as ctx.Err(), unwrapped.
//
// The API key appears nowhere: not in errors, not in Health, not in the
// debug log (Config.Logf), not in recordings. Besides never putting it
// anywhere, the client replaces any occurrence of the key in a response
// body (a server that echoes the Authorization header), as is or escaped the
// way common JSON encoders write it, before the body goes further, and
// scrubs every error string and log line.
//
// # The watch loop
//
// Client.Watch(jobID, WatchOptions).Run(ctx, sink) polls
// GET /v2/agent/{jobId}/trace, which returns the whole trace each time,
// decodes each body with one model.Decoder (which yields only what is new)
// and hands every good poll to sink as an Update; consumers merge
// Update.Poll into their model.Store. Exactly one trace request is ever in
// flight; PollNow during a request does not start another.
//
//   - Interval: 2 s by default, at least 100 ms. After SlowAfter (3) polls
//     in a row that bring nothing new (no events, no higher creditsUsed) the
//     interval grows by half at each further empty poll, up to MaxInterval
//     (10 s); it drops back to the interval at the first poll that brings
//     something.
//   - Tail window: after the poll that brings run.finished, the loop keeps
//     polling at the interval until Tail (3) polls in a row bring nothing
//     new, or TailMax (30 s) has passed since that poll (the last poll is
//     made at the cap), then sends a last Update with Done and returns nil.
//     Late events in the window are delivered like any other. Failures
//     do not stretch the window: a retry due past the cap is made at the
//     cap, and a delay the server asks for that ends past the cap ends the
//     watch at once.
//   - Retries (the watch loop's Retry: Tries -1, Base 500 ms, Cap 30 s,
//     Interval the poll interval, Min 100 ms, full jitter): 429, 5xx, 408,
//     network errors, timeouts and malformed or
//     truncated 2xx bodies are retried; other 4xx are not: a 400, 401, 403
//     or 404 on the trace ends Run at once with its *Error (in the tail
//     window, where the run's final state is known, it ends the window:
//     Done, and Run returns nil). The n-th failure in a row waits a random
//     time in [0, min(30 s, 500 ms·2^(n-1))] (full jitter), at least
//     100 ms. When the server names a delay
//     (Retry-After header in seconds or as an HTTP date, else the body's
//     retry_after_seconds, else "retry after Ns" or "try again in 1 minute"
//     in a 429 message, or in a 200 body saying it is rate limited) that
//     delay is used instead, clamped to [interval, 1 h]; a 429 naming no
//     delay waits at least the interval. PollNow never cuts a delay the
//     server asked for short. Health.Reason says why and how long:
//     "rate limited, retrying in 12s".
//   - A failure never clears or rewinds anything: the decoder keeps its
//     state (a body it rejects, truncated or not JSON, leaves it as it was)
//     and the next good poll continues.
//   - Team token usage is fetched at the start and every TokenEvery (1 min)
//     on its own goroutine; a 404 sets Health.TokensHidden and stops the
//     fetches, other failures skip a round.
//   - SetPaused stops trace and token requests (Health.Paused); SetLiveView
//     switches liveView=true for the next requests.
//
// # Recording and replay
//
// With WatchOptions.Record set, the loop writes NDJSON: a header line
//
//	{"firewatch":"recording","version":2,"jobId":"…","baseUrl":"…","startedAt":"<RFC 3339>",
//	 "request":{"prompt":"…","model":"…","effort":"…","urls":[…],"maxCredits":N}}
//
// (request holds what WatchOptions.Request knew, empty fields left out;
// version 1 recordings have none and still replay: Update.Request is then
// never sent)
// then one line per poll that changed something (new events, or a
// different id, creditsUsed or activeBrowserSessions):
//
//	{"receivedAt":"<RFC 3339, ns>","trace":{"success":true,"id":"…","creditsUsed":12,"events":[…]}}
//
// where "trace" is a trace response holding only that poll's new events,
// byte for byte as received (white space outside strings removed if the
// server pretty-printed), plus the top-level members as received. The size
// is O(events), not O(polls × events), and it never holds the key.
//
// Replay reads such a recording, or a plain saved trace body, through a
// fresh model.Decoder and calls the sink as Run would, at the recorded pace
// times ReplayOptions.Speed or all at once (Instant), ending with Done. A
// store fed by the replay ends with the same Summary as the live one.
package poller
