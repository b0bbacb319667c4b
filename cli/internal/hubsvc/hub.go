package hubsvc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/hub"
	"github.com/firewatch/firewatch/internal/panics"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/notify"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/runs"
)

// The hub follows each run once, however many of its sessions watch it:
// Hub holds one follow.Follower per run, made when the first session
// opens the run and stopped when the last one leaves it, whose screens
// subscribe to it (ui.Config.Shared). The follower's client says its waits
// (a 429, a 5xx) to every viewer of the run, the run is written to the
// archive once, by the follower's sink, and its notifications are decided
// once (Notifier). The team's list is polled once for every session's
// runs screen too (list).

// Service is the hub's service and the team's key, the only ones its
// sessions use.
type Service struct{ BaseURL, Key string }

// Env is what the hub takes from the command that runs it, as values.
type Env struct {
	Stderr  io.Writer // redacts Secrets
	Secrets *text.Secrets
	// Client is a client of svc sharing the hub's pool of connections,
	// its waits said by say.
	Client func(svc Service, say func(string)) (*poller.Client, error)
	// ArchiveOn reports whether an archive is configured (it may be off);
	// OpenArchive opens it quietly (nil, nil: off).
	ArchiveOn   func() bool
	OpenArchive func(ctx context.Context) (archive.Store, error)
	// ArchiveErr and PassErr are the command layer's reading of an
	// archive's and an archive pass's error.
	ArchiveErr, PassErr func(error) error
	// RateLimit is the team's limit for background work.
	RateLimit func() archiving.Limit
}

// Controls are what a screen may ask of a run's one poll.
type Controls interface {
	SetPaused(bool)
	PollNow()
	SetLiveView(bool)
}

// Notifier is the team's channel (hub --notify-command, --notify-url,
// --notify-on): N decides and sends the moments of every run the hub
// follows, Close waits, bounded, for the last ones. They are decided once
// per run by its follower (follow.Run.Saw, on the merging goroutine),
// whatever the number of sessions that watch it, and once per moment
// however often the run is followed again (the notifier remembers what it
// sent). With --follow-processing the hub follows every processing run of
// the team, watched or not, for them.
type Notifier struct {
	N     *notify.Notifier
	Close func()
}

// Hub is the hub's followers, one per run watched, and what it holds for
// its life: its list, its archive store, its completer and notifier.
type Hub struct {
	env      Env
	svc      Service
	ctx      context.Context // the hub's: every follower ends with it
	cancel   context.CancelFunc
	interval time.Duration
	name     string // the hub's name (--name), recorded with each action
	list     *list
	// st is the hub's one archive store, opened once for its life: its
	// list's lease, its runs screens' completions and archived runs, its
	// followers' sinks and their doorbells (nil: off, or it could not be
	// opened: why). One the followers open later (lateStore: PostgreSQL
	// down at the start) is late.
	st  archive.Store
	why error
	// lateMu guards late, which the hub closes; lateOpen serialises its
	// opening.
	lateMu, lateOpen sync.Mutex
	late             archive.Store
	// complete completes, once for every session's runs screen, the runs
	// their lists show that the archive holds in part (nil: no archive).
	complete *archiving.Background
	// meter counts the hub's live requests into the team's budget (nil:
	// no archive).
	meter  *archiving.LiveMeter
	notify *Notifier // the team's channel (nil: none)
	// log is a line for the hub's log (nil: none, in tests).
	log func(line string)

	mu   sync.Mutex
	runs map[string]*Run
	// actors is who acted on a run through this hub (keepActors).
	actors map[string]model.Actors
	wg     sync.WaitGroup // the followers' endings (their archive written)
}

// Run is one run the hub follows.
type Run struct {
	ID       string
	F        *follow.Follower
	Client   *poller.Client
	Controls Controls      // pause, poll now, live view of the run's one poll
	refs     int           // sessions watching (and the hub itself, --follow-processing)
	ready    chan struct{} // closed once F is started
}

// New makes the hub's followers of svc's runs, polled every interval,
// and opens its archive; they end with ctx or Stop.
func New(ctx context.Context, env Env, svc Service, interval time.Duration) (*Hub, error) {
	c, err := env.Client(svc, func(string) {}) // the list's waits: the screens say their own errors
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &Hub{env: env, svc: svc, ctx: ctx, cancel: cancel, interval: interval, runs: map[string]*Run{},
		list: &list{c: c.WithRetry(poller.Retry{Tries: 1}), ttl: ListTTL}}
	h.list.newest = h.list.c
	h.openArchive()
	return h, nil
}

