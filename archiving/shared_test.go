package archiving

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/internal/pgtest"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

// eachDSN runs f on a fresh SQLite file and a fresh PostgreSQL schema:
// the archive's DSN and its database, for what a test writes by hand.
func eachDSN(t *testing.T, f func(t *testing.T, dsn string, db *sql.DB, dollar bool)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		dsn := filepath.Join(t.TempDir(), "archive.db")
		st, err := archive.Open(context.Background(), dsn) // made and migrated
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		db, err := sql.Open("sqlite3", "file:"+dsn+"?_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		f(t, dsn, db, false)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dsn := pgtest.Schema(t, postgresDSN(t))
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		f(t, dsn, db, true)
	})
}

// wakeStore counts a follower's lease queries: each take and each read
// of the lease is one wake-up.
type wakeStore struct {
	archive.Store
	takes, reads atomic.Int64
}

func (w *wakeStore) Take(ctx context.Context, k archive.LeaseKey, h archive.Holder, ttl time.Duration) (archive.Lease, error) {
	w.takes.Add(1)
	return w.Store.Take(ctx, k, h, ttl)
}

func (w *wakeStore) Lease(ctx context.Context, k archive.LeaseKey) (archive.Lease, error) {
	w.reads.Add(1)
	return w.Store.Lease(ctx, k)
}

