package runs

import (
	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/ui/internal/keymap"
)

// KeyMap is the runs screen's keys: one place for dispatch and help. The
// list keys are every screen's (keymap.List).
type KeyMap struct {
	keymap.List
	Options                            key.Binding // the team tab: a crawl's options as JSON
	All, Processing, Completed, Failed key.Binding
	Refresh                            key.Binding
	New, Cancel, Copy                  key.Binding
	Rerun, FollowUp, Compare           key.Binding // R, F, = (a rerun watched from here)
	Team                               key.Binding
}

// DefaultKeyMap is the screen's keys.
func DefaultKeyMap() KeyMap {
	l := keymap.DefaultList()
	l.Help = keymap.Say(l.Help, "?", "all keys")
	return KeyMap{
		List:       l,
		Options:    key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "crawl options")),
		All:        key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "all")),
		Processing: key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "processing")),
		Completed:  key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "completed")),
		Failed:     key.NewBinding(key.WithKeys("4"), key.WithHelp("4", "failed")),
		Refresh:    key.NewBinding(key.WithKeys("r", "ctrl+r"), key.WithHelp("r", "refresh")),
		New:        key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new")),
		Cancel:     key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "cancel")),
		Copy:       key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy id")),
		Rerun:      key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "rerun with changes")),
		FollowUp:   key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "follow up in its thread")),
		Compare:    key.NewBinding(key.WithKeys("="), key.WithHelp("=", "compare the last rerun with its original")),
		Team:       key.NewBinding(key.WithKeys("tab", "t"), key.WithHelp("tab", "team")),
	}
}