// PollEvery is the interval of the followers made from now on.
func (h *Hub) PollEvery(d time.Duration) { h.interval = d }

// openArchive opens the hub's archive, kept for its life: the team's list
// is asked through its lease there (one list for this hub, other hubs and
// runs screens on the archive), each take and loss in the hub's log.
// Without one, the hub asks for the list on its own.
func (h *Hub) openArchive() {
	if !h.env.ArchiveOn() {
		return
	}
	st, err := h.env.OpenArchive(h.ctx)
	if err != nil {
		h.why = err
		fmt.Fprintf(h.env.Stderr, "firewatch hub: the team's list is not shared through the archive: %s\n", h.env.Secrets.Redact(err.Error()))
		return
	}
	if st == nil {
		return // off
	}
	h.st = st
	holder, team := archive.NewHolder("hub"), archive.TeamOf(h.svc.Key)
	// The hub's live requests (its list, its followers) are counted into
	// the team's budget without waiting: the background work of every
	// firewatch on the archive, the hub's own too, takes what they leave.
	h.meter = archiving.NewLiveMeter(h.ctx, st, h.svc.BaseURL, team, h.env.RateLimit())
	if h.meter != nil {
		h.list.c = h.list.c.WithPacer(h.meter)
		h.list.newest = h.list.c
	}
	h.list.team = archiving.NewTeamList(h.list.c, st, h.env.Secrets, h.svc.BaseURL, team, holder, runs.DefaultInterval, h.leaseLog)
	h.list.newest = h.list.team
	// The completions are background work: paced by the team's budget
	// (the list, live, is not).
	paced := h.list.c.WithPacer(archiving.NewBudget(st, h.svc.BaseURL, team, h.env.RateLimit(), nil))
	cp := &archiving.Completer{C: paced, St: st, Secrets: h.env.Secrets, Service: h.svc.BaseURL, Team: team, Holder: holder}
	h.complete = archiving.NewBackground(h.ctx, cp, func(err error) {
		h.say("firewatch hub: a run the runs screens list could not be archived: " + h.env.Secrets.Redact(h.env.ArchiveErr(err).Error()))
	})
}

// Store is the hub's one store, nil without one (yet).
func (h *Hub) Store() archive.Store {
	if h.st != nil {
		return h.st
	}
	h.lateMu.Lock()
	defer h.lateMu.Unlock()
	return h.late
}

// Opened reports whether the hub opened its archive, and its completer.
func (h *Hub) Opened() bool { return h.st != nil && h.complete != nil }

// lateStore opens the hub's store when it could not be opened at the
// start (PostgreSQL down), once for every follower that asks: (nil, nil)
// when the archive is off.
func (h *Hub) lateStore(ctx context.Context) (archive.Store, error) {
	h.lateOpen.Lock()
	defer h.lateOpen.Unlock()
	if st := h.Store(); st != nil {
		return st, nil
	}
	st, err := h.env.OpenArchive(ctx)
	if err != nil || st == nil {
		return st, err
	}
	h.lateMu.Lock()
	defer h.lateMu.Unlock()
	if h.ctx.Err() != nil { // the hub has stopped: nobody would close it
		st.Close()
		return nil, h.ctx.Err()
	}
	h.late = st
	return st, nil
}

// sink is where a follower keeps its run: the hub's one store, which the
// sink borrows (the hub closes it), or nil when archiving is off or the
// archive cannot be had (said once on stderr). A PostgreSQL archive that
// cannot be reached now is no sink but reopen, which opens the hub's
// store later (archiving.Shared tries every few seconds).
func (h *Hub) sink(jobID string) (*archiving.Sink, func(context.Context) (*archiving.Sink, error)) {
	st, err := h.Store(), error(nil)
	if st == nil {
		err = h.why
	}
	if err == nil && st != nil && archive.ReadOnly(st) {
		err = fmt.Errorf("archive %s: %w (it is still read by history, compare, cost and report)", st.Where(), archive.ErrReadOnly)
	}
	if errors.Is(err, archive.ErrUnavailable) {
		return nil, func(ctx context.Context) (*archiving.Sink, error) {
			st, err := h.lateStore(ctx)
			if err != nil || st == nil {
				return nil, cmp.Or(err, archive.ErrOff)
			}
			return h.newSink(st, jobID), nil
		}
	}
	if err != nil {
		fmt.Fprintf(h.env.Stderr, "firewatch: not archiving: %s\n", h.env.Secrets.Redact(err.Error()))
		return nil, nil
	}
	if st == nil {
		return nil, nil // off
	}
	return h.newSink(st, jobID), nil
}

