package cli

import (
	"fmt"
	"runtime"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/follow/followtest"
	"github.com/firewatch/firewatch/ui"
)

// BenchmarkScreensOnOneRun is what one more watch screen of a run costs
// when the screens share the run's store (follow.Follower): the screen's
// own panes, indexes and tracker over a 10 000-event run, drawn at 120x40.
// With follow's BenchmarkFollowerReaders (the follower's share), it is the
// memory a hub's extra session takes for a run already watched.
//
//	go test -run '^$' -bench ScreensOnOneRun -benchtime 1x ./cli
func BenchmarkScreensOnOneRun(b *testing.B) {
	run := follow.NewRun()
	for _, p := range followtest.Polls(b, followtest.Bodies(b, 10_000, 100)) {
		run.Store.Merge(p)
	}
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("screens=%d", n), func(b *testing.B) {
			var per float64
			for b.Loop() {
				base := followtest.HeapInUse()
				screens := make([]*ui.Model, n)
				for i := range screens {
					m := ui.New(ui.Config{Store: run.Store, NoColor: true})
					m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
					_ = m.View()
					screens[i] = m
				}
				per = float64(followtest.HeapInUse()-base) / float64(n)
				runtime.KeepAlive(screens)
			}
			b.ReportMetric(per, "B/screen")
		})
	}
}
