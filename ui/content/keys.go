package content

import (
	"strconv"

	"charm.land/bubbles/v2/key"
	"github.com/firewatch/firewatch/ui/internal/scroll"
)

// KeyMap holds the scrolling keys of non-JSON content (JSON content uses
// its jsonview.Model's KeyMap).
type KeyMap struct {
	scroll.Keys
}

// DefaultKeyMap: arrows and j/k, PgUp/PgDn, ctrl+u/ctrl+d, g/G.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Keys: scroll.DefaultKeys(),
	}
}

// ASCII returns the key map with help labels in ASCII.
func (k KeyMap) ASCII() KeyMap {
	for _, b := range []*key.Binding{&k.Up, &k.Down} {
		scroll.ASCIIHelp(b)
	}
	return k
}

// ShortHelp is the footer's view of the bindings.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
}

// FullHelp is the help screen's view of the bindings.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom}}
}

// ShortHelp returns the keys that work in this view (help.KeyMap).
func (m Model) ShortHelp() []key.Binding {
	if m.st.json != nil {
		return m.st.json.KeyMap.ShortHelp()
	}
	return m.KeyMap.ShortHelp()
}

// FullHelp returns the keys that work in this view (help.KeyMap).
func (m Model) FullHelp() [][]key.Binding {
	if m.st.json != nil {
		return m.st.json.KeyMap.FullHelp()
	}
	return m.KeyMap.FullHelp()
}

func itoa(i int) string { return strconv.Itoa(i) }