// TestSharedLeaseThatNeverEnds: a run's lease whose row says it expires
// in the year 3000, its holder a firewatch on another machine that no
// longer renews it, is taken over once its TTL since its last renewal has
// passed: the follower waits for it without spinning (a take when it
// starts and one when the lease ends, not one after another), then polls
// the service itself.
func TestSharedLeaseThatNeverEnds(t *testing.T) {
	t.Parallel()
	eachDSN(t, func(t *testing.T, dsn string, db *sql.DB, dollar bool) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		srv, err := sim.Start(ctx, sim.Options{Speed: 400, RateLimit: -1, Held: true})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		id := srv.Jobs[0].ID
		st, err := archive.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		// The holder elsewhere took it for a second and then was gone;
		// its row says the year 3000.
		const ttl = time.Second
		gone := archive.Holder{ID: "gone-holder", Label: "watch", Host: "elsewhere", PID: 4242}
		if _, err := st.Take(ctx, archive.LeaseKey{Service: srv.URL, Run: id}, gone, ttl); err != nil {
			t.Fatal(err)
		}
		edit := `UPDATE fw_leases SET expires = ? WHERE run = ?`
		if dollar {
			edit = `UPDATE fw_leases SET expires = $1 WHERE run = $2`
		}
		if _, err := db.Exec(edit, time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), id); err != nil {
			t.Fatal(err)
		}
		c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
		if err != nil {
			t.Fatal(err)
		}
		ws := &wakeStore{Store: st}
		took := make(chan string, 1)
		sh := NewShared(SharedConfig{Sink: NewSink(ws, text.NewSecrets(), srv.URL, id, archive.TeamOf(srv.Key)), Client: c,
			Service: srv.URL, JobID: id, Watch: poller.WatchOptions{Interval: 100 * time.Millisecond}, Label: "watch",
			Logf: func(format string, args ...any) {
				if line := text.Sanitize(strings.TrimSpace(sprintf(format, args...))); strings.Contains(line, "took") {
					select {
					case took <- line:
					default:
					}
				}
			}})
		done := make(chan error, 1)
		go func() { done <- sh.Follow(ctx, func(poller.Update) {}) }()
		select {
		case line := <-took:
			t.Logf("%s", line)
		case <-time.After(10 * time.Second):
			t.Fatalf("the lease of the year 3000 was not taken over within 10s (%d takes, %d reads of the lease)", ws.takes.Load(), ws.reads.Load())
		}
		// A take at the start and one once the lease ended (a busy
		// machine may need one more), not a take after another.
		if n := ws.takes.Load(); n > 3 {
			t.Errorf("%d takes while the lease was held for %s: the follower spun", n, ttl)
		}
		// The new holder polls the service.
		deadline := time.Now().Add(5 * time.Second)
		for srv.Stats().ByRoute["GET trace"] == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the service was never polled")
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		<-done
	})
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// TestSharedTwoServicesOneRunID: the same run id at two services (two
// simulators with one seed: a staging service beside the production one)
// followed by two processes on one archive is two runs: two leases, each
// taken by its own process, each service polled by it, two records with
// their own polls.
func TestSharedTwoServicesOneRunID(t *testing.T) {
	t.Parallel()
	eachDSN(t, func(t *testing.T, dsn string, _ *sql.DB, _ bool) {
		ctx := context.Background()
		var srvs [2]*sim.Server
		for i := range srvs {
			srv, err := sim.Start(ctx, sim.Options{Speed: 60, RateLimit: -1, Seed: 42, Key: "fc-same-key-0123456789"})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			srvs[i] = srv
		}
		id := srvs[0].Jobs[0].ID
		if srvs[1].Jobs[0].ID != id || srvs[0].URL == srvs[1].URL {
			t.Fatalf("not one run id at two services: %s %s", srvs[0].Jobs[0].ID, srvs[1].Jobs[0].ID)
		}
		var logs [2]strings.Builder
		var mu [2]chan struct{}
		done := make(chan error, 2)
		for i, srv := range srvs {
			st, err := archive.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
			if err != nil {
				t.Fatal(err)
			}
			mu[i] = make(chan struct{}, 1)
			mu[i] <- struct{}{}
			sh := NewShared(SharedConfig{Sink: NewSink(st, text.NewSecrets(), srv.URL, id, archive.TeamOf(srv.Key)), Client: c,
				Service: srv.URL, JobID: id, Watch: poller.WatchOptions{Interval: 100 * time.Millisecond}, Label: fmt.Sprint("watch ", i),
				Logf: func(format string, args ...any) {
					<-mu[i]
					fmt.Fprintf(&logs[i], format+"\n", args...)
					mu[i] <- struct{}{}
				}})
			go func() { done <- sh.Follow(ctx, func(poller.Update) {}) }()
		}
		for range srvs {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the runs did not end within 20s")
			}
		}
		st, err := archive.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		ls, err := st.Leases(ctx, "", "")
		if err != nil || len(ls) != 2 || ls[0].Service == ls[1].Service {
			t.Fatalf("the leases: %+v %v", ls, err)
		}
		for i, srv := range srvs {
			<-mu[i]
			log := logs[i].String()
			if !strings.Contains(log, "took the lease of run "+id+" at "+srv.URL) || strings.Contains(log, "following") {
				t.Errorf("process %d did not poll its own service on its own lease:\n%s", i, log)
			}
			if n := srv.Stats().ByRoute["GET trace"]; n < 3 {
				t.Errorf("service %d polled %d times", i, n)
			}
			r, err := st.Get(ctx, srv.URL, id)
			if err != nil || r.Service != srv.URL || r.Polls == 0 {
				t.Errorf("service %d's record: %+v %v", i, r, err)
			}
		}
	})
}

// goneList is a live service that has forgotten every run.
type goneList struct{ fakeList }

func (*goneList) Status(context.Context, string) (*poller.Status, error) {
	return nil, &poller.Error{Kind: poller.KindNotFound, Op: "status", Status: 404}
}

