package mcpserver

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
)

// loadWait is how long a call waits for a run's first poll before it says
// what stops it.
const loadWait = 30 * time.Second

// view reads the run id once its follower has something to show: the
// archive's copy or the service's first poll. The follower stays the
// run's one (the backend keeps it a while for the next call), so pages of
// get_events read the same store and each event has one sequence.
func (s *Server) view(ctx context.Context, id string, read func(r *follow.Run)) error {
	id = strings.TrimSpace(id)
	if !validID(id) {
		return errors.New("run: give a run id (a UUID, as list_runs shows it)")
	}
	f, release, err := s.cfg.Backend.Follow(ctx, id)
	if err != nil {
		return s.toolError(err)
	}
	defer release()
	if err := s.loaded(ctx, f); err != nil {
		return err
	}
	f.View(read)
	return nil
}

// loaded waits until f has read the run, or says why it has not.
func (s *Server) loaded(ctx context.Context, f *follow.Follower) error {
	sub := f.Subscribe()
	defer sub.Leave()
	ctx, cancel := context.WithTimeout(ctx, loadWait)
	defer cancel()
	for {
		c, ok := sub.Next(ctx)
		if !ok {
			if ctx.Err() != nil {
				return errors.New("the run's first poll has not come yet: call again in a little while")
			}
			return nil
		}
		var has bool
		sub.View(func(r *follow.Run) { has = r.Store.Len() > 0 || r.Store.Run().State == model.StateFinished })
		switch {
		case has:
			return nil
		case c.Done && c.Err != nil:
			return s.toolError(c.Err)
		case c.Done:
			return nil
		case c.Err != nil:
			return s.toolError(c.Err)
		}
	}
}

// validID is a run id's shape: what the service's ids are, so that no
// other text reaches a path.
func validID(id string) bool {
	if len(id) < 8 || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' || r == '-') {
			return false
		}
	}
	return true
}

// timeOrNil is t in RFC 3339, nil when zero.
func timeOrNil(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}
