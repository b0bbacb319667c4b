package historytext

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/text"
)

func TestParseAge(t *testing.T) {
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"7d": now.Add(-7 * 24 * time.Hour), "2w": now.Add(-14 * 24 * time.Hour), "36h": now.Add(-36 * time.Hour),
		"2026-11-01": time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), "2026-11-01T10:00:00Z": time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC),
	} {
		if got, err := ParseAge(in, now); err != nil || !got.Equal(want) {
			t.Errorf("ParseAge(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "7x", "-3d", "yesterday"} {
		if _, err := ParseAge(bad, now); err == nil {
			t.Errorf("ParseAge(%q) accepted", bad)
		}
	}
}

// The filters: a negative limit, an unknown status and a bad age are
// refused with the flag named; "canceled" is read as "cancelled"; the
// service is asked only without AllServices.
func TestFilterQuery(t *testing.T) {
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	q, err := Filter{Since: "2d", Status: " Canceled ", Grep: "x", Limit: 5}.Query("https://svc", now)
	if err != nil || q.Status != "cancelled" || q.Service != "https://svc" || !q.Since.Equal(now.Add(-48*time.Hour)) || q.Limit != 5 || q.Grep != "x" {
		t.Fatalf("%+v %v", q, err)
	}
	if q, _ := (Filter{Status: "all", AllServices: true}).Query("https://svc", now); q.Service != "" {
		t.Errorf("all services, asked %q", q.Service)
	}
	for f, want := range map[Filter]string{
		{Status: "all", Limit: -1}:                "--limit -1",
		{Status: "done\x1b[2J"}:                   `--status "done"`,
		{Status: "all", Since: "yesterday"}:       `--since "yesterday"`,
		{Status: "all", Since: "7x", Grep: "any"}: `--since "7x"`,
	} {
		if _, err := f.Query("s", now); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%+v: %v, want %s…", f, err, want)
		}
	}
	if k, err := Kind(" Crawl "); k != "crawl" || err != nil {
		t.Errorf("Kind: %q %v", k, err)
	}
	if _, err := Kind("page"); err == nil || !strings.Contains(err.Error(), "run, crawl") {
		t.Errorf("Kind(page): %v", err)
	}
}

// A lineage: a thread's turns in turn order, found by the thread's id or
// by any of its runs'; a run's reruns, and theirs, in the order they
// started; nothing of another lineage.
func TestLineage(t *testing.T) {
	at := func(h int) *time.Time { v := time.Date(2026, 11, 20, h, 0, 0, 0, time.UTC); return &v }
	all := []archive.Run{
		{ID: "t3", ThreadID: "th", ThreadTurn: 3, CreatedAt: at(1)},
		{ID: "t1", ThreadID: "th", ThreadTurn: 1, CreatedAt: at(3)},
		{ID: "t2", ThreadID: "th", ThreadTurn: 2, CreatedAt: at(2)},
		{ID: "o", ThreadID: "other", ThreadTurn: 1, CreatedAt: at(1)},
		{ID: "r2", RerunOf: "r1", CreatedAt: at(6)},
		{ID: "r1", RerunOf: "root", CreatedAt: at(5)},
		{ID: "root", CreatedAt: at(4)},
		{ID: "x", RerunOf: "elsewhere", CreatedAt: at(7)},
	}
	ids := func(l []archive.Run) string {
		var s []string
		for _, r := range l {
			s = append(s, r.ID)
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct{ thread, root, want string }{
		{"th", "", "t1 t2 t3"}, {"T2", "", "t1 t2 t3"}, {"", "ROOT", "root r1 r2"}, {"", "r1", "r1 r2"}, {"none", "", ""},
	} {
		if got := ids(Lineage(all, c.thread, c.root)); got != c.want {
			t.Errorf("Lineage(%q, %q) = %q, want %q", c.thread, c.root, got, c.want)
		}
	}
	if p := PreviousTurn(all, &all[0]); p != "t2" {
		t.Errorf("turn before t3: %q", p)
	}
	if p := PreviousTurn(all, &all[1]); p != "" {
		t.Errorf("turn before the first: %q", p)
	}
}

// Nothing of a run's or a crawl's own reaches the table raw, nor the key:
// escapes are stripped, the key redacted, in the runs' table, the
// lineage's and the crawls'.
func TestTablesSanitise(t *testing.T) {
	const key = "fc-0123456789abcdef"
	secrets := text.NewSecrets(key)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	created := now.Add(-time.Hour)
	credits := 12.5
	r := archive.Run{ID: "r1", Status: "completed\x1b[2J", Outcome: "succeeded", Complete: true, Prompt: "find " + key + " \x1b]0;pwn\x07now",
		Model: "spark\x1b[31m", CreatedAt: &created, CreditsUsed: &credits, RerunOf: "r0", RerunChanged: []string{"prompt\x1b[1m"}}
	var b strings.Builder
	tb := NewTable(&b, secrets, now)
	if err := tb.Add(context.Background(), &r); err != nil || tb.Flush() != nil || tb.Len() != 1 {
		t.Fatal(err)
	}
	if err := WriteLineage(&b, []archive.Run{r}, secrets, now); err != nil {
		t.Fatal(err)
	}
	c := archive.Crawl{ID: "c1\x1b[2J", URL: "https://x.example/?k=" + key, Status: "scraping\x07", StartedBy: "ann\x1b[31m", CreatedAt: &created, CreditsUsed: &credits}
	if err := WriteCrawls(&b, []archive.Crawl{c}, secrets, now); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, key) {
		t.Errorf("raw text or the key reached the tables:\n%q", out)
	}
	for _, want := range []string{"13 so far", "rerun of r0: prompt", "1 runs, 12.5 credits in all", "find " + text.Redacted} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// The JSON lines are redacted and escaped, one a run, and a cancelled
// context stops them before the next run.
func TestJSONLines(t *testing.T) {
	const key = "fc-0123456789abcdef"
	var b strings.Builder
	jl := NewJSONLines(&b, text.NewSecrets(key), time.Now())
	r := archive.Run{ID: "r1", Prompt: "use " + key + " \x1b[2J", Complete: true, Outcome: "succeeded", RerunOf: "r0"}
	if err := jl.Add(context.Background(), &r); err != nil || jl.Flush() != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, key) || strings.Contains(out, "\x1b") || !strings.Contains(out, `"rerunOf":{"id":"r0","changed":[]}`) ||
		strings.Count(out, "\n") != 1 {
		t.Errorf("%q", out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := jl.Add(ctx, &r); err == nil {
		t.Error("a cancelled context wrote on")
	}
}