// TestListingStatusOfItsOwnService: the runs screen of one service whose
// service has forgotten a run shows the archive's copy of that run at
// that service, never the same id's record at another service.
func TestListingStatusOfItsOwnService(t *testing.T) {
	t.Parallel()
	eachDSN(t, func(t *testing.T, dsn string, _ *sql.DB, _ bool) {
		ctx := context.Background()
		st, err := archive.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		const staging, production = "http://staging.example", "https://api.example"
		if err := st.PutRun(ctx, &archive.Run{Service: staging, ID: listRunA, Status: "failed", Prompt: "the staging run"}); err != nil {
			t.Fatal(err)
		}
		l := NewListing(&goneList{}, st, archive.Query{Service: production})
		if s, err := l.Status(ctx, listRunA); !errors.Is(err, archive.ErrNotFound) {
			t.Fatalf("production's screen shows staging's run: %+v %v", s, err)
		}
		if err := st.PutRun(ctx, &archive.Run{Service: production, ID: listRunA, Status: "completed"}); err != nil {
			t.Fatal(err)
		}
		if s, err := l.Status(ctx, listRunA); err != nil || s.Status != "completed (archived)" {
			t.Fatalf("production's own archived run: %+v %v", s, err)
		}
	})
}

// The lease state machine's scenarios (lead, follow, catch-up, solo,
// takeover, a fenced late write), each on the real Shared: on SQLite in a
// synctest bubble (the service served in-process, SQLite's clock the
// bubble's, so that a TTL passes at once and always the same way), and
// on PostgreSQL in real time where its doorbells and its clock matter.

// inProcess serves a client's requests with a handler, in the caller's
// goroutine: no socket, so that a synctest bubble's time can run. It
// counts the trace requests it served.
type inProcess struct {
	h      http.Handler
	traces atomic.Int64
}

func (p *inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	if strings.HasSuffix(r.URL.Path, "/trace") {
		p.traces.Add(1)
	}
	rec := httptest.NewRecorder()
	p.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// gateStore is a process's store that the test can freeze: its writes
// (renewals, polls, releases) wait until thawed, as a process stopped
// (SIGSTOP, a laptop's lid shut) writes nothing and then writes late.
type gateStore struct {
	archive.Store
	mu   sync.Mutex
	gate chan struct{} // nil: open
}

func (g *gateStore) freeze() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gate == nil {
		g.gate = make(chan struct{})
	}
}

func (g *gateStore) thaw() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gate != nil {
		close(g.gate)
		g.gate = nil
	}
}

func (g *gateStore) wait(ctx context.Context) error {
	g.mu.Lock()
	gate := g.gate
	g.mu.Unlock()
	if gate == nil {
		return nil
	}
	select {
	case <-gate:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gateStore) Renew(ctx context.Context, l archive.Lease) (archive.Lease, error) {
	if err := g.wait(ctx); err != nil {
		return archive.Lease{}, err
	}
	return g.Store.Renew(ctx, l)
}

func (g *gateStore) AppendLeased(ctx context.Context, l archive.Lease, at time.Time, ps []archive.Poll) (int64, error) {
	if err := g.wait(ctx); err != nil {
		return 0, err
	}
	return g.Store.AppendLeased(ctx, l, at, ps)
}

func (g *gateStore) Release(ctx context.Context, l archive.Lease) error {
	if err := g.wait(ctx); err != nil {
		return err
	}
	return g.Store.Release(ctx, l)
}

// leaseWatch is one firewatch process of a test: a Shared of the run with
// a store (and a client) of its own.
type leaseWatch struct {
	name string
	sh   *Shared
	st   *gateStore
	tr   *inProcess

	mu    sync.Mutex
	run   follow.Run
	ids   map[string]int // events shown, by id
	via   map[string]int // polls shown, by whose ("" its own)
	log   strings.Builder
	said  []string
	err   error
	ended bool
	done  chan struct{}
}

func (w *leaseWatch) logf(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(&w.log, time.Now().Format("15:04:05.000 ")+format+"\n", args...)
}

func (w *leaseWatch) logged(s string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Contains(w.log.String(), s)
}

func (w *leaseWatch) events() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.ids)
}

func (w *leaseWatch) polledVia(who string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.via[who]
}

// leaseRun is one run of the simulator followed by the test's watches on
// one archive.
type leaseRun struct {
	t      *testing.T
	srv    *sim.Server
	id     string
	open   func(ctx context.Context) (archive.Store, error)
	ctx    context.Context
	cancel context.CancelFunc
	ws     []*leaseWatch
	wg     sync.WaitGroup
	// safetyRead is the followers' (0: three intervals), interval the
	// watches' poll interval.
	safetyRead, interval time.Duration
	pg                   bool // on PostgreSQL, in real time
}