func (h *Hub) newSink(st archive.Store, jobID string) *archiving.Sink {
	s := archiving.NewSink(st, h.env.Secrets, h.svc.BaseURL, jobID, archive.TeamOf(h.svc.Key))
	s.SetSay(func(msg string) { fmt.Fprintf(h.env.Stderr, "firewatch: %s\n", msg) })
	return s
}

// say is a line in the hub's log (stderr before the hub is made, and in
// tests).
func (h *Hub) say(line string) {
	if h.log != nil {
		h.log(line)
		return
	}
	fmt.Fprintln(h.env.Stderr, line)
}

// leaseLog says in the hub's log each lease of a run the hub takes, loses,
// takes over, follows or releases; not the renewals (one a poll or so).
func (h *Hub) leaseLog(format string, args ...any) {
	if h.log == nil {
		return
	}
	line := fmt.Sprintf(format, args...)
	if strings.Contains(line, " renewed") {
		return
	}
	h.log(line)
}

// followAll starts --follow-processing.
func (h *Hub) followAll() {
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.followProcessing(h.ctx)
	}()
}

// Open is the run's follower, made and started when nobody follows it yet;
// release must be called once the caller no longer watches it. Making one
// (its first requests, its sink in the hub's store) holds up only those
// who open the same run.
func (h *Hub) Open(jobID string) (*Run, func()) {
	h.mu.Lock()
	r := h.runs[jobID]
	made := r == nil
	if made {
		r = &Run{ID: jobID, ready: make(chan struct{})}
		h.runs[jobID] = r
	}
	r.refs++
	h.mu.Unlock()
	if made {
		h.start(r)
		close(r.ready)
	}
	<-r.ready
	var once sync.Once
	return r, func() { once.Do(func() { h.release(r) }) }
}

// release drops one watcher of r; the last one stops its follower (a run
// nobody watches is not polled).
func (h *Hub) release(r *Run) {
	h.mu.Lock()
	r.refs--
	last := r.refs == 0
	if last {
		delete(h.runs, r.ID)
	}
	h.mu.Unlock()
	if last {
		r.F.Stop()
	}
}

// Watchers is how many watch the run, and how many subscribe to its
// follower (0, 0 when the hub does not follow it).
func (h *Hub) Watchers(id string) (refs, subs int) {
	h.mu.Lock()
	r := h.runs[id]
	if r != nil {
		refs = r.refs
	}
	h.mu.Unlock()
	if r != nil {
		subs = r.F.Subscribers()
	}
	return refs, subs
}

// Followed is the run's follower when the hub follows it, else nil.
func (h *Hub) Followed(jobID string) *Run {
	h.mu.Lock()
	r := h.runs[jobID]
	h.mu.Unlock()
	if r == nil {
		return nil
	}
	select {
	case <-r.ready:
		return r
	default:
		return nil // still being made
	}
}

