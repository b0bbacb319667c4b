package poller

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/sim"
)

func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	return e
}

func TestResolve(t *testing.T) {
	t.Setenv(EnvBaseURL, "")
	t.Setenv(EnvAPIKey, "")
	if got := ResolveBaseURL(""); got != DefaultBaseURL {
		t.Fatalf("ResolveBaseURL() = %q", got)
	}
	t.Setenv(EnvBaseURL, "https://proxy.example/ ")
	t.Setenv(EnvAPIKey, "fc-fromenv\n")
	if got := ResolveBaseURL(""); got != "https://proxy.example" {
		t.Fatalf("ResolveBaseURL() with env = %q", got)
	}
	if got := ResolveBaseURL("http://127.0.0.1:9/"); got != "http://127.0.0.1:9" {
		t.Fatalf("ResolveBaseURL(flag) = %q", got)
	}
}

func TestNewRefusesPlainHTTPToARemoteHost(t *testing.T) {
	t.Parallel()
	const key = "fc-0123456789abcdef0123456789abcdef"
	for _, base := range []string{"http://api.firecrawl.dev", "http://10.0.0.1:3002", "HTTP://example.com/v2"} {
		_, err := New(Config{BaseURL: base, APIKey: key})
		e := asError(t, err)
		if e.Kind != KindInsecure || e.Refusal() || e.Retryable() {
			t.Fatalf("%s: kind %v", base, e.Kind)
		}
		if !strings.Contains(e.Error(), "https://") || strings.Contains(e.Error(), key) {
			t.Fatalf("%s: message %q", base, e.Error())
		}
	}
	for _, base := range []string{"http://127.0.0.1:3002", "http://localhost:3002", "http://[::1]:3002", "https://api.firecrawl.dev", "https://api.firecrawl.dev/v2/", ""} {
		c, err := New(Config{BaseURL: base, APIKey: key})
		if err != nil {
			t.Fatalf("%q: %v", base, err)
		}
		if strings.HasSuffix(c.BaseURL(), "/v2") || strings.HasSuffix(c.BaseURL(), "/") {
			t.Fatalf("%q: base %q", base, c.BaseURL())
		}
	}
	// Without a key there is nothing to protect.
	if _, err := New(Config{BaseURL: "http://example.com"}); err != nil {
		t.Fatalf("no key: %v", err)
	}
	for _, base := range []string{"ftp://example.com", "api.firecrawl.dev", "https://", "https://user:" + key + "@example.com", "https://example.com/?a=b", "://bad"} {
		_, err := New(Config{BaseURL: base, APIKey: key})
		if err == nil {
			t.Fatalf("%q: no error", base)
		}
		if strings.Contains(err.Error(), key) {
			t.Fatalf("%q: the error shows the key: %v", base, err)
		}
	}
}

