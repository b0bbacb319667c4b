package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/firewatch/firewatch/model"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/scrapeopts"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/runs"
)

// firewatch team: the team at a glance, for scripts: tokens left in the
// billing period, the processing runs and the active crawls.

func (a *app) teamCommand() *cobra.Command {
	o := &watchOptions{}
	var output string
	cmd := &cobra.Command{
		Use:   "team",
		Short: "The team at a glance: tokens left, processing runs, active crawls",
		Long: `Print the team's token balance for the billing period (GET /v2/team/token-usage;
1 credit = 15 tokens), its processing runs (GET /v2/agent) and its active
crawls (GET /v2/crawl/active) with the scrape options that differ from the v2
defaults; options left over from v1 (parsePDF, an "extract" format) are
flagged as renamed.

With an archive (--archive, $FIREWATCH_ARCHIVE, the default file), it also
says who polls what: the leases the firewatch processes sharing it hold now
(each run is polled by one of them, the others follow what it stores), with
the holder's host and process, since when, and its last renewal; then the
lease rows nobody holds (released, or ended). An odd row is flagged: an
expiry far in the future or a renewal in it, a lease not renewed for longer
than its TTL, a token at its limit. A lease is believed only while its
holder renews it, whatever its row's expiry says.

--output plain (the default) is for people; json is one object with
tokenUsage, activeCrawls, runs (the processing runs as the service sent
them) and leases (run, service, label, host, pid, since, renewed, expires,
token, held, odd: every row, the held ones first). A team without token usage information gets tokenUsage null.`,
		Example: `  firewatch team
  firewatch team -o json | jq .tokenUsage.remainingTokens`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.team(cmd, o, output)) },
	}
	cmd.Flags().StringVarP(&output, "output", "o", OutputPlain, "plain or json")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{OutputPlain, OutputJSON}, cobra.ShellCompDirectiveNoFileComp))
	o.register(cmd, flagsConnection)
	return cmd
}

// teamView is what the team command fetched. Each part stands alone: a
// part whose request failed has its error, and the others are shown.
type teamView struct {
	Usage     *poller.TokenUsage // nil: the service has none for the team, or UsageErr
	Crawls    []poller.Crawl
	Runs      []poller.RunInfo // processing
	UsageErr  error
	CrawlsErr error
	RunsErr   error
	Leases    teamLeases // who polls which run, from the archive
}

// failed is every part that failed, named, in order; nil when none.
func (t *teamView) failed() []error {
	var out []error
	for _, p := range []struct {
		name string
		err  error
	}{{"token usage", t.UsageErr}, {"active crawls", t.CrawlsErr}, {"processing runs", t.RunsErr}} {
		if p.err != nil {
			out = append(out, fmt.Errorf("team: %s: %w", p.name, p.err))
		}
	}
	return out
}

// fetchTeam makes the three requests (a 429 is waited out, like the
// watch); a failed one is kept with its part, the others go on.
func fetchTeam(ctx context.Context, a *app, c *poller.Client) *teamView {
	t := &teamView{}
	u, err := c.TokenUsage(ctx)
	var pe *poller.Error
	switch {
	case errors.As(err, &pe) && pe.Kind == poller.KindNotFound:
	case err != nil:
		t.UsageErr = err
	default:
		t.Usage = u
	}
	t.Crawls, t.CrawlsErr = c.ActiveCrawls(ctx)
	t.Runs, t.RunsErr = collectRuns(ctx, a, c, 1<<30, latestPages, func(r *poller.RunInfo) bool { return runs.StatusMatches("processing", r.Status) })
	return t
}

func (a *app) team(cmd *cobra.Command, o *watchOptions, output string) error {
	output = strings.ToLower(strings.TrimSpace(output))
	if output != OutputPlain && output != OutputJSON {
		return badUsage("--output %q: it must be plain or json", output)
	}
	c, svc, err := a.connect(o)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	t := fetchTeam(ctx, a, c)
	t.Leases = a.readLeases(ctx, svc.baseURL)
	if t.CrawlsErr == nil && len(t.Crawls) > 0 {
		// The crawls seen are kept, as a watch keeps its crawl.
		keep := a.keepCrawls(ctx, svc, nil)
		if keep != nil {
			if err := keep.Seen(ctx, t.Crawls, time.Now()); err != nil {
				fmt.Fprintf(a.stderr, "firewatch: the crawls are not archived: %v\n", err)
			}
			keep.Close()
		}
	}
	failed := t.failed()
	if len(failed) == 3 || ctx.Err() != nil {
		// Nothing to show (the key refused, no network, interrupted): the
		// first failure says it.
		return errors.Join(t.UsageErr, t.CrawlsErr, t.RunsErr)
	}
	if output == OutputJSON {
		b, err := teamJSON(t, a.secrets)
		if err != nil {
			return err
		}
		if _, err = a.print.Write(append(watchprint.EscapeForTerminal(b), '\n')); err != nil {
			return err
		}
	} else if _, err = fmt.Fprint(a.print, teamPlain(t, time.Now(), a.secrets)); err != nil {
		return err
	}
	if len(failed) > 0 {
		// What came is shown; the parts that did not are named, exit 1.
		return &failure{Err: errors.Join(failed...)}
	}
	return nil
}

