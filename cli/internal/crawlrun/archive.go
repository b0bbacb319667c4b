// Package crawlrun is what a crawl command asks for and keeps, below its
// flags: the body of a new crawl (Request, from crawl's flags or from
// crawl-preview's answer) and the crawl's record in the archive (Archive).
// Its inputs are values the command layer fills in; nothing here reaches
// back into it.
package crawlrun

import (
	"context"
	"sync"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/poller"
	uicrawl "github.com/firewatch/firewatch/ui/crawl"
)

// A crawl firewatch starts or watches is kept in the archive
// (archive.Crawl): when it starts, and at every status that changes its
// status word, pages or credits. A failure is said once and the crawl
// goes on.

// Archive is the archive a crawl command keeps its crawls in. A nil
// *Archive keeps nothing: each method is a no-op on it.
type Archive struct {
	st      archive.Store
	ck      archive.CrawlKeeper
	service string
	team    string
	by      string // who started it through a hub
	say     func(string)

	mu     sync.Mutex
	failed bool
}

// Keep keeps the crawls of service (the team's token team; by: who starts
// them through a hub, "" for none) in st, which it then owns; nil, st
// closed, when st is nil or keeps no crawls. A failure to keep one is said
// through say.
func Keep(st archive.Store, service, team, by string, say func(string)) *Archive {
	ck, ok := st.(archive.CrawlKeeper)
	if st == nil || !ok {
		if st != nil {
			st.Close()
		}
		return nil
	}
	return &Archive{st: st, ck: ck, service: service, team: team, by: by, say: say}
}

// Close closes the archive.
func (k *Archive) Close() {
	if k != nil {
		k.st.Close()
	}
}

// put records c, saying the first failure.
func (k *Archive) put(c *archive.Crawl) {
	if k == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), archiving.WriteTimeout)
	defer cancel()
	if err := k.ck.PutCrawl(ctx, c); err != nil {
		k.mu.Lock()
		first := !k.failed
		k.failed = true
		k.mu.Unlock()
		if first {
			k.say("the crawl is not archived: " + err.Error())
		}
	}
}

// Started records a crawl this command started.
func (k *Archive) Started(id, url string) {
	if k == nil {
		return
	}
	now := time.Now()
	k.put(&archive.Crawl{Service: k.service, ID: id, URL: url, Status: "scraping", Team: k.team, CreatedAt: &now, StartedBy: k.by})
}

// Seen records the crawls of the team's list, seen at now.
func (k *Archive) Seen(ctx context.Context, list []poller.Crawl, now time.Time) error {
	if k == nil {
		return nil
	}
	return archiving.SeenCrawls(ctx, k.st, k.service, k.team, list, now)
}

// Watch is svc with every status its watch of the crawl of url sees kept.
func (k *Archive) Watch(svc uicrawl.Service, url string) uicrawl.Service {
	if k == nil {
		return svc
	}
	return &archivedCrawl{Service: svc, k: k, url: url}
}

type archivedCrawl struct {
	uicrawl.Service
	k   *Archive
	url string
}

func (c *archivedCrawl) WatchCrawl(ctx context.Context, id string, o poller.CrawlWatchOptions, sink func(poller.CrawlUpdate)) (*poller.CrawlStatus, poller.CrawlWatchStats, error) {
	var last struct {
		status    string
		completed int
		credits   float64
	}
	url := c.url // a page's URL is not the crawl's: none when not known
	keep := func(st *poller.CrawlStatus) {
		cr := -1.0
		if st.CreditsUsed != nil {
			cr = *st.CreditsUsed
		}
		if st.Status == last.status && st.Completed == last.completed && cr == last.credits {
			return
		}
		last.status, last.completed, last.credits = st.Status, st.Completed, cr
		c.k.put(archiving.CrawlRecord(c.k.service, c.k.team, id, url, st, time.Now()))
	}
	final, stats, err := c.Service.WatchCrawl(ctx, id, o, func(u poller.CrawlUpdate) {
		if u.Status != nil {
			keep(u.Status)
		}
		sink(u)
	})
	if final != nil {
		keep(final)
	}
	return final, stats, err
}
