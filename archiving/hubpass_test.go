package archiving

import (
	"context"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

// hubPassSetup is a simulator with a held live run and n finished runs,
// its client and an archive.
func hubPassSetup(t *testing.T, n int) (*sim.Server, *poller.Client, archive.Store) {
	t.Helper()
	ctx := context.Background()
	srv, err := sim.Start(ctx, sim.Options{Scenarios: []string{"research"}, History: n, Speed: 400, RateLimit: -1, Held: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	st := tempArchive(t)
	return srv, c, st
}

// A run completed by another firewatch between a completer's look at the
// archive and its take of the run's lease is not fetched again: of two
// hubs on one archive, one fetches a run.
func TestCompletedMeanwhileIsNotFetchedAgain(t *testing.T) {
	ctx := context.Background()
	srv, c, st := hubPassSetup(t, 1)
	team := archive.TeamOf(srv.Key)
	l, err := c.Runs(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var ri *poller.RunInfo
	for i := range l.Runs {
		if (&poller.Status{Status: l.Runs[i].Status}).Terminal() {
			ri = &l.Runs[i]
		}
	}
	if ri == nil {
		t.Fatalf("no finished run listed: %+v", l.Runs)
	}
	complete := func(who string) Completion {
		cp := &Completer{C: c, St: st, Secrets: text.NewSecrets(), Service: srv.URL, Team: team, Holder: archive.NewHolder(who)}
		done, err := cp.Complete(ctx, ri, nil) // both looked before either wrote
		if err != nil {
			t.Fatal(err)
		}
		return done
	}
	if first := complete("hub"); !first.Fetched {
		t.Fatalf("the first completion: %+v", first)
	}
	if second := complete("hub"); second.Fetched || second.Requests != 0 {
		t.Fatalf("the second completion of a run already whole: %+v; want no request", second)
	}
}

// A hub's passes: the first walks the whole list (three pages), leaving
// the live run to its watchers; a later one (Newest) reads the pages up to
// the first whose runs the archive holds whole (the second: the first
// has the live run), and completes the live run once it is over.
func TestHubPasses(t *testing.T) {
	ctx := context.Background()
	srv, c, st := hubPassSetup(t, 45)
	team := archive.TeamOf(srv.Key)
	live := srv.Jobs[0].ID
	pass := func(newest bool) *Pass {
		p := &Pass{C: c, St: st, Secrets: text.NewSecrets(), Service: srv.URL, Team: team, Report: quietReport{},
			Holder: archive.NewHolder("hub"), OverOnly: true, Newest: newest}
		if err := p.Run(ctx); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := pass(false)
	if first.Seen != 46 || first.Fetched != 45 {
		t.Fatalf("the first pass saw %d runs and fetched %d; want 46 and 45", first.Seen, first.Fetched)
	}
	if held, _ := st.Held(ctx, srv.URL, []string{live}); held[live].Complete || held[live].Polls > 0 {
		t.Fatalf("the live run was fetched while it ran: %+v", held[live])
	}
	if again := pass(true); again.Requests != 2 || again.Fetched != 0 {
		t.Fatalf("a later pass made %d requests and fetched %d runs; want two pages read, nothing fetched", again.Requests, again.Fetched)
	}
	srv.Release()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		st, err := c.Status(ctx, live)
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("the live run did not end: %v", err)
		}
		if st.Terminal() {
			break
		}
	}
	if over := pass(true); over.Fetched != 1 {
		t.Fatalf("the pass after the live run ended fetched %d runs; want it", over.Fetched)
	}
	if held, _ := st.Held(ctx, srv.URL, []string{live}); !held[live].Complete {
		t.Fatalf("the live run once over: %+v; want it whole", held[live])
	}
}
