// Package hub is `firewatch hub`: an SSH server, on charm.land/wish, that
// shows the team's runs screen to every session with a terminal and runs
// one command for a session without one, with the team's key held here
// and never sent to anyone.
//
// The hub decides who may log in and what they may do, keeps each session
// to itself (its terminal, its environment, its state: package remote),
// limits what a client may cost and logs one line per login, logout,
// refusal and action. Its files:
//
//   - hub.go: Config, New, Serve, Shutdown; Session (its ReadOnly, Did)
//     and Action, which reaches Config.OnAction once logged.
//   - access.go: the AccessLevel, decided once at login; Session.Allow,
//     which every service of a session that changes something asks
//     (*AccessError, errors.Is ErrForbidden).
//   - session.go: login to logout: the refusal's reasons, a terminal
//     session's remote.Terminal and its resizes, going away and the idle
//     timeout, a command session; a panic on any of the session's
//     goroutines ends that session alone (internal/panics).
//   - people.go: viewers and operators from authorized_keys files read at
//     every login; revoke.go: those files looked at every Config.Recheck
//     while sessions are open (a key removed or demoted ends its sessions;
//     a file that cannot be read keeps its last list); files.go: how they
//     and the host key (hostkey.go) are read (StrictModes' rules, no
//     waiting on a FIFO, bounds on size and time).
//   - limits.go (sessions per address, bounded session requests),
//     startups.go (connections not logged in yet: --max-startups, the
//     login grace), log.go (one sanitised, redacted line per event).
//
// What a session is shown and what a command does are the caller's
// (Config.Screens and Config.Command, from cli): the hub knows nothing of
// runs.
package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/remote"
)

// Screens shows the screens of a session with a terminal (s.Term) until
// the person leaves or ctx ends, and returns the session's exit status.
// What feeds the screens is the caller's (cli follows each run once for
// every session that watches it).
type Screens func(ctx context.Context, s *Session) int

// Command runs the command of a session without a terminal (s.Args, maybe
// none) on s's streams and returns its exit status: the hub passes it on
// as the SSH exit status. Refusing a command is the caller's (exit 2).
type Command func(ctx context.Context, s *Session) int

// Action is a change someone made through the hub: a cancel, a start, a
// pause of a run's polling.
type Action struct {
	Who Person
	// Client is what the person acted through when not a screen:
	// "mcp:claude-code" for firewatch mcp's tools ("" a screen).
	Client string
	What   string // "cancel", "start", "pause", "resume", "live view on", "live view off"
	Kind   string // what it was done to: "run", "crawl"
	ID     string // its id; "" when not known (a start the service refused)
	Err    error  // the service's refusal, nil when it was done
}

// Of is what it was done to: "run 019a...", "a run".
func (a Action) Of() string {
	if a.ID == "" {
		return "a " + a.Kind
	}
	return a.Kind + " " + a.ID
}

// Done is the action in the past tense: "cancelled", "started",
// "paused the polling of"...
func (a Action) Done() string {
	if d := actionDone[a.What]; d != "" {
		return d
	}
	return a.What
}

var actionDone = map[string]string{"cancel": "cancelled", "start": "started", "pause": "paused the polling of",
	"resume": "resumed the polling of", "live view on": "turned live view on for", "live view off": "turned live view off for"}

func (a Action) String() string {
	who := a.Who.String()
	if a.Client != "" {
		who += " through " + a.Client
	}
	if a.Err != nil {
		return fmt.Sprintf("%s tried to %s %s: %v", who, a.What, a.Of(), a.Err)
	}
	return fmt.Sprintf("%s %s %s", who, a.Done(), a.Of())
}

// Actor is who did it as the run's record keeps it: "alice", or "alice
// (mcp:claude-code)" through a client.
func (a Action) Actor() string {
	if a.Client == "" {
		return a.Who.Name
	}
	return a.Who.Name + " (" + a.Client + ")"
}

func (p Person) String() string { return fmt.Sprintf("%s (%s, %s)", p.Name, p.Role, p.Key) }

// Config is how the hub runs.
type Config struct {
	// HostKey is the hub's host key (HostKey makes and reads one).
	HostKey gossh.Signer
	// People says who may log in and what they may do.
	People People
	// MaxSessions bounds the sessions open at once (DefaultMaxSessions).
	MaxSessions int
	// MaxPersonSessions bounds the sessions one person (one key) may
	// hold at once, so that one cannot take all of MaxSessions (default:
	// a quarter of MaxSessions, at least 1).
	MaxPersonSessions int
	// MaxStartups bounds the connections that have not logged in yet
	// (DefaultMaxStartups); LoginGrace is how long one has to start
	// logging in (DefaultLoginGrace). See startups.
	MaxStartups int
	LoginGrace  time.Duration
	// IdleTimeout ends a session with a terminal that sent no key for this
	// long, and (a minute later) a connection with no traffic at all
	// (DefaultIdleTimeout).
	IdleTimeout time.Duration
	// PerIP limits new connections from one address.
	PerIP PerIP
	// HandshakeTimeout bounds the time to log in (DefaultHandshakeTimeout).
	HandshakeTimeout time.Duration
	// Recheck is how often the keys files are looked at while sessions
	// are open (DefaultRecheck): a session whose key was removed, or an
	// operator's whose key is now only a viewer's, is ended once two looks
	// agree (revoke.go: a file saved in place is empty for a moment).
	Recheck time.Duration

	Screens Screens
	Command Command

	// Log gets the log lines (the process's stderr in cli); Secrets redacts
	// them (the team's key among them).
	Log     io.Writer
	Secrets *text.Secrets
	// OnAction, when set, is told every action once it is logged, on the
	// goroutine of the session that made it: the caller says it in every
	// viewer's footer and keeps it in the archive's record of the run.
	OnAction func(Action)
}

