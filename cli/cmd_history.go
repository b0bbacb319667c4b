package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/runs"
)

// firewatch history: the archived runs.

type historyOptions struct {
	Since, Status, Grep, Kind string
	Limit                     int
	AllServices               bool
	Thread, Reruns            string // --thread, --reruns: a lineage, in order
}

var historyStatuses = []string{"all", "processing", "completed", "failed", "cancelled"}

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
	f.StringVar(&ho.Status, "status", "all", "only runs with this status: "+strings.Join(historyStatuses, ", "))
	f.StringVar(&ho.Grep, "grep", "", "only runs whose prompt contains this text (any case)")
	f.IntVar(&ho.Limit, "limit", 0, "at most this many runs (0: all)")
	f.BoolVar(&ho.AllServices, "all-services", false, "runs of every service, not only the current one")
	f.StringVar(&ho.Thread, "thread", "", "only the turns of this thread (a thread id, or the id of one of its runs), in order")
	f.StringVar(&ho.Reruns, "reruns", "", "only this run and its reruns, in the order they started")
	f.StringVar(&ho.Kind, "kind", "run", "what to list: run, or crawl (the crawls firewatch started, watched or saw active; a table or JSON lines)")
	o.register(cmd, flagsConnection|flagsOutput)
	return cmd
}

// parseAge reads an age (a Go duration, Nd, Nw) as now minus it, or an
// RFC 3339 date or time.
func parseAge(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	mult := time.Duration(0)
	switch {
	case strings.HasSuffix(s, "d"):
		mult = 24 * time.Hour
	case strings.HasSuffix(s, "w"):
		mult = 7 * 24 * time.Hour
	}
	if mult > 0 {
		n, err := strconv.Atoi(strings.TrimSpace(s[:len(s)-1]))
		if err != nil || n < 0 || n > 100000 {
			return time.Time{}, errors.New("an age is a Go duration (36h), Nd, Nw or an RFC 3339 date")
		}
		return now.Add(-time.Duration(n) * mult), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, errors.New("an age is a Go duration (36h), Nd, Nw or an RFC 3339 date")
	}
	return now.Add(-d), nil
}

// historyLine is one run of history's JSON output: exactly these fields,
// the run's figures (archiving.FiguresOf).
type historyLine struct {
	ID              string             `json:"id"`
	Status          *string            `json:"status"`
	Outcome         *string            `json:"outcome"`
	Complete        bool               `json:"complete"`
	Prompt          *string            `json:"prompt"`
	Model           *string            `json:"model"`
	Effort          *string            `json:"effort"`
	MaxCredits      *float64           `json:"maxCredits"`
	CreatedAt       *time.Time         `json:"createdAt"`
	FinishedAt      *time.Time         `json:"finishedAt"`
	CreditsUsed     *float64           `json:"creditsUsed"`
	BilledCredits   *float64           `json:"billedCredits"`
	Attention       *int               `json:"attention"`
	CreditsByAgent  map[string]float64 `json:"creditsByAgent"`
	CancelRequested bool               `json:"cancelRequested"`
	CancelledBy     *string            `json:"cancelledBy"`
	StartedBy       *string            `json:"startedBy"`
	// CancelledVia and StartedVia: the hub's name it was done through.
	CancelledVia *string       `json:"cancelledVia"`
	StartedVia   *string       `json:"startedVia"`
	Expired      bool          `json:"expired"`
	RerunOf      *historyRerun `json:"rerunOf"`
	ThreadID     *string       `json:"threadId"`
	ThreadTurn   *int          `json:"threadTurn"`
}

// historyRerun is the run a run was rerun from, and the request fields the
// rerun changed.
type historyRerun struct {
	ID      string   `json:"id"`
	Changed []string `json:"changed"`
}

