package historytext

import (
	"testing"
	"time"
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
