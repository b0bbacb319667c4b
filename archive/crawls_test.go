package archive

import (
	"testing"
	"time"
)

func i64(v int64) *int64     { return &v }
func f64(v float64) *float64 { return &v }

// A crawl is kept once per service and id, joined by MergeCrawl: a later
// poll's figures rise, an end is never undone, the first start time and
// starter stay; Crawls lists them newest first, by service and time.
func TestCrawlsKept(t *testing.T) {
	eachStore(t, func(t *testing.T, _ string, s Store) {
		ck, ok := s.(CrawlKeeper)
		if !ok {
			t.Fatal("the store keeps no crawls")
		}
		ctx := t.Context()
		t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
		t1 := t0.Add(time.Minute)
		puts := []Crawl{
			{Service: "https://a", ID: "c1", URL: "https://example.com", Status: "scraping", CreatedAt: &t0, StartedBy: "ana"},
			{Service: "https://a", ID: "c1", Status: "scraping", Pages: i64(3), Total: i64(10), CreditsUsed: f64(3), CreatedAt: &t1, StartedBy: "bo"},
			{Service: "https://a", ID: "c1", Status: "completed", Pages: i64(10), Total: i64(10), CreditsUsed: f64(10), EndedAt: &t1},
			{Service: "https://a", ID: "c1", Status: "scraping", Pages: i64(2), CreditsUsed: f64(2)}, // a stale poll
			{Service: "https://a", ID: "c2", URL: "https://go.dev", Status: "cancelled", CreatedAt: &t1},
			{Service: "https://a", ID: "c2", Status: "failed"},
			{Service: "https://b", ID: "c3", URL: "https://b.example", CreatedAt: &t1},
		}
		for i := range puts {
			if err := ck.PutCrawl(ctx, &puts[i]); err != nil {
				t.Fatal(err)
			}
		}
		got, err := ck.Crawls(ctx, CrawlQuery{Service: "https://a"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].ID != "c2" || got[1].ID != "c1" {
			t.Fatalf("crawls %+v", got)
		}
		c1 := got[1]
		if c1.URL != "https://example.com" || c1.Status != "completed" || *c1.Pages != 10 || *c1.Total != 10 || *c1.CreditsUsed != 10 ||
			!c1.CreatedAt.Equal(t0) || c1.EndedAt == nil || !c1.EndedAt.Equal(t1) || c1.StartedBy != "ana" {
			t.Errorf("c1 %+v", c1)
		}
		if got[0].Status != "cancelled" {
			t.Errorf("c2 %+v", got[0])
		}
		all, err := ck.Crawls(ctx, CrawlQuery{Since: t1})
		if err != nil || len(all) != 2 {
			t.Errorf("since: %v %+v", err, all)
		}
	})
}

// Prune deletes crawls by the runs' rule: first seen before the cut-off
// (the archive's time when that is not known), of the service when one is
// given, or the one id; Pruning counts them and deletes nothing.
func TestCrawlsPruned(t *testing.T) {
	eachStore(t, func(t *testing.T, _ string, s Store) {
		ck := s.(CrawlKeeper)
		ctx := t.Context()
		base := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
		for i, svc := range []string{"https://a", "https://a", "https://a", "https://b", "https://a"} {
			at := base.Add(time.Duration(i) * 24 * time.Hour)
			c := Crawl{Service: svc, ID: "c" + string(rune('0'+i)), Status: "completed", CreatedAt: &at}
			if err := ck.PutCrawl(ctx, &c); err != nil {
				t.Fatal(err)
			}
		}
		// Seen with no time of its own: dated by the archive (now), kept.
		if err := ck.PutCrawl(ctx, &Crawl{Service: "https://a", ID: "c-untimed", Status: "scraping"}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutRun(ctx, &Run{Service: "https://a", ID: "r0", CreatedAt: &base}); err != nil {
			t.Fatal(err)
		}
		cut := base.Add(2*24*time.Hour + time.Hour) // after c0, c1, c2
		p, err := s.Pruning(ctx, "https://a", cut, "")
		if err != nil || p.Crawls != 3 || p.Runs != 1 {
			t.Fatalf("pruning: %+v %v", p, err)
		}
		if all, _ := ck.Crawls(ctx, CrawlQuery{}); len(all) != 6 {
			t.Fatalf("Pruning deleted: %d left", len(all))
		}
		p, err = s.Prune(ctx, "", base.Add(3*24*time.Hour+time.Hour), "") // c0–c3, every service
		if err != nil || p.Crawls != 4 || p.Runs != 1 {
			t.Fatalf("prune: %+v %v", p, err)
		}
		p, err = s.Prune(ctx, "", time.Time{}, "c4")
		if err != nil || p.Crawls != 1 || p.Runs != 0 {
			t.Fatalf("prune id: %+v %v", p, err)
		}
		left, err := ck.Crawls(ctx, CrawlQuery{})
		if err != nil || len(left) != 1 || left[0].ID != "c-untimed" {
			t.Fatalf("left: %v %+v", err, left)
		}
	})
}
