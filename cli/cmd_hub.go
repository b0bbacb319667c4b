package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/hub"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// firewatch hub: the team's runs screen over SSH (package hub), with the
// team's key held here. This file is its flags and wiring; what a session
// runs is hub_commands.go (without a terminal) and hubScreens (with one).

type hubOptions struct {
	Listen string
	// Name is the hub's name, recorded with each action made through it
	// ("cancelled by alice via hub prod"); default the machine's hostname.
	Name           string
	APIURL         string
	KeyFile        string
	AuthorizedKeys string
	Operators      string
	HostKey        string
	MaxSessions    int
	// MaxPersonSessions is one person's share of MaxSessions (0: a
	// quarter of it); MaxStartups bounds the connections logging in.
	MaxPersonSessions int
	MaxStartups       int
	IdleTimeout       time.Duration
	// Interval is how often the hub polls a run someone watches; a
	// session's commands poll no faster.
	Interval time.Duration
	// Notify is the team's channel: --notify-command, --notify-url,
	// --notify-on (no --notify: the hub has no terminal of its own).
	Notify           notifyOptions
	FollowProcessing bool
}

// hubStopGrace is how long the sessions have to end once the hub is told
// to stop (SIGTERM, SIGHUP, Ctrl-C) before their connections are closed.
const hubStopGrace = 10 * time.Second

