package historytext

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/text"
)

// history --kind crawl: the archived crawls (archive.Crawl), newest first,
// as a table or JSON lines (a terminal gets the table: the runs screen
// lists runs).

// CrawlLine is one crawl of history --kind crawl's JSON output.
type CrawlLine struct {
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

// CrawlLineOf is a crawl's line.
func CrawlLineOf(c *archive.Crawl) CrawlLine {
	return CrawlLine{Kind: "crawl", ID: text.Sanitize(c.ID), URL: StrOrNil(text.Sanitize(c.URL)), Status: StrOrNil(text.Sanitize(c.Status)),
		Pages: c.Pages, Total: c.Total, CreditsUsed: c.CreditsUsed, CreatedAt: c.CreatedAt, EndedAt: c.EndedAt, StartedBy: StrOrNil(text.Sanitize(c.StartedBy))}
}

// Crawls reads the crawls q's service and time bounds select (none from a
// store that keeps no crawls). An error is the store's.
func Crawls(ctx context.Context, st archive.Store, q archive.Query) ([]archive.Crawl, error) {
	ck, ok := st.(archive.CrawlKeeper)
	if !ok {
		return nil, nil
	}
	return ck.Crawls(ctx, archive.CrawlQuery{Service: q.Service, Since: q.Since, Before: q.Before, Limit: q.Limit})
}

// CrawlsQuery says whether q is one --kind crawl takes (an error is bad
// usage): crawls have no status or prompt to filter on.
func CrawlsQuery(q archive.Query) error {
	if q.Status != "" && q.Status != "all" || q.Grep != "" {
		return errors.New("--kind crawl takes --since, --limit and --all-services only")
	}
	return nil
}

// WriteCrawlsJSON writes the crawls as JSON lines.
func WriteCrawlsJSON(w io.Writer, list []archive.Crawl, secrets *text.Secrets) error {
	return WriteJSONLines(w, secrets, len(list), func(i int) any { return CrawlLineOf(&list[i]) })
}

// WriteCrawls writes the crawls as a table; now is the clock for ages.
func WriteCrawls(w io.Writer, list []archive.Crawl, secrets *text.Secrets, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", watchprint.OrDash(describe.OneLine(secrets.Sanitize(c.Status), 12)), text.Sanitize(c.ID), created,
			pages, credits, watchprint.OrDash(describe.OneLine(secrets.Sanitize(c.StartedBy), 20)), watchprint.OrDash(describe.OneLine(secrets.Redact(text.Sanitize(c.URL)), 60)))
	}
	return tw.Flush()
}
