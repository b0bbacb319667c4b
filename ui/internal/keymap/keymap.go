// Package keymap is the one set of keys the full screens' lists share:
// moving through a list (scroll's keys, the page keys with ctrl+b, ctrl+f
// and space too), opening the selected row, filtering, going back, help,
// quitting and suspending. Each screen's KeyMap embeds List and adds its
// own actions; a screen may word a key's help for what it does there
// ("read" a page, "details" of an event), never bind it to other keys.
package keymap

import (
	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/ui/internal/program"
	"github.com/firewatch/firewatch/ui/internal/scroll"
)

// List is the list keys.
type List struct {
	scroll.Keys
	Open, Filter, Back, Help, Quit, Suspend key.Binding
}

// DefaultList is the list keys with their usual help.
func DefaultList() List {
	sk := scroll.DefaultKeys()
	sk.PageUp.SetKeys("pgup", "ctrl+b")
	sk.PageDown.SetKeys("pgdown", "ctrl+f", "space")
	return List{
		Keys:    sk,
		Open:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Filter:  key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Back:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:    key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Suspend: key.NewBinding(key.WithKeys(program.SuspendKeys...), key.WithHelp("ctrl+z", "suspend (fg resumes)")),
	}
}

// ASCII spells the arrows of the moving keys' help in ASCII (--ascii).
func (l *List) ASCII() {
	scroll.ASCIIHelp(&l.Up)
	scroll.ASCIIHelp(&l.Down)
}

// Say is b with its help reworded for a screen: its keys stay.
func Say(b key.Binding, keys, desc string) key.Binding {
	b.SetHelp(keys, desc)
	return b
}
