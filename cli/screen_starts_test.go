package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/poller"
)

// TestScreenStarts: a start from a run's screen keeps its request (for
// the archive's record); a follow-up refused because a turn still runs is
// said in words that name that run.
func TestScreenStarts(t *testing.T) {
	s := &screenStarts{start: func(_ context.Context, req poller.AgentRequest) (string, error) {
		if req.ThreadID != "" {
			return "", &poller.Error{Kind: poller.KindServer, Op: "start", Status: 409, Code: poller.ThreadBusy, RunID: "e9d1e131-b05b-4d08-b44a-bde34a7aa278"}
		}
		return "7b0c5e2a-1111-4222-8333-444455556666", nil
	}}
	req := poller.AgentRequest{Prompt: "p", Effort: "low"}
	if id, err := s.StartAgent(context.Background(), req); err != nil || id == "" || s.request().Effort != "low" {
		t.Fatalf("start: %q %v %+v", id, err, s.request())
	}
	_, err := s.StartAgent(context.Background(), poller.AgentRequest{Prompt: "more", ThreadID: "51b3ab58-9c1e-4f7a-8d2b-0a1b2c3d4e5f"})
	if err == nil || !strings.Contains(err.Error(), "is busy: run e9d1e131-b05b-4d08-b44a-bde34a7aa278 is still running") {
		t.Fatalf("busy: %v", err)
	}
	if s.request().ThreadID != "" {
		t.Errorf("a refused start replaced the request kept: %+v", s.request())
	}
}
