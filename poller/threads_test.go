package poller

import (
	"context"
	"errors"
	"testing"

	"github.com/firewatch/firewatch/sim"
)

// TestThreadStarts: a start answers its thread and turn; a follow-up is
// turn 2 of it, and the status and Thread say so; a busy thread's refusal
// carries its code and the running run's id.
func TestThreadStarts(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1000, Held: true})
	c := newClient(t, srv, withKey(srv))
	ctx := context.Background()
	first, err := c.Start(ctx, AgentRequest{Prompt: "Compare prices"})
	if err != nil || !isUUID(first.ThreadID) || first.ThreadTurn != 1 {
		t.Fatalf("start: %+v %v", first, err)
	}
	_, err = c.Start(ctx, AgentRequest{Prompt: "more", ThreadID: first.ThreadID})
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != ThreadBusy || pe.RunID != first.ID || pe.Status != 409 {
		t.Fatalf("busy: %v", err)
	}
	if _, err := c.Start(ctx, AgentRequest{Prompt: "more", ThreadID: "not-a-uuid"}); !errors.As(err, new(*FieldError)) {
		t.Fatalf("a bad thread id was sent: %v", err)
	}
	srv.Release()
	if err := srv.WaitFinished(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	second, err := c.Start(ctx, AgentRequest{Prompt: "more", ThreadID: first.ThreadID})
	if err != nil || second.ThreadID != first.ThreadID || second.ThreadTurn != 2 || second.ID == first.ID {
		t.Fatalf("follow-up: %+v %v", second, err)
	}
	st, err := c.Status(ctx, second.ID)
	if err != nil || st.ThreadID != first.ThreadID || st.ThreadTurn != 2 {
		t.Fatalf("status: %+v %v", st, err)
	}
	turns, err := c.Thread(ctx, first.ThreadID, false)
	if err != nil || len(turns) != 2 || turns[0].ID != first.ID || turns[1].Turn != 2 || turns[1].Prompt != "more" {
		t.Fatalf("thread: %+v %v", turns, err)
	}
}