// start makes r's follower and starts it.
func (h *Hub) start(r *Run) {
	jobID := r.ID
	// A panic in the run's follower (its source, its tracker) ends that
	// follower, whose viewers are shown it, and is a line of the hub's
	// log: the hub and its sessions go on.
	fctx := panics.WithHandler(h.ctx, func(e *panics.Error) {
		line := fmt.Sprintf("panic in the hub's follower of run %s: %v at %s; its viewers are told, the hub goes on", jobID, e.Value, e.Where())
		if h.log != nil {
			h.log(line)
			return
		}
		fmt.Fprintln(h.env.Stderr, "firewatch hub: "+h.env.Secrets.Redact(line))
	})
	run := follow.NewRun()
	run.Store.SetSecrets(h.env.Secrets)
	run.Store.SetRunID(jobID)
	run.NewTracker()
	// The client's waits (and the archive's failures) are said to every
	// viewer of the run, once its follower is made.
	var said atomic.Pointer[follow.Follower]
	say := func(line string) {
		if f := said.Load(); f != nil {
			f.Say(line)
		}
	}
	client, err := h.env.Client(h.svc, say)
	if err == nil && h.meter != nil {
		client = client.WithPacer(h.meter)
	}
	if err != nil { // the service was checked when the hub started
		r.F = follow.NewFollower(follow.SourceFunc(func(context.Context, func(poller.Update)) error { return err }), &run)
		r.F.Start(fctx)
		return
	}
	// The run's polls through its lease in the archive: polled once by
	// every firewatch that shares it (this hub, another hub, a teammate's
	// watch), each take, loss and takeover in the hub's log.
	sink, reopen := h.sink(jobID)
	feed := archiving.NewFeed(archiving.SharedConfig{Sink: sink, Reopen: reopen, Client: client, Service: h.svc.BaseURL, JobID: jobID,
		Watch: poller.WatchOptions{Interval: h.interval}, Label: "hub", Logf: h.leaseLog, Say: say,
		Visible: func(ctx context.Context) error {
			_, err := client.Status(ctx, jobID)
			return err
		}})
	sh := feed.Shared
	r.Client, r.Controls = client, sh
	if h.notify != nil {
		// The run's moments are decided by whoever merges into it: its
		// follower.
		run.Saw = h.notify.N.Follow(jobID, run.Store).Saw
	}
	r.F = follow.NewFollower(WithRequest(client, sink, h.env.Secrets, h.svc.BaseURL, jobID, h.actorsOf, feed.Source), &run)
	said.Store(r.F)
	r.F.Start(fctx)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		<-r.F.Done()
		sink := sh.Sink() // opened later when the archive was away at first
		if sink == nil {
			return
		}
		var ended bool
		r.F.View(func(run *follow.Run) { ended = run.Store.Run().Outcome != "" })
		sink.KeepStatus(h.ctx, client, nil, ended, nil)
		// The follower has ended: nothing merges into the run any more.
		if _, failed, lastErr := sink.Close(&run); failed {
			fmt.Fprintf(h.env.Stderr, "firewatch hub: archiving run %s failed: %s\n", jobID, lastErr)
		}
	}()
}

// WithRequest is src after the service was asked what the run was asked
// (its prompt and model, for the screens and the archive), on the source's
// goroutine: nobody waits for it. actors (nil: none) is who acted on the
// run through a hub.
func WithRequest(client *poller.Client, sink *archiving.Sink, secrets *text.Secrets, baseURL, jobID string, actors func(string) model.Actors, src follow.Source) follow.Source {
	return follow.SourceFunc(func(ctx context.Context, send func(poller.Update)) error {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		l, err := client.RunLookup(rctx, jobID)
		cancel()
		req := model.Request{}
		var th model.Thread
		if err == nil {
			req = l.Request
			if l.Status != nil {
				th = model.Thread{ID: l.Status.ThreadID, Turn: l.Status.ThreadTurn}
			}
			sink.KeepLookup(archiving.ServiceRecord(secrets, baseURL, jobID, l))
		}
		var acts model.Actors
		if held := sink.Held(ctx); held != nil {
			req = req.Merge(archiving.RequestOf(held))
			acts = archiving.ActorsOf(held)
			if th.ID == "" {
				th = model.Thread{ID: held.ThreadID, Turn: held.ThreadTurn}
			}
		}
		// Who acted through this hub, when the archive is off or its
		// write has not landed yet (actors nil: no hub).
		if actors != nil {
			acts = acts.Merge(actors(jobID))
		}
		if !req.IsZero() || !acts.IsZero() || th.ID != "" {
			send(poller.Update{Request: &req, Actors: &acts, Thread: &th})
		}
		return src.Follow(ctx, send)
	})
}

