package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/hub"
	"github.com/firewatch/firewatch/internal/panics"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui"
	"github.com/firewatch/firewatch/ui/runs"
)

// The hub follows each run once, however many of its sessions watch it:
// hubFollows holds one follow.Follower per run, made when the first session
// opens the run and stopped when the last one leaves it, whose screens
// subscribe to it (ui.Config.Shared). The follower's client says its waits
// (a 429, a 5xx) to every viewer of the run, the run is written to the
// archive once, by the follower's sink, and its notifications are decided
// once (hub_notify.go). The team's list is polled once for every session's
// runs screen too (hubList).

// hubFollows is the hub's followers, one per run watched.
type hubFollows struct {
	a        *app // the hub's own: its retry policy, secrets, log and archive
	svc      service
	ctx      context.Context // the hub's: every follower ends with it
	cancel   context.CancelFunc
	interval time.Duration
	name     string // the hub's name (--name), recorded with each action
	list     *hubList
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
	notify *hubNotify // the team's channel (nil: none)
	// log is a line for the hub's log (nil: none, in tests).
	log func(line string)

	mu   sync.Mutex
	runs map[string]*hubRun
	// actors is who acted on a run through this hub (keepActors).
	actors map[string]model.Actors
	wg     sync.WaitGroup // the followers' endings (their archive written)
}

// hubRun is one run the hub follows.
type hubRun struct {
	id       string
	f        *follow.Follower
	client   *poller.Client
	controls controls      // pause, poll now, live view of the run's one poll
	refs     int           // sessions watching (and the hub itself, --follow-processing)
	ready    chan struct{} // closed once f is started
}

func newHubFollows(ctx context.Context, a *app, svc service, interval time.Duration) (*hubFollows, error) {
	c, err := a.client(svc, nil, func(string) {}) // the list's waits: the screens say their own errors
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &hubFollows{a: a, svc: svc, ctx: ctx, cancel: cancel, interval: interval, runs: map[string]*hubRun{},
		list: &hubList{c: c.WithRetry(poller.Retry{Tries: 1}), ttl: hubListTTL}}
	h.list.newest = h.list.c
	h.openArchive()
	return h, nil
}

// openArchive opens the hub's archive, kept for its life: the team's list
// is asked through its lease there (one list for this hub, other hubs and
// runs screens on the archive), each take and loss in the hub's log.
// Without one, the hub asks for the list on its own.
func (h *hubFollows) openArchive() {
	if _, err := h.a.archiveDSN(); err != nil {
		return
	}
	st, err := h.a.openArchive(h.ctx, keepArchive, &lockNote{quiet: true})
	if err != nil {
		h.why = err
		fmt.Fprintf(h.a.stderr, "firewatch hub: the team's list is not shared through the archive: %s\n", h.a.secrets.Redact(err.Error()))
		return
	}
	if st == nil {
		return // off
	}
	h.st = st
	holder, team := archive.NewHolder("hub"), archive.TeamOf(h.svc.key)
	// The hub's live requests (its list, its followers) are counted into
	// the team's budget without waiting: the background work of every
	// firewatch on the archive, the hub's own too, takes what they leave.
	h.meter = archiving.NewLiveMeter(h.ctx, st, h.svc.baseURL, team, rateLimit())
	if h.meter != nil {
		h.list.c = h.list.c.WithPacer(h.meter)
		h.list.newest = h.list.c
	}
	h.list.team = archiving.NewTeamList(h.list.c, st, h.a.secrets, h.svc.baseURL, team, holder, runs.DefaultInterval, h.leaseLog)
	h.list.newest = h.list.team
	// The completions are background work: paced by the team's budget
	// (the list, live, is not).
	paced := h.list.c.WithPacer(archiving.NewBudget(st, h.svc.baseURL, team, rateLimit(), nil))
	cp := &archiving.Completer{C: paced, St: st, Secrets: h.a.secrets, Service: h.svc.baseURL, Team: team, Holder: holder}
	h.complete = archiving.NewBackground(h.ctx, cp, func(err error) {
		h.say("firewatch hub: a run the runs screens list could not be archived: " + h.a.secrets.Redact(archiveErr(err).Error()))
	})
}

