package costtext

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// updating: -update (the flag a test dependency defines) rewrites the
// goldens in testdata/golden.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// fakeTeam answers cost --team's questions with fixed figures; a nil
// part answers err.
type fakeTeam struct {
	usage *poller.CreditUsage
	// later, when set, is every answer of the balance after the first
	// (a billing period that turns over under cost).
	later     *poller.CreditUsage
	asked     int
	month     *poller.UsageHistory
	keys      *poller.UsageHistory
	activity  []poller.Activity
	usageErr  error
	histErr   error
	actErr    error
	keysCalls int
}

func (f *fakeTeam) CreditUsage(context.Context) (*poller.CreditUsage, error) {
	f.asked++
	if f.asked > 1 && f.later != nil {
		return f.later, f.usageErr
	}
	return f.usage, f.usageErr
}

func (f *fakeTeam) UsageHistory(_ context.Context, _ string, byKey bool) (*poller.UsageHistory, error) {
	if f.histErr != nil {
		return nil, f.histErr
	}
	if byKey {
		f.keysCalls++
		return f.keys, nil
	}
	return f.month, nil
}

func (f *fakeTeam) Activity(context.Context, int) ([]poller.Activity, error) {
	return f.activity, f.actErr
}

func pf(v float64) *float64 { return &v }

var teamNow = time.Date(2026, 12, 7, 15, 30, 0, 0, time.UTC)

// teamFixture is a period of Nov 20 – Dec 20 with 40,000 of 100,000
// credits used, a month of daily bins (1,900 a day for the last week), two
// keys (one named with escape sequences) and an archive of four runs (two
// billed, one failed, one still going) and two crawls.
func teamFixture(t *testing.T) (*fakeTeam, archive.Store) {
	t.Helper()
	ps, pe := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 20, 0, 0, 0, 0, time.UTC)
	f := &fakeTeam{usage: &poller.CreditUsage{Remaining: pf(60000), Plan: pf(100000), PeriodStart: ps, PeriodEnd: pe}}
	f.month = &poller.UsageHistory{TimeRange: "month", BinSize: "day"}
	day0 := time.Date(2026, 11, 8, 0, 0, 0, 0, time.UTC)
	for i := range 30 {
		s := day0.AddDate(0, 0, i)
		c := 1000.0 + float64(i%3)*100
		if i >= 22 {
			c = 1900
		}
		f.month.Bins = append(f.month.Bins, poller.UsageBin{Start: s, End: s.AddDate(0, 0, 1), Credits: pf(c)})
	}
	f.keys = &poller.UsageHistory{BinSize: "month", Bins: []poller.UsageBin{
		{Start: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), APIKey: "default", Credits: pf(21000)},
		{Start: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), APIKey: text.Sanitize("prod\x1b]0;pwned\x07uction"), Credits: pf(9000)},
		{Start: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), APIKey: "default", Credits: pf(10000)},
	}}
	for i, ep := range []string{"scrape", "scrape", "search", "scrape", "map"} {
		f.activity = append(f.activity, poller.Activity{ID: "a" + string(rune('0'+i)), Endpoint: ep, Target: "https://example.com/" + ep, CreatedAt: teamNow.Add(-time.Duration(i) * time.Hour)})
	}
	st, err := archive.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	const svc = "https://api.example"
	at := func(d int, h int) *time.Time { v := time.Date(2026, 12, d, h, 0, 0, 0, time.UTC); return &v }
	for _, r := range []archive.Run{
		{ID: "r1", Outcome: "succeeded", Status: "completed", CreditsUsed: pf(280), CreatedAt: at(6, 10), Complete: true},
		{ID: "r2", Outcome: "credit_limit_reached", Status: "failed", CreditsUsed: pf(150), CreatedAt: at(7, 9), Complete: true},
		{ID: "r3", Outcome: "failed", Status: "failed", CreditsUsed: pf(90), CreatedAt: at(7, 11), Complete: true},
		{ID: "r4", Status: "processing", CreditsUsed: pf(40), CreatedAt: at(7, 15)},
		{ID: "r0", Outcome: "succeeded", Status: "completed", CreditsUsed: pf(500), CreatedAt: &[]time.Time{ps.Add(-time.Hour)}[0], Complete: true}, // before the period
	} {
		r.Service = svc
		if err := st.PutRun(context.Background(), &r); err != nil {
			t.Fatal(err)
		}
	}
	ck := st.(archive.CrawlKeeper)
	for _, c := range []archive.Crawl{
		{ID: "c1", URL: "https://docs.example", Status: "completed", Pages: i64p(60), CreditsUsed: pf(60), CreatedAt: at(6, 12)},
		{ID: "c2", URL: "https://go.dev", Status: "scraping", Pages: i64p(12), CreditsUsed: pf(12), CreatedAt: at(7, 14)},
	} {
		c.Service = svc
		if err := ck.PutCrawl(context.Background(), &c); err != nil {
			t.Fatal(err)
		}
	}
	return f, st
}

