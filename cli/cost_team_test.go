package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

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

// teamFixture is the service of costtext's ledger tests, for the team's
// check: a period of Nov 20 – Dec 20 with 40,000 of 100,000 credits used,
// a month of daily bins (1,900 a day for the last week), two keys and five
// calls of activity. The team's check reads no archive.
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
	return f, nil
}

// A service that sends hostile and absurd team figures (legacy field
// names, figures as strings, a negative and a 1e300 bin, a plan of -1,
// key names with escape sequences): cost --team reads what it can, names
// what it cannot, shows no escape sequence, and exits 0.
func TestCostTeamHostileService(t *testing.T) {
	srv, err := sim.Start(context.Background(), sim.Options{History: 3, Speed: 1000, RateLimit: -1, TeamFaults: sim.TeamFaults()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	t.Setenv("FIREWATCH_ARCHIVE", filepath.Join(t.TempDir(), "a.db"))
	noWait := poller.Retry{Sleep: func(ctx context.Context, _ time.Duration) bool { return ctx.Err() == nil }}
	var out, errOut strings.Builder
	code := execute(context.Background(), []string{"cost", "--team", "-o", "plain"}, strings.NewReader(""), &out, &errOut, noWait)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	o := out.String()
	for _, want := range []string{"Remaining ", "total: the service gave no usable plan figure", "byDay: 2 days with a figure that cannot be used",
		"production", "nightly", "2026-"} {
		if !strings.Contains(o, want) {
			t.Errorf("no %q in\n%s", want, o)
		}
	}
	if strings.ContainsAny(o, "\x1b\x07") || strings.Contains(o, "1e+300") || strings.Contains(o, "-50") {
		t.Errorf("a hostile figure or escape reached the output:\n%q", o)
	}
	if strings.Contains(o, srv.Key) || strings.Contains(o, "fc-0123456789abcdef0123456789abcdef") || !strings.Contains(o, "fc-…cdef (looks like a key: cut)") {
		t.Errorf("a key's value, or a name like one, in the output:\n%s", o)
	}
}