// store is the hub's one store, nil without one (yet).
func (h *hubFollows) store() archive.Store {
	if h.st != nil {
		return h.st
	}
	h.lateMu.Lock()
	defer h.lateMu.Unlock()
	return h.late
}

// lateStore opens the hub's store when it could not be opened at the
// start (PostgreSQL down), once for every follower that asks: (nil, nil)
// when the archive is off.
func (h *hubFollows) lateStore(ctx context.Context) (archive.Store, error) {
	h.lateOpen.Lock()
	defer h.lateOpen.Unlock()
	if st := h.store(); st != nil {
		return st, nil
	}
	st, err := h.a.openArchive(ctx, keepArchive, &lockNote{quiet: true})
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

// kept is the archive a follower keeps its run in: the hub's one store,
// which the follower's sink borrows (the hub closes it).
func (h *hubFollows) kept() *keptArchive {
	k := &keptArchive{lock: &lockNote{}, borrowed: true, reopen: h.lateStore}
	if k.st = h.store(); k.st == nil {
		k.why = h.why
	}
	return k
}

// say is a line in the hub's log (stderr before the hub is made, and in
// tests).
func (h *hubFollows) say(line string) {
	if h.log != nil {
		h.log(line)
		return
	}
	fmt.Fprintln(h.a.stderr, line)
}

// leaseLog says in the hub's log each lease of a run the hub takes, loses,
// takes over, follows or releases; not the renewals (one a poll or so).
func (h *hubFollows) leaseLog(format string, args ...any) {
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
func (h *hubFollows) followAll() {
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.followProcessing(h.ctx)
	}()
}

// open is the run's follower, made and started when nobody follows it yet;
// release must be called once the caller no longer watches it. Making one
// (its first requests, its sink in the hub's store) holds up only those
// who open the same run.
func (h *hubFollows) open(jobID string) (*hubRun, func()) {
	h.mu.Lock()
	r := h.runs[jobID]
	made := r == nil
	if made {
		r = &hubRun{id: jobID, ready: make(chan struct{})}
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
func (h *hubFollows) release(r *hubRun) {
	h.mu.Lock()
	r.refs--
	last := r.refs == 0
	if last {
		delete(h.runs, r.id)
	}
	h.mu.Unlock()
	if last {
		r.f.Stop()
	}
}

// followed is the run's follower when the hub follows it, else nil.
func (h *hubFollows) followed(jobID string) *hubRun {
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
func (h *hubFollows) start(r *hubRun) {
	jobID := r.id
	// A panic in the run's follower (its source, its tracker) ends that
	// follower, whose viewers are shown it, and is a line of the hub's
	// log: the hub and its sessions go on.
	fctx := panics.WithHandler(h.ctx, func(e *panics.Error) {
		line := fmt.Sprintf("panic in the hub's follower of run %s: %v at %s; its viewers are told, the hub goes on", jobID, e.Value, e.Where())
		if h.log != nil {
			h.log(line)
			return
		}
		fmt.Fprintln(h.a.stderr, "firewatch hub: "+h.a.secrets.Redact(line))
	})
	run := follow.NewRun()
	run.Store.SetSecrets(h.a.secrets)
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
	client, err := h.a.client(h.svc, nil, say)
	if err == nil && h.meter != nil {
		client = client.WithPacer(h.meter)
	}
	if err != nil { // the service was checked when the hub started
		r.f = follow.NewFollower(follow.SourceFunc(func(context.Context, func(poller.Update)) error { return err }), &run)
		r.f.Start(fctx)
		return
	}
	// The run's polls through its lease in the archive: polled once by
	// every firewatch that shares it (this hub, another hub, a teammate's
	// watch), each take, loss and takeover in the hub's log.
	sink, reopen := h.a.archiveWatch(h.ctx, sinkTo{stderr: h.a.stderr}, h.svc, jobID, h.kept())
	feed := h.a.newFeed(sharedRun{svc: h.svc, client: client, jobID: jobID, label: "hub", say: say, logf: h.leaseLog,
		watch: poller.WatchOptions{Interval: h.interval}}, sink, reopen)
	sh, src := feed.Shared, feed.Source
	r.client, r.controls = client, sh
	h.notify.follow(jobID, &run)
	r.f = follow.NewFollower(withRequest(client, sink, h.a, h.svc, jobID, h.actorsOf, src), &run)
	said.Store(r.f)
	r.f.Start(fctx)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		<-r.f.Done()
		sink := sh.Sink() // opened later when the archive was away at first
		if sink == nil {
			return
		}
		var ended bool
		r.f.View(func(run *follow.Run) { ended = run.Store.Run().Outcome != "" })
		sink.KeepStatus(h.ctx, client, nil, ended, nil)
		// The follower has ended: nothing merges into the run any more.
		if _, failed, lastErr := sink.Close(&run); failed {
			fmt.Fprintf(h.a.stderr, "firewatch hub: archiving run %s failed: %s\n", jobID, lastErr)
		}
	}()
}

// withRequest is src after the service was asked what the run was asked
// (its prompt and model, for the screens and the archive), on the source's
// goroutine: nobody waits for it.
func withRequest(client *poller.Client, sink *archiving.Sink, a *app, svc service, jobID string, actors func(string) model.Actors, src follow.Source) follow.Source {
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
			sink.KeepLookup(archiving.ServiceRecord(a.secrets, svc.baseURL, jobID, l))
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

// acted is told every action made through the hub: a change to a run the
// hub follows is said in every viewer's footer ("alice cancelled the
// run"), and who cancelled or started a run is kept in its archive record.
func (h *hubFollows) acted(act hub.Action) {
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
	if r := h.followed(act.ID); r != nil {
		// Not on the caller's goroutine: a screen's p or l acts from its
		// Update, which holds the follower's read lock, and Say takes the
		// write lock.
		go r.f.Acted(acts, act.Actor()+" "+act.Done()+" the run")
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
func (h *hubFollows) keepActors(jobID string, a model.Actors) {
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
func (h *hubFollows) actorsOf(jobID string) model.Actors {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.actors[jobID]
}

// keepActor writes who acted into the run's archive record (Merge keeps
// the first name); a failure is said in the hub's log.
func (h *hubFollows) keepActor(jobID string, r *archive.Run) {
	st, err := h.store(), h.why
	if st == nil && err == nil {
		return // off
	}
	if st == nil && errors.Is(err, archive.ErrUnavailable) {
		st, err = h.lateStore(h.ctx)
	}
	if err == nil && st != nil {
		ctx, cancel := context.WithTimeout(h.ctx, archiving.WriteTimeout)
		defer cancel()
		err = st.PutRun(ctx, archiving.WithID(r, h.svc.baseURL, jobID))
	}
	if err != nil {
		fmt.Fprintf(h.a.stderr, "firewatch hub: who acted on run %s is not archived: %s\n", jobID, h.a.secrets.Redact(err.Error()))
	}
}

// stop ends every follower (the hub is stopping) and waits for their
// archives to be written.
func (h *hubFollows) stop() {
	h.cancel() // --follow-processing opens no more
	h.mu.Lock()
	rs := make([]*hubRun, 0, len(h.runs))
	for _, r := range h.runs {
		rs = append(rs, r)
	}
	h.mu.Unlock()
	for _, r := range rs {
		<-r.ready
		r.f.Stop()
	}
	h.wg.Wait()
	h.notify.close()
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

// watchShared shows the hub's follower of jobID on the session's terminal
// until the person leaves it; outcome is the run's, "" when it has not
// finished.
func (a *app) watchShared(ctx context.Context, w *watchSession, jobID string) (outcome string, err error) {
	r, release := a.hub.follows.open(jobID)
	defer release()
	cfg := ui.Config{JobID: jobID, Shared: r.f, NoColor: !w.Color, ASCII: w.Opts.ASCII, Mouse: w.Opts.Mouse,
		BackToList: true, Terminal: a.hub.terminal(), ReadOnly: a.hub.readOnlyText(), PollReadOnly: a.hub.pollReadOnly(),
		RerunOf: w.RerunOf}
	cfg.Person, cfg.Role = a.hub.person()
	if r.client != nil {
		cfg.Backend = a.hub.backend(&hubBackend{r: r, h: a.hub}, jobID)
		if w.Start != nil {
			cfg.Start = w.Start.StartAgent
		}
	}
	res, err := ui.Run(ctx, cfg)
	w.Back, w.Interrupted, w.Next = res.Back, res.Interrupted, res
	r.f.View(func(run *follow.Run) {
		if st := run.Store.Run(); st.State == model.StateFinished {
			outcome = string(st.Outcome)
		}
	})
	return outcome, err
}

// hubBackend is what a shared run's screen may ask: the run's one client
// and poll. Pausing and live view change them for every viewer, and are
// told to the hub like a cancel.
type hubBackend struct {
	r *hubRun
	h *hubSession
}

func (b *hubBackend) Snapshot(ctx context.Context, snapshotID string) (string, error) {
	s, err := b.r.client.Snapshot(ctx, b.r.id, snapshotID)
	if err != nil {
		return "", err
	}
	return s.Content, nil
}

func (b *hubBackend) Cancel(ctx context.Context) error { return b.r.client.Cancel(ctx, b.r.id) }

func (b *hubBackend) SetPaused(p bool) {
	if b.r.controls == nil {
		return
	}
	b.r.controls.SetPaused(p)
	b.tell(map[bool]string{true: "pause", false: "resume"}[p])
}

// tell tells the hub of a change to the run's poll.
func (b *hubBackend) tell(what string) {
	if b.h.tells() {
		b.h.did("", what, "run", b.r.id, nil)
	}
}

func (b *hubBackend) PollNow() {
	if b.r.controls != nil {
		b.r.controls.PollNow()
	}
}

func (b *hubBackend) SetLiveView(on bool) {
	if b.r.controls == nil {
		return
	}
	b.r.controls.SetLiveView(on)
	b.tell(map[bool]string{true: "live view on", false: "live view off"}[on])
}

// hubListTTL is how long the team's list, its token balance and its active
// crawls, once asked, answer every session's runs screen: a little less
// than the screens' refresh, so that the list is asked once a refresh
// however many screens refresh.
const hubListTTL = runs.DefaultInterval - time.Second

// hubList is the team's list polled once for every session's runs screen:
// the newest page, the token balance and the active crawls are asked by
// one request at a time, whose answer serves every screen for ttl.
type hubList struct {
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

// over is s, the session's runs service, with the list's newest page, the
// balance and the crawls the hub's one.
func (l *hubList) over(s runs.Service) runs.Service { return &hubListed{Service: s, l: l} }

// latest is the newest page of the team's runs.
func (l *hubList) latest(ctx context.Context) (*poller.RunList, error) {
	rl, err := l.first.get(ctx, l.ttl, func(ctx context.Context) (*poller.RunList, error) { return l.newest.Runs(ctx, time.Time{}) })
	if rl != nil { // each screen keeps its own copy of the rows
		cp := *rl
		cp.Runs = slices.Clone(rl.Runs)
		rl = &cp
	}
	return rl, err
}

type hubListed struct {
	runs.Service // the session's own: details, cancel, start, older pages
	l            *hubList
}

func (s *hubListed) Runs(ctx context.Context, before time.Time) (*poller.RunList, error) {
	if !before.IsZero() {
		return s.Service.Runs(ctx, before)
	}
	return s.l.latest(ctx)
}

// Start passes the start's thread and turn on (archiving.StartOn).
func (s *hubListed) Start(ctx context.Context, req poller.AgentRequest) (poller.Started, error) {
	return archiving.StartOn(ctx, s.Service, req)
}

func (s *hubListed) TokenUsage(ctx context.Context) (*poller.TokenUsage, error) {
	return s.l.tokens.get(ctx, s.l.ttl, s.l.c.TokenUsage)
}

// UsageHistory is the hub's one answer for its sessions' team tabs.
func (s *hubListed) UsageHistory(ctx context.Context, timeRange string, byKey bool) (*poller.UsageHistory, error) {
	if timeRange != "month" || byKey {
		return s.l.c.UsageHistory(ctx, timeRange, byKey)
	}
	return s.l.history.get(ctx, max(s.l.ttl, time.Minute), func(ctx context.Context) (*poller.UsageHistory, error) {
		return s.l.c.UsageHistory(ctx, "month", false)
	})
}

func (s *hubListed) ActiveCrawls(ctx context.Context) ([]poller.Crawl, error) {
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

// hubRequestTimeout bounds a request made for every session: no one
// session's context decides when it ends.
const hubRequestTimeout = 20 * time.Second

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
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), hubRequestTimeout)
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
