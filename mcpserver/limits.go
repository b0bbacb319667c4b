package mcpserver

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"
)

// A client that makes thousands of calls is told to slow down, with a
// tool error that says how long to wait, and does not reach the service
// (whose rate limit the team shares) more than a person at a screen would:
// the calls that ask the service or the archive afresh (costly) are
// admitted at CallsPerMinute (a burst of callBurst); the ones that read a
// followed run's store (get_run, get_tree, get_events, get_tool_call) are
// not, since paging a large run takes many; at most maxBusy calls run at
// once (wait_for_run apart: it holds no request, only its place among
// maxWaits waiting calls). Following a new run is bounded by Followers.
const (
	CallsPerMinute = 240
	callBurst      = 60
	maxBusy        = 4
	maxWaits       = 32
)

type limits struct {
	rate  *rate.Limiter
	busy  chan struct{}
	waits chan struct{}
}

func newLimits() *limits {
	return &limits{rate: rate.NewLimiter(rate.Limit(float64(CallsPerMinute)/60), callBurst),
		busy: make(chan struct{}, maxBusy), waits: make(chan struct{}, maxWaits)}
}

// admit takes a call's place, or says why it cannot have one; release
// gives it back.
func (l *limits) admit(ctx context.Context, wait, costly bool) (release func(), err error) {
	if costly {
		r := l.rate.Reserve()
		if d := r.Delay(); d > 0 {
			r.Cancel()
			return nil, fmt.Errorf("too many calls (over %d a minute): wait %d s and call again", CallsPerMinute, int(math.Ceil(d.Seconds())))
		}
	}
	if wait {
		select {
		case l.waits <- struct{}{}:
			return func() { <-l.waits }, nil
		default:
			return nil, fmt.Errorf("too many wait_for_run calls at once (%d): wait for one to return", maxWaits)
		}
	}
	t := time.NewTimer(30 * time.Second)
	defer t.Stop()
	select {
	case l.busy <- struct{}{}:
		return func() { <-l.busy }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, fmt.Errorf("busy with %d calls: call again in a little while", maxBusy)
	}
}

// addTool is mcp.AddTool with the call limits in front of h.
func addTool[In, Out any](s *Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	wait := t.Name == "wait_for_run"
	costly := costlyTools[t.Name]
	mcp.AddTool(s.srv, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		release, err := s.limits.admit(ctx, wait, costly)
		if err != nil {
			var zero Out
			return nil, zero, err
		}
		defer release()
		return h(ctx, req, in)
	})
}

// costlyTools ask the service or the archive afresh at every call.
var costlyTools = map[string]bool{"list_runs": true, "compare_runs": true, "report": true, "get_artifact": true, "get_result": true, "cost": true,
	"cancel_run": true, "start_run": true}
