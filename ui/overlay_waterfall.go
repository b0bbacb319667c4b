package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/ui/waterfall"
)

// waterfallView shows the waterfall (ui/waterfall) in place of the panes:
// one row per agent, tool call and browser session on a time axis, live.
// The root owns the waterfall.Model: it tells it about every merge
// (Changed) and every clock tick (SetNow), open or not, so opening it is
// instant and it is always current. enter opens the row's detail over it;
// esc goes back.
type waterfallView struct {
	stackBase
	e    *env
	wf   *waterfall.Model
	w, h int
}

func (v *waterfallView) title() string { return "Waterfall" }

func (v *waterfallView) setSize(w, h int) tea.Cmd {
	v.w, v.h = w, h
	v.wf.SetSize(w, h)
	return nil
}

func (v *waterfallView) update(msg tea.Msg, k keyMap) (overlay, tea.Cmd) {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(km, v.e.dk.Back):
			return v.back, nil
		case key.Matches(km, k.Copy):
			t, ok := v.wf.Selected()
			if !ok {
				return v, v.e.copy("", "")
			}
			return v, v.e.copy(t.ID, t.Kind.String()+" id")
		case key.Matches(km, k.Open):
			t, ok := v.wf.Selected()
			if ok && t.Kind == waterfall.KindSession {
				return v, v.e.open(liveLink(v.e.store.Session(t.ID)), "live-view link")
			}
			return v, v.e.open("", "")
		}
	}
	var cmd tea.Cmd
	*v.wf, cmd = v.wf.Update(msg)
	return v, cmd
}

func (v *waterfallView) render() []string { return fitLines(v.wf.View(), v.w, v.h, v.e.ascii) }

func (v *waterfallView) helpKeys(k keyMap) []key.Binding {
	wk := v.wf.KeyMap
	return []key.Binding{k.Move, wk.ZoomIn, wk.ZoomOut, wk.Earlier, wk.Later, wk.Fit, wk.Open, v.e.dk.Copy, v.e.dk.Back}
}

// selectionOf is the store's object a waterfall row stands for.
func selectionOf(s *model.Store, t waterfall.Target) Selection {
	switch t.Kind {
	case waterfall.KindAgent:
		if a := s.Agent(t.ID); a != nil {
			return Selection{Agent: a}
		}
	case waterfall.KindTool:
		if c := s.ToolCall(t.ID); c != nil {
			return Selection{ToolCall: c}
		}
	case waterfall.KindSession:
		if b := s.Session(t.ID); b != nil {
			return Selection{Session: b}
		}
	}
	return Selection{}
}
