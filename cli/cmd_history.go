package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/cli/internal/historytext"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/runs"
)

// firewatch history: the archived runs.

type historyOptions struct {
	Since, Status, Grep, Kind string
	Limit                     int
	AllServices               bool
	Thread, Reruns            string // --thread, --reruns: a lineage, in order
}

func (a *app) historyCommand() *cobra.Command {
	o := &watchOptions{}
	ho := &historyOptions{}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "The archived runs: on a terminal the runs screen, else a table or JSON lines",
		Long: `List the runs the archive holds, newest first: the current service's
(FIRECRAWL_API_URL) unless --all-services. On a terminal it opens the runs
screen on them (enter shows one, read-only); --output plain prints a table,
json one object per line with exactly
  id, status, outcome, complete, prompt, model, effort, maxCredits,
  createdAt, finishedAt, creditsUsed, billedCredits, attention,
  creditsByAgent, cancelRequested, cancelledBy, startedBy, cancelledVia,
  startedVia, expired, rerunOf, threadId, threadTurn
(null when unknown; cancelledBy and startedBy name who did it through a
hub, cancelledVia and startedVia that hub's name (hub --name); rerunOf is {id, changed}: the run it was rerun from and the request
fields changed). status is "cancelled" when the trace says so (the
service says failed); complete is false for a run known only in part (a
watch left early): its figures are what was read, and the next listing of
the team's runs (the runs screen, an archive pass) completes it.
billedCredits follows the one billing rule (docs/archive.md): null while
the outcome is not known. expired: the service no longer has the run.

--thread ID lists a thread's turns in order (ID is the thread's, or any of
its runs'), --reruns JOB_ID the run and its reruns (and theirs) in the
order they started, as a table (TURN, CHANGED) or JSON lines.

--kind crawl lists the archived crawls instead (a table, or with -o json
one object per line with exactly
  kind ("crawl"), id, url, status, pages, total, creditsUsed, createdAt,
  endedAt, startedBy
createdAt is when firewatch first saw the crawl: the service's status
gives no creation time).

Ages (--since) are a Go duration (36h), Nd, Nw, or an RFC 3339 date.`,
		Example: `  firewatch history --since 7d
  firewatch history -o json --status failed | jq -r .id
  firewatch history --grep pricing --limit 20 -o plain`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.history(cmd, o, ho)) },
	}
	f := cmd.Flags()
	f.StringVar(&ho.Since, "since", "", "only runs created since this age or date (7d, 2w, 36h, 2026-11-01)")
	f.StringVar(&ho.Status, "status", "all", "only runs with this status: "+strings.Join(historytext.Statuses, ", "))
	f.StringVar(&ho.Grep, "grep", "", "only runs whose prompt contains this text (any case)")
	f.IntVar(&ho.Limit, "limit", 0, "at most this many runs (0: all)")
	f.BoolVar(&ho.AllServices, "all-services", false, "runs of every service, not only the current one")
	f.StringVar(&ho.Thread, "thread", "", "only the turns of this thread (a thread id, or the id of one of its runs), in order")
	f.StringVar(&ho.Reruns, "reruns", "", "only this run and its reruns, in the order they started")
	f.StringVar(&ho.Kind, "kind", "run", "what to list: run, or crawl (the crawls firewatch started, watched or saw active; a table or JSON lines)")
	o.register(cmd, flagsConnection|flagsOutput)
	return cmd
}

