package cli

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/cli/internal/hubsvc"
	"github.com/firewatch/firewatch/hub"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

// testHub is a hub's followers and list on the archive of
// $FIREWATCH_ARCHIVE, as newHub makes them, a session's app in it, and
// its stop (once; at the test's end if not before).
func testHub(t *testing.T, svc service) (h *hubsvc.Hub, session func() *app, stop func()) {
	t.Helper()
	secrets := text.NewSecrets()
	ha := &app{stderr: &scrubWriter{w: &strings.Builder{}, secrets: secrets}, secrets: secrets}
	var err error
	h, err = hubsvc.New(context.Background(), ha.hubEnv(), hubsvc.Service{BaseURL: svc.baseURL, Key: svc.key}, defaultInterval)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Opened() {
		t.Fatal("the hub opened no archive for its list and completions")
	}
	var once sync.Once
	stop = func() { once.Do(h.Stop) }
	t.Cleanup(stop)
	session = func() *app {
		return &app{stderr: &scrubWriter{w: &strings.Builder{}, secrets: secrets}, secrets: secrets, hub: h.Session()}
	}
	return h, session, stop
}

// The hub completes each run its sessions' runs screens list, and the
// archive holds in part, once for all of them: one trace request per run
// however many sessions list it at once.
func TestHubSessionsCompleteEachRunOnce(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, History: 5})
	waitSimFinished(t, srv)
	db := filepath.Join(t.TempDir(), "a.db")
	t.Setenv("FIREWATCH_ARCHIVE", db)
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	svc := service{baseURL: srv.URL, key: srv.Key}
	h, session, stopHub := testHub(t, svc)
	page, err := h.ListClient().Runs(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	// Each finished run held in part (a watch left early): the screens
	// complete it.
	var ids []string
	at := time.Now()
	for _, r := range page.Runs {
		if !(&poller.Status{Status: r.Status}).Terminal() {
			continue
		}
		ids = append(ids, r.ID)
		if err := st.AppendPolls(context.Background(), srv.URL, r.ID, at, []archive.Poll{{ReceivedAt: at, Line: []byte(`{"receivedAt":"2026-11-25T20:50:31Z","trace":{"events":[]}}`)}}); err != nil {
			t.Fatal(err)
		}
	}
	if len(ids) < 4 {
		t.Fatalf("%d finished runs listed, want several", len(ids))
	}
	before := srv.Stats().ByRoute["GET trace"]
	const sessions = 4
	var closers []func()
	var wg sync.WaitGroup
	for range sessions {
		a := session()
		quiet := h.ListClient()
		list, _, closeArchive := a.runsWithArchive(context.Background(), quiet, svc)
		closers = append(closers, closeArchive)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := list.Runs(context.Background(), time.Time{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(20 * time.Second)
	for {
		held, err := st.Held(context.Background(), srv.URL, ids)
		if err != nil {
			t.Fatal(err)
		}
		done := 0
		for _, id := range ids {
			if held[id].Complete {
				done++
			}
		}
		if done == len(ids) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d runs completed", done, len(ids))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The sessions end (their screens close) and leave the hub's one
	// completer to the hub, which stops it.
	for _, c := range closers {
		c()
	}
	stopHub()
	if n := srv.Stats().ByRoute["GET trace"] - before; n != len(ids) {
		t.Fatalf("%d sessions' runs screens fetched %d traces for %d runs, want one each", sessions, n, len(ids))
	}
	st.Close()
}

// Two hubs on one archive ask the service for the team's list as one:
// the one that holds the list's lease asks, the other's sessions list the
// same runs from the archive, as the service's.
func TestTwoHubsOneList(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, History: 25})
	t.Setenv("FIREWATCH_ARCHIVE", filepath.Join(t.TempDir(), "a.db"))
	svc := service{baseURL: srv.URL, key: srv.Key}
	h1, _, _ := testHub(t, svc)
	h2, _, _ := testHub(t, svc)
	before := srv.Stats().ByRoute["GET list"]
	var pages [2]*poller.RunList
	for i, h := range []*hubsvc.Hub{h1, h2} {
		l, err := h.Latest(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		pages[i] = l
	}
	if n := srv.Stats().ByRoute["GET list"] - before; n != 1 {
		t.Fatalf("two hubs asked for the team's list %d times, want once", n)
	}
	if len(pages[0].Runs) != poller.ListPageSize || len(pages[1].Runs) != len(pages[0].Runs) {
		t.Fatalf("the holder's page has %d runs, the follower's %d; want %d each", len(pages[0].Runs), len(pages[1].Runs), poller.ListPageSize)
	}
	// Older pages follow, from the service, for the follower too.
	if pages[1].Next == "" || !pages[1].NextBefore.Equal(pages[1].Runs[poller.ListPageSize-1].CreatedAt) {
		t.Fatalf("the follower's page ends the list: next %q before %v", pages[1].Next, pages[1].NextBefore)
	}
	for i, r := range pages[1].Runs {
		if r.Archived || r.ID != pages[0].Runs[i].ID || r.Status != pages[0].Runs[i].Status {
			t.Fatalf("the follower's row %d: %+v, the holder's %+v", i, r, pages[0].Runs[i])
		}
	}
}

// countOpens counts the stores the commands open from now on (not
// parallel: a package variable).
func countOpens(t *testing.T) *atomic.Int32 {
	var n atomic.Int32
	old := openStore
	openStore = func(ctx context.Context, dsn string, o archive.Options) (archive.Store, error) {
		n.Add(1)
		return old(ctx, dsn, o)
	}
	t.Cleanup(func() { openStore = old })
	return &n
}

// A hub opens its archive once: its followers' sinks, its sessions' runs
// screens and who acted through it all use the hub's one store, which
// stays open while a follower ends and closes with the hub.
func TestHubOpensOneStore(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research", "research", "research"}})
	t.Setenv("FIREWATCH_ARCHIVE", filepath.Join(t.TempDir(), "a.db"))
	opens := countOpens(t)
	svc := service{baseURL: srv.URL, key: srv.Key}
	h, session, stopHub := testHub(t, svc)
	h.PollEvery(20 * time.Millisecond)
	if n := opens.Load(); n != 1 {
		t.Fatalf("the hub opened %d stores to start, want 1", n)
	}
	var releases []func()
	for _, j := range srv.Jobs {
		r, release := h.Open(j.ID)
		releases = append(releases, release)
		if r.Controls.(*archiving.Shared).Sink() == nil {
			t.Fatalf("the follower of run %s has no sink", j.ID)
		}
	}
	for range 2 {
		list, _, closeArchive := session().runsWithArchive(context.Background(), h.ListClient(), svc)
		if _, ok := list.(*archiving.Listing); !ok {
			t.Fatalf("a session's runs screen shows no archived runs: %T", list)
		}
		defer closeArchive()
	}
	h.Acted(hub.Action{Who: hub.Person{Name: "alice"}, What: "start", Kind: "run", ID: srv.Jobs[0].ID})
	waitUntil(t, "who started the run archived", func() bool {
		r, err := h.Store().Get(context.Background(), srv.URL, srv.Jobs[0].ID)
		return err == nil && r.StartedBy != ""
	})
	if n := opens.Load(); n != 1 {
		t.Fatalf("following %d runs with 2 runs screens opened %d stores, want the hub's one", len(srv.Jobs), n)
	}
	// A follower whose run ends closes its sink, and leaves the hub's
	// store open for the others.
	first := h.Followed(srv.Jobs[0].ID)
	<-first.F.Done()
	waitUntil(t, "the first run's end archived", func() bool {
		r, err := h.Store().Get(context.Background(), srv.URL, srv.Jobs[0].ID)
		return err == nil && r.Outcome != ""
	})
	if _, err := h.Store().Get(context.Background(), srv.URL, srv.Jobs[1].ID); err != nil && !errors.Is(err, archive.ErrNotFound) {
		t.Fatalf("the hub's store after a follower ended: %v", err)
	}
	for _, release := range releases {
		release()
	}
	stopHub()
	if n := opens.Load(); n != 1 {
		t.Fatalf("%d stores opened, want 1", n)
	}
}
