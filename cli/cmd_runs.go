package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/cli/internal/runlist"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/notify"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/ui/runs"
)

// firewatch runs: the team's runs (GET /v2/agent). On a terminal the runs
// screen; --output plain (an aligned table) or json (one line per run, the
// service's list item as it was sent, with firewatch's "outcome" added)
// for scripts.

// runsOptions are the flags of runs besides the watch's.
type runsOptions struct {
	Status string
	Limit  int
}

// runStatuses are the list's status filters.
var runStatuses = []string{"all", "processing", "completed", "failed"}

func (a *app) runsCommand() *cobra.Command {
	o := &watchOptions{}
	ro := &runsOptions{}
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "The team's agent runs: a list to pick one from (also: firewatch with no arguments)",
		Long: `List the team's agent runs, newest first (processing ones first on a
terminal). On a terminal it opens the runs screen: enter watches the selected
run, esc there comes back to the list (q quits). With --output plain or json it prints the
list for scripts: plain is an aligned table, json one line per run (the
service's list item as it was sent, with firewatch's "outcome" added last).
--limit pages through the list until that many runs (matching --status) are
printed.

The service reports a cancelled or credit-limited run as failed. Where the
archive knows how a run ended (firewatch watched or cancelled it), plain's
STATUS says so (cancelled, credit_limit_reached), and json's "outcome" is
that word; otherwise "outcome" is the service's status as an outcome
(completed: succeeded, failed: failed), and null while the run is
processing. "status" is always the service's, untouched.

The watch flags (--interval, --live-view, --mouse...) apply to the runs
watched from the screen.`,
		Example: `  firewatch runs
  firewatch runs --output plain --status processing
  firewatch runs -o json --limit 100 | jq -r 'select(.outcome=="failed") | .id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.runs(cmd, o, ro)) },
	}
	f := cmd.Flags()
	f.StringVar(&ro.Status, "status", "all", "only runs with this status: "+strings.Join(runStatuses, ", ")+" (any other value is matched as it is)")
	f.IntVar(&ro.Limit, "limit", poller.ListPageSize, "plain and JSON output: print at most this many runs, paging through the list")
	_ = cmd.RegisterFlagCompletionFunc("status", cobra.FixedCompletions(runStatuses, cobra.ShellCompDirectiveNoFileComp))
	o.register(cmd, flagsConnection|flagsPolling|flagsOutput|flagsNotify)
	return cmd
}

// connect resolves the service of o's flags and makes its client; no key
// is a usage error (no request).
func (a *app) connect(o *watchOptions) (*poller.Client, service, error) {
	svc, err := a.service(o.APIURL, o.APIKey)
	if err != nil {
		return nil, svc, err
	}
	c, err := a.client(svc, nil, nil)
	return c, svc, err
}

func (a *app) runs(cmd *cobra.Command, o *watchOptions, ro *runsOptions) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	if ro.Limit < 1 {
		return badUsage("--limit %d: it must be at least 1", ro.Limit)
	}
	ro.Status = strings.ToLower(strings.TrimSpace(ro.Status))
	if ro.Status == "" {
		return badUsage("--status is empty: use one of %s", strings.Join(runStatuses, ", "))
	}
	termOut, _ := a.stdoutTerminal()
	if o.Output == OutputTUI || (o.Output == OutputAuto && termOut) {
		return a.runsScreen(cmd, o, ro.Status)
	}
	c, svc, err := a.connect(o)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	mark, closeArchive := a.knownOutcomes(ctx, svc)
	defer closeArchive()
	p := &runlist.Print{Client: c, Stdout: a.print, Stderr: a.stderr, Secrets: a.secrets, Status: ro.Status, Limit: ro.Limit, JSON: o.Output == OutputJSON, Mark: mark}
	return p.Run(ctx)
}

// knownOutcomes opens the archive, when there is one, for mark to add to
// the service's runs the outcome it holds for them (a run cancelled
// through firewatch, which the service reports as failed); without one
// mark does nothing.
func (a *app) knownOutcomes(ctx context.Context, svc service) (mark func([]poller.RunInfo), closer func()) {
	nop := func([]poller.RunInfo) {}
	if _, err := a.archiveDSN(); err != nil {
		return nop, func() {}
	}
	st, err := a.openArchive(ctx, keepArchive, &lockNote{quiet: true})
	if err != nil {
		fmt.Fprintf(a.stderr, "firewatch: the runs show the service's status only: %s\n", a.secrets.Redact(err.Error()))
		return nop, func() {}
	}
	if st == nil {
		return nop, func() {} // off
	}
	return func(l []poller.RunInfo) {
		// Not read: the service's status alone, as without an archive.
		_ = archiving.MarkKnown(ctx, st, svc.baseURL, l)
	}, func() { st.Close() }
}

// collectRuns pages through the list until limit runs keep (nil: all) or
// the list ends (runlist.Collect).
func collectRuns(ctx context.Context, a *app, c *poller.Client, limit, maxPages int, keep func(*poller.RunInfo) bool) ([]poller.RunInfo, error) {
	return runlist.Collect(ctx, a.stderr, c, limit, maxPages, keep)
}

// maxIDCells is the widest id printed in a table.
const maxIDCells = runlist.MaxIDCells

// latestPages is how far watch --latest and team look for processing runs:
// they are the newest ones, and 100 runs is far more than any team has
// running at once.
const latestPages = 5

// onTerminal reports whether firewatch talks to a person: stdin and
// stdout are terminals.
func (a *app) onTerminal() bool {
	out, _ := isTerminal(a.stdout)
	in := false
	if f, ok := a.stdin.(*os.File); ok {
		in, _ = isTerminal(f)
	}
	return out && in
}

// runsScreen opens the runs screen; enter watches the chosen run in the
// terminal UI with the watch flags, and leaving it (q) comes back to the
// list with the selection kept.
func (a *app) runsScreen(cmd *cobra.Command, o *watchOptions, status string) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	c, svc, err := a.connect(o)
	if err != nil {
		return err
	}
	return a.serviceRunsLoop(cmd, o, status, c, svc)
}

// runsScreenOf is what a runs screen lists and how it opens a run: all
// that differs between the service's screen (runs, demo --history) and the
// archive's (history on a terminal). The loop, runsLoop, is one.
type runsScreenOf struct {
	// status is the list's first filter.
	status string
	// list is the screen's service: the live runs then the archived
	// ones, or the archive's alone.
	list runs.Service
	// svc is the live service (a compare, a crawl of the team tab, the
	// lineage of a start); the archive's screen has none.
	svc service
	// starts are the runs started from the list (n, R, F), said when the
	// screen gives the terminal back; nil: the screen starts none, and a
	// run's screen offers no start either.
	starts *startSaying
	// teamList is given up while a run is watched (nil: none).
	teamList *archiving.TeamList
	// open shows the chosen run on w, returning how it ended when that
	// is known otherwise than from w's store ("" else).
	open func(ctx context.Context, w *watchSession, id string) (outcome string, err error)
}

// serviceRunsLoop is the runs screen of the service svc, its archived
// runs after the live ones, until the user quits.
func (a *app) serviceRunsLoop(cmd *cobra.Command, o *watchOptions, status string, c *poller.Client, svc service) error {
	ctx := cmd.Context()
	// The team's moments are asked from the screen's start, not only once
	// a run is opened.
	if o.Notify.on.Team != nil || o.Notify.on.TeamProjected {
		ns, err := a.startNotify(&o.Notify, func() (*notify.ArchiveClaims, string) { return a.openClaims(svc) })
		if err != nil {
			return err
		}
		a.checkTeam(ns, svc)
	}
	// The screen waits on its own, and says so on screen: its client
	// asks once; archived runs follow the live ones (cmd_history.go).
	quiet := c.WithRetry(poller.Retry{Tries: 1})
	list, teamList, closeArchive := a.runsWithArchive(ctx, quiet, svc)
	defer closeArchive()
	starts := &startSaying{Service: list}
	return a.runsLoop(cmd, o, runsScreenOf{
		status: status, list: a.hub.RunsService(starts), svc: svc, starts: starts, teamList: teamList,
		open: func(ctx context.Context, w *watchSession, id string) (string, error) {
			if as, ok := list.(*archiving.Listing); ok && as.ArchivedOnly(id) {
				return "", a.showArchivedID(ctx, w, as, id)
			}
			if a.hub.Shares() {
				return a.watchShared(ctx, w, id) // the hub's one follower of the run
			}
			// The screen's store is its watches' too: one for the process.
			lo := liveOptions{label: "runs"}
			if as, ok := list.(*archiving.Listing); ok {
				lo.archive = &keptArchive{st: as.Store(), borrowed: true, lock: &lockNote{}}
			}
			return "", a.watchLive(ctx, w, svc, id, lo)
		},
	})
}

// runsLoop shows the runs screen s until the user quits, opening each run
// they choose.
func (a *app) runsLoop(cmd *cobra.Command, o *watchOptions, s runsScreenOf) error {
	ctx := cmd.Context()
	person, role := a.hub.Person()
	m := runs.New(runs.Config{Service: s.list, Status: s.status, ASCII: o.ASCII || a.sessionASCII(),
		NoColor: o.NoColor || a.noColorEnv(), Terminal: a.hub.Terminal(), ReadOnly: a.hub.ReadOnly(), Person: person, Role: role, HubName: a.hub.HubName()})
	// R and F on a run's screen start through the runs screen's service
	// (the same record of the start, the same hub's check).
	var screen *screenStarts
	if s.starts != nil {
		screen = &screenStarts{start: s.list.StartAgent}
	}
	// skipList: the run's screen ended with a run to watch next (R, F) or
	// = (the compare screen): the list is not shown between.
	skipList := false
	for {
		var err error
		if !skipList {
			err = runs.Run(ctx, m, runs.RunOptions{Input: a.stdin, Output: a.stdout})
		}
		skipList = false
		// A run n started is said once the screen has given the terminal
		// back (stderr is that terminal), whatever comes next; the debug
		// log of its watch has it too.
		startedID := s.starts.take()
		if startedID != "" {
			a.started("run", startedID, nil)
		}
		// Not shown while a run is watched: another runs screen asks for
		// the team's list meanwhile.
		s.teamList.Release(ctx)
		if err != nil || m.Interrupted {
			return cmp.Or(err, errInterrupted)
		}
		if m.ChosenCrawl != "" {
			// Enter on an active crawl (team tab): its screen; esc comes back.
			if back, err := a.crawlFromTeam(ctx, s.svc, o, m.ChosenCrawl, m.ChosenCrawlURL); err != nil || !back {
				return err
			}
			m.ChosenCrawl = ""
			continue
		}
		if pair := m.ChosenCompare; pair[0] != "" {
			// = after a rerun: the compare screen of the two, then the list.
			m.ChosenCompare = [2]string{}
			c, err := a.comparison(ctx, pair[0], pair[1], nil, s.svc.baseURL, s.svc.key)
			if err == nil {
				err = a.compareScreen(ctx, o, c, nil)
			}
			if ctx.Err() != nil || errors.Is(err, errInterrupted) {
				return cmp.Or(context.Cause(ctx), err)
			}
			if err != nil {
				m.Flash("compare: " + a.secrets.Redact(err.Error()))
			}
			continue
		}
		rerunOf, changed := m.RerunOf, m.RerunChanged
		m.RerunOf, m.RerunChanged = "", nil
		if req := s.starts.request(); startedID != "" && (rerunOf != "" || req.ThreadID != "") {
			// R and F: the archive keeps the request sent and the lineage.
			seed := archiving.SeedOf(&req)
			seed.RerunOf, seed.RerunChanged = rerunOf, changed
			a.archiveSeed(ctx, s.svc.baseURL, startedID, seed)
		}
		if m.Chosen == "" {
			return nil
		}
		wo := *o
		wo.Output = OutputTUI
		w, cleanup, err := a.newSession(cmd, &wo)
		if err != nil {
			return err
		}
		if startedID != "" {
			w.Debug.Printf("started run %s", startedID)
		}
		w.BackToList = true
		if screen != nil {
			w.Start = screen
		}
		if rerunOf != "" && startedID == m.Chosen {
			w.RerunOf = rerunOf // = on its screen, once it ends
		}
		outcome, err := s.open(ctx, w, m.Chosen)
		cleanup()
		if t := w.Store.Thread(); t.ID != "" {
			m.NoteThread(m.Chosen, t.ID, t.Turn) // grouped with its thread's turns
		}
		if r := w.Store.Run(); r.State == model.StateFinished {
			outcome = string(r.Outcome)
		}
		if outcome != "" {
			m.SetOutcome(m.Chosen, outcome) // a cancel shows as one
			if rerunOf != "" && startedID == m.Chosen {
				m.OfferCompare(rerunOf, m.Chosen)
			}
		}
		if nx := w.Next; ctx.Err() == nil && nx.Started != "" {
			// R or F on the run's screen: the new run is watched next,
			// its lineage kept as the list's R and F keep it.
			m.Chosen, m.RerunOf, m.RerunChanged = nx.Started, nx.StartedRerunOf, nx.StartedChanged
			skipList = true
			continue
		} else if ctx.Err() == nil && nx.Compare && w.RerunOf != "" {
			m.ChosenCompare = [2]string{w.RerunOf, m.Chosen}
			skipList = true
			continue
		}
		if ctx.Err() != nil || !w.Back {
			if w.Interrupted {
				return errInterrupted // Ctrl-C in the run; q leaves with 0
			}
			// Interrupted, or q in the run: firewatch ends. The watched
			// run's exit code is for watch; leaving the list is 0.
			if ctx.Err() != nil || err != nil && !said(err) {
				return err
			}
			return nil
		}
	}
}

// demoRuns is demo --history on a terminal: the runs screen of the
// in-process simulator.
func (a *app) demoRuns(cmd *cobra.Command, o *watchOptions, srv *sim.Server) error {
	svc := service{baseURL: srv.URL, key: srv.Key}
	if err := a.use(svc); err != nil {
		return err
	}
	c, err := a.client(svc, nil, nil)
	if err != nil {
		return err
	}
	return a.serviceRunsLoop(cmd, o, "all", c, svc)
}

// firstScreen is firewatch with no arguments on a terminal: the runs
// screen, or, without a key, the help and how to get further.
func (a *app) firstScreen(cmd *cobra.Command, o *watchOptions) error {
	if !haveKey(o.APIKey) {
		return a.noKeyHelp(cmd)
	}
	return a.runsScreen(cmd, o, "all")
}

// noKeyHelp is firewatch alone on a terminal without a key: the help, then
// the way further last, just above the prompt, where it is read (before
// the help, it scrolled off the top with it).
func (a *app) noKeyHelp(cmd *cobra.Command) error {
	if err := cmd.Help(); err != nil {
		return err
	}
	fmt.Fprint(a.stderr, "\nfirewatch: set FIRECRAWL_API_KEY to see your team's runs here, or try: firewatch demo --history 40\n")
	return nil
}

// startSaying is the runs screen's service with its starts (n) kept for
// started.go's rule: the id of a run it started is taken by the shell and
// said; a start that failed in a way that may have started one says so
// in the error the screen shows.
type startSaying struct {
	runs.Service
	mu      sync.Mutex
	started string
	req     poller.AgentRequest // the started run's request
}

// UsageHistory is the wrapped service's (the team tab's projection): a
// wrapper that embeds runs.Service hides every method the interface does
// not name.
func (s *startSaying) UsageHistory(ctx context.Context, timeRange string, byKey bool) (*poller.UsageHistory, error) {
	return usageHistoryOf(ctx, s.Service, timeRange, byKey)
}

// usageHistoryOf asks s for the team's usage history when it gives one,
// else answers as a service without the endpoint does.
func usageHistoryOf(ctx context.Context, s any, timeRange string, byKey bool) (*poller.UsageHistory, error) {
	if h, ok := s.(runs.UsageHistorian); ok {
		return h.UsageHistory(ctx, timeRange, byKey)
	}
	return nil, &poller.Error{Kind: poller.KindNotFound, Status: 404, Op: "usage history"}
}

// request is the last started run's request (none on a nil s).
func (s *startSaying) request() poller.AgentRequest {
	if s == nil {
		return poller.AgentRequest{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.req
}

func (s *startSaying) StartAgent(ctx context.Context, req poller.AgentRequest) (string, error) {
	id, err := s.Service.StartAgent(ctx, req)
	if err != nil {
		if mayHaveStarted(err) {
			return "", &maybeStartedError{what: "run", check: "r (refresh) or firewatch runs", err: err}
		}
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started, s.req = id, req
	return id, nil
}

// take returns the id of the run started since the last take ("" none,
// and always on a nil s).
func (s *startSaying) take() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.started
	s.started = ""
	return id
}
