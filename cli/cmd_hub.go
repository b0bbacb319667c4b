package cli

import (
	"context"
	"io"
	"net/http"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/cli/internal/hubsvc"
	"github.com/firewatch/firewatch/notify"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui"
)

// firewatch hub: the team's runs screen over SSH (package hub), with the
// team's key held here. This file is its command and what a command run
// for a session takes from it (a.hub); the hub's product (its followers,
// list, sessions, what a session may run) is cli/internal/hubsvc.

func (a *app) hubCmd() *cobra.Command {
	o, x := &hubsvc.Options{}, &notifyOptions{}
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
			if err := x.check(cmd.Flags()); err != nil {
				return runE(err)
			}
			return runE(a.serveHub(cmd.Context(), o, x))
		},
	}
	o.Register(cmd.Flags(), defaultInterval, func(f *pflag.FlagSet) { x.registerChannel(f, "") })
	return cmd
}

// serveHub runs the hub (package hubsvc) with this invocation's streams,
// secrets and rules, until ctx ends (a signal).
func (a *app) serveHub(ctx context.Context, o *hubsvc.Options, x *notifyOptions) error {
	// One pool of connections for every request the hub makes: its
	// followers', its list's and its sessions'.
	a.httpClient = &http.Client{Transport: poller.NewTransport(hubIdleConns)}
	env := hubsvc.ServeEnv{Env: a.hubEnv(),
		Usage: asUsage, CodeOf: codeOf, CheckInterval: checkInterval,
		Interrupted: func(why string) error { return &interruptedError{Why: why} },
		Key:         func() string { return resolveKey("") },
		Use:         func(s hubsvc.Service) error { return a.use(svcOf(s)) },
		Notify: func(st archive.Store, s hubsvc.Service, say func(string)) (*hubsvc.Notifier, error) {
			return a.newHubNotify(x, st, svcOf(s), say)
		},
		Root: func() *cobra.Command { return (&app{secrets: text.NewSecrets()}).rootCommand() },
		Run: func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, s *hubsvc.Session) int {
			return executeFor(ctx, args, stdin, stdout, stderr, a.retry, s)
		},
		Archive: a.archiveFlag, HTTP: a.httpClient, Made: hubMade, SessionMade: hubSessionMade}
	return hubsvc.Serve(ctx, o, env)
}

// hubEnv is what the hub's followers take of this invocation.
func (a *app) hubEnv() hubsvc.Env {
	return hubsvc.Env{Stderr: a.stderr, Secrets: a.secrets, RateLimit: rateLimit, ArchiveErr: archiveErr, PassErr: passErr,
		Client: func(s hubsvc.Service, say func(string)) (*poller.Client, error) { return a.client(svcOf(s), nil, say) },
		ArchiveOn: func() bool {
			_, err := a.archiveDSN()
			return err == nil
		},
		OpenArchive: func(ctx context.Context) (archive.Store, error) {
			return a.openArchive(ctx, keepArchive, &lockNote{quiet: true})
		}}
}

func svcOf(s hubsvc.Service) service { return service{baseURL: s.BaseURL, key: s.Key} }

// hubIdleConns is how many idle connections to the service the hub keeps
// for its followers and sessions.
const hubIdleConns = 32

// hubMade and hubSessionMade are told the hub and every session once
// made (tests look in).
var (
	hubMade        = func(*hubsvc.Hub) {}
	hubSessionMade = func(*hubsvc.Session) {}
)

// newHubNotify starts the hub's notifier; nil when no sink was asked for.
// Its moments are claimed in the hub's archive st (nil: none), so that
// the hubs and watches sharing it send each once; without one the hub
// decides alone, said once in its log (say).
func (a *app) newHubNotify(x *notifyOptions, st archive.Store, svc service, say func(string)) (*hubsvc.Notifier, error) {
	ns, err := a.startNotify(x, func() (*notify.ArchiveClaims, string) {
		if c := notify.NewArchiveClaims(st, svc.baseURL, svc.key, "hub", false); c != nil {
			return c, ""
		}
		return nil, "the hub has no shared archive"
	})
	if ns == nil || err != nil {
		return nil, err
	}
	// Each moment, and who claimed it, is a line of the hub's log.
	ns.mu.Lock()
	ns.logTo = say
	ns.mu.Unlock()
	if ns.alone != "" {
		say("firewatch hub: notifications are decided by this hub alone (no shared archive): another hub notifying the same channel sends them too")
	}
	a.checkTeam(ns, svc)
	return &hubsvc.Notifier{N: ns.n, Close: func() {
		ns.stopTeam()
		ctx, cancel := context.WithTimeout(context.Background(), notifyFlush)
		defer cancel()
		left, dropped := ns.n.Close(ctx)
		ns.sayLost("firewatch hub", left, dropped, notifyFlush)
	}}, nil
}

// baseURLOf is the service a command uses: the hub's in a hub session,
// else the flag's, $FIRECRAWL_API_URL's or the default.
func (a *app) baseURLOf(flag string) string {
	if u := a.hub.Service().BaseURL; u != "" {
		return u
	}
	return poller.ResolveBaseURL(flag)
}

// keyOf is the API key a command uses: the hub's in a hub session (no
// flag or variable of the session's can change it), else resolveKey's.
func (a *app) keyOf(flag string) string {
	if a.hub != nil {
		return a.hub.Service().Key
	}
	return resolveKey(flag)
}

// stdoutTerminal reports whether stdout is a terminal, and its width: the
// process's own, or a hub session's.
func (a *app) stdoutTerminal() (bool, int) {
	if t := a.hub.Terminal(); t != nil {
		w, _ := t.Size()
		return true, w
	}
	return isTerminal(a.stdout)
}

// noColorEnv reports NO_COLOR set or TERM=dumb in the environment of
// whoever watches: the process's, or a hub session's.
func (a *app) noColorEnv() bool { return theme.NoColorEnv(a.hub.LookupEnv) }

// sessionASCII reports whether a hub session's locale (its LANG, LC_*)
// cannot show UTF-8: its runs and crawl screens are then drawn in ASCII,
// as its watch screen is. Outside a hub --ascii alone decides.
func (a *app) sessionASCII() bool {
	t := a.hub.Terminal()
	return t != nil && theme.ASCIIEnv(t.LookupEnv)
}

// watchShared shows the hub's follower of jobID on the session's terminal
// until the person leaves it; outcome is the run's, "" when it has not
// finished.
func (a *app) watchShared(ctx context.Context, w *watchSession, jobID string) (outcome string, err error) {
	cfg := ui.Config{JobID: jobID, NoColor: !w.Color, ASCII: w.Opts.ASCII, Mouse: w.Opts.Mouse, BackToList: true, RerunOf: w.RerunOf}
	if w.Start != nil {
		cfg.Start = w.Start.StartAgent
	}
	res, outcome, err := a.hub.WatchShared(ctx, cfg)
	w.Back, w.Interrupted, w.Next = res.Back, res.Interrupted, res
	return outcome, err
}
