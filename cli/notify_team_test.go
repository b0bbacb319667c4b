package cli

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/cli/internal/hubsvc"
	"github.com/firewatch/firewatch/notify"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/runs"
)

// The team's check with team:projected: at 1,900 a day the 20,000 credits
// left run out on Dec 18, 2 days before the period ends: told once however
// often it is asked; the usage by day asked once an hour, not at every
// check; a service without the balance (404) is asked no more.
func TestTeamCheckProjected(t *testing.T) {
	t.Parallel()
	f, _ := teamFixture(t)
	f.usage.Remaining = pf(20000)
	h := newHook(t, http.StatusOK)
	on, err := notify.ParseOn("team:projected")
	if err != nil {
		t.Fatal(err)
	}
	n, err := notify.New(notify.Config{On: on, URL: h.URL, Secrets: text.NewSecrets()})
	if err != nil {
		t.Fatal(err)
	}
	hist := 0
	counting := &countingTeam{fakeTeam: f, hist: &hist}
	now := teamNow
	tc := &notify.TeamCheck{Service: counting, N: n, Log: func(string) {}, Now: func() time.Time { return now }, Absent: absent}
	for range 3 {
		if !tc.Once(context.Background()) {
			t.Fatal("the check gave up")
		}
		now = now.Add(10 * time.Minute)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n.Close(ctx)
	got := h.got()
	if len(got) != 1 || !strings.Contains(got[0], `"projected":true`) || !strings.Contains(got[0], `"daysBeforeEnd":2`) ||
		!strings.Contains(got[0], "lasts until Dec 18, 2 days before the period ends") {
		t.Fatalf("%d POSTs: %q", len(got), got)
	}
	if hist != 1 {
		t.Errorf("the usage by day asked %d times in 30 minutes, want 1", hist)
	}
	f.usageErr = &poller.Error{Kind: poller.KindNotFound, Status: 404, Op: "credit usage"}
	if tc.Once(context.Background()) {
		t.Error("a service without the balance is asked again")
	}
}

type countingTeam struct {
	*fakeTeam
	hist *int
}

func (c *countingTeam) UsageHistory(ctx context.Context, tr string, byKey bool) (*poller.UsageHistory, error) {
	*c.hist++
	return c.fakeTeam.UsageHistory(ctx, tr, byKey)
}

// The runs screen's wrappers of its service (the start's record, a hub
// session's checks) pass the usage by day through: the team tab's
// projection line showed in the tests' screens and never in firewatch's,
// whose service is wrapped. A service without it answers as one lacking
// the endpoint.
func TestRunsWrappersGiveUsageHistory(t *testing.T) {
	t.Parallel()
	srv := startHeldSim(t, sim.Options{History: 30})
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	st, err := archive.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The runs screen's chain over an archive (runsWithArchive, runsLoop).
	tl := archiving.NewTeamList(c, st, text.NewSecrets(), srv.URL, "t", archive.NewHolder("runs"), time.Second, nil)
	listing := archiving.NewListing(tl, st, archive.Query{Service: srv.URL})
	for name, s := range map[string]runs.Service{
		"startSaying":                    &startSaying{Service: c},
		"toldRuns(startSaying)":          (&hubsvc.Session{}).RunsService(&startSaying{Service: c}),
		"startSaying(Listing(TeamList))": &startSaying{Service: listing},
	} {
		h, ok := s.(runs.UsageHistorian)
		if !ok {
			t.Fatalf("%s hides the usage by day", name)
		}
		got, err := h.UsageHistory(context.Background(), "month", false)
		if err != nil || len(got.Bins) < 7 {
			t.Errorf("%s: %v, %+v", name, err, got)
		}
	}
	var bare struct{ runs.Service }
	_, err = (&startSaying{Service: bare}).UsageHistory(context.Background(), "month", false)
	if _, ok := absent(err); !ok {
		t.Errorf("a service without it: %v", err)
	}
}
