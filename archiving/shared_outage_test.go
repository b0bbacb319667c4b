package archiving

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/internal/pgtest"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

// outageWatch is one firewatch process of a test: a Shared of the run
// with a store of its own, closed as a watch closes it (its status, then
// its sink, with what it derived).
type outageWatch struct {
	name string
	sh   *Shared
	c    *poller.Client

	mu       sync.Mutex
	run      follow.Run
	ids      map[string]int // events shown, by id
	polls    int
	finished bool
	log      strings.Builder
	said     []string // what a person is told
	err      error
	followed chan struct{} // closed once Follow returned
	done     chan struct{} // closed once followed and closed
}

func (w *outageWatch) logf(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(&w.log, time.Now().Format("15:04:05.000 ")+format+"\n", args...)
}

func (w *outageWatch) say(msg string) {
	w.logf("said: %s", msg)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.said = append(w.said, msg)
}

func (w *outageWatch) shown() (events, polls int, finished bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.ids), w.polls, w.finished
}

// outage is one run followed by several watches on one archive while the
// test stops and starts its database; the run's clock is the test's
// (sim.Server.Hold, Release), so that each stop falls where it is meant to.
type outage struct {
	t      *testing.T
	srv    *sim.Server
	id     string
	ws     []*outageWatch
	stop   func()
	start  func()
	ctx    context.Context
	cancel context.CancelFunc
	// closing, once closed, lets the watches that followed the run close
	// their archive (closed at first, unless the test holds them).
	closing chan struct{}
}

// outageOptions is how the watches of an outage test poll: fast, their
// lease's TTL three intervals, rejoining the archive within a few.
type outageOptions struct {
	watches int
	// open is how a watch's store is opened.
	open func(ctx context.Context) (archive.Store, error)
	// noSink: the archive could not be opened when the watches started
	// (the command's Reopen opens it later).
	noSink bool
	// tailMax keeps the watches polling this long after run.finished.
	tailMax time.Duration
	// holdClose: the watches close their archive once the test closes
	// outage.closing.
	holdClose bool
	bound     int // each watch's aloneLog's (0: maxAlone)
}

const outageInterval = 100 * time.Millisecond