// Defaults.
const (
	DefaultMaxSessions      = 50
	DefaultIdleTimeout      = 30 * time.Minute
	DefaultHandshakeTimeout = 30 * time.Second
	DefaultMaxStartups      = 32
	DefaultLoginGrace       = 10 * time.Second
)

// Why a session ended, when the hub ended it (context.Cause of the
// context Screens and Command are given).
var (
	ErrStopping = errors.New("the hub is stopping")
	ErrIdle     = errors.New("no key was pressed for the idle timeout")
	// ErrPanicked: the session's code panicked (the log says where).
	ErrPanicked = errors.New("a panic in the session")
	errGone     = errors.New("the session went away")
)

// ExitPanicked is the exit status of a session a panic ended: firewatch
// itself failed.
const ExitPanicked = 1

// Hub is the SSH server. Make it with New, run it with Serve, end it with
// Shutdown.
type Hub struct {
	cfg     Config
	srv     *ssh.Server
	log     *logger
	limiter *addrLimiter
	pending *startups

	base context.Context // every session's parent; ended by Shutdown
	stop context.CancelCauseFunc

	mu       sync.Mutex
	sessions int
	byKey    map[string]int           // sessions open per person's key
	open     map[*Session]openSession // the sessions recheck may end
	opened   uint64                   // sessions ever put in open
	stopping bool
	drained  chan struct{} // closed once stopping and no session is left
	// ln is what Serve accepts on, closed by Shutdown: the SSH server
	// closes only the listeners it has started tracking, and a Shutdown
	// just after Serve was called would leave this one accepting
	// (https://github.com/gliderlabs/ssh/pull/248, open upstream).
	ln    net.Listener
	conns map[string]*connState
}

