package hubsvc

import (
	"context"
	"net/http"
	"os"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/hub"
	"github.com/firewatch/firewatch/mcpserver"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui"
	uicrawl "github.com/firewatch/firewatch/ui/crawl"
	"github.com/firewatch/firewatch/ui/remote"
	"github.com/firewatch/firewatch/ui/runs"
)

// Session is what a command run for a hub's SSH session knows of that
// session: the hub's service and key, the only ones it uses; the session's
// terminal (nil for a session without one), which the screens draw on
// instead of the process's; what a viewer is told when they try to change
// a run ("" for an operator); and did, told of every change made, with
// who made it (the hub's log). A nil *Session is no hub: every method
// answers as a command outside one.
type Session struct {
	svc      Service // the hub's service and key
	archive  string  // the hub's --archive ("": its environment's, or the default)
	term     *remote.Terminal
	readOnly string
	// allow is the session's access check (hub.Session.Allow): every
	// service below that changes something asks it first; nil refuses.
	allow    func(what, kind, id string) error
	did      func(client, what, kind, id string, err error) // client: "mcp:claude-code", "" a screen
	who      string                                         // the person's name
	name     string                                         // the hub's name (--name)
	hub      *Hub                                           // the hub's one follower per run and its one list (nil: each session follows its own)
	http     *http.Client                                   // the hub's one pool of connections to the service (nil: the command's own)
	interval time.Duration                                  // the hub's --interval: a command polls no faster
}

// Service is the hub's service and key ("", "" outside a hub).
func (s *Session) Service() Service {
	if s == nil {
		return Service{}
	}
	return s.svc
}

// Archive is the hub's --archive ("": its environment's, or the default).
func (s *Session) Archive() string { return s.archive }

// HTTP is the hub's one pool of connections to the service.
func (s *Session) HTTP() *http.Client { return s.http }

// Shares reports whether the session's screens show the hub's followers.
func (s *Session) Shares() bool { return s != nil && s.hub != nil }

// Hub is the hub's followers and list (nil: not in a hub, or a session
// without a terminal).
func (s *Session) Hub() *Hub {
	if s == nil {
		return nil
	}
	return s.hub
}

// Completions is the hub's one completer of the runs its sessions' runs
// screens list (nil: not in a hub, or no archive).
func (s *Session) Completions() *archiving.Background {
	if !s.Shares() {
		return nil
	}
	return s.hub.complete
}

// Store is the hub's one store (nil: none, or the session does not share
// the hub's followers).
func (s *Session) Store() archive.Store {
	if !s.Shares() {
		return nil
	}
	return s.hub.Store()
}

// pollReadOnly is what p and l say to a viewer of a shared run; "" when
// they may pause its polling or turn its live view on.
func (s *Session) pollReadOnly() string {
	if s.ReadOnly() == "" {
		return ""
	}
	return "only the hub's operators may pause the run's polling or change its live view (" + s.who + " is a viewer)"
}

// Person is who the session is on the hub, for its screens: the name
// from the keys file and its role, "operator" or "viewer" ("", "" outside
// a hub).
func (s *Session) Person() (name, role string) {
	if s == nil {
		return "", ""
	}
	if s.readOnly != "" {
		return s.who, "viewer"
	}
	return s.who, "operator"
}

// HubName is the hub's name (--name), "" outside a hub.
func (s *Session) HubName() string {
	if s == nil {
		return ""
	}
	return s.name
}

// PersonName is the session's person's name ("" outside a hub).
func (s *Session) PersonName() string {
	name, _ := s.Person()
	return name
}

// Terminal is the session's terminal, nil outside a hub or without one.
func (s *Session) Terminal() *remote.Terminal {
	if s == nil {
		return nil
	}
	return s.term
}

// ReadOnly is what c and n say to a viewer; "" when they may.
func (s *Session) ReadOnly() string {
	if s == nil {
		return ""
	}
	return s.readOnly
}

// tells reports whether the changes made are told to a hub.
func (s *Session) tells() bool { return s != nil && s.did != nil }

// may is nil when the session may make a change, else the hub's
// *hub.AccessError (errors.Is hub.ErrForbidden), said in the hub's log.
// The screens' keys only choose what to say (readOnly); this refuses.
func (s *Session) may(what, kind, id string) error {
	if s.allow == nil {
		return &hub.AccessError{What: what, Kind: kind, ID: id}
	}
	return s.allow(what, kind, id)
}

// told tells the hub of a change made, when it is told changes, with the
// client it was made through (firewatch mcp's tools put theirs in ctx).
func (s *Session) told(ctx context.Context, what, kind, id string, err error) {
	if s.tells() {
		s.did(mcpserver.ClientOf(ctx), what, kind, id, err)
	}
}

// WatchShared shows the hub's follower of cfg.JobID on the session's
// terminal until the person leaves it: cfg is the command's (colour, keys,
// a start's service), the rest the hub's. outcome is the run's, "" when
// it has not finished.
func (s *Session) WatchShared(ctx context.Context, cfg ui.Config) (res ui.Result, outcome string, err error) {
	r, release := s.hub.Open(cfg.JobID)
	defer release()
	cfg.Shared, cfg.Terminal, cfg.ReadOnly, cfg.PollReadOnly = r.F, s.Terminal(), s.ReadOnly(), s.pollReadOnly()
	cfg.Person, cfg.Role = s.Person()
	if r.Client != nil {
		cfg.Backend = s.Backend(&SharedBackend{R: r, S: s}, cfg.JobID)
	} else {
		cfg.Start = nil
	}
	res, err = ui.Run(ctx, cfg)
	r.F.View(func(run *follow.Run) {
		if st := run.Store.Run(); st.State == model.StateFinished {
			outcome = string(st.Outcome)
		}
	})
	return res, outcome, err
}

