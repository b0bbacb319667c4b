package text

import (
	"testing"
	"time"
)

func TestAge(t *testing.T) {
	now := time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		ago  time.Duration
		want string
	}{
		{0, "just now"}, {-time.Minute, "just now"}, {-2 * time.Minute, "unknown"}, {-time.Until(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)), "unknown"}, {4 * time.Second, "just now"}, {45 * time.Second, "45s ago"},
		{3*time.Minute + 59*time.Second, "3m ago"}, {5 * time.Hour, "5h ago"}, {47 * time.Hour, "47h ago"}, {72 * time.Hour, "3d ago"},
	} {
		if got := Age(now, now.Add(-tc.ago)); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.ago, got, tc.want)
		}
	}
	if Age(now, time.Time{}) != "" {
		t.Error("zero time")
	}
}
