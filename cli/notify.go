package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/notify"
	"github.com/firewatch/firewatch/poller"
	uicrawl "github.com/firewatch/firewatch/ui/crawl"
)

// Notifications (--notify, --notify-command, --notify-url, --notify-on):
// package notify decides the moments and delivers them. This file
// registers the flags (watch, run, the runs screen, crawl, demo), starts
// the invocation's one notifier, and ties each watch and crawl to it. The
// commands that read what is over (replay, report, export) have none of
// the flags and never notify.

// notifyOptions are the notification flags.
type notifyOptions struct {
	Terminal bool
	Command  string
	URL      string
	On       string

	demo bool // demo: nothing is sent without --notify

	// resolved by check
	on   notify.On
	argv []string
	url  string // --notify-url, else $FIREWATCH_NOTIFY_URL
}

// notifyFlush bounds the wait for the last notifications when firewatch
// ends (a run's end is one, and it comes last); notifyFlushInterrupted
// after Ctrl-C.
const (
	notifyFlush            = notify.WebhookTimeout
	notifyFlushInterrupted = time.Second
)

// register adds the flags; demo is demo's set (nothing without --notify).
func (x *notifyOptions) register(f *pflag.FlagSet, demo bool) {
	x.demo = demo
	with := ""
	if demo {
		with = "; with --notify only"
	}
	f.BoolVar(&x.Terminal, "notify", false, "a desktop notification through the terminal (OSC 9 or 777, through tmux, else a bell) when the run finishes or first needs attention; a full screen only while the terminal is not focused")
	x.registerChannel(f, with)
}

// registerChannel adds the flags of the notifications that go elsewhere
// than the terminal: a command and a webhook, and the moments (the hub's).
func (x *notifyOptions) registerChannel(f *pflag.FlagSet, with string) {
	f.StringVar(&x.Command, "notify-command", "", "run `CMD` for each notification, without a shell: its words (quotes group them), then the text; the rest in FIREWATCH_* variables (docs/notify.md)"+with)
	f.StringVar(&x.URL, "notify-url", "", "POST each notification as JSON to `URL` (Slack and Mattermost incoming webhooks show its text); default $"+notify.EnvURL+with)
	f.StringVar(&x.On, "notify-on", notify.DefaultOn().String(), "the moments to notify, comma-separated: "+notify.OnWords+" (budget: N% of the run's credit cap used; team: N% of the team's plan used in the billing period, or the plan running out before it ends at the last 7 days' rate, once a period)")
}

// check validates the flags (exit 2 on a bad one), before any request.
func (x *notifyOptions) check(f *pflag.FlagSet) error {
	if f.Lookup("notify-on") == nil {
		return nil
	}
	on, err := notify.ParseOn(x.On)
	if err != nil {
		return badUsage("--notify-on %q: %v", describe.OneLine(x.On, 80), err)
	}
	x.on = on
	if x.demo && !x.Terminal && (f.Changed("notify-command") || f.Changed("notify-url")) {
		return badUsage("demo sends notifications only with --notify, to try them: add --notify")
	}
	if f.Changed("notify-command") {
		argv, err := notify.SplitCommand(x.Command)
		if err != nil {
			return badUsage("--notify-command %q: %v", describe.OneLine(x.Command, 80), err)
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			why := "not found"
			if !errors.Is(err, exec.ErrNotFound) {
				why = describe.OneLine(errors.Unwrap(err).Error(), 80)
			}
			return badUsage("--notify-command: %q cannot be run: %s", describe.OneLine(argv[0], 80), why)
		}
		x.argv = argv
	}
	src := "--notify-url"
	x.url = strings.TrimSpace(x.URL)
	switch {
	case f.Changed("notify-url") && x.url == "":
		return badUsage("--notify-url is empty: give the webhook's URL")
	case !f.Changed("notify-url") && (!x.demo || x.Terminal):
		x.url, src = strings.TrimSpace(os.Getenv(notify.EnvURL)), "$"+notify.EnvURL
	}
	if x.url != "" {
		if _, err := notify.CheckURL(x.url); err != nil {
			return badUsage("%s: %v", src, err)
		}
	}
	if f.Changed("notify-on") && !x.active() {
		terminal := "--notify, "
		if f.Lookup("notify") == nil {
			terminal = ""
		}
		return badUsage("--notify-on chooses the moments of %s--notify-command or --notify-url (or $%s): give one of them", terminal, notify.EnvURL)
	}
	return nil
}

