package program_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/ui/compare"
	"github.com/firewatch/firewatch/ui/crawl"
	"github.com/firewatch/firewatch/ui/interact"
	"github.com/firewatch/firewatch/ui/internal/program"
	"github.com/firewatch/firewatch/ui/runs"
)

func isSuspend(cmd tea.Cmd) bool {
	return cmd != nil && reflect.ValueOf(cmd).Pointer() == reflect.ValueOf(program.Suspend).Pointer()
}

// Ctrl-Z suspends on every full screen: the runs screen (list and team
// tab), crawl, compare, the watch screen and the interact console
// (whatever it shows), and each names it in its help (the list keys are
// one key map, package keymap).
func TestCtrlZSuspendsEveryScreen(t *testing.T) {
	srv, err := sim.Start(context.Background(), sim.Options{Speed: 1e5, RateLimit: -1, Scrapes: 1,
		Now: func() time.Time { return time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	ctrlZ := tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl}

	r := runs.New(runs.Config{Service: c, NoColor: true})
	r.SetSize(120, 40)
	if cmd := r.Update(ctrlZ); !isSuspend(cmd) {
		t.Error("runs list: ctrl+z does not suspend")
	}
	r.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	if cmd := r.Update(ctrlZ); !isSuspend(cmd) {
		t.Error("team tab: ctrl+z does not suspend")
	}
	if !helps(r.FullHelp()) {
		t.Error("runs help does not name ctrl+z")
	}

	cr, err := crawl.New(crawl.Config{Service: c, ID: "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", NoColor: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cr.Close()
	cr.SetSize(120, 40)
	if cmd := cr.Update(ctrlZ); !isSuspend(cmd) {
		t.Error("crawl: ctrl+z does not suspend")
	}
	if !helps(cr.FullHelp()) {
		t.Error("crawl help does not name ctrl+z")
	}
	cm := compare.New(compare.Config{})
	cm.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if cmd := cm.Update(ctrlZ); !isSuspend(cmd) {
		t.Error("compare: ctrl+z does not suspend")
	}
	if !helps(cm.FullHelp()) {
		t.Error("compare help does not name ctrl+z")
	}

	m := interact.New(interact.Config{ScrapeID: srv.ScrapeIDs[0], Backend: interact.ClientBackend(c, srv.ScrapeIDs[0]), NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if cmd := m.Update(ctrlZ); !isSuspend(cmd) {
		t.Error("interact console: ctrl+z does not suspend")
	}
	if !helps(interact.DefaultKeyMap().FullHelp()) {
		t.Error("console help does not name ctrl+z")
	}
}

func helps(groups [][]key.Binding) bool {
	for _, g := range groups {
		for _, b := range g {
			if strings.Contains(b.Help().Key, "ctrl+z") {
				return true
			}
		}
	}
	return false
}
