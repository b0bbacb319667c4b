package runs

import (
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/poller"
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