func TestInvalidIDMakesNoRequest(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{})
	c := newClient(t, srv, withKey(srv))
	ctx := context.Background()
	for _, id := range []string{"", "abc", "not-a-uuid-at-all-but-36-characters", "019a2b3c4d5e7f608a9b0c1d2e3f4a5b", "{019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b}", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b/../x", srv.Key} {
		errs := []error{ValidateJobID(id)}
		_, err := c.Trace(ctx, id, false)
		errs = append(errs, err)
		_, err = c.Status(ctx, id)
		errs = append(errs, err)
		_, err = c.Snapshot(ctx, id, "x")
		errs = append(errs, err)
		errs = append(errs, c.Cancel(ctx, id))
		errs = append(errs, c.Watch(id, WatchOptions{}).Run(ctx, nil))
		for i, err := range errs {
			e := asError(t, err)
			if e.Kind != KindInvalidID || !e.Refusal() || e.Retryable() {
				t.Fatalf("%q (%d): kind %v", id, i, e.Kind)
			}
			if strings.Contains(e.Error(), srv.Key) {
				t.Fatalf("%q: the message shows the key: %s", id, e.Error())
			}
		}
	}
	if n := srv.Stats().Requests; n != 0 {
		t.Fatalf("%d requests made for invalid ids", n)
	}
	if err := ValidateJobID("019A2B3C-4D5E-7F60-8A9B-0C1D2E3F4A5B"); err != nil {
		t.Fatalf("upper-case UUID: %v", err)
	}
	if got := ValidateJobID("abc").Error(); got != `invalid job id: "abc" is not a UUID like 019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b` {
		t.Fatalf("message %q", got)
	}
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"first-gen", "research"}})
	ctx := context.Background()
	good := newClient(t, srv, withKey(srv))
	firstGen, research := srv.Jobs[0].ID, srv.Jobs[1].ID
	const unknown = "0190f3a4-5b6c-7d8e-9f00-aabbccddeeff"
	wrongKey := "fc-ffffffffffffffffffffffffffffffff"

	cases := []struct {
		name    string
		client  *Client
		job     string
		kind    Kind
		status  int
		message string
		text    string
	}{
		{"first generation", good, firstGen, KindFirstGeneration, 400, "Trace is only available for Spark 2 extracts", "second model generation"},
		{"unknown job", good, unknown, KindNotFound, 404, "Agent job not found", `trace: not found or expired (404): "Agent job not found" — results are kept for 24 hours`},
		{"no key", newClient(t, srv, Config{}), research, KindUnauthorized, 401, "Unauthorized: Token missing", "FIRECRAWL_API_KEY"},
		{"wrong key", newClient(t, srv, Config{APIKey: wrongKey}), research, KindUnauthorized, 401, "Unauthorized: Invalid token", "unauthorised"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := srv.Stats().ByRoute["GET trace"]
			_, err := tc.client.Trace(ctx, tc.job, false)
			e := asError(t, err)
			if e.Kind != tc.kind || e.Status != tc.status || e.ServerMessage != tc.message || e.Op != "trace" {
				t.Fatalf("got kind %v status %d message %q op %q", e.Kind, e.Status, e.ServerMessage, e.Op)
			}
			if !e.Refusal() || e.Retryable() {
				t.Fatalf("refusal %v retryable %v", e.Refusal(), e.Retryable())
			}
			if !strings.Contains(e.Error(), tc.text) {
				t.Fatalf("message %q lacks %q", e.Error(), tc.text)
			}
			if strings.Contains(e.Error(), wrongKey) || strings.Contains(e.Error(), srv.Key) {
				t.Fatalf("the message shows a key: %s", e.Error())
			}

			// The watch stops at once: one trace request, no retry loop.
			col := newCollector()
			err = fast(tc.client.Watch(tc.job, WatchOptions{})).Run(ctx, col.sink)
			if e2 := asError(t, err); e2.Kind != tc.kind {
				t.Fatalf("Run returned kind %v", e2.Kind)
			}
			if n := srv.Stats().ByRoute["GET trace"] - before; n != 2 {
				t.Fatalf("%d trace requests, want 2 (one by Trace, one by Run)", n)
			}
		})
	}

	t.Run("snapshot", func(t *testing.T) {
		_, err := good.Snapshot(ctx, firstGen, "0190f3a4-5b6c-7d8e-9f00-aabbccddeeff")
		if e := asError(t, err); e.Kind != KindFirstGeneration || e.Op != "snapshot" {
			t.Fatalf("first-gen snapshot: %v", e.Kind)
		}
		_, err = good.Snapshot(ctx, research, "not-a-snapshot")
		if e := asError(t, err); e.Kind != KindInvalidID || e.Status != 400 {
			t.Fatalf("bad snapshot id: %v %d", e.Kind, e.Status)
		}
		_, err = good.Snapshot(ctx, research, unknown)
		if e := asError(t, err); e.Kind != KindNotFound || e.ServerMessage != "Snapshot not found" {
			t.Fatalf("unknown snapshot: %v %q", e.Kind, e.ServerMessage)
		}
	})
}

