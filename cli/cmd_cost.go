package cli

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
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
	"github.com/firewatch/firewatch/text"
)

// firewatch cost: runs and credits over time, from the archive.

type costOptions struct {
	Since       string
	By          string
	AllServices bool
	Team        bool
}

var costBys = []string{"day", "week", "model", "label", "prompt", "thread"}

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
	f.StringVar(&co.By, "by", "day", "the buckets: "+strings.Join(costBys, ", "))
	f.BoolVar(&co.AllServices, "all-services", false, "runs of every service, not only the current one")
	f.BoolVar(&co.Team, "team", false, "ask the service for the team's usage too and split it: agent runs and crawls (the archive's, exact) and the rest (the service's total minus them)")
	o.register(cmd, flagsConnection|flagsOutput)
	return cmd
}

type costBucket struct {
	Key       string `json:"key"`
	costTotal `json:",inline"`

	used, billed, failed, unknown microSum // micro-credits: sums are exact
}

type costTotal struct {
	Runs           int     `json:"runs"`
	CreditsUsed    float64 `json:"creditsUsed"`
	BilledCredits  float64 `json:"billedCredits"`
	FailedRuns     int     `json:"failedRuns"`
	FailedCredits  float64 `json:"failedCredits"`
	UnknownRuns    int     `json:"unknownRuns"`
	UnknownCredits float64 `json:"unknownCredits"`
}

type costReport struct {
	By      string       `json:"by"`
	Buckets []costBucket `json:"buckets"`
	Total   costTotal    `json:"total"`
	// Crawls are the archived crawls of the same time (their credits are
	// not in the runs' buckets).
	Crawls teamCrawls `json:"crawls"`
	// Team is cost --team's ledger: the service's figures.
	Team *teamLedger `json:"team,omitempty"`
}

const micro = 1e6

// microSum is an exact sum of micro-credits in 128 bits. A run's credits
// are bounded by model.MaxCredits (1e12), 1e18 micro-credits, which an
// int64 holds once but not ten times: sums of many runs need more.
type microSum struct{ hi, lo uint64 }

func (s *microSum) add(c uint64) {
	var carry uint64
	s.lo, carry = bits.Add64(s.lo, c, 0)
	s.hi += carry
}

func (s microSum) cmp(t microSum) int {
	if c := cmp.Compare(s.hi, t.hi); c != 0 {
		return c
	}
	return cmp.Compare(s.lo, t.lo)
}

// credits is the sum in credits.
func (s microSum) credits() float64 {
	return (float64(s.hi)*0x1p64 + float64(s.lo)) / micro
}

// costKey is the bucket of r.
func costKey(by string, r *archive.Run) string {
	t := r.SortTime().UTC()
	switch by {
	case "day":
		return t.Format("2006-01-02")
	case "week":
		y, w := t.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, w)
	case "model":
		return text.Sanitize(r.Model)
	case "label":
		return text.Sanitize(r.Label)
	case "thread":
		return text.Sanitize(r.ThreadID) // "": a run whose thread is not known
	}
	return text.Sanitize(strings.TrimSpace(r.Prompt))
}

func buildCost(by string, list []archive.Run, now time.Time) costReport {
	rep := costReport{By: by, Buckets: []costBucket{}}
	idx := map[string]int{}
	var all costBucket
	for i := range list {
		r := &list[i]
		f := archiving.FiguresOf(r, now)
		k := costKey(by, r)
		j, ok := idx[k]
		if !ok {
			j = len(rep.Buckets)
			idx[k] = j
			rep.Buckets = append(rep.Buckets, costBucket{Key: k})
		}
		var c uint64
		if f.CreditsUsed != nil && *f.CreditsUsed > 0 {
			// The archive holds what the model bounded; a figure past
			// the bound (another program's row) counts as the bound.
			c = uint64(math.Round(min(*f.CreditsUsed, model.MaxCredits) * micro))
		}
		for _, b := range []*costBucket{&rep.Buckets[j], &all} {
			b.Runs++
			b.used.add(c)
			switch {
			case !f.Bill.Known:
				b.UnknownRuns++
				b.unknown.add(c)
			case f.Bill.Billed:
				b.billed.add(c)
			default:
				b.FailedRuns++
				b.failed.add(c)
			}
		}
	}
	for i := range rep.Buckets {
		rep.Buckets[i].sums()
	}
	switch by {
	case "day", "week":
		slices.SortFunc(rep.Buckets, func(x, y costBucket) int { return strings.Compare(x.Key, y.Key) })
	default:
		slices.SortStableFunc(rep.Buckets, func(x, y costBucket) int {
			if c := y.used.cmp(x.used); c != 0 {
				return c
			}
			return strings.Compare(x.Key, y.Key)
		})
	}
	all.sums()
	rep.Total = all.costTotal
	return rep
}