// active reports whether a sink was asked for.
func (x *notifyOptions) active() bool { return x.Terminal || len(x.argv) > 0 || x.url != "" }

// notifications is the invocation's notifier: one for all its watches, so
// that the runs screen tells each moment of a run once however often the
// run is opened. What its sinks say and where the terminal's sequences go
// follow the watch on screen now.
type notifications struct {
	n          *notify.Notifier
	term       *notify.Terminal // nil without --notify
	stderr     io.Writer
	stderrTerm bool

	mu       sync.Mutex
	debug    *debugLog
	say      func(string) // the screen's footer; nil: stderr
	deferred []string     // said on a screen: stderr gets them at the end

	logTo  func(string)          // the log lines' place instead of debug (the hub's log)
	claims *notify.ArchiveClaims // where the team's moments are claimed (nil: decided alone)
	alone  string                // why they are decided alone ("": no team sink)

	team teamChecking // the team's balance asked for team:N% and team:projected (notify_team.go)
}

// startNotify starts the notifier on the first call (nil when no sink was
// asked for); later calls return the same one. claims, called when a team
// sink (command, webhook) was asked for, is where its moments are claimed
// for the team (nil, and why not: this process decides alone).
func (a *app) startNotify(x *notifyOptions, claims func() (*notify.ArchiveClaims, string)) (*notifications, error) {
	// A hub's session notifies nobody: the hub's own flags say who hears of
	// the runs it follows, once for every session.
	if a.notify != nil || !x.active() || a.hub != nil {
		return a.notify, nil
	}
	a.secrets.Add(x.url) // a webhook's URL is its token
	ns := &notifications{stderr: a.stderr}
	ns.stderrTerm, _ = isTerminal(a.stderr.w)
	cfg := notify.Config{On: x.on, Command: x.argv, URL: x.url, Secrets: a.secrets, Retry: a.retry,
		UserAgent: "firewatch/" + Version(), Log: ns.log, Say: ns.sayLine, ClaimTTL: claimTTL()}
	if (len(x.argv) > 0 || x.url != "") && claims != nil {
		ns.claims, ns.alone = claims()
		if ns.claims != nil {
			cfg.Claims = ns.claims
		}
	}
	if x.Terminal {
		t, err := notify.NewTerminal(os.Getenv)
		if err != nil {
			return nil, badUsage("%v", err)
		}
		cfg.Terminal, ns.term = t, t
	}
	n, err := notify.New(cfg)
	if err != nil {
		ns.claims.Close()
		return nil, asUsage(err)
	}
	ns.n = n
	a.notify = ns
	return ns, nil
}

// decidedBy says in the debug log how the team's moments are decided:
// claimed in the archive, or by this process alone (and why).
func (ns *notifications) decidedBy(d *debugLog) {
	switch {
	case ns.claims != nil:
		d.Printf("notify: the moments of --notify-url and --notify-command are claimed in the archive: sent once for every firewatch that shares it")
	case ns.alone != "":
		d.Printf("notify: the moments are decided by this process alone (%s): another firewatch notifying the same sink sends them too", ns.alone)
	}
}

// finishNotify waits for the last notifications (bounded) and says what
// was said on a screen, once the terminal is back.
func (a *app) finishNotify(ctx context.Context) {
	ns := a.notify
	if ns == nil {
		return
	}
	ns.setSay(nil)
	wait := notifyFlush
	if errors.Is(context.Cause(ctx), errInterrupted) {
		wait = notifyFlushInterrupted
	}
	ns.stopTeam()
	cctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	left, dropped := ns.n.Close(cctx)
	ns.claims.Close()
	ns.sayDeferred()
	ns.sayLost("firewatch", left, dropped, wait)
}

