package archiving

import (
	"context"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/poller"
)

// Crawls as the archive keeps them (archive.Crawl, one row per service and
// id joined by archive.MergeCrawl): a crawl firewatch starts, watches, or
// sees in the team's active crawls.

// CrawlRecord is what a crawl status says of crawl id, seen at now: its
// figures, and its end when the status is one.
func CrawlRecord(service, team, id, url string, st *poller.CrawlStatus, now time.Time) *archive.Crawl {
	c := &archive.Crawl{Service: service, ID: id, URL: url, Team: team, CreatedAt: &now}
	if st == nil {
		return c
	}
	c.Status = st.Status
	done, total := int64(st.Completed), int64(st.Total)
	c.Pages, c.Total = &done, &total
	if st.CreditsUsed != nil {
		v := *st.CreditsUsed
		c.CreditsUsed = &v
	}
	if st.Terminal() {
		c.EndedAt = &now
	}
	return c
}

// SeenCrawls records the team's active crawls as a list showed them at
// now (status scraping: the list has active crawls only). A store that
// keeps no crawls records nothing.
func SeenCrawls(ctx context.Context, st archive.Store, service, team string, list []poller.Crawl, now time.Time) error {
	ck, ok := st.(archive.CrawlKeeper)
	if !ok || st == nil {
		return nil
	}
	for _, c := range list {
		if c.ID == "" {
			continue
		}
		if err := ck.PutCrawl(ctx, &archive.Crawl{Service: service, ID: c.ID, URL: c.URL, Status: "scraping", Team: team, CreatedAt: &now}); err != nil {
			return &StoreError{err}
		}
	}
	return nil
}