func newOutage(t *testing.T, o outageOptions, stop, start func()) *outage {
	t.Helper()
	srv, err := sim.Start(context.Background(), sim.Options{Speed: 80, Held: true, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	ot := &outage{t: t, srv: srv, id: srv.Jobs[0].ID, stop: stop, start: start, ctx: ctx, cancel: cancel, closing: make(chan struct{})}
	if !o.holdClose {
		close(ot.closing)
	}
	t.Cleanup(func() {
		cancel()
		for _, w := range ot.ws {
			select {
			case <-w.done:
			case <-time.After(30 * time.Second):
			}
		}
		if t.Failed() {
			for _, w := range ot.ws {
				w.mu.Lock()
				t.Logf("%s (%d events, %d polls, finished %v, followed to %v) log:\n%s", w.name, len(w.ids), w.polls, w.finished, w.err, w.log.String())
				w.mu.Unlock()
			}
		}
	})
	sec := text.NewSecrets()
	team := archive.TeamOf(srv.Key)
	newSink := func(ctx context.Context) (*Sink, error) {
		st, err := o.open(ctx)
		if err != nil {
			return nil, err
		}
		return NewSink(st, sec, srv.URL, ot.id, team), nil
	}
	sinks := make([]*Sink, o.watches)
	if !o.noSink {
		for i := range sinks {
			if sinks[i], err = newSink(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	tailMax := o.tailMax
	if tailMax == 0 {
		tailMax = 300 * time.Millisecond
	}
	for i := range o.watches {
		c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
		if err != nil {
			t.Fatal(err)
		}
		w := &outageWatch{name: fmt.Sprintf("watch %d", i), c: c, run: follow.NewRun(), ids: map[string]int{}, followed: make(chan struct{}), done: make(chan struct{})}
		w.sh = NewShared(SharedConfig{Sink: sinks[i], Reopen: newSink, Client: c, Service: srv.URL, JobID: ot.id,
			Watch: poller.WatchOptions{Interval: outageInterval, MaxInterval: outageInterval, Tail: 1000, TailMax: tailMax, TokenEvery: -1},
			Label: w.name, Logf: w.logf, Say: w.say, SafetyRead: 3 * outageInterval, Rejoin: 2 * outageInterval})
		w.sh.kept.bound = o.bound
		ot.ws = append(ot.ws, w)
	}
	return ot
}

// follow starts the watches.
func (ot *outage) follow() {
	ctx := ot.ctx
	for _, w := range ot.ws {
		go func() {
			defer close(w.done)
			err := w.sh.Follow(ctx, func(u poller.Update) {
				w.mu.Lock()
				defer w.mu.Unlock()
				w.run.Merge(u)
				if u.Poll != nil {
					w.polls++
					for _, e := range u.Poll.Events {
						w.ids[e.ID]++
					}
					w.finished = w.finished || u.Poll.Finished
				}
			})
			w.mu.Lock()
			w.err = err
			w.mu.Unlock()
			close(w.followed)
			select {
			case <-ot.closing:
			case <-ctx.Done():
			}
			// As a watch ends: the status it saw, then its sink closed.
			if sk := w.sh.Sink(); sk != nil {
				sk.KeepStatus(context.Background(), w.c, nil, w.run.Store.Run().Outcome != "", w.logf)
				sk.Close(&w.run)
				sk.Store().Close() // the watch opened it
			}
		}()
	}
}

// await waits until cond holds.
func (o *outage) await(what string, cond func() bool) {
	o.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			o.t.Fatalf("no %s within 20s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// visibleAt is the simulated time from which the run's trace shows n
// events.
func (o *outage) visibleAt(n int) time.Duration {
	o.t.Helper()
	evs, _ := o.srv.Script(o.id)
	if n < 1 || n > len(evs) {
		o.t.Fatalf("the run has %d events, not %d", len(evs), n)
	}
	vis := make([]time.Duration, len(evs))
	for i, e := range evs {
		vis[i] = e.Visible
	}
	slices.Sort(vis)
	return vis[n-1]
}

// shownAll waits until every watch has shown n events, and polls.
func (o *outage) shownAll(what string, events, polls int) {
	o.t.Helper()
	o.await(what, func() bool {
		for _, w := range o.ws {
			if e, p, _ := w.shown(); e < events || p < polls {
				return false
			}
		}
		return true
	})
}

// pollsMore waits until every watch has made n more polls.
func (o *outage) pollsMore(n int) {
	o.t.Helper()
	from := make([]int, len(o.ws))
	for i, w := range o.ws {
		_, from[i], _ = w.shown()
	}
	o.await(fmt.Sprintf("%d more polls of each watch", n), func() bool {
		for i, w := range o.ws {
			if _, p, _ := w.shown(); p < from[i]+n {
				return false
			}
		}
		return true
	})
}

// finishedAll waits until every watch has shown run.finished.
func (o *outage) finishedAll() {
	o.t.Helper()
	o.await("run.finished shown by every watch", func() bool {
		for _, w := range o.ws {
			if _, _, f := w.shown(); !f {
				return false
			}
		}
		return true
	})
}

// followed waits until every watch has followed the run to its end.
func (o *outage) followed() {
	o.t.Helper()
	for _, w := range o.ws {
		select {
		case <-w.followed:
		case <-time.After(30 * time.Second):
			o.t.Fatalf("%s did not end", w.name)
		}
	}
}

// done waits until every watch has ended and closed its archive.
func (o *outage) done() {
	o.t.Helper()
	for _, w := range o.ws {
		select {
		case <-w.done:
		case <-time.After(30 * time.Second):
			o.t.Fatalf("%s did not end", w.name)
		}
		if w.err != nil {
			o.t.Fatalf("%s: %v", w.name, w.err)
		}
	}
}

// leaseHeld waits until one watch holds the run's lease, renewed since
// after.
func (o *outage) leaseHeld(st archive.Store, after time.Time) {
	o.t.Helper()
	k := archive.LeaseKey{Service: o.srv.URL, Run: o.id}
	o.await("a watch holding the run's lease", func() bool {
		l, err := st.Lease(context.Background(), k)
		return err == nil && l.Left > 0 && l.Renewed.After(after.Add(-time.Second))
	})
}

// holder is the watch that holds the run's lease now (nil: none).
func (o *outage) holder(st archive.Store) *outageWatch {
	l, err := st.Lease(context.Background(), archive.LeaseKey{Service: o.srv.URL, Run: o.id})
	if err != nil || l.Left <= 0 {
		return nil
	}
	for _, w := range o.ws {
		if w.sh.Holder().ID == l.Holder.ID {
			return w
		}
	}
	return nil
}

// check reads the archive once every watch has ended: it holds every
// event of the run exactly once (and then may say it is complete), or it
// is not marked complete (the next archive pass fetches it). whole: the
// archive was back while the watches went on, so it must hold every event.
func (o *outage) check(st archive.Store, whole bool) {
	o.t.Helper()
	ctx := context.Background()
	// The run as the service has it at its end: every event once.
	c := o.ws[0].c
	body, err := c.Trace(ctx, o.id, false)
	if err != nil {
		o.t.Fatal(err)
	}
	want := map[string]bool{}
	p, err := c.NewDecoder().Decode(body)
	if err != nil {
		o.t.Fatal(err)
	}
	for _, e := range p.Events {
		want[e.ID] = true
	}
	for _, w := range o.ws {
		if e, _, _ := w.shown(); e != len(want) {
			o.t.Errorf("%s showed %d events of the run's %d", w.name, e, len(want))
		}
	}
	r, polls, err := Load(ctx, st, o.srv.URL, o.id)
	if err != nil {
		o.t.Fatalf("the run in the archive: %v", err)
	}
	dec := c.NewDecoder()
	got := map[string]int{}
	dups := 0
	for _, sp := range polls {
		line := sp.Line
		p, _, err := poller.DecodeLine(dec, line)
		if err != nil {
			o.t.Fatalf("poll %d cannot be read: %v", sp.Seq, err)
		}
		if p == nil {
			continue
		}
		for _, e := range p.Events {
			got[e.ID]++
		}
		dups += len(p.Duplicates)
	}
	missing := 0
	for id := range want {
		if got[id] == 0 {
			missing++
		}
	}
	o.t.Logf("the archive holds %d of the run's %d events in %d polls (complete: %v, events: %d)", len(got), len(want), len(polls), r.Complete, r.Events)
	if dups > 0 {
		o.t.Errorf("the archive holds %d events twice with other bytes", dups)
	}
	if len(got) != len(want)-missing {
		o.t.Errorf("the archive holds %d events the run does not have", len(got)-len(want)+missing)
	}
	switch {
	case missing > 0 && r.Complete:
		o.t.Errorf("the run is marked complete in the archive with %d of its %d events missing", missing, len(want))
	case missing > 0 && whole:
		o.t.Errorf("the archive was back while the watches went on, yet %d of the run's %d events are missing", missing, len(want))
	case missing == 0 && whole && !r.Complete:
		o.t.Errorf("the archive holds every event, yet the run is not marked complete")
	}
}

// outageDB is the archive of one outage test: open opens a store of it
// (a watch's, or the test's reader); stop makes it unusable (PostgreSQL
// stopped, SQLite's file locked by another program), start usable again.
type outageDB struct {
	open        func(ctx context.Context) (archive.Store, error)
	stop, start func()
}

// outageCase is one point of a run at which the archive goes away.
type outageCase struct {
	name    string
	watches int
	// noSink: down when the watches start (they cannot open the archive).
	noSink bool
	// stopFirst: down once the stores are open, before the watches start.
	stopFirst bool
	tailMax   time.Duration
	// holdClose: the watches close their archive when the test says.
	holdClose bool
	run       func(o *outage, st archive.Store)
	// whole: the archive is back while the watches go on, so it must
	// hold every event (else not being marked complete is enough).
	whole bool
	// bound is what each watch keeps of the polls it made alone (0: the
	// default); logged, what a watch's debug log says.
	bound  int
	logged []string
}

// outageCases are the points of a run at which the archive goes away.
func outageCases() []outageCase {
	// until runs the run's clock to where the trace shows its nth event,
	// holds it there (the run goes no further however slow the watches
	// are), and waits until every watch shows n events.
	until := func(o *outage, what string, n int) {
		o.srv.ReleaseUntil(o.visibleAt(n))
		o.shownAll(what, n, 1)
	}
	// shared is until, and then the archive holding a poll of the run:
	// a watch shows a poll before its sink has written it.
	shared := func(o *outage, st archive.Store, n int) {
		until(o, "events shared", n)
		o.await("the archive holding a poll", func() bool {
			ps, err := st.PollsSince(context.Background(), o.srv.URL, o.id, -1, 0)
			return err == nil && len(ps) > 0
		})
	}
	back := func(o *outage, st archive.Store) {
		up := time.Now()
		o.start()
		o.leaseHeld(st, up)
	}
	return []outageCase{
		{name: "down at the start", watches: 3, noSink: true, whole: true, run: func(o *outage, st archive.Store) {
			o.shownAll("a first poll of each", 0, 1)
			until(o, "events polled alone", 40)
			back(o, st)
			o.srv.Release()
		}},
		{name: "down before the first poll is stored", watches: 1, stopFirst: true, whole: true, run: func(o *outage, st archive.Store) {
			o.shownAll("a first poll", 0, 1)
			until(o, "events polled alone", 40)
			back(o, st)
			o.srv.Release()
		}},
		{name: "down before the first poll is stored, past the bound", watches: 1, stopFirst: true, whole: true, bound: 2000,
			logged: []string{"kept in memory: they are left out", "stored the whole trace"}, run: func(o *outage, st archive.Store) {
				o.shownAll("a first poll", 0, 1)
				until(o, "events polled alone", 40)
				back(o, st)
				o.srv.Release()
			}},
		{name: "mid-run", watches: 3, whole: true, run: func(o *outage, st archive.Store) {
			shared(o, st, 20)
			o.stop()
			until(o, "events polled alone", 60)
			o.pollsMore(10) // a few times the time to rejoin
			back(o, st)
			o.srv.Release()
		}},
		{name: "mid-run, then its holder pauses", watches: 3, whole: true, logged: []string{"polls this process made alone"}, run: func(o *outage, st archive.Store) {
			shared(o, st, 20)
			o.stop()
			until(o, "events polled alone", 60)
			back(o, st)
			// Another takes the run over, the polls it made alone still
			// kept: they are written under its lease, the events the
			// holder stored already among them.
			h := o.holder(st)
			h.sh.SetPaused(true)
			o.await("another watch taking the lease", func() bool { w := o.holder(st); return w != nil && w != h })
			h.sh.SetPaused(false)
			o.srv.Release()
		}},
		{name: "the whole run", watches: 1, noSink: true, whole: true, tailMax: 3 * time.Second, run: func(o *outage, st archive.Store) {
			o.shownAll("a first poll", 0, 1)
			o.srv.Release()
			o.finishedAll()
			back(o, st)
		}},
		{name: "the whole run, back as the watch ends", watches: 1, stopFirst: true, holdClose: true, run: func(o *outage, st archive.Store) {
			o.shownAll("a first poll", 0, 1)
			o.srv.Release()
			o.followed()
			o.start()
			close(o.closing)
		}},
		{name: "just before the end", watches: 3, whole: true, tailMax: 3 * time.Second, run: func(o *outage, st archive.Store) {
			shared(o, st, 20)
			o.stop()
			o.srv.Release()
			o.finishedAll()
			back(o, st)
		}},
		{name: "across the end", watches: 3, run: func(o *outage, st archive.Store) {
			shared(o, st, 20)
			o.stop()
			o.srv.Release()
			o.done()
			o.start()
		}},
		{name: "across the end, alone", watches: 1, run: func(o *outage, st archive.Store) {
			shared(o, st, 20)
			o.stop()
			o.srv.Release()
			o.done()
			o.start()
		}},
	}
}

// runOutage runs tc on the archive db: afterwards the archive holds
// every event of the run exactly once, or the run is not marked complete.
func runOutage(t *testing.T, tc outageCase, db outageDB) {
	st, err := db.open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	down := false
	stop := func() { db.stop(); down = true }
	start := func() {
		if down {
			db.start()
			down = false
		}
	}
	t.Cleanup(start)
	if tc.noSink {
		stop()
	}
	o := newOutage(t, outageOptions{watches: tc.watches, noSink: tc.noSink, tailMax: tc.tailMax, holdClose: tc.holdClose, bound: tc.bound, open: db.open}, stop, start)
	if tc.stopFirst {
		stop()
	}
	o.follow()
	tc.run(o, st)
	o.done()
	// Read as the next process reads it: a store opened now (the test's
	// own may hold a connection the server's stop ended, which its first
	// query would meet).
	after, err := db.open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer after.Close()
	o.check(after, tc.whole)
	for _, want := range tc.logged {
		said := false
		for _, w := range o.ws {
			w.mu.Lock()
			said = said || strings.Contains(w.log.String(), want)
			w.mu.Unlock()
		}
		if !said {
			t.Errorf("no watch's debug log says %q", want)
		}
	}
	// Each outage is said once, and its end once.
	for _, w := range o.ws {
		gone, back := 0, 0
		for _, m := range w.said {
			gone += strings.Count(m, "cannot be reached")
			back += strings.Count(m, "the shared archive is back")
		}
		if gone > 1 || back > 1 {
			t.Errorf("%s said the archive was away %d times and back %d times for one outage: %q", w.name, gone, back, w.said)
		}
	}
}

// TestSharedOutages: PostgreSQL (a server of the test's own) stopped at
// several points of a run that one or three watches follow, the run's
// clock held while it stops and starts: afterwards the archive holds
// every event of the run exactly once, or (the run over before the
// archive was back) the run is not marked complete, and the next archive
// pass fetches it.
func TestSharedOutages(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	t.Parallel()
	// Three servers of the test's own, each lent to one case at a time:
	// three cases run at once (most of a case is waiting for its server
	// to stop and start, and for the run's polls, hardly on the CPU).
	pgs := make(chan *pgtest.Server, 3)
	for range cap(pgs) {
		pg := pgtest.New(t)
		pg.Start(t)
		pgs <- pg
	}
	for _, tc := range outageCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pg := <-pgs
			t.Cleanup(func() { pgs <- pg }) // started again: runOutage's cleanup runs first
			dsn := pgtest.Schema(t, pg.DSN())
			runOutage(t, tc, outageDB{
				open:  func(ctx context.Context) (archive.Store, error) { return archive.Open(ctx, dsn) },
				stop:  func() { pg.Stop(t) },
				start: func() { pg.Start(t) },
			})
		})
	}
}

// TestSharedSQLiteLocked: the same points of a run on an SQLite archive
// whose file another program holds the write lock of meanwhile (a file
// that cannot be opened at all is no shared archive: the watch polls as
// one without an archive does, so the cases that start without one are
// left out).
func TestSharedSQLiteLocked(t *testing.T) {
	t.Parallel()
	for _, tc := range outageCases() {
		if tc.noSink {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runOutage(t, tc, sqliteOutageDB(t, 2*time.Second))
		})
	}
}

// sqliteOutageDB is an SQLite archive of the test's, opened with lockWait
// (archive.Options.LockWait), that stop locks as another program would
// (a write transaction begun) and start unlocks.
func sqliteOutageDB(t *testing.T, lockWait time.Duration) outageDB {
	path := filepath.Join(t.TempDir(), "archive.db")
	var lock *sql.Tx
	return outageDB{
		open: func(ctx context.Context) (archive.Store, error) {
			return archive.OpenWith(ctx, path, archive.Options{LockWait: lockWait})
		},
		stop: func() {
			db, err := sql.Open("sqlite3", "file:"+path+"?_txlock=immediate")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			if lock, err = db.Begin(); err != nil {
				t.Fatal(err)
			}
		},
		start: func() { lock.Rollback() },
	}
}

// TestSharedSQLiteLockWait: an SQLite file another program locks, opened
// as a watch opens it (it waits for the lock up to the default LockWait,
// 30s): every watch goes on polling the run at its interval meanwhile,
// the follower whose Take waits for the lock too, and the archive holds
// every event once the lock is let go.
func TestSharedSQLiteLockWait(t *testing.T) {
	t.Parallel()
	tc := outageCase{name: "locked", watches: 2, whole: true, run: func(o *outage, st archive.Store) {
		o.srv.ReleaseUntil(o.visibleAt(20))
		o.shownAll("events shared", 20, 1)
		o.stop()
		o.srv.ReleaseUntil(o.visibleAt(60))
		o.shownAll("events polled alone", 60, 1)
		o.pollsMore(5)
		up := time.Now()
		o.start()
		o.leaseHeld(st, up)
		o.srv.Release()
	}}
	runOutage(t, tc, sqliteOutageDB(t, 0))
}