func i64p(v int64) *int64 { return &v }

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cli/internal/costtext -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs:\n%s", path, got)
	}
	for i, l := range strings.Split(got, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("%s line %d is %d columns: %q", name, i+1, n, l)
		}
	}
}

// The ledger: the period's use split into the archive's billed runs and
// crawls of the period and the rest; the failed run shown, not counted;
// the run still going counted in the rest; the projection from the last 7
// whole days (1,900 a day: 60,000 credits last 31.6 days, past Dec 20).
func TestCostTeamLedger(t *testing.T) {
	f, st := teamFixture(t)
	tl, err := BuildTeam(context.Background(), f, st, "https://api.example", text.NewSecrets(), teamNow)
	if err != nil {
		t.Fatal(err)
	}
	p := tl.Parts
	if p == nil || p.AgentRuns.BilledCredits != 430 || p.AgentRuns.FailedCredits != 90 || p.AgentRuns.UnknownCredits != 40 ||
		p.Crawls.CreditsUsed != 72 || p.Crawls.Unfinished != 1 || *p.Total != 40000 || *p.Rest != 40000-430-72 {
		t.Fatalf("parts %+v", p)
	}
	if pj := tl.Projection; pj == nil || pj.PerDay != 1900 || pj.DaysBeforeEnd == nil || *pj.DaysBeforeEnd >= 0 {
		t.Errorf("projection %+v", tl.Projection)
	}
	var b strings.Builder
	if err := WriteTeam(&b, tl, teamNow); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "cost-team.txt", b.String())
	if strings.Contains(b.String(), "\x1b") {
		t.Error("an escape sequence reached the output")
	}
}

// The plan running out early: 1,900 a day with 20,000 left on Dec 7 runs
// out on Dec 17, 2 days before the period ends (Dec 20).
func TestCostTeamProjectsEarlyEnd(t *testing.T) {
	f, st := teamFixture(t)
	f.usage.Remaining = pf(20000)
	tl, err := BuildTeam(context.Background(), f, st, "https://api.example", text.NewSecrets(), teamNow)
	if err != nil {
		t.Fatal(err)
	}
	pj := tl.Projection
	rem, rate := 20000.0, 1900.0
	want := teamNow.Add(time.Duration(rem / rate * float64(24*time.Hour)))
	if pj == nil || !pj.LastsUntil.Equal(want) || *pj.DaysBeforeEnd != 2 ||
		pj.Text != "at 1,900 credits a day the plan lasts until Dec 18, 2 days before the period ends" {
		t.Errorf("projection %+v (want until %v)", pj, want)
	}
}

