package cli

import (
	"context"
	"net/http"
	"os"
	"time"

	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/hub"
	"github.com/firewatch/firewatch/mcpserver"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui"
	uicrawl "github.com/firewatch/firewatch/ui/crawl"
	"github.com/firewatch/firewatch/ui/remote"
	"github.com/firewatch/firewatch/ui/runs"
)

// hubSession is what a command run for a hub's SSH session knows of that
// session (cmd_hub.go): the hub's service and key, the only ones it uses; the session's
// terminal (nil for a session without one), which the screens draw on
// instead of the process's; what a viewer is told when they try to change
// a run ("" for an operator); and did, told of every change made, with
// who made it (the hub's log). Nil everywhere outside a hub.
type hubSession struct {
	svc      service // the hub's service and key
	archive  string  // the hub's --archive ("": its environment's, or the default)
	term     *remote.Terminal
	readOnly string
	// allow is the session's access check (hub.Session.Allow): every
	// service below that changes something asks it first; nil refuses.
	allow    func(what, kind, id string) error
	did      func(client, what, kind, id string, err error) // client: "mcp:claude-code", "" a screen
	who      string                                         // the person's name
	name     string                                         // the hub's name (--name)
	follows  *hubFollows                                    // the hub's one follower per run and its one list (nil: each session follows its own)
	http     *http.Client                                   // the hub's one pool of connections to the service (nil: the command's own)
	interval time.Duration                                  // the hub's --interval: a command polls no faster
}

// shares reports whether the session's screens show the hub's followers.
func (h *hubSession) shares() bool { return h != nil && h.follows != nil }

// completions is the hub's one completer of the runs its sessions' runs
// screens list (nil: not in a hub, or no archive).
func (h *hubSession) completions() *archiving.Background {
	if !h.shares() {
		return nil
	}
	return h.follows.complete
}

// pollReadOnly is what p and l say to a viewer of a shared run; "" when
// they may pause its polling or turn its live view on.
func (h *hubSession) pollReadOnly() string {
	if h.readOnlyText() == "" {
		return ""
	}
	return "only the hub's operators may pause the run's polling or change its live view (" + h.who + " is a viewer)"
}

// person is who the session is on the hub, for its screens: the name
// from the keys file and its role, "operator" or "viewer" ("", "" outside
// a hub).
func (h *hubSession) person() (name, role string) {
	if h == nil {
		return "", ""
	}
	if h.readOnly != "" {
		return h.who, "viewer"
	}
	return h.who, "operator"
}

// hubName is the hub's name (--name), "" outside a hub.
func (h *hubSession) hubName() string {
	if h == nil {
		return ""
	}
	return h.name
}

// personName is the session's person's name ("" outside a hub).
func (h *hubSession) personName() string {
	name, _ := h.person()
	return name
}

// terminal is the session's terminal, nil outside a hub or without one.
func (h *hubSession) terminal() *remote.Terminal {
	if h == nil {
		return nil
	}
	return h.term
}

// readOnlyText is what c and n say to a viewer; "" when they may.
func (h *hubSession) readOnlyText() string {
	if h == nil {
		return ""
	}
	return h.readOnly
}

// baseURLOf is the service a command uses: the hub's in a hub session,
// else the flag's, $FIRECRAWL_API_URL's or the default.
func (a *app) baseURLOf(flag string) string {
	if a.hub != nil && a.hub.svc.baseURL != "" {
		return a.hub.svc.baseURL
	}
	return poller.ResolveBaseURL(flag)
}

// keyOf is the API key a command uses: the hub's in a hub session (no
// flag or variable of the session's can change it), else resolveKey's.
func (a *app) keyOf(flag string) string {
	if a.hub != nil {
		return a.hub.svc.key
	}
	return resolveKey(flag)
}

// stdoutTerminal reports whether stdout is a terminal, and its width: the
// process's own, or a hub session's.
func (a *app) stdoutTerminal() (bool, int) {
	if t := a.hub.terminal(); t != nil {
		w, _ := t.Size()
		return true, w
	}
	return isTerminal(a.stdout)
}

// noColorEnv reports NO_COLOR set or TERM=dumb in the environment of
// whoever watches: the process's, or a hub session's.
func (a *app) noColorEnv() bool {
	lookup := os.LookupEnv
	if t := a.hub.terminal(); t != nil {
		lookup = t.LookupEnv
	}
	return theme.NoColorEnv(lookup)
}

