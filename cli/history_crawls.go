package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/text"
)

// history --kind crawl: the archived crawls (archive.Crawl), newest first,
// as a table or JSON lines (a terminal gets the table: the runs screen
// lists runs).

// crawlLine is one crawl of history --kind crawl's JSON output.
type crawlLine struct {
	Kind        string     `json:"kind"` // "crawl"
	ID          string     `json:"id"`
	URL         *string    `json:"url"`
	Status      *string    `json:"status"`
	Pages       *int64     `json:"pages"`
	Total       *int64     `json:"total"`
	CreditsUsed *float64   `json:"creditsUsed"`
	CreatedAt   *time.Time `json:"createdAt"`
	EndedAt     *time.Time `json:"endedAt"`
	StartedBy   *string    `json:"startedBy"`
}

func crawlLineOf(c *archive.Crawl) crawlLine {
	return crawlLine{Kind: "crawl", ID: text.Sanitize(c.ID), URL: strOrNil(text.Sanitize(c.URL)), Status: strOrNil(text.Sanitize(c.Status)),
		Pages: c.Pages, Total: c.Total, CreditsUsed: c.CreditsUsed, CreatedAt: c.CreatedAt, EndedAt: c.EndedAt, StartedBy: strOrNil(text.Sanitize(c.StartedBy))}
}

// crawlsOf reads the crawls q's service and time bounds select.
func crawlsOf(ctx context.Context, st archive.Store, q archive.Query) ([]archive.Crawl, error) {
	ck, ok := st.(archive.CrawlKeeper)
	if !ok {
		return nil, nil
	}
	list, err := ck.Crawls(ctx, archive.CrawlQuery{Service: q.Service, Since: q.Since, Before: q.Before, Limit: q.Limit})
	if err != nil {
		return nil, archiveErr(err)
	}
	return list, nil
}

func (a *app) historyCrawls(ctx context.Context, o *watchOptions, st archive.Store, q archive.Query, now time.Time) error {
	if q.Status != "" && q.Status != "all" || q.Grep != "" {
		return badUsage("--kind crawl takes --since, --limit and --all-services only")
	}
	list, err := crawlsOf(ctx, st, q)
	if err != nil {
		return err
	}
	if o.Output == OutputJSON {
		return a.printJSONLines(len(list), func(i int) any { return crawlLineOf(&list[i]) })
	}
	tw := tabwriter.NewWriter(a.print, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tID\tCREATED\tPAGES\tCREDITS\tSTARTED BY\tURL")
	for i := range list {
		c := &list[i]
		pages, credits, created := "-", "-", "-"
		if c.Pages != nil {
			pages = fmt.Sprint(*c.Pages)
			if c.Total != nil && *c.Total > 0 {
				pages += "/" + fmt.Sprint(*c.Total)
			}
		}
		if c.CreditsUsed != nil {
			credits = describe.Tokens(*c.CreditsUsed)
			if !archive.CrawlEnded(c.Status) {
				credits += " so far"
			}
		}
		if c.CreatedAt != nil {
			created = text.Age(now, *c.CreatedAt)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", watchprint.OrDash(describe.OneLine(a.secrets.Sanitize(c.Status), 12)), text.Sanitize(c.ID), created,
			pages, credits, watchprint.OrDash(describe.OneLine(a.secrets.Sanitize(c.StartedBy), 20)), watchprint.OrDash(describe.OneLine(a.secrets.Redact(text.Sanitize(c.URL)), 60)))
	}
	return tw.Flush()
}

// historyKinds are history's --kind values.
var historyKinds = []string{"run", "crawl"}

func checkKind(kind string) (string, error) {
	k := strings.ToLower(strings.TrimSpace(kind))
	for _, v := range historyKinds {
		if k == v {
			return k, nil
		}
	}
	return "", badUsage("--kind %q: use one of %s", text.Sanitize(kind), strings.Join(historyKinds, ", "))
}

// printJSONLines prints n values as JSON lines (value(i) marshalled with
// opts), each redacted and escaped for the terminal, in one write.
func (a *app) printJSONLines(n int, value func(i int) any, opts ...json.Options) error {
	var b []byte
	for i := range n {
		line, err := json.Marshal(value(i), opts...)
		if err != nil {
			return err
		}
		line, _ = a.secrets.RedactJSON(line)
		b = append(append(b, watchprint.EscapeForTerminal(line)...), '\n')
	}
	_, err := a.print.Write(b)
	return err
}
