package archiving

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/internal/pgtest"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

// fakeList is the live service's list of two runs, counting the requests
// for its newest page; a run's status can change.
type fakeList struct {
	mu     sync.Mutex
	status map[string]string
	newest atomic.Int64
}

const (
	listRunA = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
	listRunB = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5c"
)

func (f *fakeList) set(id, status string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status[id] = status
}

func (f *fakeList) Runs(_ context.Context, before time.Time) (*poller.RunList, error) {
	if !before.IsZero() {
		return &poller.RunList{}, nil
	}
	f.newest.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	l := &poller.RunList{}
	for i, id := range []string{listRunB, listRunA} {
		raw := fmt.Sprintf(`{"id":%q,"status":%q,"createdAt":"2026-11-28T06:0%d:00Z","prompt":"find %d"}`, id, f.status[id], 2-i, i)
		ri, _ := poller.ParseRunItem([]byte(raw))
		l.Runs = append(l.Runs, ri)
	}
	return l, nil
}

func (f *fakeList) Status(context.Context, string) (*poller.Status, error) {
	return nil, errors.New("not here")
}
func (f *fakeList) TokenUsage(context.Context) (*poller.TokenUsage, error) {
	return nil, errors.New("not here")
}
func (f *fakeList) ActiveCrawls(context.Context) ([]poller.Crawl, error) { return nil, nil }
func (f *fakeList) Cancel(context.Context, string) error                 { return errors.New("not here") }
func (f *fakeList) StartAgent(context.Context, poller.AgentRequest) (string, error) {
	return "", errors.New("not here")
}

// countingStore counts the runs written.
type countingStore struct {
	archive.Store
	puts atomic.Int64
}

func (c *countingStore) PutRun(ctx context.Context, r *archive.Run) error {
	c.puts.Add(1)
	return c.Store.PutRun(ctx, r)
}