const leaseInterval = 100 * time.Millisecond

// newLeaseRun starts a held simulator whose requests are served
// in-process (its listener closed at once: nothing waits on a socket).
func newLeaseRun(t *testing.T, open func(ctx context.Context) (archive.Store, error)) *leaseRun {
	t.Helper()
	srv, err := sim.Start(context.Background(), sim.Options{Speed: 80, Held: true, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	r := &leaseRun{t: t, srv: srv, id: srv.Jobs[0].ID, open: open, ctx: ctx, cancel: cancel, interval: leaseInterval}
	// PostgreSQL (its doorbells) runs in real time: an interval that a
	// loaded machine keeps, so that its leases do not lapse unasked.
	st, err := open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lctx, stop := context.WithCancel(ctx)
	bells, err := st.Listen(lctx, archive.LeaseKey{Service: "http://127.0.0.1:1", Run: "probe"})
	stop()
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if r.pg = bells != nil; r.pg {
		r.interval = 500 * time.Millisecond
	}
	t.Cleanup(func() {
		r.cancel()
		r.wg.Wait()
		if t.Failed() {
			for _, w := range r.ws {
				w.mu.Lock()
				t.Logf("%s (%d events, via %v, followed to %v) log:\n%s", w.name, len(w.ids), w.via, w.err, w.log.String())
				w.mu.Unlock()
			}
		}
	})
	return r
}

// key is the run's lease key.
func (r *leaseRun) key() archive.LeaseKey { return archive.LeaseKey{Service: r.srv.URL, Run: r.id} }

// watch starts one more watch of the run; reopen, when set, is how it
// opens the archive (the archive unreachable at the start: no sink).
func (r *leaseRun) watch(reopen func(ctx context.Context) (archive.Store, error)) *leaseWatch {
	r.t.Helper()
	w := &leaseWatch{name: fmt.Sprintf("watch %d", len(r.ws)), tr: &inProcess{h: r.srv}, run: follow.NewRun(),
		ids: map[string]int{}, via: map[string]int{}, done: make(chan struct{})}
	c, err := poller.New(poller.Config{BaseURL: r.srv.URL, APIKey: r.srv.Key, HTTPClient: &http.Client{Transport: w.tr}})
	if err != nil {
		r.t.Fatal(err)
	}
	sec, team := text.NewSecrets(), archive.TeamOf(r.srv.Key)
	newSink := func(ctx context.Context) (*Sink, error) {
		st, err := reopen(ctx)
		if err != nil {
			return nil, err
		}
		w.st = &gateStore{Store: st}
		return NewSink(w.st, sec, r.srv.URL, r.id, team), nil
	}
	var sk *Sink
	if reopen == nil {
		reopen = r.open
		if sk, err = newSink(r.ctx); err != nil {
			r.t.Fatal(err)
		}
	}
	every := r.interval
	safety := cmpOr(r.safetyRead, 3*every)
	w.sh = NewShared(SharedConfig{Sink: sk, Reopen: newSink, Client: c, Service: r.srv.URL, JobID: r.id,
		Watch: poller.WatchOptions{Interval: every, MaxInterval: every, Tail: 1000, TailMax: 300 * time.Millisecond, TokenEvery: -1},
		Label: w.name, Logf: w.logf, Say: func(msg string) {
			w.logf("said: %s", msg)
			w.mu.Lock()
			w.said = append(w.said, msg)
			w.mu.Unlock()
		}, SafetyRead: safety, Rejoin: 2 * every})
	r.ws = append(r.ws, w)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(w.done)
		err := w.sh.Follow(r.ctx, func(u poller.Update) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.run.Merge(u)
			if u.Poll != nil {
				w.via[u.Health.Via]++
				for _, e := range u.Poll.Events {
					w.ids[e.ID]++
				}
			}
		})
		w.mu.Lock()
		w.err, w.ended = err, true
		w.mu.Unlock()
		// As a watch ends: the status it saw, then its sink closed.
		if sk := w.sh.Sink(); sk != nil {
			sk.KeepStatus(context.Background(), c, nil, w.run.Store.Run().Outcome != "", w.logf)
			sk.Close(&w.run)
			sk.Store().Close() // the watch opened it
		}
	}()
	return w
}