// sums turns the micro-credit sums into the JSON's figures.
func (b *costBucket) sums() {
	b.CreditsUsed, b.BilledCredits, b.FailedCredits, b.UnknownCredits = b.used.credits(), b.billed.credits(), b.failed.credits(), b.unknown.credits()
}

func (a *app) cost(cmd *cobra.Command, o *watchOptions, co *costOptions) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	by := strings.ToLower(strings.TrimSpace(co.By))
	if !slices.Contains(costBys, by) {
		return badUsage("--by %q: use one of %s", text.Sanitize(co.By), strings.Join(costBys, ", "))
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
	rep := buildCost(by, list, time.Now())
	crawls, err := crawlsOf(ctx, st, q)
	if err != nil {
		return err
	}
	for _, c := range crawls {
		rep.Crawls.Crawls++
		rep.Crawls.CreditsUsed += float64(microOf(c.CreditsUsed)) / micro
		if !archive.CrawlEnded(c.Status) {
			rep.Crawls.Unfinished++
		}
	}
	var teamFailed error
	if co.Team {
		c, svc, err := a.connect(o)
		if err != nil {
			return err
		}
		t, err := buildTeam(ctx, c, st, svc.baseURL, a.secrets, time.Now())
		if err != nil {
			return err
		}
		rep.Team = t
		if len(t.failed) > 0 {
			// What came is shown; the parts that did not are named, exit 1.
			teamFailed = &failure{Err: errors.Join(t.failed...)}
		}
	}
	if o.Output == OutputJSON {
		b, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		b, _ = a.secrets.RedactJSON(b)
		if _, err = a.print.Write(append(watchprint.EscapeForTerminal(b), '\n')); err != nil {
			return err
		}
		return teamFailed
	}
	if rep.Team != nil {
		if err := writeTeamPlain(a.print, rep.Team, time.Now()); err != nil {
			return err
		}
		return teamFailed
	}
	termOut, width := isTerminal(a.stdout)
	var most float64
	for _, b := range rep.Buckets {
		most = max(most, b.CreditsUsed)
	}
	tw := tabwriter.NewWriter(a.print, 0, 0, 2, ' ', 0)
	head := strings.ToUpper(by) + "\tRUNS\tCREDITS\tBILLED\tFAILED\tUNKNOWN\t"
	fmt.Fprintln(tw, head)
	barW := 0
	if termOut {
		barW = max(min(width-70, 30), 0)
	}
	for _, b := range rep.Buckets {
		key := describe.OneLine(a.secrets.Redact(b.Key), 40)
		if key == "" {
			key = `""`
		}
		bar := ""
		if barW > 0 && most > 0 {
			bar = strings.Repeat("█", int(math.Round(b.CreditsUsed/most*float64(barW))))
			if o.ASCII {
				bar = strings.Repeat("#", len([]rune(bar)))
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d (%s)\t%d (%s)\t%s\n", key, b.Runs, text.Fixed(b.CreditsUsed), text.Fixed(b.BilledCredits), b.FailedRuns, text.Fixed(b.FailedCredits),
			b.UnknownRuns, text.Fixed(b.UnknownCredits), bar)
	}
	t := rep.Total
	fmt.Fprintf(tw, "total\t%d\t%s\t%s\t%d (%s)\t%d (%s)\t\n", t.Runs, text.Fixed(t.CreditsUsed), text.Fixed(t.BilledCredits), t.FailedRuns, text.Fixed(t.FailedCredits),
		t.UnknownRuns, text.Fixed(t.UnknownCredits))
	if err := tw.Flush(); err != nil {
		return err
	}
	if c := rep.Crawls; c.Crawls > 0 {
		_, err := fmt.Fprintf(a.print, "crawls: %s, %s (not in the runs' figures)\n", plural(c.Crawls, "crawl", "crawls"), text.Credits(c.CreditsUsed))
		return err
	}
	return nil
}