// A self-hosted-like service (no history: 404, no activity: 501) and
// absurd figures: what it has is shown, what it lacks is named.
func TestCostTeamSaysWhatItLacks(t *testing.T) {
	f, st := teamFixture(t)
	f.histErr = &poller.Error{Kind: poller.KindNotFound, Status: 404, Op: "usage history"}
	f.actErr = &poller.Error{Kind: poller.KindBadRequest, Status: 501, Op: "activity"}
	f.usage.Plan = nil // an absurd plan figure, left out by the client
	tl, err := BuildTeam(context.Background(), f, st, "https://api.example", text.NewSecrets(), teamNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Failed) != 0 || tl.Parts == nil || tl.Parts.Rest != nil {
		t.Fatalf("failed %v, parts %+v", tl.Failed, tl.Parts)
	}
	for _, k := range []string{"byDay", "byKey", "activity", "total", "projection"} {
		if tl.Unavailable[k] == "" {
			t.Errorf("%s not said: %v", k, tl.Unavailable)
		}
	}
	var b strings.Builder
	if err := WriteTeam(&b, tl, teamNow); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "cost-team-self-hosted.txt", b.String())
	if _, err := json.Marshal(tl); err != nil {
		t.Fatal(err)
	}
}

// A billing period that turns over while cost --team asks (the balance
// asked again at the end names another period): it is said, and every
// figure of the period is the new one's: its total, the archive's runs and
// crawls of the new period only (none of the old one's), its projection.
func TestCostTeamPeriodChangesUnderIt(t *testing.T) {
	f, st := teamFixture(t)
	ns, ne := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC), time.Date(2027, 1, 6, 12, 0, 0, 0, time.UTC)
	f.later = &poller.CreditUsage{Remaining: pf(99000), Plan: pf(100000), PeriodStart: ns, PeriodEnd: ne}
	tl, err := BuildTeam(context.Background(), f, st, "https://api.example", text.NewSecrets(), teamNow)
	if err != nil {
		t.Fatal(err)
	}
	pc := tl.PeriodChanged
	if pc == nil || !pc.From.Start.Equal(f.usage.PeriodStart) || !pc.To.Start.Equal(ns) || !pc.To.End.Equal(ne) {
		t.Fatalf("the change is not said: %+v", pc)
	}
	if p := tl.Period; p == nil || !p.Start.Equal(ns) || *p.UsedCredits != 1000 {
		t.Fatalf("period %+v", tl.Period)
	}
	// Of the archive, only what was created from Dec 7 12:00: r4 (going,
	// 40) and c2 (12); r1, r2, r3 and c1 were the old period's.
	p := tl.Parts
	if p == nil || p.AgentRuns.BilledCredits != 0 || p.AgentRuns.UnknownRuns != 1 || p.AgentRuns.FailedRuns != 0 ||
		p.Crawls.Crawls != 1 || p.Crawls.CreditsUsed != 12 || *p.Total != 1000 || *p.Rest != 1000-12 {
		t.Fatalf("parts mix the periods: %+v", p)
	}
	if pj := tl.Projection; pj == nil || pj.LastsUntil == nil || *pj.DaysBeforeEnd >= 0 {
		t.Errorf("projection not of the new period: %+v", tl.Projection)
	}
	var b strings.Builder
	if err := WriteTeam(&b, tl, teamNow); err != nil {
		t.Fatal(err)
	}
	if o := b.String(); !strings.Contains(o, "billing period changed while cost asked") || !strings.Contains(o, "Dec 7 – Jan 6, 2027") ||
		!strings.Contains(o, "1,000 of 100,000") {
		t.Errorf("plain:\n%s", o)
	}
	if js, err := json.Marshal(tl); err != nil || !strings.Contains(string(js), `"periodChanged":{"from":`) {
		t.Errorf("json: %v %s", err, js)
	}
	// The same period asked twice: nothing said, the first answer's figures.
	f2, st2 := teamFixture(t)
	f2.later = f2.usage
	if tl, err := BuildTeam(context.Background(), f2, st2, "https://api.example", text.NewSecrets(), teamNow); err != nil || tl.PeriodChanged != nil || f2.asked != 2 {
		t.Errorf("same period: %v %+v, asked %d", err, tl.PeriodChanged, f2.asked)
	}
}
