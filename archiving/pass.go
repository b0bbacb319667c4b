package archiving

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// Pass is one pass of firewatch archive: the team's list paged through,
// each run completed as it is held (Completer: only what the archive
// lacks), the held runs of each page claimed for the team, and the team's
// archived runs its whole list left out marked expired. What it says is
// its Report's.
type Pass struct {
	C       *poller.Client
	St      archive.Store
	Secrets *text.Secrets
	Service string
	Team    string // archive.TeamOf the pass's key
	Report  PassReport
	// Holder is who the process is to the team, in the leases of each run
	// it fetches (empty: one of its own), and with ShareList of the team's
	// list (service and team, no run): a pass of archive --every, which
	// leaves the list to another process that archives it now.
	Holder    archive.Holder
	ShareList bool
	// Budget, if set, paces every request of the pass (budget.go): the
	// team's live follows keep the rest of the service's limit.
	Budget *Budget
	// OverOnly, a hub's pass: runs still processing are left to their
	// watchers, and to the hub's next pass once they are over.
	OverOnly bool
	// Newest, a hub's pass after its first: the runs the list shows that
	// the archive does not hold whole, page by page from the newest, until
	// a page whose runs it all held whole; runs held whole with gaps are
	// left for a whole pass, and nothing is marked expired (the list was
	// not walked to its end).
	Newest bool

	PassCounts
	lastSkip error
}

// PassCounts are where a pass is.
type PassCounts struct {
	Seen, Fetched, Expired, Requests int
	Forgotten                        int // archived runs the service no longer lists
	Skipped                          int // runs it could not fetch (said each)
	Polled                           int // runs another firewatch polls and archives now
	// ListedBy: another firewatch holds the team's list's lease (who): it
	// archives the list now, and the pass was left to it.
	ListedBy string
	Partial  int // runs archived without some of their parts
	Bytes    int64
	Started  time.Time
	Paced    time.Duration // waited for the budget, in all
}

// PassReport is told what a pass does, as it does it.
type PassReport interface {
	// Progress: after each run that cost a request and each page, and
	// once at the end (final).
	Progress(c PassCounts, final bool)
	// Skip: a run, or a part of it (what), not archived now, and why; the
	// next pass tries again.
	Skip(id, what string, err error)
	// FirstGen: a run archived without a trace (it has none).
	FirstGen(id string)
	// EndpointOff: the service's endpoint (a run's "status", "trace" or
	// "snapshot") failed for runs runs in a row (err, the last failure):
	// the pass asks it no more, and leaves what it serves for the next.
	EndpointOff(endpoint string, runs int, err error)
}

// listTTL is how long a pass holds the team's list's lease past its
// last renewal (each page, each run fetched): one run's requests, each
// bounded by the client.
const listTTL = time.Minute

// NothingArchived is a pass that had runs to fetch and could fetch none.
// It unwraps to its last failure, whose exit code it has, as for one
// request: the service refused (a 4xx, a 429 that stayed) or failed (a
// 5xx, the network).
type NothingArchived struct {
	N    int
	Last error
}

func (e *NothingArchived) Error() string {
	return fmt.Sprintf("archive: none of the %d runs to fetch could be archived (why is said above); the next pass tries again", e.N)
}

func (e *NothingArchived) Unwrap() error { return e.Last }