// sessionASCII reports whether a hub session's locale (its LANG, LC_*)
// cannot show UTF-8: its runs and crawl screens are then drawn in ASCII,
// as its watch screen is. Outside a hub --ascii alone decides.
func (a *app) sessionASCII() bool {
	t := a.hub.terminal()
	return t != nil && theme.ASCIIEnv(t.LookupEnv)
}

// tells reports whether the changes made are told to a hub.
func (h *hubSession) tells() bool { return h != nil && h.did != nil }

// may is nil when the session may make a change, else the hub's
// *hub.AccessError (errors.Is hub.ErrForbidden), said in the hub's log.
// The screens' keys only choose what to say (readOnly); this refuses.
func (h *hubSession) may(what, kind, id string) error {
	if h.allow == nil {
		return &hub.AccessError{What: what, Kind: kind, ID: id}
	}
	return h.allow(what, kind, id)
}

// told tells the hub of a change made, when it is told changes, with the
// client it was made through (firewatch mcp's tools put theirs in ctx).
func (h *hubSession) told(ctx context.Context, what, kind, id string, err error) {
	if h.tells() {
		h.did(mcpserver.ClientOf(ctx), what, kind, id, err)
	}
}

// runsService is the runs screen's service in a hub session: its cancels
// and starts checked against the session's access, and told to the hub
// with who made them.
func (h *hubSession) runsService(s runs.Service) runs.Service {
	if h == nil {
		return s
	}
	return &toldRuns{Service: s, h: h}
}

type toldRuns struct {
	runs.Service
	h *hubSession
}

func (t *toldRuns) UsageHistory(ctx context.Context, timeRange string, byKey bool) (*poller.UsageHistory, error) {
	return usageHistoryOf(ctx, t.Service, timeRange, byKey)
}

func (t *toldRuns) Cancel(ctx context.Context, id string) error {
	if err := t.h.may("cancel", "run", id); err != nil {
		return err
	}
	err := t.Service.Cancel(ctx, id)
	t.h.told(ctx, "cancel", "run", id, err)
	return err
}

func (t *toldRuns) StartAgent(ctx context.Context, req poller.AgentRequest) (string, error) {
	if err := t.h.may("start", "run", ""); err != nil {
		return "", err
	}
	id, err := t.Service.StartAgent(ctx, req)
	t.h.told(ctx, "start", "run", id, err)
	return id, err
}

// backend is the watch screen's backend in a hub session: its cancel,
// pause and live view checked against the session's access (the pause and
// live view of a shared run are every viewer's), its cancel told to the
// hub. PollNow only reads, and is anyone's.
func (h *hubSession) backend(b ui.Backend, jobID string) ui.Backend {
	if h == nil || b == nil {
		return b
	}
	return &toldBackend{Backend: b, h: h, id: jobID}
}

type toldBackend struct {
	ui.Backend
	h  *hubSession
	id string
}

func (t *toldBackend) Cancel(ctx context.Context) error {
	if err := t.h.may("cancel", "run", t.id); err != nil {
		return err
	}
	err := t.Backend.Cancel(ctx)
	t.h.told(ctx, "cancel", "run", t.id, err)
	return err
}

// SetPaused and SetLiveView have no error to return: a refused one does
// nothing but the hub's log line.
func (t *toldBackend) SetPaused(p bool) {
	if t.h.may(map[bool]string{true: "pause", false: "resume"}[p], "run", t.id) != nil {
		return
	}
	t.Backend.SetPaused(p)
}

func (t *toldBackend) SetLiveView(on bool) {
	if t.h.may(map[bool]string{true: "live view on", false: "live view off"}[on], "run", t.id) != nil {
		return
	}
	t.Backend.SetLiveView(on)
}

// crawlService is the crawl screen's service in a hub session, its
// cancel checked against the session's access and told to the hub.
func (h *hubSession) crawlService(s uicrawl.Service) uicrawl.Service {
	if h == nil {
		return s
	}
	return &toldCrawl{Service: s, h: h}
}

type toldCrawl struct {
	uicrawl.Service
	h *hubSession
}

func (t *toldCrawl) CancelCrawl(ctx context.Context, id string) (string, error) {
	if err := t.h.may("cancel", "crawl", id); err != nil {
		return "", err
	}
	st, err := t.Service.CancelCrawl(ctx, id)
	t.h.told(ctx, "cancel", "crawl", id, err)
	return st, err
}
