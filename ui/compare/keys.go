package compare

import (
	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/ui/internal/program"
	"github.com/firewatch/firewatch/ui/internal/scroll"
)

// KeyMap is the compare screen's keys: one place for dispatch and help.
type KeyMap struct {
	scroll.Keys
	Metrics, Agents, Steps, Result key.Binding // the tabs
	Next, Prev                     key.Binding // the next and previous tab
	Open                           key.Binding // agents: its steps; steps: the parameters' diff
	NextAgent, PrevAgent           key.Binding // steps: the other agents
	NextChange, PrevChange         key.Binding // steps and result: the next difference
	Back                           key.Binding
	Help                           key.Binding
	Quit                           key.Binding
	Suspend                        key.Binding
}

// DefaultKeyMap is the screen's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Keys:       scroll.DefaultKeys(),
		Metrics:    key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "metrics")),
		Agents:     key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "agents")),
		Steps:      key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "steps")),
		Result:     key.NewBinding(key.WithKeys("4"), key.WithHelp("4", "result")),
		Next:       key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next tab")),
		Prev:       key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous tab")),
		Open:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		NextAgent:  key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next agent")),
		PrevAgent:  key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous agent")),
		NextChange: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next change")),
		PrevChange: key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous change")),
		Back:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys")),
		Quit:       key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Suspend:    key.NewBinding(key.WithKeys(program.SuspendKeys...), key.WithHelp("ctrl+z", "suspend (fg resumes)")),
	}
}