// Run does the pass. A failure of the archive is a *StoreError; of the
// list, the client's; a pass that could fetch none of the runs it had to,
// a *NothingArchived.
func (p *Pass) Run(ctx context.Context) error {
	p.Started = time.Now()
	c := p.C
	var waited time.Duration
	if p.Budget != nil {
		c = c.WithPacer(p.Budget)
		waited = p.Budget.Waited()
	}
	defer func() {
		if p.Budget != nil {
			p.Paced = p.Budget.Waited() - waited
		}
		p.Report.Progress(p.PassCounts, true)
	}()
	eps := newEndpoints(p.Report.EndpointOff)
	if p.Holder.ID == "" {
		p.Holder = archive.NewHolder("archive")
	}
	renew := func() error { return nil }
	if p.ShareList {
		lease, err := p.St.Take(ctx, archive.LeaseKey{Service: p.Service, Team: p.Team}, p.Holder, listTTL)
		var he *archive.HeldError
		switch {
		case errors.As(err, &he) && isPass(he.Lease.Holder):
			p.ListedBy = text.Sanitize(he.Lease.Holder.String())
			return nil
		case errors.As(err, &he):
			// A runs screen or a hub holds it for the newest page: the
			// pass goes on without it (it walks the whole list, which a
			// screen does not).
		case err != nil:
			return storeErr(err)
		default:
			renew = func() error {
				// Lost (paused past its TTL): the pass stops, the next tries again.
				lease, err = p.St.Renew(ctx, lease)
				return storeErr(err)
			}
			defer func() {
				// Its followers read the archive again; the list is free for
				// the next pass, whoever makes it.
				ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), WriteTimeout)
				defer cancel()
				_, _ = p.St.Ring(ctx, lease)
				_ = p.St.Release(ctx, lease)
			}()
		}
	}
	pager := c.RunPages()
	listed := map[string]bool{}
	for !pager.Done() {
		p.Requests++
		l, err := pager.Next(ctx)
		if err != nil {
			if errors.Is(err, poller.ErrCursorLoop) {
				return nil // the list did not end: nothing can be said gone
			}
			return err
		}
		ids := make([]string, 0, len(l.Runs))
		for _, r := range l.Runs {
			ids = append(ids, r.ID)
			listed[r.ID] = true
		}
		held, err := p.St.Held(ctx, p.Service, ids)
		if err != nil {
			return storeErr(err)
		}
		if err := p.claim(ctx, held); err != nil {
			return err
		}
		if err := renew(); err != nil {
			return err
		}
		cp := &Completer{C: c, St: p.St, Secrets: p.Secrets, Service: p.Service, Team: p.Team, Holder: p.Holder, eps: eps}
		whole := true // every run of the page held whole before the pass
		for i := range l.Runs {
			ri := &l.Runs[i]
			p.Seen++
			var hp *archive.Held
			if h, ok := held[ri.ID]; ok {
				hp = &h
			}
			if hp == nil || !hp.Complete {
				whole = false
			}
			if p.Newest && hp != nil && hp.Complete || p.OverOnly && !(&poller.Status{Status: ri.Status}).Terminal() {
				continue
			}
			done, err := cp.Complete(ctx, ri, hp)
			p.Requests += done.Requests
			p.Bytes += done.Bytes
			if done.Fetched {
				p.Fetched++
			}
			if done.Gone {
				p.Expired++
			}
			if done.PolledBy != "" {
				p.Polled++
			}
			if err != nil {
				return err
			}
			switch {
			case done.SkipErr != nil:
				p.Skipped++
				p.lastSkip = done.SkipErr
				if !done.Deferred {
					p.Report.Skip(ri.ID, done.Skipped, done.SkipErr)
				}
			case done.FirstGen:
				p.Report.FirstGen(ri.ID)
			case done.Gaps > 0:
				p.Partial++
				if done.Gaps > done.Left {
					// Its own failures; those left were said once.
					p.Report.Skip(ri.ID, fmt.Sprintf("archived without %d of its snapshots", done.Gaps), done.GapErr)
				}
			}
			if done.Requests > 0 {
				p.Report.Progress(p.PassCounts, false)
				if err := renew(); err != nil {
					return err
				}
			}
		}
		p.Report.Progress(p.PassCounts, false)
		if p.Newest && whole {
			break
		}
	}
	if p.Newest {
		return nil
	}
	if err := p.markGone(ctx, listed); err != nil {
		return err
	}
	if p.Fetched == 0 && p.Skipped > 0 {
		return &NothingArchived{p.Skipped, p.lastSkip}
	}
	return nil
}

// isPass reports whether h is a pass of firewatch archive (its label is
// "archive", "archive --every"...), which walks the whole list; a runs
// screen or a hub holds the list's lease for its newest page only.
func isPass(h archive.Holder) bool {
	return h.Label == "archive" || strings.HasPrefix(h.Label, "archive ")
}

// claim records that this pass's team lists the held runs of a page: they
// are its own (a run another key archived, or one archived before teams
// were kept), and not expired (one marked so by mistake comes back).
func (p *Pass) claim(ctx context.Context, held map[string]archive.Held) error {
	var ids []string
	for id, h := range held {
		if p.Team != "" && h.Team != p.Team || h.Expired {
			ids = append(ids, id)
		}
	}
	return storeErr(p.St.Claim(ctx, p.Service, p.Team, ids))
}

// markGone records that the service no longer has the archived runs of
// this pass's team that its whole list left out (it lists every run the
// team keeps), so that history says "expired" and a run archived while
// processing is not waited for. Another team's runs, and runs whose team
// is not known, are left as they are: this key's list says nothing of
// them.
func (p *Pass) markGone(ctx context.Context, listed map[string]bool) error {
	if p.Team == "" {
		return nil
	}
	var gone []string
	err := p.St.Each(ctx, archive.Query{Service: p.Service, Team: p.Team}, func(r *archive.Run) error {
		if !r.Expired && !listed[r.ID] && r.SortTime().Before(p.Started) {
			gone = append(gone, r.ID)
		}
		return nil
	})
	if err != nil {
		return storeErr(err)
	}
	for _, id := range gone {
		if err := p.St.MarkExpired(ctx, p.Service, id); err != nil {
			return storeErr(err)
		}
		p.Forgotten++
	}
	return nil
}
