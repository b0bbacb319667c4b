package archive

import (
	"context"
	"testing"
	"time"
)

// TestClaimMoment: of two processes on one archive, the first to claim a
// moment for a sink gets it; the other is told who holds it and for how
// long, and gets it once that claim expires unsent (its claimer died);
// once sent, nobody gets it again, a restarted process (a new holder)
// included. Another sink (another person's webhook) or another team's is
// its own moment; a released claim is free at once.
func TestClaimMoment(t *testing.T) {
	eachStoreAtOnce(t, func(t *testing.T, dsn string, s Store) {
		ctx := context.Background()
		other, err := Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		a, b := NewHolder("hub"), NewHolder("watch")
		k := MomentKey{Service: "http://svc.test", Team: "team-a", Run: "run-1", Moment: "run:run-1:attention:stall", Sink: "url:abc"}
		claim := func(st Store, k MomentKey, h Holder, ttl time.Duration) Claim {
			t.Helper()
			c, err := st.(Claimer).ClaimMoment(ctx, k, h, ttl)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		if c := claim(s, k, a, time.Minute); !c.Got || c.Sent {
			t.Fatalf("first claim: %+v", c)
		}
		if c := claim(other, k, b, time.Minute); c.Got || c.Sent || c.Left < 50*time.Second || c.By != "hub" {
			t.Fatalf("held by the other: %+v", c)
		}
		if c := claim(s, k, a, 300*time.Millisecond); !c.Got {
			t.Fatalf("renewed by its claimer: %+v", c)
		}
		k2 := k
		k2.Sink = "url:def"
		if c := claim(other, k2, b, time.Minute); !c.Got {
			t.Fatalf("another sink: %+v", c)
		}
		k3 := k
		k3.Team = "team-b"
		if c := claim(other, k3, b, time.Minute); !c.Got {
			t.Fatalf("another team: %+v", c)
		}
		// The claimer dies: the claim expires, the other gets it.
		deadline := time.Now().Add(5 * time.Second)
		for {
			c := claim(other, k, b, time.Minute)
			if c.Got {
				break
			}
			if c.Sent || time.Now().After(deadline) {
				t.Fatalf("an expired claim not taken over: %+v", c)
			}
			time.Sleep(max(c.Left, 10*time.Millisecond))
		}
		if err := other.(Claimer).MomentSent(ctx, k, b, false); err != nil {
			t.Fatal(err)
		}
		for _, h := range []Holder{a, b, NewHolder("hub")} {
			if c := claim(s, k, h, time.Minute); c.Got || !c.Sent {
				t.Fatalf("sent, claimed again by %s: %+v", h.Label, c)
			}
		}
		// A failed one is given up, not claimed again.
		if err := other.(Claimer).MomentSent(ctx, k2, b, true); err != nil {
			t.Fatal(err)
		}
		if c := claim(s, k2, a, time.Minute); c.Got || !c.Sent {
			t.Fatalf("given up as failed, claimed again: %+v", c)
		}
		// Released unsent: free at once.
		if err := other.(Claimer).ReleaseMoment(ctx, k3, b); err != nil {
			t.Fatal(err)
		}
		if c := claim(s, k3, a, time.Minute); !c.Got {
			t.Fatalf("released, not taken: %+v", c)
		}
	})
}

// The team's moments (a billing period's) outlive a run's: a run's moment
// sent 40 days ago is forgotten at the next sending, the team's of the
// same age is not (a yearly plan's period would tell it again).
func TestTeamMomentsKept(t *testing.T) {
	eachStore(t, func(t *testing.T, _ string, s Store) {
		ctx := context.Background()
		c := s.(Claimer)
		h := NewHolder("watch")
		run := MomentKey{Service: "http://svc.test", Team: "t", Run: "run-1", Moment: "run:run-1:finished", Sink: "url:a"}
		team := MomentKey{Service: "http://svc.test", Team: "t", Run: TeamMoments, Moment: "team:2026-01-01T00:00:00Z/2027-01-01T00:00:00Z:usage:80%", Sink: "url:a"}
		for _, k := range []MomentKey{run, team} {
			if _, err := c.ClaimMoment(ctx, k, h, time.Minute); err != nil {
				t.Fatal(err)
			}
			if err := c.MomentSent(ctx, k, h, false); err != nil {
				t.Fatal(err)
			}
		}
		ss := s.(*sqlStore)
		old := time.Now().Add(-40 * 24 * time.Hour).UnixMilli()
		if _, err := ss.db.ExecContext(ctx, ss.q(`UPDATE fw_moments SET sent_at = ?`), old); err != nil {
			t.Fatal(err)
		}
		other := run
		other.Run, other.Moment = "run-2", "run:run-2:finished"
		if _, err := c.ClaimMoment(ctx, other, h, time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := c.MomentSent(ctx, other, h, false); err != nil {
			t.Fatal(err)
		}
		if cl, _ := c.ClaimMoment(ctx, team, NewHolder("hub"), time.Minute); cl.Got || !cl.Sent {
			t.Errorf("the team's moment was forgotten: %+v", cl)
		}
		if cl, _ := c.ClaimMoment(ctx, run, NewHolder("hub"), time.Minute); !cl.Got {
			t.Errorf("the run's old moment was kept: %+v", cl)
		}
	})
}