// TestErrorKindsOnTheChaosSchedule sends status requests to the chaos job,
// whose odd-numbered requests each get the next fault of a seeded cycle,
// and checks the kind of every answer against the fault the sim says it
// served. At speed 0.5 the "slow" fault takes 500-1400 ms, past the 400 ms
// timeout, which leaves a clean answer time enough on a busy machine.
func TestErrorKindsOnTheChaosSchedule(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"chaos"}, Speed: 0.5})
	c := newClient(t, srv, Config{BaseURL: srv.URL, APIKey: srv.Key, Timeout: 400 * time.Millisecond})
	job := srv.Jobs[0].ID
	want := map[string]Kind{
		"429": KindRateLimited, "500": KindServer, "502": KindServer, "503": KindServer,
		"truncated": KindMalformed, "truncated-eof": KindNetwork, "not-json": KindMalformed,
		"slow": KindTimeout,
	}
	seen := map[string]bool{}
	for i := 0; i < 40 && len(seen) < len(want); i++ {
		before := srv.Stats().Faults
		_, err := c.Status(context.Background(), job)
		after := srv.Stats().Faults
		fault := ""
		for k, n := range after {
			if n > before[k] {
				fault = k
			}
		}
		switch {
		case fault == "":
			if err != nil {
				t.Fatalf("request %d: no fault served, got %v", i, err)
			}
			continue
		case fault == "drop":
			// Go's transport resends an idempotent request whose reused
			// connection was closed before any answer; either way the
			// answer must be a network error or a success.
			if err != nil && asError(t, err).Kind != KindNetwork {
				t.Fatalf("drop: %v", err)
			}
			continue
		}
		e := asError(t, err)
		if e.Kind != want[fault] {
			t.Fatalf("fault %s: kind %v (%v)", fault, e.Kind, e)
		}
		if !e.Retryable() || e.Refusal() {
			t.Fatalf("fault %s: retryable %v refusal %v", fault, e.Retryable(), e.Refusal())
		}
		if fault == "429" && e.RetryAfter != 4*time.Second {
			t.Fatalf("429: RetryAfter %v, want the 4s of the message %q", e.RetryAfter, e.ServerMessage)
		}
		if strings.HasPrefix(fault, "50") && e.Status != atoi(fault) {
			t.Fatalf("fault %s: status %d", fault, e.Status)
		}
		if strings.Contains(e.Error(), "<") {
			t.Fatalf("fault %s: HTML in the message: %s", fault, e.Error())
		}
		seen[fault] = true
	}
	if len(seen) < len(want) {
		t.Fatalf("saw only %v", seen)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func TestNetworkErrors(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{})
	c := newClient(t, srv, withKey(srv))
	job := srv.Jobs[0].ID
	srv.Close()
	_, err := c.Trace(context.Background(), job, false)
	e := asError(t, err)
	if e.Kind != KindNetwork || !e.Retryable() || e.Short() != "network: connection refused" {
		t.Fatalf("closed server: kind %v short %q", e.Kind, e.Short())
	}
	if !strings.HasPrefix(e.Error(), "trace: network error: connection refused") {
		t.Fatalf("message %q", e.Error())
	}

	// A context that ends is the caller's doing: its own error comes back.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Trace(ctx, job, false); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{})
	c := newClient(t, srv, Config{BaseURL: srv.URL, APIKey: srv.Key, Timeout: time.Nanosecond})
	_, err := c.Trace(context.Background(), srv.Jobs[0].ID, false)
	e := asError(t, err)
	if e.Kind != KindTimeout || !e.Retryable() || !strings.Contains(e.Error(), "no answer within") {
		t.Fatalf("kind %v: %v", e.Kind, e)
	}
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, errTimeout) {
		t.Fatalf("the cause is lost: %#v", e.Err)
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"cancel", "research", "first-gen"}, Speed: 200})
	c := newClient(t, srv, withKey(srv))
	cancelJob, research, firstGen := srv.Jobs[0].ID, srv.Jobs[1].ID, srv.Jobs[2].ID
	ctx := context.Background()

	// Watch the cancel run; once events flow, cancel it; the trace
	// follows the cancellation to its outcome.
	col := newCollector()
	w := fast(c.Watch(cancelJob, WatchOptions{}))
	wait := run(ctx, w, col.sink)
	col.waitFor(t, "the first events", func(us []Update) bool {
		for _, u := range us {
			if u.Poll != nil && len(u.Poll.Events) > 0 {
				return true
			}
		}
		return false
	})
	if err := c.Cancel(ctx, cancelJob); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	err := c.Cancel(ctx, cancelJob)
	if e := asError(t, err); e.Kind != KindAlreadyCancelled || e.Status != http.StatusConflict || e.Refusal() || e.Retryable() {
		t.Fatalf("second cancel: kind %v status %d", e.Kind, e.Status)
	} else if !strings.Contains(e.Error(), "already cancelled") || e.ServerMessage != "Agent is already cancelled" {
		t.Fatalf("second cancel: %s", e.Error())
	}
	if err := wait(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	sum := col.summary()
	if sum.Outcome == nil || *sum.Outcome != "cancelled" || !sum.CancelRequested {
		t.Fatalf("outcome %v cancel requested %v", sum.Outcome, sum.CancelRequested)
	}
	sameSummary(t, "cancelled run vs script", sum, scriptSummary(t, srv, cancelJob))

	// A finished run: 409 already finished.
	if err := srv.WaitFinished(ctx, research); err != nil {
		t.Fatal(err)
	}
	for _, job := range []string{research, firstGen} {
		err := c.Cancel(ctx, job)
		if e := asError(t, err); e.Kind != KindAlreadyFinished || e.Status != 409 {
			t.Fatalf("cancel of a finished run: kind %v", e.Kind)
		} else if e.Error() != `cancel: the run has already finished (409): "Agent already finished"` {
			t.Fatalf("message %q", e.Error())
		}
	}
}