// New makes the hub of cfg.
func New(cfg Config) (*Hub, error) {
	if cfg.HostKey == nil {
		return nil, errors.New("hub: no host key")
	}
	if cfg.Screens == nil || cfg.Command == nil {
		return nil, errors.New("hub: Screens and Command are needed")
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if cfg.MaxPersonSessions <= 0 {
		cfg.MaxPersonSessions = max(1, cfg.MaxSessions/4)
	}
	if cfg.MaxStartups <= 0 {
		cfg.MaxStartups = DefaultMaxStartups
	}
	if cfg.LoginGrace <= 0 {
		cfg.LoginGrace = DefaultLoginGrace
	}
	if cfg.Recheck <= 0 {
		cfg.Recheck = DefaultRecheck
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Secrets == nil {
		cfg.Secrets = text.NewSecrets()
	}
	h := &Hub{cfg: cfg, log: &logger{w: cfg.Log, secrets: cfg.Secrets, now: time.Now}, limiter: newAddrLimiter(cfg.PerIP),
		drained: make(chan struct{}), conns: map[string]*connState{}, byKey: map[string]int{}, open: map[*Session]openSession{}}
	h.pending = newStartups(cfg.MaxStartups, cfg.LoginGrace, h.log)
	h.base, h.stop = context.WithCancelCause(context.Background())
	srv, err := wish.NewServer(
		func(s *ssh.Server) error { s.AddHostKey(cfg.HostKey); return nil },
		wish.WithVersion("firewatch-hub"),
		wish.WithPublicKeyAuth(h.publicKey),
		wish.WithMiddleware(func(ssh.Handler) ssh.Handler { return h.serve }),
	)
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	// No password or keyboard-interactive handler: neither is offered, so
	// a client asking for one is refused before anything is shown.
	srv.HandshakeTimeout = cfg.HandshakeTimeout
	// A connection silent both ways (no session, or a command waiting) is
	// dropped a little after a terminal session without keys is told it
	// ends, so that it is told.
	srv.IdleTimeout = cfg.IdleTimeout + time.Minute
	srv.ConnCallback = h.connect
	srv.ConnectionFailedCallback = h.failed
	srv.ConnectionCloseCallback = h.closed
	srv.ServerConfigCallback = h.serverConfig
	srv.ChannelHandlers = map[string]ssh.ChannelHandler{
		"session": func(srv *ssh.Server, conn *gossh.ServerConn, ch gossh.NewChannel, ctx ssh.Context) {
			ssh.DefaultSessionHandler(srv, conn, guardedChannel{ch}, ctx)
		},
	}
	h.srv = srv
	return h, nil
}

// Fingerprint is the host key's SHA256 fingerprint, for people to check
// the first time they connect.
func (h *Hub) Fingerprint() string { return gossh.FingerprintSHA256(h.cfg.HostKey.PublicKey()) }

// Logf writes one line to the hub's log (sanitised, redacted, stamped).
func (h *Hub) Logf(format string, args ...any) { h.log.printf(format, args...) }

// Serve answers the connections ln accepts until Shutdown; it returns nil
// then.
func (h *Hub) Serve(ln net.Listener) error {
	h.mu.Lock()
	if h.stopping {
		h.mu.Unlock()
		ln.Close()
		return nil
	}
	h.ln = ln
	h.mu.Unlock()
	ctx, cancel := context.WithCancel(h.base)
	defer cancel()
	go h.recheck(ctx, h.watchKeys())
	err := h.srv.Serve(ln)
	if h.isStopping() || errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

func (h *Hub) isStopping() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stopping
}

// Shutdown stops taking connections, tells every session the hub is
// stopping (their screens end, giving their terminals back, and each is
// told why), waits for them to end or for ctx, then closes every
// connection left.
func (h *Hub) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	if !h.stopping {
		h.stopping = true
		if h.sessions == 0 {
			close(h.drained)
		}
	}
	n, ln := h.sessions, h.ln
	h.mu.Unlock()
	if ln != nil {
		ln.Close() // no new connection: Serve returns
	}
	if n > 0 {
		h.log.printf("stopping: telling %d session(s)", n)
	}
	h.stop(ErrStopping)
	h.pending.closeAll()
	var err error
	select {
	case <-h.drained:
		// A client closes its connection once its last session ends: a
		// moment for that, rather than "closed by remote host".
		wait, cancel := context.WithTimeout(ctx, time.Second)
		_ = h.srv.Shutdown(wait)
		cancel()
	case <-ctx.Done():
		err = fmt.Errorf("sessions still open when the hub stopped: %w", ctx.Err())
	}
	return errors.Join(err, h.srv.Close())
}

// acquire takes a session's place for p; release gives it back. Refused
// (why says it) when the hub is full or stopping, or p holds their share.
func (h *Hub) acquire(p Person) (release func(), why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.stopping:
		return nil, "the hub is stopping"
	case h.byKey[p.Key] >= h.cfg.MaxPersonSessions:
		return nil, fmt.Sprintf("you already have %d session(s) open, the most one person may (the hub's --max-person-sessions); end one first", h.byKey[p.Key])
	case h.sessions >= h.cfg.MaxSessions:
		return nil, fmt.Sprintf("the hub is full (%d sessions, its --max-sessions); try again later", h.cfg.MaxSessions)
	}
	h.sessions++
	h.byKey[p.Key]++
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.sessions--
		if h.byKey[p.Key]--; h.byKey[p.Key] <= 0 {
			delete(h.byKey, p.Key)
		}
		if h.sessions == 0 && h.stopping {
			select {
			case <-h.drained:
			default:
				close(h.drained)
			}
		}
	}, ""
}

// Sessions is the number of sessions open now.
func (h *Hub) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions
}

// Session is one SSH session as its screens or command see it.
type Session struct {
	Person Person
	// Access is what the session may do, decided once at login from the
	// person's role; Allow checks it.
	Access AccessLevel
	Addr   string // the client's address
	// Term is the session's terminal; nil for a session without one.
	Term *remote.Terminal
	// Args is the command of a session without a terminal (maybe none).
	Args []string
	// The session's streams (stderr is the client's stderr).
	Stdin          io.Reader
	Stdout, Stderr io.Writer

	hub *Hub
}

// ReadOnly is what the screens say to a person who may not change runs
// when they try to (c, n); "" for an operator.
func (s *Session) ReadOnly() string {
	if s.Access >= OperatorAccess {
		return ""
	}
	return "only the hub's operators may cancel or start runs (" + s.Person.Name + " is a viewer)"
}

// Did logs an action made through the session (what: "cancel",
// "start"...; kind and id what it was done to: "run", its id), with who
// made it, and hands it to OnAction.
func (s *Session) Did(what, kind, id string, err error) { s.DidThrough("", what, kind, id, err) }

// DidThrough is Did for an action made through a client other than the
// screens (client: "mcp:claude-code"; "" the screens).
func (s *Session) DidThrough(client, what, kind, id string, err error) {
	a := Action{Who: s.Person, Client: client, What: what, Kind: kind, ID: id, Err: err}
	s.hub.log.printf("action: %s", a)
	if f := s.hub.cfg.OnAction; f != nil {
		f(a)
	}
}
