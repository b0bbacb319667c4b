package poller

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/sim"
)

// Hostile answers through the fault-injecting front (internal/hostile):
// each case is a mode of the front, watched to the end with a recording, which then
// replays to the same state.
func TestHostileFront(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"refused"}, Speed: 1000})
	job := srv.Jobs[0].ID
	if err := srv.WaitFinished(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	clean := scriptSummary(t, srv, job)
	for _, tc := range []struct {
		mode  hostile.Mode
		check func(t *testing.T, sum model.Summary)
	}{
		// Another run's failed run.finished neither ends this run nor
		// changes its outcome; both of its events are set aside.
		{hostile.ForeignRun, func(t *testing.T, sum model.Summary) {
			if *sum.Outcome != *clean.Outcome || len(sum.SetAside) != 2 || !strings.Contains(sum.SetAside[0].Reason, "another run") {
				t.Fatalf("outcome %v, set aside %+v", *sum.Outcome, sum.SetAside)
			}
		}},
		// One event nested past the depth limit: the rest is used.
		{hostile.DeepEvent, func(t *testing.T, sum model.Summary) {
			if sum.EventCount != clean.EventCount || len(sum.SetAside) != 1 || sum.SetAside[0].Reason != model.ReasonTooDeep {
				t.Fatalf("%d events of %d, set aside %+v", sum.EventCount, clean.EventCount, sum.SetAside)
			}
		}},
		{hostile.DuplicateChanged, func(t *testing.T, sum model.Summary) {
			if sum.EventCount != clean.EventCount || len(sum.SetAside) != 1 || sum.SetAside[0].Reason != model.ReasonChanged {
				t.Fatalf("set aside %+v", sum.SetAside)
			}
		}},
		{hostile.HugeCredits, func(t *testing.T, sum model.Summary) {
			if sum.CreditsUsed != 0 || len(sum.BadValues) != 1 || sum.BadValues[0].Field != "creditsUsed" {
				t.Fatalf("credits %v, bad values %+v", sum.CreditsUsed, sum.BadValues)
			}
		}},
		{hostile.HugeDurations, func(t *testing.T, sum model.Summary) {
			if len(sum.BadValues) == 0 || sum.Agents[0].DurationMs != nil {
				t.Fatalf("bad values %+v", sum.BadValues)
			}
		}},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			f := hostile.Start(t, srv, tc.mode)
			c, _ := New(Config{BaseURL: f.URL, APIKey: srv.Key})
			var rec bytes.Buffer
			col := watchAll(t, c, job, WatchOptions{Record: &rec})
			if errs := col.errs(); len(errs) != 0 {
				t.Fatalf("errors: %v", errs)
			}
			sum := col.summary()
			tc.check(t, sum)
			// The recording replays to the same state.
			st := model.NewStore()
			if err := Replay(context.Background(), bytes.NewReader(rec.Bytes()), ReplayOptions{Instant: true}, func(u Update) {
				if u.Poll != nil {
					st.Merge(u.Poll)
				}
			}); err != nil {
				t.Fatalf("replay: %v", err)
			}
			rs := st.Summary()
			if tc.mode == hostile.DeepEvent {
				// The over-deep event is not recorded (replay could not
				// read it back): the rest is the same.
				rs.SetAside = sum.SetAside
			}
			sameSummary(t, "replay", rs, sum)
		})
	}
}

// A 200 whose body says {"success":false,"error":...} is what it says: a
// server error, retried with its message shown (not "malformed response"
// for ever), or a refusal that ends the watch at once.
func TestSuccessFalseIsWhatItSays(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"refused"}, Speed: 1000})
	job := srv.Jobs[0].ID
	f := hostile.Start(t, srv, hostile.SuccessFalse)
	c, _ := New(Config{BaseURL: f.URL, APIKey: srv.Key})
	col := newCollector()
	ctx, cancel := context.WithCancel(context.Background())
	wait := run(ctx, fast(c.Watch(job, WatchOptions{})), col.sink)
	u := polled(t, col, 1)
	e := asError(t, u.Err)
	if e.Kind != KindServer || !e.Retryable() || e.ServerMessage != "Internal server error while reading the trace" ||
		!strings.Contains(u.Health.Reason, "Internal server error while reading the trace") || strings.Contains(u.Health.Reason, "malformed") {
		t.Fatalf("kind %v, message %q, reason %q", e.Kind, e.ServerMessage, u.Health.Reason)
	}
	// It recovers when the service does.
	f.Set()
	col.waitFor(t, "a good poll", func(us []Update) bool { return len(us) > 0 && us[len(us)-1].Poll != nil })
	cancel()
	wait(t)

	// A front of its own: a request of the cancelled watch may still reach
	// the first one's counter.
	nf := hostile.Start(t, srv, hostile.SuccessFalseNotFound)
	c2, _ := New(Config{BaseURL: nf.URL, APIKey: srv.Key})
	err := fast(c2.Watch(job, WatchOptions{})).Run(context.Background(), nil)
	if e := asError(t, err); e.Kind != KindNotFound || !e.Refusal() || nf.TraceRequests() != 1 {
		t.Fatalf("not found: %v (kind %v) after %d requests", err, e.Kind, nf.TraceRequests())
	}
}

// A body that cannot be used says why in the health line, not only that.
func TestMalformedSaysWhy(t *testing.T) {
	t.Parallel()
	e := (&Client{}).decodeError(&model.DecodeError{Field: "events[3]", Msg: "invalid character 'x' after object key"}, nil)
	if s := e.Short(); s != "malformed response: events[3]: invalid character 'x' after object key" {
		t.Fatalf("short %q", s)
	}
}

// A Retry-After is waited out as asked, up to MaxRetryAfter (an hour), and
// the health line shows the wait (and what was asked, when it was capped).
func TestLongRetryAfterIsShownAndHonoured(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"cancel"}, Speed: 1})
	job := srv.Jobs[0].ID
	for _, tc := range []struct {
		mode   hostile.Mode
		wait   time.Duration
		reason string
	}{
		{hostile.RetryAfterLong, 10 * time.Minute, "rate limited, retrying in 10m"},
		{hostile.RetryAfterHours, time.Hour, "the service asks to wait 2h00m; retrying in 1h00m"},
	} {
		f := hostile.Start(t, srv, tc.mode)
		c, _ := New(Config{BaseURL: f.URL, APIKey: srv.Key})
		w, clk := clocked(c, job, WatchOptions{TokenEvery: -1})
		col := newCollector()
		ctx, cancel := context.WithCancel(context.Background())
		wait := run(ctx, w, col.sink)
		u := polled(t, col, 1)
		if u.Health.Wait != tc.wait || !strings.Contains(u.Health.Reason, tc.reason) {
			t.Fatalf("%s: wait %v, reason %q", tc.mode, u.Health.Wait, u.Health.Reason)
		}
		if d := clk.fire(t); d != tc.wait {
			t.Fatalf("%s: waited %v", tc.mode, d)
		}
		if u := polled(t, col, 2); u.Poll == nil {
			t.Fatalf("%s: the poll after the wait: %+v", tc.mode, u)
		}
		cancel()
		wait(t)
	}
}
