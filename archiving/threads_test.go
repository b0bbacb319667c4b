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

// The archive learns each run's thread where the team's list does not say
// it: a start through a Listing keeps the answer's thread and turn (a
// follow-up's turn 2 too), and a status read through it keeps a listed
// run's; another list on the same archive (a hub's other session) then
// names every turn's thread from its first page, before asking any
// run's status.
func TestListingKeepsThreads(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := sim.Start(ctx, sim.Options{Speed: 1000, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := srv.WaitFinished(ctx, srv.Jobs[0].ID); err != nil {
		t.Fatal(err)
	}
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	st := tempArchive(t)
	team := archive.TeamOf(srv.Key)
	listing := func(label string) *Listing {
		return NewListing(NewTeamList(c, st, text.NewSecrets(), srv.URL, team, archive.NewHolder(label), time.Hour, nil), st, archive.Query{Service: srv.URL})
	}
	a := listing("runs a")
	if _, err := a.Runs(ctx, time.Time{}); err != nil { // the list's items are held
		t.Fatal(err)
	}
	first, err := a.StartAgent(ctx, poller.AgentRequest{Prompt: "Compare the pricing"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitFinished(ctx, first); err != nil {
		t.Fatal(err)
	}
	s1, err := c.Status(ctx, first)
	if err != nil || s1.ThreadID == "" {
		t.Fatalf("the service names no thread: %+v %v", s1, err)
	}
	second, err := a.StartAgent(ctx, poller.AgentRequest{Prompt: "Only the free tiers", ThreadID: s1.ThreadID})
	if err != nil {
		t.Fatal(err)
	}
	// The run the simulator started on its own: its status, read once.
	listed := srv.Jobs[0].ID
	if _, err := a.Status(ctx, listed); err != nil {
		t.Fatal(err)
	}
	s0, err := c.Status(ctx, listed)
	if err != nil || s0.ThreadID == "" {
		t.Fatalf("the service names no thread: %+v %v", s0, err)
	}

	// The record's credits ride with the thread (the list gives none).
	cr := 123.0
	if err := st.PutRun(ctx, &archive.Run{Service: srv.URL, ID: first, CreditsUsed: &cr}); err != nil {
		t.Fatal(err)
	}
	page, err := NewListing(c, st, archive.Query{Service: srv.URL}).Runs(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]any{first: {s1.ThreadID, 1}, second: {s1.ThreadID, 2}, listed: {s0.ThreadID, 1}}
	for _, r := range page.Runs {
		w, ok := want[r.ID]
		if !ok {
			continue
		}
		delete(want, r.ID)
		if r.Known == nil || r.Known.ThreadID != w[0] || r.Known.ThreadTurn != w[1] {
			t.Errorf("run %s: known %+v, want thread %v turn %v", r.ID, r.Known, w[0], w[1])
		}
		if r.ID == first && (r.Known == nil || r.Known.CreditsUsed == nil || *r.Known.CreditsUsed != cr) {
			t.Errorf("run %s: the record's credits not known: %+v", r.ID, r.Known)
		}
	}
	if len(want) != 0 {
		t.Errorf("not listed: %v", want)
	}
}
