package archiving

import (
	"cmp"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// Service is what the runs screen asks of the team's runs: the live
// service's client, or a Listing.
type Service = poller.TeamRuns

// Listing is the runs screen's service over the archive: the live
// service's pages first (when there is one), then the archived runs it no
// longer lists, marked archived, 20 a page.
type Listing struct {
	live Service // nil: the archive only (history)
	st   archive.Store
	q    archive.Query
	// bg completes, in the background, the runs the live list shows that
	// the archive holds in part (nil: history, or no client).
	bg *Background
	// sharedBg: bg is shared with other listings (UseBackground): its
	// owner stops it, not the listing.
	sharedBg bool

	mu       sync.Mutex
	liveSeen map[string]bool // ids the live list gave
	// cursors are the archive pages' cursors handed out, each the key of
	// the last run of the page before (zero for the first page).
	cursors map[int64]archiveKey
	failed  string // the first write to the archive that failed, said when the screen closes
}

// NewListing is the runs screen's service over the runs of st that q
// selects, after live's (nil: the archive only).
func NewListing(live Service, st archive.Store, q archive.Query) *Listing {
	return &Listing{live: live, st: st, q: q}
}

// Complete has the runs the live list shows, and the archive holds in
// part, completed in the background with cp once they are over (a failed
// write is noted with note).
func (s *Listing) Complete(ctx context.Context, cp *Completer, note func(error)) {
	s.bg = NewBackground(ctx, cp, note)
}

// UseBackground has the runs the live list shows completed by bg, which
// other listings share (the hub's sessions: each run completed once for
// all of them); Stop leaves it running and its failures are its owner's.
func (s *Listing) UseBackground(bg *Background) {
	s.bg, s.sharedBg = bg, true
}

// Store is the archive listed.
func (s *Listing) Store() archive.Store { return s.st }

// Service is the service whose runs are listed.
func (s *Listing) Service() string { return s.q.Service }

// Stop ends the background completions and returns the first write to
// the archive that failed ("" none), for the screen to say once it has
// closed.
func (s *Listing) Stop() string {
	if !s.sharedBg {
		s.bg.Stop()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// Note keeps the first failed write to the archive (the screen is up: it
// is said on stderr when the screen closes).
func (s *Listing) Note(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed == "" {
		s.failed = err.Error()
	}
}

// archiveKey is where an archive page starts: after the run (at, id), in
// the archive's order (newest first, then by id), a key no two runs share.
type archiveKey struct {
	at time.Time
	id string
}

const archivePageMark = "archive:"

func (s *Listing) Runs(ctx context.Context, before time.Time) (*poller.RunList, error) {
	s.mu.Lock()
	// The cursors handed out and the live ids seen stay for the listing's
	// life: a refresh of the first page comes between pages, and must not
	// send the next page back to the start.
	if s.liveSeen == nil {
		s.liveSeen, s.cursors = map[string]bool{}, map[int64]archiveKey{archiveStart.UnixNano(): {}}
	}
	from, inArchive := s.cursors[before.UnixNano()]
	s.mu.Unlock()
	if s.live != nil && !inArchive {
		l, err := s.live.Runs(ctx, before)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		for _, r := range l.Runs {
			s.liveSeen[r.ID] = true
		}
		s.mu.Unlock()
		s.knownLive(ctx, l.Runs)
		switch {
		case l.Next != "":
			return l, nil
		case len(l.Runs) > 0:
			// The live list ends: the archive's runs follow.
			l.Next, l.NextBefore = archivePageMark, archiveStart
			return l, nil
		}
		// The live list ends with an empty page (the service has
		// forgotten every run): the archive's first page stands in for
		// it, since a page that brings no run stops the paging.
		from = archiveKey{}
	}
	q := s.q
	q.Limit = poller.ListPageSize + 1
	q.Before, q.BeforeID = from.at, from.id
	list, err := s.st.List(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &poller.RunList{}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range list {
		if i == poller.ListPageSize {
			// The cursor handed out stands for the page's last run's
			// key, so that runs that share a creation time across pages
			// are all listed. Cursors go back in time strictly, a
			// millisecond apart (the screen tells pages apart by it),
			// before any real one and the newest page's: -2 ms, -3 ms...
			out.Next, out.NextBefore = archivePageMark, time.UnixMilli(-1-int64(len(s.cursors)))
			last := &list[i-1]
			s.cursors[out.NextBefore.UnixNano()] = archiveKey{at: last.SortAt, id: last.ID}
			break
		}
		r := &list[i]
		if s.liveSeen[r.ID] {
			continue
		}
		out.Runs = append(out.Runs, infoOfArchived(r, now))
	}
	return out, nil
}

// knownLive adds to the live list's runs what the archive's record says
// (the outcome as the trace says it: the service reports a cancelled or
// credit-limited run as failed), and has the runs it holds in part
// completed in the background once they are over.
func (s *Listing) knownLive(ctx context.Context, list []poller.RunInfo) {
	ids := make([]string, len(list))
	for i := range list {
		ids[i] = list[i].ID
	}
	held, err := s.st.Held(ctx, s.q.Service, ids)
	if err != nil {
		return
	}
	for i := range list {
		h, ok := held[list[i].ID]
		if !ok {
			continue
		}
		if k := knownOfHeld(h); k != nil {
			list[i].Known = k
		}
		over := (&poller.Status{Status: list[i].Status}).Terminal()
		// A run the archive knows from the team's list alone (TeamList
		// stores the newest page) is the archive pass's to fetch, as a
		// run it does not hold at all.
		listedOnly := h.Polls == 0 && h.HasItem && !h.HasStatus
		if over && !h.Complete && !listedOnly || h.Complete && (!h.HasItem || !h.HasStatus) {
			s.bg.Add(list[i], h)
		}
	}
}

// archiveStart is the cursor of the archive's first page after the live
// list (a time no real cursor has).
var archiveStart = time.Unix(0, 1)

func infoOfArchived(r *archive.Run, now time.Time) poller.RunInfo {
	f := FiguresOf(r, now)
	ri := poller.RunInfo{ID: f.ID, CreatedAt: r.SortTime(), Status: f.Status, Prompt: text.Sanitize(f.Prompt), Model: text.Sanitize(f.Model),
		Effort: text.Sanitize(f.Effort), CreditsUsed: f.CreditsUsed, Known: knownOf(&f)}
	ri.Label = text.Sanitize(r.Label)
	ri.Archived = true
	if ri.Status == "" {
		ri.Status = "unknown"
	}
	for _, u := range f.URLs {
		ri.URLs = append(ri.URLs, text.Sanitize(u))
	}
	return ri
}

// knownOf is what the runs screen shows of a record beyond the service's
// words.
func knownOf(f *Figures) *poller.Known {
	return &poller.Known{Outcome: f.Outcome, Complete: f.Complete, StartedBy: text.Sanitize(f.StartedBy), CancelledBy: text.Sanitize(f.CancelledBy),
		ThreadID: text.Sanitize(f.ThreadID), ThreadTurn: f.ThreadTurn}
}

// knownOfHeld is what the runs screen shows of a live run the archive
// holds: its outcome as the trace says and who acted on it through a hub;
// nil when the archive knows neither.
func knownOfHeld(h archive.Held) *poller.Known {
	if h.Outcome == "" && h.StartedBy == "" && h.CancelledBy == "" && h.ThreadID == "" {
		return nil
	}
	return &poller.Known{Outcome: h.Outcome, Complete: h.Complete, StartedBy: text.Sanitize(h.StartedBy), CancelledBy: text.Sanitize(h.CancelledBy),
		ThreadID: text.Sanitize(h.ThreadID), ThreadTurn: h.ThreadTurn, CreditsUsed: h.CreditsUsed}
}

func (s *Listing) Status(ctx context.Context, jobID string) (*poller.Status, error) {
	if s.live != nil {
		st, err := s.live.Status(ctx, jobID)
		var pe *poller.Error
		if err == nil {
			// What the archive read of the run: the same outcome as its row.
			if held, herr := s.st.Held(ctx, s.q.Service, []string{jobID}); herr == nil {
				if h, ok := held[jobID]; ok {
					if st.ThreadID != "" && (h.ThreadID != st.ThreadID || h.ThreadTurn != st.ThreadTurn) {
						// The status names the run's thread, which the
						// team's list does not: kept, for every list on
						// this archive (a hub's sessions) to group its
						// turns without asking each run's status.
						if perr := s.st.PutRun(ctx, &archive.Run{Service: s.q.Service, ID: jobID, ThreadID: st.ThreadID, ThreadTurn: st.ThreadTurn}); perr == nil {
							h.ThreadID, h.ThreadTurn = st.ThreadID, st.ThreadTurn
						}
					}
					st.Known = knownOfHeld(h)
				}
			}
		}
		if err == nil || !errors.As(err, &pe) || pe.Kind != poller.KindNotFound {
			return st, err
		}
	}
	r, err := s.st.Get(ctx, s.q.Service, jobID)
	if err == nil && s.q.Service != "" && r.Service != s.q.Service {
		// The same id at another service is another run: not this one's.
		err = archive.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	f := FiguresOf(r, time.Now())
	st := &poller.Status{Status: f.Status, CreditsUsed: f.CreditsUsed, ExpiresAt: r.ExpiresAt, Model: text.Sanitize(f.Model), Effort: text.Sanitize(f.Effort),
		Data: r.Result, Known: knownOf(&f)}
	if st.Status == "" {
		st.Status = "archived"
	} else {
		st.Status += " (archived)"
	}
	return st, nil
}

func (s *Listing) TokenUsage(ctx context.Context) (*poller.TokenUsage, error) {
	if s.live != nil {
		return s.live.TokenUsage(ctx)
	}
	return nil, &poller.Error{Kind: poller.KindNotFound, Op: "token usage"}
}

// UsageHistory is the live service's usage by day (the team tab's
// projection); not offered without one that gives it.
func (s *Listing) UsageHistory(ctx context.Context, timeRange string, byKey bool) (*poller.UsageHistory, error) {
	if h, ok := s.live.(interface {
		UsageHistory(ctx context.Context, timeRange string, byKey bool) (*poller.UsageHistory, error)
	}); ok && s.live != nil {
		return h.UsageHistory(ctx, timeRange, byKey)
	}
	return nil, &poller.Error{Kind: poller.KindNotFound, Op: "usage history"}
}

// ActiveCrawls are the live service's, each kept in the archive as seen
// (a failed write is noted, said when the screen closes).
func (s *Listing) ActiveCrawls(ctx context.Context) ([]poller.Crawl, error) {
	if s.live == nil {
		return nil, nil
	}
	list, err := s.live.ActiveCrawls(ctx)
	if err == nil && s.st != nil {
		if werr := SeenCrawls(ctx, s.st, s.q.Service, s.q.Team, list, time.Now()); werr != nil {
			s.Note(werr)
		}
	}
	return list, err
}

// errArchiveOnly answers the runs screen's live actions on a run the service
// no longer has, or when the screen shows the archive alone (history).
var errArchiveOnly = errors.New("not available: the run is only in the archive")

// Cancel and StartAgent are the live service's; an archived run has no
// service to ask.
func (s *Listing) Cancel(ctx context.Context, jobID string) error {
	if s.live == nil || s.ArchivedOnly(jobID) {
		return errArchiveOnly
	}
	if err := s.live.Cancel(ctx, jobID); err != nil {
		return err
	}
	// Recorded: the run's outcome follows from its trace, read once it is
	// over (by the screen's next listing, or the next archive pass).
	if err := s.st.PutRun(ctx, &archive.Run{Service: s.q.Service, ID: jobID, CancelRequested: true}); err != nil {
		s.Note(err)
	}
	s.bg.AfterCancel(jobID)
	return nil
}

func (s *Listing) StartAgent(ctx context.Context, req poller.AgentRequest) (string, error) {
	if s.live == nil {
		return "", errors.New("not available: history shows the archive; start runs from the runs screen (firewatch runs)")
	}
	started, err := StartOn(ctx, s.live, req)
	id := started.ID
	if err == nil {
		// What it was asked, kept: whoever reads the run knows its cap;
		// and its thread and turn as the answer says them, so that every
		// list on this archive groups a follow-up with its thread's turns
		// before anyone reads its status (the team's list says neither).
		seed := WithID(SeedOf(&req), s.q.Service, id)
		seed.ThreadID, seed.ThreadTurn = cmp.Or(started.ThreadID, req.ThreadID), started.ThreadTurn
		if perr := s.st.PutRun(ctx, seed); perr != nil {
			s.Note(perr)
		}
		// The service's run, before any list page has shown it: enter
		// watches it live, not from the archive.
		s.mu.Lock()
		if s.liveSeen == nil {
			s.liveSeen = map[string]bool{}
		}
		s.liveSeen[id] = true
		s.mu.Unlock()
	}
	return id, err
}

// Starter is a service that says a start's thread and turn: a
// poller.Client, and what wraps one and passes them on.
type Starter interface {
	Start(ctx context.Context, req poller.AgentRequest) (poller.Started, error)
}

// StartOn starts req on svc: with the answer's thread and turn when svc
// says them, else its id alone.
func StartOn(ctx context.Context, svc Service, req poller.AgentRequest) (poller.Started, error) {
	if s, ok := svc.(Starter); ok {
		return s.Start(ctx, req)
	}
	id, err := svc.StartAgent(ctx, req)
	return poller.Started{ID: id}, err
}

// ArchivedOnly reports whether id is an archived run the live list did not
// give.
func (s *Listing) ArchivedOnly(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live != nil && !s.liveSeen[id]
}

// MarkKnown sets on each run of list that st holds an outcome for what
// the archive's record says (the outcome as the trace told it: the service
// reports a cancelled or credit-limited run as failed), as the runs
// screen's listing does. Runs it does not hold are left as they are.
func MarkKnown(ctx context.Context, st archive.Store, service string, list []poller.RunInfo) error {
	if st == nil || len(list) == 0 {
		return nil
	}
	ids := make([]string, len(list))
	for i := range list {
		ids[i] = list[i].ID
	}
	held, err := st.Held(ctx, service, ids)
	if err != nil {
		return err
	}
	for i := range list {
		if h, ok := held[list[i].ID]; ok {
			if k := knownOfHeld(h); k != nil {
				list[i].Known = k
			}
		}
	}
	return nil
}