func (a *app) history(cmd *cobra.Command, o *watchOptions, ho *historyOptions) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	q, err := ho.query(a.baseURLOf(o.APIURL), time.Now())
	if err != nil {
		return err
	}
	kind, err := historytext.Kind(ho.Kind)
	if err != nil {
		return asUsage(err)
	}
	ctx := cmd.Context()
	if ho.Thread != "" || ho.Reruns != "" {
		return a.historyLineage(ctx, o, ho, q)
	}
	st, err := a.openArchive(ctx, needArchive, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	if kind == "crawl" {
		if err := historytext.CrawlsQuery(q); err != nil {
			return asUsage(err)
		}
		list, err := historytext.Crawls(ctx, st, q)
		if err != nil {
			return archiveErr(err)
		}
		if o.Output == OutputJSON {
			return historytext.WriteCrawlsJSON(a.print, list, a.secrets)
		}
		return historytext.WriteCrawls(a.print, list, a.secrets, time.Now())
	}
	termOut, _ := isTerminal(a.stdout)
	if o.Output == OutputTUI || (o.Output == OutputAuto && termOut && a.onTerminal()) {
		return a.archiveRunsLoop(cmd, o, ho.Status, st, q)
	}
	var out historytext.Writer = historytext.NewTable(a.print, a.secrets, time.Now())
	if o.Output == OutputJSON {
		out = historytext.NewJSONLines(a.print, a.secrets, time.Now())
	}
	if err := st.Each(ctx, q, func(r *archive.Run) error { return out.Add(ctx, r) }); err != nil {
		if errors.As(err, new(*outputError)) {
			return err
		}
		return archiveErr(err)
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if out.Len() == 0 {
		fmt.Fprint(a.stderr, historytext.OtherServicesHint(ctx, st, q, a.secrets))
	}
	return nil
}

// query is the archive's query of the flags (historytext.Filter); service
// is the runs' service (unless --all-services).
func (ho *historyOptions) query(service string, now time.Time) (archive.Query, error) {
	f := historytext.Filter{Since: ho.Since, Status: ho.Status, Grep: ho.Grep, Limit: ho.Limit, AllServices: ho.AllServices}
	q, err := f.Query(service, now)
	if err != nil {
		return q, asUsage(err)
	}
	return q, nil
}

// archiveRunsLoop is the runs screen over the archive alone (history on
// a terminal): runsLoop with the archive's runs of q, enter on one shows
// it read-only, and nothing is started.
func (a *app) archiveRunsLoop(cmd *cobra.Command, o *watchOptions, status string, st archive.Store, q archive.Query) error {
	if status == "" || status == "cancelled" {
		status = "all"
	}
	return a.runsLoop(cmd, o, runsScreenOf{
		status: status, list: archiving.NewListing(nil, st, q),
		open: func(ctx context.Context, w *watchSession, id string) (string, error) {
			r, polls, err := archiving.Load(ctx, st, q.Service, id)
			if err != nil {
				return "", asUsage(err)
			}
			return "", a.showArchived(ctx, w, st, r, polls)
		},
	})
}

// runsWithArchive is the runs screen's service: the live one, followed by
// the archive's runs when there is an archive (not for the demo), asked
// with c, which also completes in the background the runs it holds in
// part. Outside a
// hub (whose one list is shared already: hubList), the newest page is
// asked through the team's list lease (list, nil without an archive): one
// runs screen on the archive asks the service, the others read what it
// stored; the screen gives the lease up while it is not shown.
func (a *app) runsWithArchive(ctx context.Context, c *poller.Client, svc service) (_ runs.Service, list *archiving.TeamList, closer func()) {
	baseURL := svc.baseURL
	live := runs.Service(c)
	if a.hub.Shares() {
		live = a.hub.Hub().Listed(c) // the hub's one list
	}
	if _, err := a.archiveDSN(); err != nil {
		return live, nil, func() {} // no archive to name: the live runs alone
	}
	// Quiet: the screen is up while its archive waits for a lock. A hub's
	// sessions show the hub's one store, which the hub closes.
	var st archive.Store
	var err error
	owned := !a.hub.Shares()
	if owned {
		st, err = a.openArchive(ctx, keepArchive, &lockNote{quiet: true})
	} else if st = a.hub.Store(); st == nil {
		return live, nil, func() {} // the hub has none: said in its log
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "firewatch: the runs screen shows no archived runs: %s\n", a.secrets.Redact(err.Error()))
		return live, nil, func() {}
	}
	if st == nil {
		return live, nil, func() {} // off
	}
	stopMeter := func() {}
	if !a.hub.Shares() {
		// The screen's requests (its list, a start, a cancel) are live
		// work, counted into the team's budget; a hub meters its own.
		var metered *poller.Client
		metered, _, stopMeter = a.meterLive(ctx, c, svc, st)
		list = archiving.NewTeamList(runs.Service(metered), st, a.secrets, baseURL, archive.TeamOf(svc.key), archive.NewHolder("runs"), runs.DefaultInterval, nil)
		live = list
	}
	s := archiving.NewListing(live, st, archive.Query{Service: baseURL})
	switch bg := a.hub.Completions(); {
	case bg != nil:
		s.UseBackground(bg) // the hub's: each run completed once for every session
	default:
		// Background work: paced by the team's budget, as a pass is.
		team := archive.TeamOf(svc.key)
		paced := c.WithPacer(archiving.NewBudget(st, baseURL, team, rateLimit(), nil))
		cp := &archiving.Completer{C: paced, St: st, Secrets: a.secrets, Service: baseURL, Team: team}
		s.Complete(ctx, cp, func(err error) { s.Note(archiveErr(err)) })
	}
	return s, list, func() {
		failed := s.Stop()
		list.Release(ctx)
		stopMeter()
		if owned {
			st.Close()
		}
		if failed != "" {
			fmt.Fprintf(a.stderr, "firewatch: the archive could not record everything: %s\n", a.secrets.Redact(failed))
		}
	}
}

// showArchivedID opens an archived run read-only from the runs screen.
func (a *app) showArchivedID(ctx context.Context, w *watchSession, s *archiving.Listing, id string) error {
	r, polls, err := archiving.Load(ctx, s.Store(), s.Service(), id)
	if err != nil {
		return asUsage(err)
	}
	return a.showArchived(ctx, w, s.Store(), r, polls)
}