func TestEndpoints(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research", "failure", "refused", "credit-limit", "cancel", "first-gen", "research", "research", "research", "research", "research", "research", "research", "research", "research", "research", "research", "research", "research", "research", "research", "research"}})
	c := newClient(t, srv, withKey(srv))
	ctx := context.Background()
	job := srv.Jobs[0].ID
	if err := srv.WaitFinished(ctx, job); err != nil {
		t.Fatal(err)
	}

	st, err := c.Status(ctx, job)
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	if st.Status != "completed" || !st.Terminal() || st.CreditsUsed == nil || st.ExpiresAt == nil || st.Model == "" || len(st.Data) == 0 {
		t.Fatalf("status %+v", st)
	}

	// A snapshot named by the trace.
	body, err := c.Trace(ctx, job, true)
	if err != nil {
		t.Fatal(err)
	}
	col := newCollector()
	col.sink(Update{Poll: mustDecode(t, body)})
	arts := col.store.Artifacts()
	if len(arts) == 0 {
		t.Fatal("no artifacts in the research run")
	}
	ref := arts[0].Latest().Ref
	snap, err := c.Snapshot(ctx, job, ref.SnapshotID)
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	if snap.SnapshotID != ref.SnapshotID || snap.ID != job || snap.Content == "" {
		t.Fatalf("snapshot %+v", snap)
	}

	list, err := c.Runs(ctx, time.Time{})
	if err != nil {
		t.Fatalf("Runs: %v", err)
	}
	if len(list.Runs) != 20 || list.Next == "" || list.NextBefore.IsZero() {
		t.Fatalf("first page: %d runs, next %q", len(list.Runs), list.Next)
	}
	for _, r := range list.Runs {
		if !isUUID(r.ID) || r.CreatedAt.IsZero() || r.Status == "" || r.Prompt == "" || r.Model == "" {
			t.Fatalf("run %+v", r)
		}
	}
	page2, err := c.Runs(ctx, list.NextBefore)
	if err != nil {
		t.Fatalf("Runs page 2: %v", err)
	}
	if len(page2.Runs) != len(srv.Jobs)-20 || page2.Next != "" || !page2.NextBefore.IsZero() {
		t.Fatalf("second page: %d runs, next %q", len(page2.Runs), page2.Next)
	}

	tu, err := c.TokenUsage(ctx)
	if err != nil {
		t.Fatalf("TokenUsage: %v", err)
	}
	if tu.PlanTokens <= 0 || tu.RemainingTokens > tu.PlanTokens || tu.BillingPeriodStart.IsZero() || !tu.BillingPeriodEnd.After(tu.BillingPeriodStart) {
		t.Fatalf("token usage %+v", tu)
	}

	crawls, err := c.ActiveCrawls(ctx)
	if err != nil {
		t.Fatalf("ActiveCrawls: %v", err)
	}
	if len(crawls) != 4 || !isUUID(crawls[0].ID) || crawls[0].URL == "" || crawls[0].TeamID == "" || len(crawls[0].Options) == 0 {
		t.Fatalf("crawls %+v", crawls)
	}

	// The watch fetches token usage at the start.
	w := fast(c.Watch(job, WatchOptions{TokenEvery: time.Hour}))
	col = newCollector()
	if err := w.Run(ctx, col.sink); err != nil {
		t.Fatal(err)
	}
	got := 0
	for _, u := range col.snapshot() {
		if u.Tokens != nil {
			got++
		}
	}
	if got != 1 {
		t.Fatalf("%d token updates, want 1", got)
	}
}

func TestUserAgentAndHeaders(t *testing.T) {
	// The sim does not report request headers; this handler only records
	// them.
	got := make(chan http.Header, 1)
	hs := newHeaderRecorder(t, got)
	Version = "1.2.3"
	t.Cleanup(func() { Version = "dev" })
	c, err := New(Config{BaseURL: hs, APIKey: "fc-abc"})
	if err != nil {
		t.Fatal(err)
	}
	c.TokenUsage(context.Background())
	h := <-got
	if h.Get("User-Agent") != "firewatch/1.2.3" || h.Get("Authorization") != "Bearer fc-abc" || !strings.Contains(h.Get("Accept-Encoding"), "gzip") {
		t.Fatalf("headers %v", h)
	}
}

// Ids are UUIDs in their canonical form only; a UUIDv7's first 48 bits
// are its time in Unix milliseconds.
func TestUUIDs(t *testing.T) {
	t.Parallel()
	const v7 = "0190f3a4-5b6c-7d8e-9f00-aabbccddeeff"
	for id, want := range map[string]bool{
		v7:                              true,
		strings.ToUpper(v7):             true,
		"{" + v7 + "}":                  false,
		"urn:uuid:" + v7:                false,
		strings.ReplaceAll(v7, "-", ""): false,
		v7[:35] + "g":                   false,
		"":                              false,
	} {
		if isUUID(id) != want {
			t.Errorf("isUUID(%q) = %v", id, !want)
		}
	}
	if at, ok := uuidV7Time(v7); !ok || at.UnixMilli() != 0x0190f3a45b6c {
		t.Fatalf("%v %v", at, ok)
	}
	if _, ok := uuidV7Time("0190f3a4-5b6c-4d8e-9f00-aabbccddeeff"); ok {
		t.Fatal("a v4 has a time")
	}
}
