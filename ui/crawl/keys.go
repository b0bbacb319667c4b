package crawl

import (
	"charm.land/bubbles/v2/key"
)

// KeyMap is the crawl screen's keys: one place for dispatch and help.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Open, Filter, Copy, Save, Cancel        key.Binding
	Tab                                     key.Binding
	Back, Help, Quit                        key.Binding
}

// DefaultKeyMap is the screen's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f", "space"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "first page")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "last page")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "read")),
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Copy:     key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy URL")),
		Save:     key.NewBinding(key.WithKeys("s", "ctrl+s"), key.WithHelp("s", "save page")),
		Cancel:   key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "cancel crawl")),
		Tab:      key.NewBinding(key.WithKeys("tab", "1", "2", "3"), key.WithHelp("tab", "markdown/metadata/links")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys")),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}