// historyLineOf is a run's line.
func historyLineOf(f *archiving.Figures) historyLine {
	hl := historyLine{ID: f.ID, Status: strOrNil(f.Status), Outcome: strOrNil(f.Outcome), Complete: f.Complete, Prompt: strOrNil(f.Prompt),
		Model: strOrNil(f.Model), Effort: strOrNil(f.Effort), MaxCredits: f.MaxCredits, CreatedAt: f.CreatedAt, FinishedAt: f.FinishedAt,
		CreditsUsed: f.CreditsUsed, BilledCredits: f.Bill.BilledCredits(), CreditsByAgent: f.CreditsByAgent,
		CancelRequested: f.CancelRequested, Expired: f.Expired}
	hl.CancelledBy, hl.CancelledVia = model.ActorFields(text.Sanitize(f.CancelledBy))
	hl.StartedBy, hl.StartedVia = model.ActorFields(text.Sanitize(f.StartedBy))
	if f.Read {
		n := f.Attention
		hl.Attention = &n
	}
	if f.RerunOf != "" {
		hl.RerunOf = &historyRerun{ID: f.RerunOf, Changed: nonNil(f.RerunChanged)}
	}
	hl.ThreadID = strOrNil(f.ThreadID)
	if f.ThreadTurn > 0 {
		n := f.ThreadTurn
		hl.ThreadTurn = &n
	}
	return hl
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (a *app) history(cmd *cobra.Command, o *watchOptions, ho *historyOptions) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	q, err := ho.query(a.baseURLOf(o.APIURL), time.Now())
	if err != nil {
		return err
	}
	kind, err := checkKind(ho.Kind)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if ho.Thread != "" || ho.Reruns != "" {
		return a.historyLineage(ctx, o, ho, q)
	}
	if kind == "crawl" {
		st, err := a.openArchive(ctx, needArchive, nil)
		if err != nil {
			return err
		}
		defer st.Close()
		return a.historyCrawls(ctx, o, st, q, time.Now())
	}
	termOut, _ := isTerminal(a.stdout)
	if o.Output == OutputTUI || (o.Output == OutputAuto && termOut && a.onTerminal()) {
		st, err := a.openArchive(ctx, needArchive, nil)
		if err != nil {
			return err
		}
		defer st.Close()
		return a.archiveRunsLoop(cmd, o, ho.Status, st, q)
	}
	st, err := a.openArchive(ctx, needArchive, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	now := time.Now()
	if o.Output == OutputJSON {
		n, err := a.historyJSON(ctx, st, q, now)
		if err == nil && n == 0 {
			a.otherServicesHint(ctx, st, q)
		}
		return err
	}
	tw := tabwriter.NewWriter(a.print, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tOUTCOME\tID\tCREATED\tCREDITS\tBILLED\tMODEL\tPROMPT")
	n := 0
	err = st.Each(ctx, q, func(r *archive.Run) error {
		n++
		f := archiving.FiguresOf(r, now)
		credits, billed := "-", "-"
		if f.CreditsUsed != nil {
			credits = describe.Tokens(*f.CreditsUsed)
			if !f.Complete {
				credits += " so far"
			}
		}
		if b := f.Bill.BilledCredits(); b != nil {
			billed = describe.Tokens(*b)
		}
		st := watchprint.OrDash(describe.OneLine(f.Status, 12))
		if f.Expired {
			st += " (expired)"
		}
		outcome := describe.OneLine(f.Outcome, 20)
		if !f.Complete {
			outcome = "incomplete"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", st, watchprint.OrDash(outcome), f.ID, watchprint.OrDash(text.Age(now, r.SortTime())),
			credits, billed, watchprint.OrDash(describe.OneLine(f.Model, 20)), watchprint.OrDash(runs.FirstLine(a.secrets.Sanitize(f.Prompt), 60)))
		return nil
	})
	if err != nil {
		return archiveErr(err)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if n == 0 {
		a.otherServicesHint(ctx, st, q)
	}
	return nil
}

// otherServicesHint says on stderr, when history found nothing at the
// service it asked about, which other services the archive holds runs of
// for the same filters: the usual cause is a service URL (--api-url,
// FIRECRAWL_API_URL) other than the one the runs were archived under.
// It reads at most a few hundred runs and names at most three services.
func (a *app) otherServicesHint(ctx context.Context, st archive.Store, q archive.Query) {
	if q.Service == "" {
		return
	}
	service := q.Service
	q.Service, q.Limit = "", 500
	var others []string
	_ = st.Each(ctx, q, func(r *archive.Run) error {
		if r.Service != service && !slices.Contains(others, r.Service) {
			others = append(others, r.Service)
		}
		if len(others) == 3 {
			return errEnough
		}
		return nil
	})
	if len(others) == 0 {
		return
	}
	for i, s := range others {
		others[i] = a.secrets.Sanitize(s)
	}
	fmt.Fprintf(a.stderr, "firewatch: no archived runs of %s; the archive holds runs of %s: give that service with --api-url, or --all-services\n",
		a.secrets.Sanitize(service), strings.Join(others, ", "))
}

// errEnough stops an Each that has what it needs.
var errEnough = errors.New("enough")

// historyJSON writes history's JSON lines as the archive gives the runs,
// in constant memory and time per run: each line is made, redacted and
// escaped alone and goes out through a buffer, the first ones at once; a
// signal stops it between two runs.
func (a *app) historyJSON(ctx context.Context, st archive.Store, q archive.Query, now time.Time) (n int, err error) {
	bw := bufio.NewWriterSize(a.print, 64<<10)
	err = st.Each(ctx, q, func(r *archive.Run) error {
		n++
		if err := ctx.Err(); err != nil {
			return err
		}
		f := archiving.FiguresOf(r, now)
		line, err := json.Marshal(historyLineOf(&f), json.Deterministic(true), json.FormatNilMapAsNull(true))
		if err != nil {
			return err
		}
		line, _ = a.secrets.RedactJSON(line)
		if _, err := bw.Write(watchprint.EscapeForTerminal(line)); err != nil {
			return err
		}
		return bw.WriteByte('\n')
	})
	if err != nil {
		if errors.As(err, new(*outputError)) {
			return n, err
		}
		return n, archiveErr(err)
	}
	return n, bw.Flush()
}

// query is the archive's query of the flags; service is the runs' service
// (unless --all-services).
func (ho *historyOptions) query(service string, now time.Time) (archive.Query, error) {
	q := archive.Query{Status: strings.ToLower(strings.TrimSpace(ho.Status)), Grep: ho.Grep, Limit: ho.Limit}
	if ho.Limit < 0 {
		return q, badUsage("--limit %d: it must not be negative", ho.Limit)
	}
	if q.Status == "canceled" {
		q.Status = "cancelled"
	}
	if !slices.Contains(historyStatuses, q.Status) {
		return q, badUsage("--status %q: use one of %s", text.Sanitize(ho.Status), strings.Join(historyStatuses, ", "))
	}
	if ho.Since != "" {
		t, err := parseAge(ho.Since, now)
		if err != nil {
			return q, badUsage("--since %q: %v", text.Sanitize(ho.Since), err)
		}
		q.Since = t
	}
	if !ho.AllServices {
		q.Service = service
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
		metered, stopMeter = a.meterLive(ctx, c, svc, st)
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
