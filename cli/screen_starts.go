package cli

import (
	"context"
	"errors"
	"sync"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/poller"
)

// screenStarts starts the runs R and F send from a run's screen, and keeps
// the request of the last one: the archive records it with the lineage,
// and the next watch knows the run's request and cap.
type screenStarts struct {
	start func(ctx context.Context, req poller.AgentRequest) (string, error)
	mu    sync.Mutex
	req   poller.AgentRequest
}

func (s *screenStarts) StartAgent(ctx context.Context, req poller.AgentRequest) (string, error) {
	id, err := s.start(ctx, req)
	if err != nil {
		var ms *maybeStartedError
		switch {
		case errors.As(err, &ms):
		case threadRefusal(err, req.ThreadID) != nil:
			err = threadRefusal(err, req.ThreadID)
		case mayHaveStarted(err):
			err = &maybeStartedError{what: "run", check: "firewatch runs", err: err}
		}
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.req = req
	return id, nil
}

// request is the last started run's request.
func (s *screenStarts) request() poller.AgentRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.req
}

// watchNext follows what the run's screen of w ended with: the run R or F
// started there is watched next (its screen offers = once a rerun ends),
// and = opens the compare screen of the rerun and its original. It
// returns the last watch's error (err when nothing followed) and the last
// session, whose Back and Interrupted say how the screens were left.
func (a *app) watchNext(cmd *cobra.Command, o *watchOptions, svc service, w *watchSession, err error) (*watchSession, error) {
	ctx := cmd.Context()
	for ctx.Err() == nil {
		next := w.Next
		switch {
		case next.Compare && w.RerunOf != "":
			c, cerr := a.comparison(ctx, w.RerunOf, w.JobID, nil, svc.baseURL, svc.key)
			if cerr == nil {
				cerr = a.compareScreen(ctx, o, c, nil)
			}
			w.Back = w.BackToList // the compare screen's q: back to the list, if any
			return w, cerr
		case next.Started == "":
			return w, err
		}
		id := next.Started
		a.started("run", id, w.Debug)
		req := w.Start.request()
		seed := archiving.SeedOf(&req)
		seed.RerunOf, seed.RerunChanged = next.StartedRerunOf, next.StartedChanged
		a.archiveSeed(ctx, svc.baseURL, id, seed)
		nw, cleanup, nerr := a.newSession(cmd, o)
		if nerr != nil {
			return w, nerr
		}
		nw.BackToList, nw.Start, nw.RerunOf = w.BackToList, w.Start, next.StartedRerunOf
		// The request, cap and thread come from the archive's seed and
		// the service's status (watchLive asks, the request being unset).
		if a.hub.Shares() {
			_, err = a.watchShared(ctx, nw, id)
		} else {
			err = a.watchLive(ctx, nw, svc, id, liveOptions{label: "watch", started: true})
		}
		cleanup()
		w = nw
	}
	return w, err
}
