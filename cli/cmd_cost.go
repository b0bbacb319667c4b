package cli

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/cli/internal/costtext"
	"github.com/firewatch/firewatch/cli/internal/historytext"
	"github.com/firewatch/firewatch/text"
)

// firewatch cost: runs and credits over time, from the archive.

type costOptions struct {
	Since       string
	By          string
	AllServices bool
	Team        bool
}

func (a *app) costCommand() *cobra.Command {
	o := &watchOptions{}
	co := &costOptions{}
	cmd := &cobra.Command{
		Use:   "cost",
		Short: "Runs and credits per day, week, model, label, prompt or thread, from the archive",
		Long: `Sum the archived runs' credits per bucket: --by day or week (UTC, by
createdAt; weeks are ISO weeks, 2026-W47), model, label (a run without one
has the key "") or prompt, or thread (the service's thread: a run and its
follow-ups; a run whose thread is not known has the key "").

One billing rule (docs/archive.md): a run is billed for its credits unless
its outcome is failed. A cancelled run is billed for the work done, a
credit-limited one up to its cap. Failed runs are counted apart (failedRuns,
failedCredits); so are runs whose outcome is not known (unknownRuns,
unknownCredits: known only in part, or their trace expired before it was
read), never guessed. creditsUsed is billedCredits + failedCredits +
unknownCredits, and the totals are the exact sums of the buckets.

The archived crawls of the same time are counted apart (crawls).

--team asks the service for the team's usage and puts it beside the
archive's: the billing period's credits used of the plan, split into the
agent runs (billed, from the archive) and the crawls (from the archive),
which are exact, and the rest of the team's usage (the service's total
minus them: scrapes, searches, extracts, maps, runs not archived); usage
by day, per API key by month (names only) and the last 24 hours by
endpoint, the service's; and when the plan's credits run out at the last
7 days' rate. A part the service does not offer (404, 501) or sends
unusable is named under "Not learned" and the rest is shown (exit 0); one
that fails otherwise is named too (exit 1). A billing period that turns
over while cost asks is said, and the period's figures are the new one's.

JSON: {by, buckets: [{key, runs, creditsUsed, billedCredits, failedRuns,
failedCredits, unknownRuns, unknownCredits}], total: {runs, creditsUsed,
billedCredits, failedRuns, failedCredits, unknownRuns, unknownCredits},
crawls: {crawls, creditsUsed, unfinished}, team (with --team): {period,
periodChanged (only when it turned over: {from, to, text}), parts: {agentRuns, crawls, rest, restWhy, total}, projection, byDay, byKey,
activity, unavailable}}.`,
		Example: `  firewatch cost
  firewatch cost --since 90d --by week
  firewatch cost --by model -o json | jq .total
  firewatch cost --team`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.cost(cmd, o, co)) },
	}
	f := cmd.Flags()
	f.StringVar(&co.Since, "since", "30d", "runs created since this age or date (30d, 12w, 36h, 2026-11-01)")
	f.StringVar(&co.By, "by", "day", "the buckets: "+strings.Join(costtext.Bys, ", "))
	f.BoolVar(&co.AllServices, "all-services", false, "runs of every service, not only the current one")
	f.BoolVar(&co.Team, "team", false, "ask the service for the team's usage too and split it: agent runs and crawls (the archive's, exact) and the rest (the service's total minus them)")
	o.register(cmd, flagsConnection|flagsOutput)
	return cmd
}

func (a *app) cost(cmd *cobra.Command, o *watchOptions, co *costOptions) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	by := strings.ToLower(strings.TrimSpace(co.By))
	if !slices.Contains(costtext.Bys, by) {
		return badUsage("--by %q: use one of %s", text.Sanitize(co.By), strings.Join(costtext.Bys, ", "))
	}
	ho := &historyOptions{Since: co.Since, Status: "all", AllServices: co.AllServices}
	q, err := ho.query(a.baseURLOf(o.APIURL), time.Now())
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	st, err := a.openArchive(ctx, needArchive, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	list, err := st.List(ctx, q)
	if err != nil {
		return archiveErr(err)
	}
	rep := costtext.Build(by, list, time.Now())
	crawls, err := historytext.Crawls(ctx, st, q)
	if err != nil {
		return archiveErr(err)
	}
	rep.AddCrawls(crawls)
	var teamFailed error
	if co.Team {
		c, svc, err := a.connect(o)
		if err != nil {
			return err
		}
		t, err := costtext.BuildTeam(ctx, c, st, svc.baseURL, a.secrets, time.Now())
		var se *costtext.StoreError
		if errors.As(err, &se) {
			return archiveErr(se.Err) // the archive's failure, said as every command says it
		}
		if err != nil {
			return err
		}
		rep.Team = t
		if len(t.Failed) > 0 {
			// What came is shown; the parts that did not are named, exit 1.
			teamFailed = &failure{Err: errors.Join(t.Failed...)}
		}
	}
	switch {
	case o.Output == OutputJSON:
		err = costtext.WriteJSON(a.print, &rep, a.secrets)
	case rep.Team != nil:
		err = costtext.WriteTeam(a.print, rep.Team, time.Now())
	default:
		termOut, width := isTerminal(a.stdout)
		if !termOut {
			width = 0
		}
		return costtext.WriteTable(a.print, &rep, a.secrets, width, o.ASCII)
	}
	if err != nil {
		return err
	}
	return teamFailed
}

// absent reports whether err is a service without the endpoint
// (costtext.Absent).
var absent = costtext.Absent
