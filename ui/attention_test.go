package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/attention/attentiontest"
	"github.com/firewatch/firewatch/model"
)

// attentionStore is the simulator's scenario merged poll by poll until
// the tracker has an open item of kind.
func attentionStore(t *testing.T, scenario string, kind attention.Kind) (*model.Store, *attention.Tracker) {
	t.Helper()
	s, tk := attentionRun(t, scenario, func(tk *attention.Tracker) bool {
		for _, it := range tk.Open() {
			if it.Kind == kind {
				return true
			}
		}
		return false
	})
	if s == nil {
		t.Fatalf("%s: no open %s item", scenario, kind)
	}
	return s, tk
}

// attentionRun merges the simulator's scenario poll by poll, with its
// tracker, until stop says so (nil: to the end). The store is nil when
// stop never did.
func attentionRun(t *testing.T, scenario string, stop func(*attention.Tracker) bool) (*model.Store, *attention.Tracker) {
	t.Helper()
	bodies, _ := attentiontest.SimPolls(t, scenario, 2*time.Second)
	s := model.NewStore()
	tk := attention.New(s, attention.Options{})
	for _, b := range bodies {
		d, err := s.Ingest(b)
		if err != nil {
			t.Fatal(err)
		}
		tk.Update(d, time.Unix(0, 0))
		if stop != nil && stop(tk) {
			return s, tk
		}
	}
	if stop != nil {
		return nil, nil
	}
	return s, tk
}

// Golden screens with items shown: the header's badge and burn, the
// agents tree's stalled and looping marks with the estimated credits, the
// tool calls pane's repeated calls; ! opens what the item concerns.
func TestGoldenAttention(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		kind     attention.Kind
		open     string // what ! opens
	}{
		{"stall", attention.KindStall, "Agent docs-analyst"},
		{"loop", attention.KindLoop, "Tool call mcp__tools__search"},
	} {
		s, tk := attentionStore(t, tc.scenario, tc.kind)
		for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
			name := "attention-" + tc.scenario + "-" + itoa(size.w) + "x" + itoa(size.h) + ".txt"
			t.Run(name, func(t *testing.T) {
				m := newTestModel(t, "", size.w, size.h, Config{Store: s, Attention: tk})
				healthy(m, false)
				got := content(m)
				checkScreen(t, got, size.w, size.h)
				if !strings.Contains(plain(got), "! 1 needs attention") {
					t.Errorf("no badge:\n%s", plain(got))
				}
				golden(t, name, plain(got))

				m.Update(tea.KeyPressMsg{Code: '!', Text: "!"})
				after := plain(content(m))
				checkScreen(t, content(m), size.w, size.h)
				if !strings.Contains(after, tc.open) || !strings.Contains(after, "! "+string(tc.kind)) {
					t.Errorf("! did not open %q with the item in the footer:\n%s", tc.open, after)
				}
			})
		}
	}
}

// With nothing raised, ! says so.
func TestAttentionKeyNothing(t *testing.T) {
	m := newTestModel(t, "succeeded.json", 120, 40, Config{})
	m.Update(tea.KeyPressMsg{Code: '!', Text: "!"})
	if got := plain(content(m)); !strings.Contains(got, "nothing needed attention in this run") {
		t.Errorf("footer:\n%s", got)
	}
}

// On the finished screen every item has cleared, and ! still reaches
// them: it opens what the item concerned and says it, cleared, in the
// footer.
func TestAttentionKeyFinished(t *testing.T) {
	s, tk := attentionRun(t, "stall", nil)
	if s.Run().State != model.StateFinished || len(tk.Open()) != 0 || len(tk.Items()) == 0 {
		t.Fatalf("want a finished run with cleared items: %s, %d open of %d", s.Run().State, len(tk.Open()), len(tk.Items()))
	}
	for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		m := newTestModel(t, "", size.w, size.h, Config{Store: s, Attention: tk})
		healthy(m, true)
		m.Update(tea.KeyPressMsg{Code: '!', Text: "!"})
		got := plain(content(m))
		checkScreen(t, content(m), size.w, size.h)
		if !strings.Contains(got, "Agent docs-analyst") || !strings.Contains(got, "✓ stall  docs-analyst  cleared: no event for") {
			t.Errorf("%dx%d: ! on the finished run did not reach the cleared stall:\n%s", size.w, size.h, got)
		}
	}
}