// sayLost says on stderr the notifications a sink never delivered: those
// given up on at exit, and those it dropped for being behind that no
// later delivered one told.
func (ns *notifications) sayLost(who string, left, dropped int, wait time.Duration) {
	if left > 0 {
		fmt.Fprintf(ns.stderr, "%s: %s not delivered: gave up after %s at exit\n", who, plural(left, "notification", "notifications"), wait)
	}
	if dropped > 0 {
		fmt.Fprintf(ns.stderr, "%s: %s dropped: a sink was too far behind (--debug has each)\n", who, plural(dropped, "notification was", "notifications were"))
	}
}

func (ns *notifications) log(line string) {
	ns.mu.Lock()
	d, to := ns.debug, ns.logTo
	ns.mu.Unlock()
	if to != nil {
		to(line)
		return
	}
	d.Printf("%s", line)
}

// sayLine says a sink's failure or wait: in the screen's footer (and on
// stderr once the screen is gone), else on stderr.
func (ns *notifications) sayLine(msg string) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if ns.say != nil {
		ns.say(msg)
		ns.deferred = append(ns.deferred, msg)
		return
	}
	fmt.Fprintf(ns.stderr, "firewatch: %s\n", msg)
}

// sayDeferred says on stderr what was said on a screen.
func (ns *notifications) sayDeferred() {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	for _, m := range ns.deferred {
		fmt.Fprintf(ns.stderr, "firewatch: %s\n", m)
	}
	ns.deferred = nil
}

func (ns *notifications) setSay(say func(string)) {
	ns.mu.Lock()
	ns.say = say
	ns.mu.Unlock()
}

// toStderr is where the terminal's sequences go without a screen: stderr
// when it is a terminal, nowhere otherwise.
func (ns *notifications) toStderr() func(string) {
	if !ns.stderrTerm {
		return nil
	}
	return func(seq string) { _, _ = io.WriteString(ns.stderr, seq) }
}

// screen points the sinks at a full screen: its footer says, its program
// writes the terminal's sequences (alert.Gate). The returned channel is the
// screen's Alerts.
func (ns *notifications) screen(note func(string)) chan string {
	ns.setSay(note)
	if ns.term == nil {
		return nil
	}
	ch := make(chan string, 8)
	ns.term.SetOutput(func(seq string) {
		select {
		case ch <- seq:
		default: // the screen is behind: a notification is not worth blocking for
		}
	})
	return ch
}

// screenEnded points the sinks back at stderr once a screen has gone.
// Sequences the screen did not write (it quit at the run's end) go to
// stderr unless the terminal was focused; none when another screen comes
// next (back to the runs screen), whose drawing they would race, and what
// a sink says then waits for the end.
func (ns *notifications) screenEnded(ch chan string, focused, another bool) {
	if another {
		ns.setSay(func(string) {}) // kept for the end: stderr is under a screen
	} else {
		ns.setSay(nil)
		ns.sayDeferred() // in order, before what is said from now on
	}
	if ns.term == nil {
		return
	}
	out := ns.toStderr()
	if focused || another {
		out = nil
	}
	ns.term.SetOutput(out)
	for {
		select {
		case seq := <-ch:
			if out != nil {
				out(seq)
			}
		default:
			return
		}
	}
}

// notifyWatch ties one watch to the notifier.
type notifyWatch struct {
	ns     *notifications
	run    *notify.Run
	alerts chan string // the screen's, with the terminal UI
}

// notifyWatch follows w's run for the notifier (nil when none was asked
// for). Called once w knows its run.
func (a *app) notifyWatch(w *watchSession, svc service) (*notifyWatch, error) {
	ns, err := a.startNotify(&w.Opts.Notify, func() (*notify.ArchiveClaims, string) { return a.openClaims(svc) })
	if ns == nil || err != nil {
		return nil, err
	}
	ns.mu.Lock()
	first := ns.debug == nil
	ns.debug = w.Debug
	ns.mu.Unlock()
	if first {
		ns.decidedBy(w.Debug)
	}
	a.checkTeam(ns, svc)
	nw := &notifyWatch{ns: ns, run: ns.n.Follow(w.JobID, w.Store)}
	if w.Output == OutputTUI {
		nw.alerts = ns.screen(w.note)
	} else if ns.term != nil {
		ns.term.SetOutput(ns.toStderr())
	}
	w.Debug.Printf("notify: %s (moments: %s)", nw.sinks(w.Opts.Notify), w.Opts.Notify.on)
	return nw, nil
}