// SharedBackend is what a shared run's screen may ask: the run's one
// client and poll. Pausing and live view change them for every viewer,
// and are told to the hub like a cancel.
type SharedBackend struct {
	R *Run
	S *Session
}

func (b *SharedBackend) Snapshot(ctx context.Context, snapshotID string) (string, error) {
	s, err := b.R.Client.Snapshot(ctx, b.R.ID, snapshotID)
	if err != nil {
		return "", err
	}
	return s.Content, nil
}

func (b *SharedBackend) Cancel(ctx context.Context) error { return b.R.Client.Cancel(ctx, b.R.ID) }

func (b *SharedBackend) SetPaused(p bool) {
	if b.R.Controls == nil {
		return
	}
	b.R.Controls.SetPaused(p)
	b.tell(map[bool]string{true: "pause", false: "resume"}[p])
}

// tell tells the hub of a change to the run's poll.
func (b *SharedBackend) tell(what string) {
	if b.S.tells() {
		b.S.did("", what, "run", b.R.ID, nil)
	}
}

func (b *SharedBackend) PollNow() {
	if b.R.Controls != nil {
		b.R.Controls.PollNow()
	}
}

func (b *SharedBackend) SetLiveView(on bool) {
	if b.R.Controls == nil {
		return
	}
	b.R.Controls.SetLiveView(on)
	b.tell(map[bool]string{true: "live view on", false: "live view off"}[on])
}

// RunsService is the runs screen's service in a hub session: its cancels
// and starts checked against the session's access, and told to the hub
// with who made them.
func (s *Session) RunsService(rs runs.Service) runs.Service {
	if s == nil {
		return rs
	}
	return &toldRuns{Service: rs, s: s}
}

type toldRuns struct {
	runs.Service
	s *Session
}

// UsageHistory asks the service below for the team's usage history when
// it gives one, else answers as a service without the endpoint does.
func (t *toldRuns) UsageHistory(ctx context.Context, timeRange string, byKey bool) (*poller.UsageHistory, error) {
	if h, ok := t.Service.(runs.UsageHistorian); ok {
		return h.UsageHistory(ctx, timeRange, byKey)
	}
	return nil, &poller.Error{Kind: poller.KindNotFound, Status: 404, Op: "usage history"}
}

func (t *toldRuns) Cancel(ctx context.Context, id string) error {
	if err := t.s.may("cancel", "run", id); err != nil {
		return err
	}
	err := t.Service.Cancel(ctx, id)
	t.s.told(ctx, "cancel", "run", id, err)
	return err
}

func (t *toldRuns) StartAgent(ctx context.Context, req poller.AgentRequest) (string, error) {
	if err := t.s.may("start", "run", ""); err != nil {
		return "", err
	}
	id, err := t.Service.StartAgent(ctx, req)
	t.s.told(ctx, "start", "run", id, err)
	return id, err
}

// Backend is the watch screen's backend in a hub session: its cancel,
// pause and live view checked against the session's access (the pause and
// live view of a shared run are every viewer's), its cancel told to the
// hub. PollNow only reads, and is anyone's.
func (s *Session) Backend(b ui.Backend, jobID string) ui.Backend {
	if s == nil || b == nil {
		return b
	}
	return &toldBackend{Backend: b, s: s, id: jobID}
}

type toldBackend struct {
	ui.Backend
	s  *Session
	id string
}

func (t *toldBackend) Cancel(ctx context.Context) error {
	if err := t.s.may("cancel", "run", t.id); err != nil {
		return err
	}
	err := t.Backend.Cancel(ctx)
	t.s.told(ctx, "cancel", "run", t.id, err)
	return err
}

// SetPaused and SetLiveView have no error to return: a refused one does
// nothing but the hub's log line.
func (t *toldBackend) SetPaused(p bool) {
	if t.s.may(map[bool]string{true: "pause", false: "resume"}[p], "run", t.id) != nil {
		return
	}
	t.Backend.SetPaused(p)
}

func (t *toldBackend) SetLiveView(on bool) {
	if t.s.may(map[bool]string{true: "live view on", false: "live view off"}[on], "run", t.id) != nil {
		return
	}
	t.Backend.SetLiveView(on)
}

// CrawlService is the crawl screen's service in a hub session, its
// cancel checked against the session's access and told to the hub.
func (s *Session) CrawlService(cs uicrawl.Service) uicrawl.Service {
	if s == nil {
		return cs
	}
	return &toldCrawl{Service: cs, s: s}
}

type toldCrawl struct {
	uicrawl.Service
	s *Session
}

func (t *toldCrawl) CancelCrawl(ctx context.Context, id string) (string, error) {
	if err := t.s.may("cancel", "crawl", id); err != nil {
		return "", err
	}
	st, err := t.Service.CancelCrawl(ctx, id)
	t.s.told(ctx, "cancel", "crawl", id, err)
	return st, err
}

// Session is a session of h for no one: no terminal, no person, and
// nothing it may change (its screens' services refuse), sharing h's
// followers, list and store.
func (h *Hub) Session() *Session { return &Session{svc: h.svc, name: h.name, hub: h} }

// LookupEnv looks key up in the environment of whoever watches: the
// session's terminal's, else (no terminal, no hub) the process's.
func (s *Session) LookupEnv(key string) (string, bool) {
	if t := s.Terminal(); t != nil {
		return t.LookupEnv(key)
	}
	return os.LookupEnv(key)
}
