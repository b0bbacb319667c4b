package archiving

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
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
		dsn := os.Getenv("FIREWATCH_TEST_POSTGRES")
		if dsn == "" {
			if os.Getenv("CI") == "true" {
				t.Fatal("FIREWATCH_TEST_POSTGRES is not set and CI=true: the leases must be tested on PostgreSQL")
			}
			t.Skip("PostgreSQL not tested: set FIREWATCH_TEST_POSTGRES=postgres://...")
		}
		dsn = pgtest.Schema(t, dsn)
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
