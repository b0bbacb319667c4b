package runs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

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