// teamJSON is the json output: one object.
func teamJSON(t *teamView, secrets *text.Secrets) ([]byte, error) {
	type usage struct {
		RemainingTokens    float64    `json:"remainingTokens"`
		PlanTokens         float64    `json:"planTokens"`
		RemainingCredits   float64    `json:"remainingCredits"`
		BillingPeriodStart *time.Time `json:"billingPeriodStart"`
		BillingPeriodEnd   *time.Time `json:"billingPeriodEnd"`
	}
	type crawl struct {
		ID       string         `json:"id"`
		TeamID   string         `json:"teamId"`
		URL      string         `json:"url"`
		Options  jsontext.Value `json:"options,omitempty"`
		SetAside string         `json:"setAside,omitempty"` // why the options are left out
	}
	var out struct {
		TokenUsage   *usage            `json:"tokenUsage"`
		ActiveCrawls []crawl           `json:"activeCrawls"`
		Runs         []jsontext.Value  `json:"runs"`
		Errors       map[string]string `json:"errors,omitempty"` // a part that could not be fetched: why
		// Leases: who polls which run among the firewatch processes that
		// share the archive (left out when it is off or cannot be read).
		Leases []leaseJSON `json:"leases,omitempty"`
	}
	if u := t.Usage; u != nil {
		out.TokenUsage = &usage{RemainingTokens: u.RemainingTokens, PlanTokens: u.PlanTokens, RemainingCredits: u.RemainingTokens / model.TokensPerCredit}
		if !u.BillingPeriodStart.IsZero() {
			out.TokenUsage.BillingPeriodStart = &u.BillingPeriodStart
		}
		if !u.BillingPeriodEnd.IsZero() {
			out.TokenUsage.BillingPeriodEnd = &u.BillingPeriodEnd
		}
	}
	for name, err := range map[string]error{"tokenUsage": t.UsageErr, "activeCrawls": t.CrawlsErr, "runs": t.RunsErr} {
		if err != nil {
			if out.Errors == nil {
				out.Errors = map[string]string{}
			}
			out.Errors[name] = text.Sanitize(err.Error())
		}
	}
	out.Leases = t.Leases.json()
	if t.Leases.err != nil {
		if out.Errors == nil {
			out.Errors = map[string]string{}
		}
		out.Errors["leases"] = text.Sanitize(secrets.Redact(t.Leases.err.Error()))
	}
	out.ActiveCrawls = []crawl{}
	for _, c := range t.Crawls {
		out.ActiveCrawls = append(out.ActiveCrawls, crawl{ID: c.ID, TeamID: c.TeamID, URL: c.URL, Options: c.Options, SetAside: c.SetAside})
	}
	out.Runs = []jsontext.Value{}
	for _, r := range t.Runs {
		v := r.Raw.Clone()
		if v.Compact() != nil {
			continue // not JSON: json.Marshal would fail on it
		}
		out.Runs = append(out.Runs, v)
	}
	b, err := json.Marshal(&out)
	b, _ = secrets.RedactJSON(b) // the key, in whatever form the service echoed it
	return b, err
}

// teamPlain is the plain output.
func teamPlain(t *teamView, now time.Time, secrets *text.Secrets) string {
	var b strings.Builder
	switch {
	case t.UsageErr != nil:
		fmt.Fprintf(&b, "Tokens         unavailable: %s\n", describe.OneLine(t.UsageErr.Error(), 200))
	case t.Usage == nil:
		b.WriteString("Tokens         no token usage information for this team\n")
	default:
		fmt.Fprintf(&b, "Tokens         %s\n", runs.TokenLine(t.Usage))
		if p := runs.PeriodLine(t.Usage, now); p != "" {
			fmt.Fprintf(&b, "               %s\n", p)
		}
	}
	if t.RunsErr != nil {
		fmt.Fprintf(&b, "Processing     unavailable: %s\n", describe.OneLine(t.RunsErr.Error(), 200))
	} else {
		fmt.Fprintf(&b, "Processing     %s\n", plural(len(t.Runs), "run", "runs"))
	}
	for _, r := range t.Runs {
		fmt.Fprintf(&b, "  %s  %s  %s\n", describe.OneLine(r.ID, maxIDCells), watchprint.OrDash(text.Age(now, r.CreatedAt)), watchprint.OrDash(runs.FirstLine(r.Prompt, 60)))
	}
	if t.CrawlsErr != nil {
		fmt.Fprintf(&b, "Active crawls  unavailable: %s\n", describe.OneLine(t.CrawlsErr.Error(), 200))
	} else {
		fmt.Fprintf(&b, "Active crawls  %d\n", len(t.Crawls))
	}
	for _, c := range t.Crawls {
		fmt.Fprintf(&b, "  %s  %s\n", describe.OneLine(c.URL, 80), describe.OneLine(c.ID, maxIDCells))
		if c.SetAside != "" {
			fmt.Fprintf(&b, "      set aside: %s\n", c.SetAside)
			continue
		}
		opts := scrapeopts.Render(scrapeopts.ScrapeOptions(c.Options))
		if len(opts) == 0 {
			b.WriteString("      (v2 defaults)\n")
		}
		for _, l := range scrapeopts.Lines(opts) {
			fmt.Fprintf(&b, "      %s\n", l)
		}
	}
	t.Leases.plain(&b, secrets)
	return b.String()
}
