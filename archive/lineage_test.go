package archive

import (
	"context"
	"slices"
	"testing"
)

// TestLineage: what a run was rerun from (and what changed) and its thread
// and turn are stored, read back, and kept when a later source (a poll's
// status) says nothing of them; a later turn number replaces none.
func TestLineage(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, _ string, s Store) {
		ctx := context.Background()
		const svc = "https://api.example"
		if err := s.PutRun(ctx, &Run{Service: svc, ID: "r2", Prompt: "p", RerunOf: "r1", RerunChanged: []string{"effort"},
			ThreadID: "t2", ThreadTurn: 1, Request: []byte(`{"prompt":"p","effort":"low"}`)}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutRun(ctx, &Run{Service: svc, ID: "r2", Status: "completed", RerunOf: "other", RerunChanged: []string{"prompt"}}); err != nil {
			t.Fatal(err)
		}
		r, err := s.Get(ctx, svc, "r2")
		if err != nil {
			t.Fatal(err)
		}
		if r.RerunOf != "r1" || !slices.Equal(r.RerunChanged, []string{"effort"}) || r.ThreadID != "t2" || r.ThreadTurn != 1 || r.Status != "completed" ||
			string(r.Request) != `{"prompt":"p","effort":"low"}` {
			t.Fatalf("%+v", r)
		}
		runs, err := s.List(ctx, Query{Service: svc})
		if err != nil || len(runs) != 1 || runs[0].RerunOf != "r1" || runs[0].ThreadTurn != 1 {
			t.Fatalf("list: %v %+v", err, runs)
		}
		// The runs screen groups a thread's turns from Held.
		if held, err := s.Held(ctx, svc, []string{"r2"}); err != nil || held["r2"].ThreadID != "t2" || held["r2"].ThreadTurn != 1 {
			t.Fatalf("held: %+v %v", held, err)
		}
	})
}