// Acted is told every action made through the hub: a change to a run the
// hub follows is said in every viewer's footer ("alice cancelled the
// run"), and who cancelled or started a run is kept in its archive record.
func (h *Hub) Acted(act hub.Action) {
	if act.Kind != "run" || act.Err != nil || act.ID == "" {
		return
	}
	// "alice via hub prod", "alice (mcp:claude-code) via hub prod": the
	// archive's text columns carry the hub's name (model.ActorVia).
	who := model.ActorVia(act.Actor(), h.name)
	var acts model.Actors
	switch act.What {
	case "cancel":
		acts.CancelledBy = who
	case "start":
		acts.StartedBy = who
	}
	if !acts.IsZero() {
		h.keepActors(act.ID, acts)
	}
	if r := h.Followed(act.ID); r != nil {
		// Not on the caller's goroutine: a screen's p or l acts from its
		// Update, which holds the follower's read lock, and Say takes the
		// write lock.
		go r.F.Acted(acts, act.Actor()+" "+act.Done()+" the run")
	}
	if acts.IsZero() {
		return
	}
	r := &archive.Run{CancelRequested: acts.CancelledBy != "", CancelledBy: acts.CancelledBy, StartedBy: acts.StartedBy}
	// Not on the screen's goroutine: the archive may wait for a lock.
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.keepActor(act.ID, r)
	}()
}

// maxActors bounds the actions the hub remembers in memory (the archive
// keeps them all).
const maxActors = 1000

// keepActors remembers who acted on a run through this hub, for its
// follower made later (a run started from the runs screen, then opened)
// and its runs screens, with or without an archive.
func (h *Hub) keepActors(jobID string, a model.Actors) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.actors == nil {
		h.actors = map[string]model.Actors{}
	}
	if _, ok := h.actors[jobID]; !ok && len(h.actors) >= maxActors {
		for k := range h.actors { // any one: the archive has it too
			delete(h.actors, k)
			break
		}
	}
	h.actors[jobID] = h.actors[jobID].Merge(a)
}

// actorsOf is who acted on the run through this hub, as far as it
// remembers.
func (h *Hub) actorsOf(jobID string) model.Actors {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.actors[jobID]
}

// keepActor writes who acted into the run's archive record (Merge keeps
// the first name); a failure is said in the hub's log.
func (h *Hub) keepActor(jobID string, r *archive.Run) {
	st, err := h.Store(), h.why
	if st == nil && err == nil {
		return // off
	}
	if st == nil && errors.Is(err, archive.ErrUnavailable) {
		st, err = h.lateStore(h.ctx)
	}
	if err == nil && st != nil {
		ctx, cancel := context.WithTimeout(h.ctx, archiving.WriteTimeout)
		defer cancel()
		err = st.PutRun(ctx, archiving.WithID(r, h.svc.BaseURL, jobID))
	}
	if err != nil {
		fmt.Fprintf(h.env.Stderr, "firewatch hub: who acted on run %s is not archived: %s\n", jobID, h.env.Secrets.Redact(err.Error()))
	}
}

// Stop ends every follower (the hub is stopping) and waits for their
// archives to be written.
func (h *Hub) Stop() {
	h.cancel() // --follow-processing opens no more
	h.mu.Lock()
	rs := make([]*Run, 0, len(h.runs))
	for _, r := range h.runs {
		rs = append(rs, r)
	}
	h.mu.Unlock()
	for _, r := range rs {
		<-r.ready
		r.F.Stop()
	}
	h.wg.Wait()
	if h.notify != nil {
		h.notify.Close()
	}
	h.complete.Stop()
	h.list.team.Release(context.Background())
	if h.st != nil {
		h.st.Close()
	}
	h.lateMu.Lock()
	defer h.lateMu.Unlock()
	if h.late != nil {
		h.late.Close()
		h.late = nil
	}
}

// followProcessing follows every processing run of the team the list shows
// (hub --follow-processing), each until it ends, looking every ListTTL
// until ctx ends. A run is followed once: one that ended (or was refused)
// is not followed again.
func (h *Hub) followProcessing(ctx context.Context) {
	seen := map[string]bool{}
	t := time.NewTicker(ListTTL + time.Second)
	defer t.Stop()
	for {
		l, err := h.list.latest(ctx)
		if err != nil && ctx.Err() == nil {
			fmt.Fprintf(h.env.Stderr, "firewatch hub: --follow-processing: the team's runs: %s\n", h.env.Secrets.Redact(err.Error()))
		}
		if l != nil {
			for _, ri := range l.Runs {
				if seen[ri.ID] || !runs.StatusMatches("processing", ri.Status) || poller.ValidateJobID(ri.ID) != nil {
					continue
				}
				seen[ri.ID] = true
				r, release := h.Open(ri.ID)
				h.wg.Add(1)
				go func() {
					defer h.wg.Done()
					select {
					case <-r.F.Done():
					case <-ctx.Done():
					}
					release()
				}()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