// await waits until cond holds: polled, so that it reads the same in a
// bubble (where the wait is the bubble's time) and in real time.
func (r *leaseRun) await(what string, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			r.t.Fatalf("no %s within 20s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// until runs the run's clock to where its trace shows n events, and holds
// it there.
func (r *leaseRun) until(n int) {
	r.t.Helper()
	evs, _ := r.srv.Script(r.id)
	if n > len(evs) {
		r.t.Fatalf("the run has %d events, not %d", len(evs), n)
	}
	var at time.Duration
	vis := make([]time.Duration, len(evs))
	for i, e := range evs {
		vis[i] = e.Visible
	}
	for range n { // the nth smallest
		m := 0
		for i := range vis {
			if vis[i] < vis[m] {
				m = i
			}
		}
		at = vis[m]
		vis[m] = 1<<63 - 1
	}
	r.srv.ReleaseUntil(at)
}

// holder is the watch holding the run's lease now (nil: none), read with
// st.
func (r *leaseRun) holder(st archive.Store) *leaseWatch {
	l, err := st.Lease(context.Background(), r.key())
	if err != nil || l.Left <= 0 {
		return nil
	}
	for _, w := range r.ws {
		if w.sh.Holder().ID == l.Holder.ID {
			return w
		}
	}
	return nil
}

// ended waits until every watch has followed the run to its end, without
// an error.
func (r *leaseRun) ended() {
	r.t.Helper()
	for _, w := range r.ws {
		r.await(w.name+"'s end", func() bool {
			select {
			case <-w.done:
				return true
			default:
				return false
			}
		})
		if w.err != nil {
			r.t.Fatalf("%s: %v", w.name, w.err)
		}
	}
}

// check reads the archive once the watches ended: every event of the
// run stored once and none twice, the run marked complete, the lease
// released; and every watch showed every event once.
func (r *leaseRun) check(st archive.Store, ws ...*leaseWatch) {
	r.t.Helper()
	if len(ws) == 0 {
		ws = r.ws
	}
	ctx := context.Background()
	c := r.ws[0].sh.cfg.Client
	body, err := c.Trace(ctx, r.id, false)
	if err != nil {
		r.t.Fatal(err)
	}
	p, err := c.NewDecoder().Decode(body)
	if err != nil {
		r.t.Fatal(err)
	}
	want := map[string]bool{}
	for _, e := range p.Events {
		want[e.ID] = true
	}
	rec, polls, err := Load(ctx, st, r.srv.URL, r.id)
	if err != nil {
		r.t.Fatalf("the run in the archive: %v", err)
	}
	dec := c.NewDecoder()
	got, dups := map[string]int{}, 0
	for i, sp := range polls {
		// In the order they were received: the polls made alone stored
		// before those made after them.
		if i > 0 && sp.ReceivedAt.Before(polls[i-1].ReceivedAt) {
			r.t.Errorf("poll %d received at %s stored after poll %d received at %s", sp.Seq, sp.ReceivedAt, polls[i-1].Seq, polls[i-1].ReceivedAt)
		}
		p, _, err := poller.DecodeLine(dec, sp.Line)
		if err != nil {
			r.t.Fatalf("poll %d cannot be read: %v", sp.Seq, err)
		}
		if p == nil {
			continue
		}
		for _, e := range p.Events {
			got[e.ID]++
		}
		dups += len(p.Duplicates)
	}
	if len(got) != len(want) || dups > 0 || !rec.Complete {
		r.t.Errorf("the archive holds %d of the run's %d events in %d polls, %d of them again with other bytes; complete: %v",
			len(got), len(want), len(polls), dups, rec.Complete)
	}
	for _, w := range ws {
		w.mu.Lock()
		for id, n := range w.ids {
			if n != 1 {
				r.t.Errorf("%s showed event %s %d times", w.name, id, n)
			}
		}
		if len(w.ids) != len(want) {
			r.t.Errorf("%s showed %d of the run's %d events", w.name, len(w.ids), len(want))
		}
		w.mu.Unlock()
	}
	if l, err := st.Lease(ctx, r.key()); err != nil || l.Left > 0 {
		r.t.Errorf("the run's lease after its end: %+v %v", l, err)
	}
}

// leaseDB is where a scenario runs: on SQLite in a synctest bubble, or on
// PostgreSQL (a schema of its own) in real time.
type leaseDB struct {
	name string
	run  func(t *testing.T, f func(t *testing.T, open func(ctx context.Context) (archive.Store, error)))
}

var (
	inBubble = leaseDB{"sqlite", func(t *testing.T, f func(*testing.T, func(context.Context) (archive.Store, error))) {
		path := filepath.Join(t.TempDir(), "archive.db")
		synctest.Test(t, func(t *testing.T) {
			f(t, func(ctx context.Context) (archive.Store, error) { return archive.Open(ctx, path) })
		})
	}}
	onPostgres = leaseDB{"postgres", func(t *testing.T, f func(*testing.T, func(context.Context) (archive.Store, error))) {
		dsn := pgtest.Schema(t, postgresDSN(t))
		f(t, func(ctx context.Context) (archive.Store, error) { return archive.Open(ctx, dsn) })
	}}
)

// eachLeaseDB runs f on each of dbs, as subtests.
func eachLeaseDB(t *testing.T, f func(t *testing.T, open func(ctx context.Context) (archive.Store, error)), dbs ...leaseDB) {
	for _, db := range dbs {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			db.run(t, f)
		})
	}
}

