package hubsvc

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
	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/hub"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// Options are firewatch hub's flags.
type Options struct {
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
	Interval         time.Duration
	FollowProcessing bool
}

// Register adds the flags to f: interval is --interval's default, and
// channel adds the team's notification channel's flags among them.
func (o *Options) Register(f *pflag.FlagSet, interval time.Duration, channel func(*pflag.FlagSet)) {
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
	f.DurationVar(&o.Interval, "interval", interval, "time between the hub's polls of a run someone watches (at least 100ms); a session's commands poll no faster")
	channel(f)
	f.BoolVar(&o.FollowProcessing, "follow-processing", false, "follow every processing run of the team, watched or not (once each), for the notifications and the archive")
}

// ServeEnv is Env with what serving takes from the command layer.
type ServeEnv struct {
	Env
	// Usage marks an error as bad usage (exit 2); CodeOf is an error's
	// exit code; Interrupted is the error of a command ended early.
	Usage       func(error) error
	CodeOf      func(error) int
	Interrupted func(why string) error
	// CheckInterval is --interval's rule; Key is $FIRECRAWL_API_KEY's
	// key; Use checks the service and adds its key to the secrets.
	CheckInterval func(time.Duration) error
	Key           func() string
	Use           func(Service) error
	// Notify starts the team's channel on the hub's store st (nil:
	// none), its lines in the hub's log (say); nil: no channel.
	Notify func(st archive.Store, svc Service, say func(string)) (*Notifier, error)
	// Root is firewatch's root command (what a session may run is read on
	// it); Run runs args for session s on its streams, as Execute would.
	Root func() *cobra.Command
	Run  func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, s *Session) int
	// Archive is the hub's --archive; HTTP the one pool of connections
	// Env.Client's clients share, lent to every session.
	Archive string
	HTTP    *http.Client
	// Made and SessionMade, when set, are told the hub and every session
	// once made (tests look in).
	Made        func(*Hub)
	SessionMade func(*Session)
}

// StopGrace is how long the sessions have to end once the hub is told
// to stop (SIGTERM, SIGHUP, Ctrl-C) before their connections are closed.
const StopGrace = 10 * time.Second

// Serve runs the hub until ctx ends (a signal), then stops it.
func Serve(ctx context.Context, o *Options, env ServeEnv) error {
	// The followers outlive the signal: the sessions watching them end first.
	fctx, stopFollows := context.WithCancel(context.WithoutCancel(ctx))
	defer stopFollows()
	h, follows, err := newHub(fctx, o, env)
	if err != nil {
		return err
	}
	// The followers end once the sessions have, their archives written.
	defer follows.Stop()
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return env.usage("--listen %s: %v", o.Listen, err)
	}
	port := "2222"
	if _, p, err := net.SplitHostPort(ln.Addr().String()); err == nil {
		port = p
	}
	fmt.Fprintf(env.Stderr, "firewatch hub: listening on %s (ssh -p %s HOST); host key %s\n", ln.Addr(), port, h.Fingerprint())
	done := make(chan error, 1)
	go func() { done <- h.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintf(env.Stderr, "firewatch hub: stopping; the sessions have %s to end\n", StopGrace)
	sctx, cancel := context.WithTimeout(context.Background(), StopGrace)
	defer cancel()
	if err := h.Shutdown(sctx); err != nil {
		fmt.Fprintf(env.Stderr, "firewatch hub: %v\n", err)
	}
	<-done
	return nil
}

func (env ServeEnv) usage(format string, args ...any) error {
	return env.Usage(fmt.Errorf(format, args...))
}

// newHub checks the flags, reads the key, the host key and the people's
// files, and makes the hub.
func newHub(ctx context.Context, o *Options, env ServeEnv) (*hub.Hub, *Hub, error) {
	if o.MaxSessions < 1 {
		return nil, nil, env.usage("--max-sessions %d: it must be at least 1", o.MaxSessions)
	}
	if o.MaxPersonSessions < 0 || o.MaxPersonSessions > o.MaxSessions {
		return nil, nil, env.usage("--max-person-sessions %d: it must be between 1 and --max-sessions (%d)", o.MaxPersonSessions, o.MaxSessions)
	}
	if o.MaxStartups < 1 {
		return nil, nil, env.usage("--max-startups %d: it must be at least 1", o.MaxStartups)
	}
	if o.IdleTimeout < time.Second {
		return nil, nil, env.usage("--idle-timeout %s: it must be at least 1s", o.IdleTimeout)
	}
	if err := env.CheckInterval(o.Interval); err != nil {
		return nil, nil, err
	}
	name, err := Name(o.Name, env.Usage)
	if err != nil {
		return nil, nil, err
	}
	people := hub.People{Viewers: o.AuthorizedKeys, Operators: o.Operators}
	warnings, err := people.Check()
	if err != nil {
		return nil, nil, env.Usage(err)
	}
	for _, w := range warnings {
		fmt.Fprintf(env.Stderr, "firewatch hub: %s\n", w)
	}
	key, err := Key(o.KeyFile, env.Key, env.Usage)
	if err != nil {
		return nil, nil, err
	}
	svc := Service{BaseURL: poller.ResolveBaseURL(o.APIURL), Key: key}
	if err := env.Use(svc); err != nil {
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
		return nil, nil, env.Usage(err)
	}
	if made {
		fmt.Fprintf(env.Stderr, "firewatch hub: made the host key %s\n", path)
	}
	follows, err := New(ctx, env.Env, svc, o.Interval)
	if err != nil {
		return nil, nil, err
	}
	follows.name = name
	fmt.Fprintf(env.Stderr, "firewatch hub: this hub is %q: who cancels or starts a run through it is recorded \"via hub %s\"\n", name, name)
	if follows.notify, err = env.Notify(follows.st, svc, follows.say); err != nil {
		return nil, nil, err
	}
	if env.Made != nil {
		env.Made(follows)
	}
	if o.FollowProcessing {
		follows.followAll()
	}
	h, err := hub.New(hub.Config{HostKey: signer, People: people, MaxSessions: o.MaxSessions, IdleTimeout: o.IdleTimeout,
		MaxPersonSessions: o.MaxPersonSessions, MaxStartups: o.MaxStartups,
		Screens: screens(env, svc, follows), Command: command(env, svc, o.Interval, name), Log: env.Stderr, Secrets: env.Secrets,
		OnAction: follows.Acted})
	if err == nil {
		follows.log = func(line string) { h.Logf("%s", line) }
		follows.keepArchive()
	}
	return h, follows, err
}

