package runs

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/poller"
)

// hostileList is a runs list whose every page names a next page 1 ms
// before the cursor asked: page makes the n-th page's runs.
type hostileList struct {
	n    int
	page func(n int) []poller.RunInfo
}

func (l *hostileList) Runs(_ context.Context, before time.Time) (*poller.RunList, error) {
	if before.IsZero() {
		before = fixedNow
	}
	runs := l.page(l.n)
	l.n++
	return &poller.RunList{Runs: runs, Next: "next", NextBefore: before.Add(-time.Millisecond)}, nil
}
func (l *hostileList) Status(context.Context, string) (*poller.Status, error) {
	return &poller.Status{}, nil
}
func (l *hostileList) TokenUsage(context.Context) (*poller.TokenUsage, error) {
	return &poller.TokenUsage{}, nil
}
func (l *hostileList) ActiveCrawls(context.Context) ([]poller.Crawl, error) { return nil, nil }
func (l *hostileList) Cancel(context.Context, string) error                 { return nil }
func (l *hostileList) StartAgent(context.Context, poller.AgentRequest) (string, error) {
	return "", nil
}

// TestScreenPagingEnds: the runs screen with a filter that keeps asking
// for more rows stops paging at the first page that brings no new run
// (and says so), and against endless distinct runs at poller.MaxScanPages.
func TestScreenPagingEnds(t *testing.T) {
	for _, c := range []struct {
		name  string
		page  func(n int) []poller.RunInfo
		pages int
		said  string
	}{
		{"same runs", func(int) []poller.RunInfo {
			return []poller.RunInfo{{ID: "r1", Status: "completed", CreatedAt: fixedNow}}
		}, 2, "a page brought no new run"},
		{"endless runs", func(n int) []poller.RunInfo {
			return []poller.RunInfo{{ID: fmt.Sprint("r", n), Status: "completed", CreatedAt: fixedNow}}
		}, poller.MaxScanPages, "without finding more"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := &hostileList{page: c.page}
			m := New(Config{Service: l, Status: "failed", NoColor: true, Now: func() time.Time { return fixedNow }})
			h := &harness{t: t, m: m}
			m.tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
				return func() tea.Msg { return timerMsg{d, fn} }
			}
			m.SetSize(120, 40)
			h.run(m.Init())
			if !m.Done() || l.n != c.pages {
				t.Fatalf("done %v after %d pages, want done after %d", m.Done(), l.n, c.pages)
			}
			if v := h.view(); !strings.Contains(v, "paging stopped: "+c.said[:10]) && !strings.Contains(v, c.said) {
				t.Errorf("the screen does not say why paging stopped:\n%s", v)
			}
		})
	}
}