// postgresDSN is the PostgreSQL of the lease tests, or a skip (a failure
// in CI, where they must run).
func postgresDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("FIREWATCH_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("FIREWATCH_TEST_POSTGRES is not set and CI=true: the leases must be tested on PostgreSQL")
		}
		t.Skip("PostgreSQL not tested: set FIREWATCH_TEST_POSTGRES=postgres://...")
	}
	return dsn
}

// reader is the test's own store of the archive.
func reader(t *testing.T, open func(ctx context.Context) (archive.Store, error)) archive.Store {
	t.Helper()
	st, err := open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestSharedLeadFollowCatchUp: the first watch of a run takes its lease
// and polls it, storing each poll; a second, started once polls are
// stored, shows them first (catching up), then what the holder stores as
// it stores it (on PostgreSQL its doorbells: its safety read is a minute
// away), and never polls the service. The holder follows the run to its
// end, marks it complete and releases the lease; the follower ends with
// it. Every event is stored once and shown once by each.
func TestSharedLeadFollowCatchUp(t *testing.T) {
	t.Parallel()
	eachLeaseDB(t, func(t *testing.T, open func(ctx context.Context) (archive.Store, error)) {
		st := reader(t, open)
		r := newLeaseRun(t, open)
		if _, err := st.Lease(context.Background(), r.key()); err == nil {
			t.Fatal("a lease before the first watch")
		}
		if r.pg {
			// PostgreSQL: the doorbells are the follower's news; its safety
			// read is a minute away, and its lease's TTL (three intervals)
			// long enough to tell a doorbell's read from a take's.
			r.safetyRead, r.interval = time.Minute, 600*time.Millisecond
		}
		lead := r.watch(nil)
		r.await("the first watch taking the lease", func() bool { return r.holder(st) == lead })
		r.until(20)
		r.await("the holder showing 20 events", func() bool { return lead.events() >= 20 })
		stored, err := st.PollsSince(context.Background(), r.srv.URL, r.id, -1, 0)
		if err != nil || len(stored) == 0 {
			t.Fatalf("the holder's polls are not stored: %d %v", len(stored), err)
		}
		follower := r.watch(nil)
		r.await("the follower catching up", func() bool { return follower.events() >= 20 })
		if n := follower.polledVia(""); n != 0 {
			t.Errorf("the follower showed %d polls of its own", n)
		}
		for _, n := range []int{30, 40, 50} {
			r.until(n)
			r.await("the holder showing its polls", func() bool { return lead.events() >= n })
			shown := time.Now()
			r.await("the follower showing what the holder stores", func() bool { return follower.events() >= n })
			if d := time.Since(shown); r.pg && d > r.interval/2 {
				t.Errorf("the follower showed the holder's stored poll %s after it, not at its doorbell", d)
			}
		}
		r.srv.Release()
		r.ended()
		r.check(st)
		if n := follower.tr.traces.Load(); n != 0 {
			t.Errorf("the follower polled the service %d times", n)
		}
		if follower.polledVia(text.Sanitize(lead.sh.Holder().String())) == 0 || lead.polledVia("") == 0 {
			t.Errorf("polls shown by the holder %v, by the follower %v", lead.via, follower.via)
		}
		if !lead.logged("took the lease") || !lead.logged("released the lease") || !follower.logged("following the lease") {
			t.Error("the holder did not take and release the lease, or the follower did not follow it")
		}
	}, inBubble, onPostgres)
}

// TestSharedHolderWakesForItsPolls: a holder alone on its run, whose
// polls each renew the lease in their own write, does not also wake at
// every interval to find that they did, or to renew it again: its own
// renewal waits until no poll has renewed the lease for half its TTL. The
// run is still stored whole, and the lease never lapses under it.
func TestSharedHolderWakesForItsPolls(t *testing.T) {
	t.Parallel()
	eachLeaseDB(t, func(t *testing.T, open func(ctx context.Context) (archive.Store, error)) {
		st := reader(t, open)
		r := newLeaseRun(t, open)
		w := r.watch(nil)
		r.await("the watch taking the lease", func() bool { return r.holder(st) == w })
		r.srv.Release()
		r.ended()
		r.check(st)
		w.mu.Lock()
		log := w.log.String()
		w.mu.Unlock()
		stored, err := st.PollsSince(context.Background(), r.srv.URL, r.id, -1, 0)
		if err != nil || len(stored) < 5 {
			t.Fatalf("%d polls stored (%v): too few to tell", len(stored), err)
		}
		if n := strings.Count(log, "renewed (by a stored poll)"); n > 0 {
			t.Errorf("the holder woke %d times to find its polls had renewed the lease (%d polls stored)", n, len(stored))
		}
		if n := strings.Count(log, "lease: renewed the lease"); 3*n > len(stored) {
			t.Errorf("the holder renewed the lease alone %d times, with %d polls stored", n, len(stored))
		}
	}, inBubble)
}

// TestSharedSolo: a watch that cannot reach the archive when it starts
// polls the run on its own and says so once; once the archive is back it
// says so, takes the lease, stores the polls it made alone, and goes on
// holding it to the run's end: the archive holds every event once.
func TestSharedSolo(t *testing.T) {
	t.Parallel()
	eachLeaseDB(t, func(t *testing.T, open func(ctx context.Context) (archive.Store, error)) {
		st := reader(t, open)
		r := newLeaseRun(t, open)
		var up atomic.Bool
		w := r.watch(func(ctx context.Context) (archive.Store, error) {
			if !up.Load() {
				return nil, fmt.Errorf("opening the archive: %w", archive.ErrUnavailable)
			}
			return open(ctx)
		})
		r.until(20)
		r.await("the watch polling on its own", func() bool { return w.events() >= 20 })
		if _, err := st.Lease(context.Background(), r.key()); err == nil {
			t.Fatal("a lease taken while the archive could not be reached")
		}
		up.Store(true)
		r.await("the watch taking the lease", func() bool { return r.holder(st) == w })
		r.await("the polls made alone stored", func() bool { return w.logged("polls this process made alone") })
		r.srv.Release()
		r.ended()
		r.check(st)
		w.mu.Lock()
		said := strings.Join(w.said, "\n")
		w.mu.Unlock()
		if strings.Count(said, "cannot be reached") != 1 || strings.Count(said, "the shared archive is back") != 1 {
			t.Errorf("said, for one outage:\n%s", said)
		}
	}, inBubble)
}

// TestSharedTakeover: the holder stops writing (stopped, or cut off from
// the archive) with the run half shown: the follower takes the lease
// over once its TTL has passed, not before and not long after, catches
// up with what the holder stored and polls the run to its end.
func TestSharedTakeover(t *testing.T) {
	t.Parallel()
	eachLeaseDB(t, func(t *testing.T, open func(ctx context.Context) (archive.Store, error)) {
		testTakeover(t, open, false)
	}, inBubble, onPostgres)
}

// TestSharedFencedLateWrite: the holder taken over while stopped writes
// late once it goes on: its write is refused (its token is not the
// lease's), it stops polling the service and follows the new holder; no
// poll it made is stored under the new holder's lease, and every event
// is stored once.
func TestSharedFencedLateWrite(t *testing.T) {
	t.Parallel()
	eachLeaseDB(t, func(t *testing.T, open func(ctx context.Context) (archive.Store, error)) {
		testTakeover(t, open, true)
	}, inBubble, onPostgres)
}

// testTakeover is TestSharedTakeover, and with late the holder's late
// write after it.
func testTakeover(t *testing.T, open func(ctx context.Context) (archive.Store, error), late bool) {
	st := reader(t, open)
	r := newLeaseRun(t, open)
	first := r.watch(nil)
	r.await("the first watch taking the lease", func() bool { return r.holder(st) == first })
	second := r.watch(nil)
	r.until(20)
	r.await("both showing 20 events", func() bool { return first.events() >= 20 && second.events() >= 20 })
	l, err := st.Lease(context.Background(), r.key())
	if err != nil {
		t.Fatal(err)
	}
	first.st.freeze()
	frozen := time.Now()
	r.await("the follower taking over", func() bool { return r.holder(st) == second })
	// No sooner than the lease's TTL from its last renewal (which is at
	// most the freeze), and within its TTL and a few intervals of the
	// freeze.
	took := time.Since(frozen)
	if took > l.TTL+5*r.interval || took < l.TTL-(frozen.Sub(l.Read)+r.interval) {
		t.Errorf("taken over %s after the holder stopped, its TTL %s", took, l.TTL)
	}
	r.await("the follower's log saying it took over", func() bool { return second.logged("took over the lease") })
	r.until(40)
	r.await("the new holder showing 40 events", func() bool { return second.events() >= 40 })
	if !late {
		// Stopped for good: the new holder follows the run to its end.
		r.srv.Release()
		r.await("the new holder's end", func() bool {
			select {
			case <-second.done:
				return true
			default:
				return false
			}
		})
		r.check(st, second)
		if n := second.polledVia(""); n == 0 {
			t.Error("the new holder polled nothing")
		}
		r.cancel()
		first.st.thaw()
		<-first.done
		return
	}
	first.st.thaw()
	r.await("the first watch learning it lost the lease", func() bool { return first.logged("lease: lost run") })
	polled := first.tr.traces.Load()
	r.until(60)
	r.await("the first watch following the new holder", func() bool {
		return first.events() >= 60 && first.polledVia(text.Sanitize(second.sh.Holder().String())) > 0
	})
	if n := first.tr.traces.Load(); n > polled+1 {
		t.Errorf("the first watch polled the service %d times after it lost the lease", n-polled)
	}
	if h := r.holder(st); h != second {
		t.Errorf("the lease is %v's after the late write, not the new holder's", h)
	}
	r.srv.Release()
	r.ended()
	r.check(st)
}