func (nw *notifyWatch) sinks(x notifyOptions) string {
	var s []string
	if x.Terminal {
		s = append(s, "the terminal")
	}
	if len(x.argv) > 0 {
		s = append(s, "--notify-command "+describe.OneLine(x.argv[0], 80))
	}
	if x.url != "" {
		s = append(s, "--notify-url")
	}
	return strings.Join(s, ", ")
}

// saw hands the notifier the run after a merge or a tick (attention.go's
// attend, and the terminal UI's Config.Watched).
func (nw *notifyWatch) saw(t *attention.Tracker, ch []attention.Change) {
	if nw != nil {
		nw.run.Saw(t, ch)
	}
}

// forScreen is what the terminal UI needs: its Alerts and its Watched.
func (nw *notifyWatch) forScreen(w *watchSession) (<-chan string, func([]attention.Change)) {
	if nw == nil {
		return nil, nil
	}
	var alerts <-chan string
	if nw.alerts != nil {
		alerts = nw.alerts
	}
	return alerts, func(ch []attention.Change) { nw.saw(w.Attention, ch) }
}

// screenEnded is the terminal UI's end.
func (nw *notifyWatch) screenEnded(focused, back bool) {
	if nw != nil {
		nw.ns.screenEnded(nw.alerts, focused, back)
	}
}

// notifyingCrawl is a crawl's service with its end told to the notifier:
// completed or cancelled (finished) and failed, for a crawl seen going
// (one already over when watched tells nothing). Crawls have no attention
// items or cap.
type notifyingCrawl struct {
	uicrawl.Service
	ns  *notifications
	url string
}

// notifyCrawl is svc telling its crawl's end to the notifier, when one
// was asked for. On a screen (say is its footer) the terminal's sequences
// go to the returned Alerts, and done is to be called when it has gone;
// without one they go to stderr.
func (a *app) notifyCrawl(svc uicrawl.Service, x *notifyOptions, url string, say func(string), of service) (s uicrawl.Service, alerts <-chan string, done func(focused, another bool), err error) {
	done = func(bool, bool) {}
	ns, err := a.startNotify(x, func() (*notify.ArchiveClaims, string) { return a.openClaims(of) })
	if ns == nil || err != nil {
		return svc, nil, done, err
	}
	a.checkTeam(ns, of)
	if say != nil {
		ch := ns.screen(say)
		if ch != nil {
			alerts = ch
		}
		done = func(focused, another bool) { ns.screenEnded(ch, focused, another) }
	} else if ns.term != nil {
		ns.term.SetOutput(ns.toStderr())
	}
	return notifyingCrawl{Service: svc, ns: ns, url: url}, alerts, done, nil
}

func (c notifyingCrawl) WatchCrawl(ctx context.Context, id string, o poller.CrawlWatchOptions, sink func(poller.CrawlUpdate)) (*poller.CrawlStatus, poller.CrawlWatchStats, error) {
	going, pages := false, 0
	url := c.url
	final, st, err := c.Service.WatchCrawl(ctx, id, o, func(u poller.CrawlUpdate) {
		switch {
		case u.Status != nil && !poller.CrawlTerminal(u.Status.Status):
			going = true
		case u.Doc != nil:
			pages++
			if url == "" {
				url = u.Doc.URL
			}
		}
		sink(u)
	})
	if final != nil && final.Terminal() && going {
		c.ns.n.CrawlEnded(notify.CrawlEnd{ID: id, URL: url, Status: final.Status, Pages: max(pages, final.Completed), Credits: final.CreditsUsed})
	}
	return final, st, err
}
