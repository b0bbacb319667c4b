package content

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyMap holds the scrolling keys of non-JSON content (JSON content uses
// its jsonview.Model's KeyMap).
type KeyMap struct {
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	HalfUp, HalfDown key.Binding
	Top, Bottom      key.Binding
}

// DefaultKeyMap: arrows and j/k, PgUp/PgDn, ctrl+u/ctrl+d, g/G.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		HalfUp:   key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "half page up")),
		HalfDown: key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "half page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
	}
}

// ASCII returns the key map with help labels in ASCII.
func (k KeyMap) ASCII() KeyMap {
	r := strings.NewReplacer("↑", "up", "↓", "down")
	for _, b := range []*key.Binding{&k.Up, &k.Down} {
		h := b.Help()
		b.SetHelp(r.Replace(h.Key), h.Desc)
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