func (a *app) hubCmd() *cobra.Command {
	o := &hubOptions{}
	cmd := &cobra.Command{
		Use:   "hub",
		Short: "Serve the team's runs screen over SSH, holding the team's key",
		Long: `Serve firewatch to the team over SSH: whoever logs in with a listed key sees
the runs screen (ssh -p 2222 HOST), as firewatch alone shows it, in their
own terminal, or runs one command that only reads (ssh -p 2222 HOST runs -o
json): runs, watch, history, report and result, with the same output modes
and exit codes as here. Nobody needs a Firecrawl key but the hub.

--authorized-keys lists the viewers and --operators those who may also cancel
and start runs: OpenSSH authorized_keys files, read again at every login, the
key's comment being the person's name. Passwords are never asked. The host key
is made on first start (--host-key; its fingerprint is printed). SIGTERM or
SIGHUP tells every session the hub is stopping and exits 0 once they are gone,
or after 10 s. One line per login, logout, refusal and action goes to stderr.

However many sessions watch a run, the hub polls it once (and the team's
list once), archives it once, and says a cancel or pause in every viewer's
footer with who made it (and the run's record, with the hub's --name:
"cancelled by alice via hub prod"). --notify-url and --notify-command tell the team's
channel each moment of every run the hub follows, once (docs/notify.md);
--follow-processing follows every processing run, watched or not.
--interval is how often the hub polls a run (2s); a session's commands poll
no faster, and at that interval unless they ask for a slower one.
See docs/hub.md for what the hub trusts and what it refuses.`,
		Example: `  FIRECRAWL_API_KEY=fc-... firewatch hub --authorized-keys team.keys --operators ops.keys
  firewatch hub --listen 0.0.0.0:2222 --key-file /etc/firewatch/key --authorized-keys team.keys
  ssh -p 2222 hub.example.com
  ssh -p 2222 hub.example.com watch $JOB -o json --summary -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Notify.check(cmd.Flags()); err != nil {
				return runE(err)
			}
			return runE(a.serveHub(cmd.Context(), o))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Listen, "listen", "127.0.0.1:2222", "address to listen on (a public one is your choice)")
	f.StringVar(&o.Name, "name", "", "the hub's `NAME`, recorded with who cancelled or started a run through it (\"alice via hub NAME\"; default the machine's hostname)")
	f.StringVar(&o.APIURL, "api-url", "", "service base URL (default $FIRECRAWL_API_URL, else https://api.firecrawl.dev)")
	f.StringVar(&o.KeyFile, "key-file", "", "read the team's API key from `FILE` (mode 0600), instead of $FIRECRAWL_API_KEY")
	f.StringVar(&o.AuthorizedKeys, "authorized-keys", "", "viewers: an OpenSSH authorized_keys `FILE`, the comment of each key its person's name")
	f.StringVar(&o.Operators, "operators", "", "operators, who may also cancel and start runs: an authorized_keys `FILE`")
	f.StringVar(&o.HostKey, "host-key", "", "the host key `FILE`, made (ed25519) when missing (default: the data folder's firewatch/hub_ed25519)")
	f.IntVar(&o.MaxSessions, "max-sessions", hub.DefaultMaxSessions, "sessions open at once; more are refused")
	f.IntVar(&o.MaxPersonSessions, "max-person-sessions", 0, "sessions one person (one key) may have open at once (default a quarter of --max-sessions, at least 1)")
	f.IntVar(&o.MaxStartups, "max-startups", hub.DefaultMaxStartups, "connections that have not logged in yet, at once; past it the oldest is closed to make room")
	f.DurationVar(&o.IdleTimeout, "idle-timeout", hub.DefaultIdleTimeout, "end a terminal session after this long without a key")
	f.DurationVar(&o.Interval, "interval", defaultInterval, "time between the hub's polls of a run someone watches (at least 100ms); a session's commands poll no faster")
	o.Notify.registerChannel(f, "")
	f.BoolVar(&o.FollowProcessing, "follow-processing", false, "follow every processing run of the team, watched or not (once each), for the notifications and the archive")
	return cmd
}

// serveHub runs the hub until ctx ends (a signal), then stops it.
func (a *app) serveHub(ctx context.Context, o *hubOptions) error {
	// The followers outlive the signal: the sessions watching them end first.
	fctx, stopFollows := context.WithCancel(context.WithoutCancel(ctx))
	defer stopFollows()
	h, follows, err := a.newHub(fctx, o)
	if err != nil {
		return err
	}
	// The followers end once the sessions have, their archives written.
	defer follows.stop()
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return badUsage("--listen %s: %v", o.Listen, err)
	}
	port := "2222"
	if _, p, err := net.SplitHostPort(ln.Addr().String()); err == nil {
		port = p
	}
	fmt.Fprintf(a.stderr, "firewatch hub: listening on %s (ssh -p %s HOST); host key %s\n", ln.Addr(), port, h.Fingerprint())
	done := make(chan error, 1)
	go func() { done <- h.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintf(a.stderr, "firewatch hub: stopping; the sessions have %s to end\n", hubStopGrace)
	sctx, cancel := context.WithTimeout(context.Background(), hubStopGrace)
	defer cancel()
	if err := h.Shutdown(sctx); err != nil {
		fmt.Fprintf(a.stderr, "firewatch hub: %v\n", err)
	}
	<-done
	return nil
}

// newHub checks the flags, reads the key, the host key and the people's
// files, and makes the hub.
func (a *app) newHub(ctx context.Context, o *hubOptions) (*hub.Hub, *hubFollows, error) {
	if o.MaxSessions < 1 {
		return nil, nil, badUsage("--max-sessions %d: it must be at least 1", o.MaxSessions)
	}
	if o.MaxPersonSessions < 0 || o.MaxPersonSessions > o.MaxSessions {
		return nil, nil, badUsage("--max-person-sessions %d: it must be between 1 and --max-sessions (%d)", o.MaxPersonSessions, o.MaxSessions)
	}
	if o.MaxStartups < 1 {
		return nil, nil, badUsage("--max-startups %d: it must be at least 1", o.MaxStartups)
	}
	if o.IdleTimeout < time.Second {
		return nil, nil, badUsage("--idle-timeout %s: it must be at least 1s", o.IdleTimeout)
	}
	if err := checkInterval(o.Interval); err != nil {
		return nil, nil, err
	}
	name, err := hubName(o.Name)
	if err != nil {
		return nil, nil, err
	}
	people := hub.People{Viewers: o.AuthorizedKeys, Operators: o.Operators}
	warnings, err := people.Check()
	if err != nil {
		return nil, nil, asUsage(err)
	}
	for _, w := range warnings {
		fmt.Fprintf(a.stderr, "firewatch hub: %s\n", w)
	}
	key, err := hubKey(o.KeyFile)
	if err != nil {
		return nil, nil, err
	}
	svc := service{baseURL: poller.ResolveBaseURL(o.APIURL), key: key}
	if err := a.use(svc); err != nil {
		return nil, nil, err
	}
	path := o.HostKey
	if path == "" {
		db, err := archive.DefaultPath()
		if err != nil {
			return nil, nil, fmt.Errorf("no data folder for the host key (give --host-key): %w", err)
		}
		path = filepath.Join(filepath.Dir(db), "hub_ed25519")
	}
	signer, made, err := hub.HostKey(path)
	if err != nil {
		return nil, nil, asUsage(err)
	}
	if made {
		fmt.Fprintf(a.stderr, "firewatch hub: made the host key %s\n", path)
	}
	// One pool of connections for every request the hub makes: its
	// followers', its list's and its sessions'.
	a.httpClient = &http.Client{Transport: poller.NewTransport(hubIdleConns)}
	follows, err := newHubFollows(ctx, a, svc, o.Interval)
	if err != nil {
		return nil, nil, err
	}
	follows.name = name
	fmt.Fprintf(a.stderr, "firewatch hub: this hub is %q: who cancels or starts a run through it is recorded \"via hub %s\"\n", name, name)
	if follows.notify, err = a.newHubNotify(&o.Notify, follows.st, svc, follows.say); err != nil {
		return nil, nil, err
	}
	hubFollowsMade(follows)
	if o.FollowProcessing {
		follows.followAll()
	}
	h, err := hub.New(hub.Config{HostKey: signer, People: people, MaxSessions: o.MaxSessions, IdleTimeout: o.IdleTimeout,
		MaxPersonSessions: o.MaxPersonSessions, MaxStartups: o.MaxStartups,
		Screens: a.hubScreens(svc, follows), Command: a.hubCommandOf(svc, o.Interval, name), Log: a.stderr, Secrets: a.secrets,
		OnAction: follows.acted})
	if err == nil {
		follows.log = func(line string) { h.Logf("%s", line) }
		follows.keepArchive()
	}
	return h, follows, err
}

// hubIdleConns is how many idle connections to the service the hub keeps
// for its followers and sessions.
const hubIdleConns = 32

// hubFollowsMade is told the hub's followers once made (tests look in).
var hubFollowsMade = func(*hubFollows) {}

// hubSessionMade is told every session's hubSession once made (tests call
// the services its screens get).
var hubSessionMade = func(*hubSession) {}

// hubKey is the team's key: --key-file's, which only its owner may read
// (as ssh asks of a private key), else $FIRECRAWL_API_KEY.
func hubKey(file string) (string, error) {
	if file == "" {
		if k := resolveKey(""); k != "" {
			return k, nil
		}
		return "", badUsage("no API key: set FIRECRAWL_API_KEY or give --key-file FILE (mode 0600)")
	}
	f, err := os.Open(file)
	if err != nil {
		return "", badUsage("--key-file: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", badUsage("--key-file: %v", err)
	}
	if !fi.Mode().IsRegular() {
		return "", badUsage("--key-file %s is not a regular file", file)
	}
	if m := fi.Mode().Perm(); m&0o077 != 0 {
		return "", badUsage("--key-file %s can be read or written by others (mode %#o), as ssh refuses a private key: chmod 600 %s", file, m, file)
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", badUsage("--key-file: %v", err)
	}
	k := strings.TrimSpace(string(b))
	if k == "" || strings.ContainsAny(k, " \t\r\n") {
		return "", badUsage("--key-file %s: it must hold the key alone, on one line", file)
	}
	return k, nil
}

// hubScreens is what a session with a terminal is shown: the runs screen
// (firewatch runs) on its terminal, enter watching a run, as firewatch alone
// does. The runs it shows are the hub's followers, one per run, and its
// list the hub's one (hub_follow.go).
func (a *app) hubScreens(svc service, follows *hubFollows) hub.Screens {
	archiveFlag := a.archiveFlag
	return func(ctx context.Context, s *hub.Session) int {
		ctx, stop := hubContext(ctx)
		defer stop()
		h := &hubSession{svc: svc, archive: archiveFlag, term: s.Term, readOnly: s.ReadOnly(), allow: s.Allow, did: s.DidThrough,
			who: s.Person.Name, name: follows.name, follows: follows, http: a.httpClient}
		hubSessionMade(h)
		return executeFor(ctx, []string{"runs"}, s.Stdin, s.Stdout, s.Stderr, a.retry, h)
	}
}

// hubCommandOf runs the command of a session without a terminal.
func (a *app) hubCommandOf(svc service, interval time.Duration, name string) hub.Command {
	archiveFlag := a.archiveFlag
	return func(ctx context.Context, s *hub.Session) int {
		h := &hubSession{svc: svc, archive: archiveFlag, readOnly: s.ReadOnly(), allow: s.Allow, did: s.DidThrough, who: s.Person.Name, name: name,
			http: a.httpClient, interval: interval}
		hubSessionMade(h)
		return hubCommand(ctx, s.Args, s.Stdin, s.Stdout, s.Stderr, a.retry, h)
	}
}

// hubName is the hub's name from --name, else the machine's hostname
// (model.HubName: letters, digits, '.', '-', '_', at most 63 bytes), else
// "hub".
func hubName(flag string) (string, error) {
	if flag != "" {
		n := model.HubName(flag)
		if n == "" {
			return "", badUsage("--name %q: it needs a letter or digit (letters, digits, '.', '-' and '_' are kept)", text.Sanitize(flag))
		}
		return n, nil
	}
	host, _ := os.Hostname()
	if n := model.HubName(host); n != "" {
		return n, nil
	}
	return "hub", nil
}