// twoArchives opens one archive twice, as two processes do: a SQLite
// file, or a PostgreSQL schema.
func twoArchives(t *testing.T, f func(t *testing.T, a, b archive.Store)) {
	open := func(t *testing.T, dsn string) archive.Store {
		st, err := archive.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	t.Run("sqlite", func(t *testing.T) {
		dsn := filepath.Join(t.TempDir(), "archive.db")
		f(t, open(t, dsn), open(t, dsn))
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := os.Getenv("FIREWATCH_TEST_POSTGRES")
		if dsn == "" {
			if os.Getenv("CI") == "true" {
				t.Fatal("FIREWATCH_TEST_POSTGRES is not set and CI=true: the list's lease must be tested on PostgreSQL")
			}
			t.Skip("PostgreSQL not tested: set FIREWATCH_TEST_POSTGRES=postgres://...")
		}
		dsn = pgtest.Schema(t, dsn)
		f(t, open(t, dsn), open(t, dsn))
	})
}

// Two runs screens on one archive ask the service for the team's list as
// one: the holder of the list's lease asks and stores what it lists (only
// what is new or changed), the other shows the same runs from the archive,
// as live runs; once the holder stops (killed: its lease expires; or it
// quits: released), the other takes the list over.
func TestTeamListOneStreamForTwoScreens(t *testing.T) {
	twoArchives(t, func(t *testing.T, stA, stB archive.Store) {
		ctx := context.Background()
		live := &fakeList{status: map[string]string{listRunA: "completed", listRunB: "processing"}}
		const service = "http://svc"
		team := archive.TeamOf("fc-test-key")
		// A short interval: the lease expires three of them after the
		// holder's last page.
		const interval = 100 * time.Millisecond
		ca := &countingStore{Store: stA}
		listing := func(st archive.Store, label string) (*Listing, *TeamList) {
			tl := NewTeamList(live, st, text.NewSecrets(), service, team, archive.NewHolder(label), interval, nil)
			return NewListing(tl, st, archive.Query{Service: service}), tl
		}
		a, ta := listing(ca, "runs a")
		b, tb := listing(stB, "runs b")
		first := func(l *Listing) map[string]poller.RunInfo {
			t.Helper()
			page, err := l.Runs(ctx, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]poller.RunInfo{}
			for _, r := range page.Runs {
				out[r.ID] = r
			}
			return out
		}
		for round := int64(1); round <= 3; round++ {
			first(a)
			got := first(b)
			if n := live.newest.Load(); n != round {
				t.Fatalf("round %d: the service was asked for the newest page %d times, want %d (one screen's)", round, n, round)
			}
			r, ok := got[listRunB]
			if !ok || r.Archived || b.ArchivedOnly(listRunB) || r.Status != "processing" || r.Prompt != "find 0" {
				t.Fatalf("round %d: the follower's page %+v: want run %s listed live, processing, as the service listed it", round, got, listRunB)
			}
		}
		if n := ca.puts.Load(); n != 2 {
			t.Fatalf("the holder stored %d list items over three unchanged pages, want 2 (each run once)", n)
		}
		live.set(listRunB, "completed")
		first(a)
		if n := ca.puts.Load(); n != 3 {
			t.Fatalf("the holder stored %d list items after one run changed, want 3", n)
		}
		if r := first(b)[listRunB]; r.Status != "completed" {
			t.Fatalf("the follower shows the changed run as %q, want completed", r.Status)
		}
		// The holder is killed: nothing renews its lease, which expires.
		key := archive.LeaseKey{Service: service, Team: team}
		deadline := time.Now().Add(10 * time.Second)
		for {
			l, err := stB.Lease(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if l.Left <= 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the list's lease never expired: %+v", l)
			}
			time.Sleep(l.Left)
		}
		before := live.newest.Load()
		first(b)
		first(a) // back: it follows now
		if n := live.newest.Load() - before; n != 1 {
			t.Fatalf("after the holder stopped, the service was asked %d times for two screens, want 1", n)
		}
		if l, err := stA.Lease(ctx, key); err != nil || l.Holder.Label != "runs b" {
			t.Fatalf("the list's lease after the takeover: %+v, %v; want runs b's", l, err)
		}
		// The holder quits: its lease is released, and the other takes it
		// at its next page, without waiting for it to expire.
		tb.Release(ctx)
		first(a)
		first(b)
		if l, err := stA.Lease(ctx, key); err != nil || l.Holder.Label != "runs a" || l.Left <= 0 {
			t.Fatalf("the list's lease after the holder quit: %+v, %v; want runs a's", l, err)
		}
		ta.Release(ctx)
	})
}

type quietReport struct{}

func (quietReport) Progress(PassCounts, bool)      {}
func (quietReport) Skip(string, string, error)     {}
func (quietReport) FirstGen(string)                {}
func (quietReport) EndpointOff(string, int, error) {}

// A pass of archive --every walks the whole list even while a runs screen
// or a hub holds the list's lease for its newest page; it leaves the list
// to another pass that holds it.
func TestPassBesideAScreensList(t *testing.T) {
	ctx := context.Background()
	srv, err := sim.Start(ctx, sim.Options{Scenarios: []string{"research"}, History: 2, Speed: 400, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	st := tempArchive(t)
	team := archive.TeamOf(srv.Key)
	key := archive.LeaseKey{Service: srv.URL, Team: team}
	pass := func() *Pass {
		p := &Pass{C: c, St: st, Secrets: text.NewSecrets(), Service: srv.URL, Team: team, Report: quietReport{},
			Holder: archive.NewHolder("archive --every"), ShareList: true}
		if err := p.Run(ctx); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, by := range []string{"runs", "archive --every"} {
		l, err := st.Take(ctx, key, archive.NewHolder(by), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		p := pass()
		if wantLeft := by != "runs"; (p.ListedBy != "") != wantLeft || (p.Seen == 0) != wantLeft {
			t.Errorf("list held by %s: the pass saw %d runs, left to %q", by, p.Seen, p.ListedBy)
		}
		if err := st.Release(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
}

// A run another firewatch polls is left to it by a pass, which keeps its
// list item all the same: the screens that show the team's list from the
// archive while the pass holds it list the run.
func TestPassKeepsTheItemOfARunPolledElsewhere(t *testing.T) {
	ctx := context.Background()
	st := tempArchive(t)
	const service = "http://svc"
	team := archive.TeamOf("fc-test-key")
	if _, err := st.Take(ctx, archive.LeaseKey{Service: service, Run: listRunA}, archive.NewHolder("watch"), time.Minute); err != nil {
		t.Fatal(err)
	}
	ri, _ := poller.ParseRunItem([]byte(`{"id":"` + listRunA + `","status":"processing","createdAt":"2026-11-28T06:00:00Z"}`))
	cp := &Completer{St: st, Secrets: text.NewSecrets(), Service: service, Team: team}
	done, err := cp.Complete(ctx, &ri, nil)
	if err != nil || done.PolledBy == "" {
		t.Fatalf("completion of a run a watch polls: %+v, %v", done, err)
	}
	items, err := st.Listed(ctx, service, team, poller.ListPageSize)
	if err != nil || len(items) != 1 {
		t.Fatalf("the team's list in the archive: %q, %v; want the run's item", items, err)
	}
}
