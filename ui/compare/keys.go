package compare

import (
	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/ui/internal/keymap"
)

// KeyMap is the compare screen's keys: one place for dispatch and help.
// The list keys are every screen's (keymap.List).
type KeyMap struct {
	keymap.List
	Metrics, Agents, Steps, Result key.Binding // the tabs
	Next, Prev                     key.Binding // the next and previous tab
	NextAgent, PrevAgent           key.Binding // steps: the other agents
	NextChange, PrevChange         key.Binding // steps and result: the next difference
}

// DefaultKeyMap is the screen's keys.
func DefaultKeyMap() KeyMap {
	l := keymap.DefaultList()
	l.Help = keymap.Say(l.Help, "?", "keys")
	return KeyMap{
		List:       l,
		Metrics:    key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "metrics")),
		Agents:     key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "agents")),
		Steps:      key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "steps")),
		Result:     key.NewBinding(key.WithKeys("4"), key.WithHelp("4", "result")),
		Next:       key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next tab")),
		Prev:       key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous tab")),
		NextAgent:  key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next agent")),
		PrevAgent:  key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous agent")),
		NextChange: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next change")),
		PrevChange: key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous change")),
	}
}
