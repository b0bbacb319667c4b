package runs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// TestPeriodLineBounds: a period ending in 9999 shows no days left; a
// reversed one is unknown, not shown as it is.
func TestPeriodLineBounds(t *testing.T) {
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	far := poller.TokenUsage{BillingPeriodStart: now.AddDate(0, -1, 0), BillingPeriodEnd: time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)}
	if s := PeriodLine(&far, now); strings.Contains(s, "days left") {
		t.Errorf("9999: %q", s)
	}
	rev := poller.TokenUsage{BillingPeriodStart: now, BillingPeriodEnd: now.AddDate(0, -1, 0)}
	if s := PeriodLine(&rev, now); !strings.Contains(s, "unknown") {
		t.Errorf("reversed: %q", s)
	}
	ok := poller.TokenUsage{BillingPeriodStart: now.AddDate(0, 0, -22), BillingPeriodEnd: now.AddDate(0, 0, 8)}
	if s := PeriodLine(&ok, now); !strings.Contains(s, "(8 days left)") {
		t.Errorf("a usual period: %q", s)
	}
}

// failingParts is the service with the crawl list and the token usage
// failing.
type failingParts struct{ Service }

func (failingParts) ActiveCrawls(context.Context) ([]poller.Crawl, error) {
	return nil, errors.New("crawls: server error (500)")
}

func (failingParts) TokenUsage(context.Context) (*poller.TokenUsage, error) {
	return nil, errors.New("token usage: server error (500)")
}

// TestTeamTabPartsStandAlone: a failed crawl list is named in its own
// section, not "Active crawls (0)" with its error under Processing, and a
// failed token usage in its; the runs still count.
func TestTeamTabPartsStandAlone(t *testing.T) {
	h := newHarness(t, sim.Options{History: 3}, 120, 40)
	h.m.cfg.Service = failingParts{h.m.cfg.Service}
	h.run(h.m.Init())
	h.key("tab")
	v := h.view()
	crawls := strings.Index(v, "Active crawls")
	if crawls < 0 || strings.Contains(v, "Active crawls (0)") || !strings.Contains(v[crawls:], "unavailable: crawls: server error") {
		t.Errorf("the crawls' section:\n%s", v)
	}
	proc := strings.Index(v, "Processing")
	if proc < 0 || proc > crawls || strings.Contains(v[proc:crawls], "server error") || !strings.Contains(v[proc:crawls], "run") {
		t.Errorf("the Processing line:\n%s", v)
	}
	if !strings.Contains(v, "unavailable: token usage: server error") {
		t.Errorf("the tokens' section:\n%s", v)
	}
}

// The team tab's projection line fits its width whole: the full sentence
// where there is room, else a shorter form that still says the date and
// whether it is early (never "past the per…"); only below the shortest
// form is it cut, on a word. The 80- and 120-column goldens show
// different forms, each whole.
func TestProjectionFits(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 7, 15, 30, 0, 0, time.UTC)
	end := time.Date(2026, 12, 20, 0, 0, 0, 0, time.UTC)
	u := &poller.TokenUsage{RemainingTokens: 20000 * 15, PlanTokens: 100000 * 15, BillingPeriodStart: end.AddDate(0, -1, 0), BillingPeriodEnd: end}
	h := &poller.UsageHistory{}
	for i := range 10 {
		s := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i)
		c := 1900.0
		h.Bins = append(h.Bins, poller.UsageBin{Start: s, End: s.AddDate(0, 0, 1), Credits: &c})
	}
	for w, want := range map[int]string{
		120 - 15: "at 1,900 credits a day the plan lasts until Dec 18, 2 days before the period ends",
		80 - 15:  "at 1,900 credits a day the plan lasts until Dec 18, 2 days early",
		50:       "at 1,900 a day: lasts until Dec 18, 2 days early",
		40:       "lasts until Dec 18, 2 days early",
		20:       "lasts until Dec 18…",
	} {
		if got := ProjectionFit(u, h, now, w); got != want {
			t.Errorf("width %d: %q, want %q", w, got, want)
		}
	}
	for w := 1; w <= 140; w++ {
		got := ProjectionFit(u, h, now, w)
		if n := ansi.StringWidth(got); n > w {
			t.Errorf("width %d: %q is %d cells", w, got, n)
		}
		if strings.HasSuffix(got, "…") && strings.Contains(got, " ") && !strings.Contains("lasts until Dec 18, 2 days early ", strings.TrimSuffix(got, "…")+" ") &&
			!strings.Contains("lasts until Dec 18, 2 days early ", strings.TrimSuffix(got, "…")+", ") {
			t.Errorf("width %d: %q is cut inside a word", w, got)
		}
	}
	line := func(file string) string {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "lasts until") {
				return strings.TrimSpace(l)
			}
		}
		t.Fatalf("%s has no projection line", file)
		return ""
	}
	l80, l120 := line("team-80x24.txt"), line("team-120x40.txt")
	if l80 == l120 || strings.HasSuffix(l80, "…") || strings.HasSuffix(l120, "…") || !strings.HasSuffix(l80, "past the period's end") {
		t.Errorf("the goldens' projection lines: 80 %q, 120 %q", l80, l120)
	}
}

// The usage by day is asked at the team tab's first look and then every
// historyEvery, not at every refresh: its rate is of whole days.
func TestTeamHistoryPaced(t *testing.T) {
	h := newHarness(t, sim.Options{History: 30, Speed: 1000}, 120, 40)
	h.run(h.m.Init())
	h.key("tab")
	for range 3 {
		h.key("r")
	}
	if n := h.srv.Stats().ByRoute["GET credit-historical"]; n != 1 {
		t.Errorf("the usage by day asked %d times, want 1", n)
	}
	if !strings.Contains(h.view(), "a day the plan lasts until") {
		t.Errorf("no projection after the refreshes:\n%s", h.view())
	}
}
