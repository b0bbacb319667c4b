package crawl

import (
	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/ui/internal/keymap"
)

// KeyMap is the crawl screen's keys: one place for dispatch and help. The
// list keys are every screen's (keymap.List).
type KeyMap struct {
	keymap.List
	Copy, Save, Cancel key.Binding
	Tab                key.Binding
}

// DefaultKeyMap is the screen's keys.
func DefaultKeyMap() KeyMap {
	l := keymap.DefaultList()
	l.Top = keymap.Say(l.Top, "g", "first page")
	l.Bottom = keymap.Say(l.Bottom, "G", "last page")
	l.Open = keymap.Say(l.Open, "enter", "read")
	l.Help = keymap.Say(l.Help, "?", "keys")
	return KeyMap{
		List:   l,
		Copy:   key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy URL")),
		Save:   key.NewBinding(key.WithKeys("s", "ctrl+s"), key.WithHelp("s", "save page")),
		Cancel: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "cancel crawl")),
		Tab:    key.NewBinding(key.WithKeys("tab", "1", "2", "3"), key.WithHelp("tab", "markdown/metadata/links")),
	}
}
