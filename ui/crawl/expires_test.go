package crawl

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/poller"
)

// The header's expiry counts down in whole minutes, never with a seconds
// figure the screen does not keep moving ("expires in 45m", not "45m00s").
func TestExpiresNoSeconds(t *testing.T) {
	now := time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC)
	m, err := New(Config{ID: "c1", NoColor: true, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	m.SetSize(120, 30)
	m.apply(statusMsg{s: &poller.CrawlStatus{Status: "scraping", Completed: 1, Total: 4, ExpiresAt: now.Add(45*time.Minute + 30*time.Second)}})
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "expires in 45m") {
		t.Errorf("the header does not say \"expires in 45m\":\n%s", v)
	}
	if strings.Contains(v, "45m00s") || strings.Contains(v, "45m30s") {
		t.Errorf("the header shows seconds it does not track:\n%s", v)
	}
}

// One credit is "1 credit" on the crawl's header too.
func TestOneCredit(t *testing.T) {
	m, err := New(Config{ID: "c1", NoColor: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	m.SetSize(100, 20)
	one := 1.0
	m.apply(statusMsg{s: &poller.CrawlStatus{Status: "scraping", Completed: 1, Total: 4, CreditsUsed: &one}})
	if v := ansi.Strip(m.View()); !strings.Contains(v, " 1 credit ") || strings.Contains(v, "1 credits") {
		t.Errorf("the header does not say \"1 credit\":\n%s", v)
	}
}
