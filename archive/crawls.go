package archive

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
)

// Crawl is what the archive keeps of a crawl: the service's crawl status
// has no creation time, so CreatedAt is when firewatch first saw it
// (started it, watched it, or found it in the team's active crawls) and
// EndedAt when it saw it end.
type Crawl struct {
	Service, ID string
	URL         string
	Status      string // scraping, completed, failed, cancelled (open: as the service says)
	Pages       *int64 // pages done (the status's completed)
	Total       *int64
	CreditsUsed *float64
	CreatedAt   *time.Time
	EndedAt     *time.Time
	StartedBy   string // who started it through a hub
	Team        string // TeamOf the key that saw it
	ArchivedAt  time.Time
}

// CrawlQuery selects crawls, newest first.
type CrawlQuery struct {
	Service string    // "" for every service
	Since   time.Time // created at or after (zero: no bound)
	Before  time.Time // created before (zero: no bound)
	Limit   int       // 0: no limit
}

// CrawlKeeper is a store that keeps crawls (both of firewatch's are).
type CrawlKeeper interface {
	// PutCrawl joins c to the crawl's record by MergeCrawl (creating it
	// when it is new), in one transaction.
	PutCrawl(ctx context.Context, c *Crawl) error
	// Crawls returns the crawls q selects, newest first.
	Crawls(ctx context.Context, q CrawlQuery) ([]Crawl, error)
}

// CrawlEnded reports whether status is a crawl's end.
func CrawlEnded(status string) bool {
	switch strings.ToLower(status) {
	case "completed", "failed", "cancelled", "canceled":
		return true
	}
	return false
}

// MergeCrawl is Merge's rule for a crawl: the url in's where it gives one;
// the status a later word, but "scraping" never replaces an end and
// "failed" never replaces "cancelled"; pages, total and credits the higher
// figure (they only rise); CreatedAt the earliest; EndedAt and StartedBy
// the first. held and in are not changed.
func MergeCrawl(held, in *Crawl) *Crawl {
	if held == nil {
		held = &Crawl{}
	}
	m := *held
	m.Service = cmp.Or(in.Service, m.Service)
	m.ID = cmp.Or(in.ID, m.ID)
	m.URL = cmp.Or(in.URL, m.URL)
	m.Team = cmp.Or(in.Team, m.Team)
	h, n := strings.ToLower(held.Status), strings.ToLower(in.Status)
	switch {
	case in.Status == "":
	case !CrawlEnded(n) && CrawlEnded(h):
	case n == "failed" && (h == "cancelled" || h == "canceled"):
	default:
		m.Status = in.Status
	}
	higherI := func(a, b *int64) *int64 {
		if b != nil && *b >= 0 && (a == nil || *b > *a) {
			v := *b
			return &v
		}
		return a
	}
	m.Pages, m.Total = higherI(m.Pages, in.Pages), higherI(m.Total, in.Total)
	if in.CreditsUsed != nil && *in.CreditsUsed >= 0 && (m.CreditsUsed == nil || *in.CreditsUsed > *m.CreditsUsed) {
		v := *in.CreditsUsed
		m.CreditsUsed = &v
	}
	if in.CreatedAt != nil && (m.CreatedAt == nil || in.CreatedAt.Before(*m.CreatedAt)) {
		v := *in.CreatedAt
		m.CreatedAt = &v
	}
	if m.EndedAt == nil && in.EndedAt != nil {
		v := *in.EndedAt
		m.EndedAt = &v
	}
	m.StartedBy = cmp.Or(held.StartedBy, in.StartedBy)
	return &m
}

var _ CrawlKeeper = (*sqlStore)(nil)

const crawlCols = `service, id, url, status, pages, total, credits_used, created_at, ended_at, started_by, team, archived_at`

func scanCrawl(sc scanner) (*Crawl, error) {
	var c Crawl
	var url, status, by, team sql.NullString
	var pages, total, created, ended sql.NullInt64
	var credits sql.NullFloat64
	var archived int64
	if err := sc.Scan(&c.Service, &c.ID, &url, &status, &pages, &total, &credits, &created, &ended, &by, &team, &archived); err != nil {
		return nil, err
	}
	c.URL, c.Status, c.StartedBy, c.Team = url.String, status.String, by.String, team.String
	if pages.Valid {
		c.Pages = &pages.Int64
	}
	if total.Valid {
		c.Total = &total.Int64
	}
	if credits.Valid {
		c.CreditsUsed = &credits.Float64
	}
	c.CreatedAt, c.EndedAt = fromMs(created), fromMs(ended)
	c.ArchivedAt = time.UnixMilli(archived).UTC()
	return &c, nil
}

func (s *sqlStore) PutCrawl(ctx context.Context, c *Crawl) error {
	if s.readOnly {
		return s.fail("saving a crawl", ErrReadOnly)
	}
	return s.write(ctx, "saving a crawl", func(tx *sql.Tx) error {
		held, err := scanCrawl(s.txQueryRow(ctx, tx, s.q(`SELECT `+crawlCols+` FROM fw_crawls WHERE service = ? AND id = ?`+s.d.forUpdate), c.Service, c.ID))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			held = nil
		case err != nil:
			return err
		}
		m := MergeCrawl(held, c)
		if held == nil {
			m.ArchivedAt = s.now()
		}
		_, err = s.txExec(ctx, tx, s.q(`INSERT INTO fw_crawls (`+crawlCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (service, id) DO UPDATE SET url = excluded.url, status = excluded.status, pages = excluded.pages,
			total = excluded.total, credits_used = excluded.credits_used, created_at = excluded.created_at,
			ended_at = excluded.ended_at, started_by = excluded.started_by, team = excluded.team`),
			m.Service, m.ID, nullStr(m.URL), nullStr(m.Status), nullI(m.Pages), nullI(m.Total), nullF(m.CreditsUsed),
			ms(m.CreatedAt), ms(m.EndedAt), nullStr(m.StartedBy), nullStr(m.Team), m.ArchivedAt.UnixMilli())
		return err
	})
}

func (s *sqlStore) Crawls(ctx context.Context, q CrawlQuery) ([]Crawl, error) {
	var where []string
	var args []any
	if q.Service != "" {
		where, args = append(where, "service = ?"), append(args, q.Service)
	}
	if !q.Since.IsZero() {
		where, args = append(where, "created_at >= ?"), append(args, q.Since.UnixMilli())
	}
	if !q.Before.IsZero() {
		where, args = append(where, "created_at < ?"), append(args, q.Before.UnixMilli())
	}
	query := `SELECT ` + crawlCols + ` FROM fw_crawls`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY created_at DESC, id DESC"
	if q.Limit > 0 {
		query += " LIMIT ?"
		args = append(args, q.Limit)
	}
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, s.fail("reading the crawls", err)
	}
	defer rows.Close()
	var out []Crawl
	for rows.Next() {
		c, err := scanCrawl(rows)
		if err != nil {
			return nil, s.fail("reading the crawls", err)
		}
		out = append(out, *c)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("reading the crawls", err)
	}
	return out, nil
}
