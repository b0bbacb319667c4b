// Package teamview is what firewatch team shows: the team's token balance,
// processing runs and active crawls, and who polls which run (the leases
// in the archive the team's firewatch processes share), in plain and JSON.
package teamview

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/scrapeopts"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/runs"
)

// View is what the team command fetched. Each part stands alone: a
// part whose request failed has its error, and the others are shown.
type View struct {
	Usage     *poller.TokenUsage // nil: the service has none for the team, or UsageErr
	Crawls    []poller.Crawl
	Runs      []poller.RunInfo // processing
	UsageErr  error
	CrawlsErr error
	RunsErr   error
	Leases    Leases // who polls which run, from the archive
}

// Fetch makes the three requests (a 429 is waited out, like the watch),
// processing listing the processing runs; a failed one is kept with its
// part, the others go on.
func Fetch(ctx context.Context, c *poller.Client, processing func(context.Context) ([]poller.RunInfo, error)) *View {
	t := &View{}
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
	t.Runs, t.RunsErr = processing(ctx)
	return t
}

// Write writes the JSON output (asJSON) or the plain one to w, at now,
// an id cut to idCells cells.
func (t *View) Write(w io.Writer, asJSON bool, now time.Time, secrets *text.Secrets, idCells int) error {
	if !asJSON {
		_, err := fmt.Fprint(w, t.Plain(now, secrets, idCells))
		return err
	}
	b, err := t.JSON(secrets)
	if err != nil {
		return err
	}
	_, err = w.Write(append(watchprint.EscapeForTerminal(b), '\n'))
	return err
}

// Failed is every part that failed, named, in order; nil when none.
func (t *View) Failed() []error {
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

// JSON is the json output: one object.
func (t *View) JSON(secrets *text.Secrets) ([]byte, error) {
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

// Plain is the plain output at now, an id cut to idCells cells.
func (t *View) Plain(now time.Time, secrets *text.Secrets, idCells int) string {
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
		fmt.Fprintf(&b, "Processing     %s\n", text.Plural(len(t.Runs), "run", "runs"))
	}
	for _, r := range t.Runs {
		fmt.Fprintf(&b, "  %s  %s  %s\n", describe.OneLine(r.ID, idCells), watchprint.OrDash(text.Age(now, r.CreatedAt)), watchprint.OrDash(runs.FirstLine(r.Prompt, 60)))
	}
	if t.CrawlsErr != nil {
		fmt.Fprintf(&b, "Active crawls  unavailable: %s\n", describe.OneLine(t.CrawlsErr.Error(), 200))
	} else {
		fmt.Fprintf(&b, "Active crawls  %d\n", len(t.Crawls))
	}
	for _, c := range t.Crawls {
		fmt.Fprintf(&b, "  %s  %s\n", describe.OneLine(c.URL, 80), describe.OneLine(c.ID, idCells))
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
	t.Leases.plain(&b, secrets, idCells)
	return b.String()
}
