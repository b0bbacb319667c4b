package attn

import (
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/attention/attentiontest"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/theme"
)

// until feeds the scenario's polls until cond holds (or the run ends).
func until(t *testing.T, scenario string, cond func(tk *attention.Tracker) bool) (*model.Store, *attention.Tracker) {
	t.Helper()
	bodies, maxCredits := attentiontest.SimPolls(t, scenario, 2*time.Second)
	s := model.NewStore()
	tk := attention.New(s, attention.Options{MaxCredits: float64(maxCredits)})
	now := time.Unix(0, 0)
	for _, b := range bodies {
		d, err := s.Ingest(b)
		if err != nil {
			t.Fatal(err)
		}
		now = now.Add(2 * time.Second)
		tk.Update(d, now)
		if cond(tk) {
			return s, tk
		}
	}
	t.Fatalf("%s: the condition never held", scenario)
	return nil, nil
}

func agentByName(s *model.Store, name string) *model.Agent {
	for _, a := range s.Agents() {
		if a.Name == name {
			return a
		}
	}
	return nil
}

func TestMarksAndCycle(t *testing.T) {
	st := theme.New(theme.Dark(), true)
	for _, sym := range []theme.Symbols{theme.Unicode(), theme.ASCII()} {
		s, tk := until(t, "loop", func(tk *attention.Tracker) bool { return len(tk.Open()) > 0 })
		a := agentByName(s, "pricing-researcher")
		if got := ansi.Strip(Badge(tk, st, sym)); got != " "+sym.Error+" 1 needs attention " {
			t.Errorf("badge %q", got)
		}
		if got := AgentMarks(tk, a.ID, sym); !strings.HasPrefix(got, sym.Looping+" "+sym.Approx) {
			t.Errorf("agent marks %q", got)
		}
		it := tk.Open()[0]
		if it.Kind != attention.KindLoop || CallMark(tk, it.ToolCallIDs[0]) != "repeated" || CallMark(tk, "nope") != "" {
			t.Errorf("call marks: %v %q", it.Kind, CallMark(tk, it.ToolCallIDs[0]))
		}
		var c Cycle
		tg, ok := c.Next(tk)
		if !ok || tg.AgentID != a.ID || tg.ToolCallID != it.ToolCallIDs[len(it.ToolCallIDs)-1] {
			t.Errorf("target %+v", tg)
		}
		if tg2, _ := c.Next(tk); tg2.Item != tg.Item { // one item: round to itself
			t.Errorf("cycle moved to %+v", tg2)
		}
		if b := Burn(tk, sym, false); !strings.Contains(b, "cap 2,500 (assumed)") || !strings.HasPrefix(b, sym.Approx+" ") {
			t.Errorf("burn %q", b)
		}
		if sym.ASCII {
			for _, s := range []string{Badge(tk, st, sym), AgentMarks(tk, a.ID, sym), Burn(tk, sym, false), Burn(tk, sym, true)} {
				if strings.ContainsFunc(ansi.Strip(s), func(r rune) bool { return r > 127 }) {
					t.Errorf("not ASCII: %q", s)
				}
			}
		}
	}
}

func TestStalledMark(t *testing.T) {
	sym := theme.Unicode()
	s, tk := until(t, "stall", func(tk *attention.Tracker) bool { return len(tk.Open()) > 0 })
	d := agentByName(s, "docs-analyst")
	if got := AgentMarks(tk, d.ID, sym); !strings.HasPrefix(got, "⏸ ≈") {
		t.Errorf("marks %q", got)
	}
	if got := AgentMarks(tk, agentByName(s, "pricing-researcher").ID, sym); strings.Contains(got, "⏸") {
		t.Errorf("a working agent is marked stalled: %q", got)
	}
	if got := Line(tk.Open()[0], d.Name, sym); !strings.HasPrefix(got, "! stall  docs-analyst  no event for 1m") {
		t.Errorf("line %q", got)
	}
}

func TestNothingOpen(t *testing.T) {
	st := theme.New(theme.Dark(), false)
	var c Cycle
	if Badge(nil, st, theme.Unicode()) != "" || Burn(nil, theme.Unicode(), false) != "" {
		t.Error("a nil tracker draws something")
	}
	s := model.NewStore()
	tk := attention.New(s, attention.Options{})
	if _, ok := c.Next(tk); ok || Badge(tk, st, theme.Unicode()) != "" {
		t.Error("nothing open, yet something to show")
	}
	k := DefaultKeys()
	if !key.Matches(tea.KeyPressMsg{Code: '!', Text: "!"}, k.Next) || k.Next.Help().Desc == "" || len(k.FullHelp()[0]) != 1 {
		t.Errorf("key %+v", k.Next.Help())
	}
}
