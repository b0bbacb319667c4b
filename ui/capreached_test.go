package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/model"
)

// A credit-limited run's banner says it hit its cap (the cap the watch
// knows, else what it stopped at), and ! reaches its budget item, reached,
// never "cleared".
func TestCapReachedBanner(t *testing.T) {
	for _, tc := range []struct {
		o   attention.Options
		hit string
	}{
		{attention.Options{MaxCredits: 150}, "hit its 150-credit cap"},
		{attention.Options{}, "hit its credit cap at 150 credits"},
	} {
		s := loadStore(t, "credit-limit.json")
		tk := attention.New(s, tc.o)
		tk.Update(model.Delta{From: 0, Events: s.Timeline()}, time.Unix(0, 0))
		for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
			m := newTestModel(t, "", size.w, size.h, Config{Store: s, Attention: tk})
			healthy(m, true)
			lines := screenLines(m)
			banner := strings.Join(lines[bannerRow(m):bannerRow(m)+2], "\n")
			if !strings.Contains(banner, "Run credit limit · "+tc.hit) {
				t.Errorf("%dx%d: the banner does not say %q:\n%s", size.w, size.h, tc.hit, plain(content(m)))
			}
			m.Update(tea.KeyPressMsg{Code: '!', Text: "!"})
			got := plain(content(m))
			if !strings.Contains(got, "! budget  run  the run "+tc.hit+" and stopped") || strings.Contains(got, "cleared") {
				t.Errorf("%dx%d: ! on the run that hit its cap:\n%s", size.w, size.h, got)
			}
		}
	}
}