// screens is what a session with a terminal is shown: the runs screen
// (firewatch runs) on its terminal, enter watching a run, as firewatch alone
// does. The runs it shows are the hub's followers, one per run, and its
// list the hub's one.
func screens(env ServeEnv, svc Service, follows *Hub) hub.Screens {
	return func(ctx context.Context, s *hub.Session) int {
		ctx, stop := Context(ctx, env.Interrupted)
		defer stop()
		h := &Session{svc: svc, archive: env.Archive, term: s.Term, readOnly: s.ReadOnly(), allow: s.Allow, did: s.DidThrough,
			who: s.Person.Name, name: follows.name, hub: follows, http: env.HTTP}
		if env.SessionMade != nil {
			env.SessionMade(h)
		}
		return env.Run(ctx, []string{"runs"}, s.Stdin, s.Stdout, s.Stderr, h)
	}
}

// command runs the command of a session without a terminal, in this
// process, on the session's streams, with the hub's key: what Execute
// would do, once Check allows it. It ends, as an interrupt does (130),
// when ctx does (the session went away, the hub is stopping).
func command(env ServeEnv, svc Service, interval time.Duration, name string) hub.Command {
	return func(ctx context.Context, s *hub.Session) int {
		h := &Session{svc: svc, archive: env.Archive, readOnly: s.ReadOnly(), allow: s.Allow, did: s.DidThrough, who: s.Person.Name, name: name,
			http: env.HTTP, interval: interval}
		if env.SessionMade != nil {
			env.SessionMade(h)
		}
		args, err := Check(env.Root(), env.Usage, s.Args, h.interval)
		if err != nil {
			fmt.Fprintf(s.Stderr, "firewatch hub: %s\n", text.NewSecrets(h.svc.Key).Sanitize(err.Error()))
			return env.CodeOf(err)
		}
		ctx, stop := Context(ctx, env.Interrupted)
		defer stop()
		return env.Run(ctx, args, s.Stdin, s.Stdout, s.Stderr, h)
	}
}

// Key is the team's key: --key-file's, which only its owner may read
// (as ssh asks of a private key), else env's ($FIRECRAWL_API_KEY).
func Key(file string, env func() string, usage func(error) error) (string, error) {
	bad := func(format string, args ...any) error { return usage(fmt.Errorf(format, args...)) }
	if file == "" {
		if k := env(); k != "" {
			return k, nil
		}
		return "", bad("no API key: set FIRECRAWL_API_KEY or give --key-file FILE (mode 0600)")
	}
	f, err := os.Open(file)
	if err != nil {
		return "", bad("--key-file: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", bad("--key-file: %v", err)
	}
	if !fi.Mode().IsRegular() {
		return "", bad("--key-file %s is not a regular file", file)
	}
	if m := fi.Mode().Perm(); m&0o077 != 0 {
		return "", bad("--key-file %s can be read or written by others (mode %#o), as ssh refuses a private key: chmod 600 %s", file, m, file)
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", bad("--key-file: %v", err)
	}
	k := strings.TrimSpace(string(b))
	if k == "" || strings.ContainsAny(k, " \t\r\n") {
		return "", bad("--key-file %s: it must hold the key alone, on one line", file)
	}
	return k, nil
}

// Name is the hub's name from --name, else the machine's hostname
// (model.HubName: letters, digits, '.', '-', '_', at most 63 bytes), else
// "hub".
func Name(flag string, usage func(error) error) (string, error) {
	if flag != "" {
		n := model.HubName(flag)
		if n == "" {
			return "", usage(fmt.Errorf("--name %q: it needs a letter or digit (letters, digits, '.', '-' and '_' are kept)", text.Sanitize(flag)))
		}
		return n, nil
	}
	host, _ := os.Hostname()
	if n := model.HubName(host); n != "" {
		return n, nil
	}
	return "hub", nil
}
