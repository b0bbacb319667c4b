package hubsvc

import (
	"context"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/internal/panics"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/runs"
)

// ListTTL is how long the team's list, its token balance and its active
// crawls, once asked, answer every session's runs screen: a little less
// than the screens' refresh, so that the list is asked once a refresh
// however many screens refresh.
const ListTTL = runs.DefaultInterval - time.Second

// list is the team's list polled once for every session's runs screen:
// the newest page, the token balance and the active crawls are asked by
// one request at a time, whose answer serves every screen for ttl.
type list struct {
	c *poller.Client
	// newest asks for the newest page: c, or team, through the team's
	// list lease in the hub's archive (nil team: no archive).
	newest interface {
		Runs(ctx context.Context, before time.Time) (*poller.RunList, error)
	}
	team    *archiving.TeamList
	ttl     time.Duration
	first   coalesced[*poller.RunList]
	tokens  coalesced[*poller.TokenUsage]
	crawls  coalesced[[]poller.Crawl]
	history coalesced[*poller.UsageHistory]
}

// Listed is s, a session's runs service, with the list's newest page, the
// balance and the crawls the hub's one.
func (h *Hub) Listed(s runs.Service) runs.Service { return &listed{Service: s, l: h.list} }

// Latest is the newest page of the team's runs, as the hub's sessions
// see it.
func (h *Hub) Latest(ctx context.Context) (*poller.RunList, error) { return h.list.latest(ctx) }

// ListClient is the client the hub asks the team's list with.
func (h *Hub) ListClient() *poller.Client { return h.list.c }

// latest is the newest page of the team's runs.
func (l *list) latest(ctx context.Context) (*poller.RunList, error) {
	rl, err := l.first.get(ctx, l.ttl, func(ctx context.Context) (*poller.RunList, error) { return l.newest.Runs(ctx, time.Time{}) })
	if rl != nil { // each screen keeps its own copy of the rows
		cp := *rl
		cp.Runs = slices.Clone(rl.Runs)
		rl = &cp
	}
	return rl, err
}

type listed struct {
	runs.Service // the session's own: details, cancel, start, older pages
	l            *list
}

func (s *listed) Runs(ctx context.Context, before time.Time) (*poller.RunList, error) {
	if !before.IsZero() {
		return s.Service.Runs(ctx, before)
	}
	return s.l.latest(ctx)
}

// Start passes the start's thread and turn on (archiving.StartOn).
func (s *listed) Start(ctx context.Context, req poller.AgentRequest) (poller.Started, error) {
	return archiving.StartOn(ctx, s.Service, req)
}

func (s *listed) TokenUsage(ctx context.Context) (*poller.TokenUsage, error) {
	return s.l.tokens.get(ctx, s.l.ttl, s.l.c.TokenUsage)
}

// UsageHistory is the hub's one answer for its sessions' team tabs.
func (s *listed) UsageHistory(ctx context.Context, timeRange string, byKey bool) (*poller.UsageHistory, error) {
	if timeRange != "month" || byKey {
		return s.l.c.UsageHistory(ctx, timeRange, byKey)
	}
	return s.l.history.get(ctx, max(s.l.ttl, time.Minute), func(ctx context.Context) (*poller.UsageHistory, error) {
		return s.l.c.UsageHistory(ctx, "month", false)
	})
}

func (s *listed) ActiveCrawls(ctx context.Context) ([]poller.Crawl, error) {
	cr, err := s.l.crawls.get(ctx, s.l.ttl, s.l.c.ActiveCrawls)
	return slices.Clone(cr), err
}

// coalesced is an answer asked by one caller at a time (singleflight: the
// others wait for its answer) and kept for them all until it is ttl old.
type coalesced[T any] struct {
	g   singleflight.Group
	mu  sync.Mutex
	at  time.Time
	val T
	err error
}

// requestTimeout bounds a request made for every session: no one
// session's context decides when it ends.
const requestTimeout = 20 * time.Second

// kept is the answer while it is younger than ttl.
func (c *coalesced[T]) kept(ttl time.Duration) (v T, ok bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() || time.Since(c.at) >= ttl {
		return v, false, nil
	}
	return c.val, true, c.err
}

func (c *coalesced[T]) get(ctx context.Context, ttl time.Duration, fetch func(context.Context) (T, error)) (T, error) {
	if v, ok, err := c.kept(ttl); ok {
		return v, err
	}
	ch := c.g.DoChan("", func() (any, error) {
		// An answer that came while this caller looked is the one kept.
		if v, ok, err := c.kept(ttl); ok {
			return v, err
		}
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), requestTimeout)
		defer cancel()
		// On singleflight's goroutine: a panic is the session's to catch.
		var v T
		var err error
		if perr := panics.Catch(fctx, func() { v, err = fetch(fctx) }); perr != nil {
			err = perr
		}
		c.mu.Lock()
		c.val, c.err, c.at = v, err, time.Now()
		c.mu.Unlock()
		return v, err
	})
	select {
	case r := <-ch:
		v, _ := r.Val.(T)
		return v, r.Err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
