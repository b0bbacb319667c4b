package runs

import (
	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/ui/internal/program"
)

// KeyMap is the runs screen's keys: one place for dispatch and help.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Open                                    key.Binding
	Options                                 key.Binding // the team tab: a crawl's options as JSON
	Filter                                  key.Binding
	All, Processing, Completed, Failed      key.Binding
	Refresh                                 key.Binding
	New, Cancel, Copy                       key.Binding
	Team                                    key.Binding
	Back                                    key.Binding
	Quit                                    key.Binding
	Suspend                                 key.Binding
	Help                                    key.Binding
}

// DefaultKeyMap is the screen's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:     key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown", "ctrl+f", "space"), key.WithHelp("pgdn", "page down")),
		Top:        key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:     key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		Open:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Options:    key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "crawl options")),
		Filter:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		All:        key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "all")),
		Processing: key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "processing")),
		Completed:  key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "completed")),
		Failed:     key.NewBinding(key.WithKeys("4"), key.WithHelp("4", "failed")),
		Refresh:    key.NewBinding(key.WithKeys("r", "ctrl+r"), key.WithHelp("r", "refresh")),
		New:        key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new")),
		Cancel:     key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "cancel")),
		Copy:       key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy id")),
		Team:       key.NewBinding(key.WithKeys("tab", "t"), key.WithHelp("tab", "team")),
		Back:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Quit:       key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "all keys")),
		Suspend:    key.NewBinding(key.WithKeys(program.SuspendKeys...), key.WithHelp("ctrl+z", "suspend (fg resumes)")),
	}
}
