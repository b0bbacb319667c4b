package jsonview

import (
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/firewatch/firewatch/ui/internal/scroll"
)

// Styles are the looks of the viewer's parts. The main UI maps its theme's
// semantic slots onto them.
type Styles struct {
	Key    lipgloss.Style // member names
	String lipgloss.Style
	Number lipgloss.Style
	Bool   lipgloss.Style
	Null   lipgloss.Style
	Punct  lipgloss.Style // { } [ ] : ,
	Fold   lipgloss.Style // fold markers and the "{…} 42 keys" summaries
	Cursor lipgloss.Style // the cursor line, drawn over its plain text
	Note   lipgloss.Style // "invalid JSON: ...", "(no value)"
}

// DefaultStyles uses the 16 ANSI colours, readable on dark and light
// backgrounds.
func DefaultStyles() Styles {
	return Styles{
		Key:    lipgloss.NewStyle().Foreground(lipgloss.Blue),
		String: lipgloss.NewStyle().Foreground(lipgloss.Green),
		Number: lipgloss.NewStyle().Foreground(lipgloss.Cyan),
		Bool:   lipgloss.NewStyle().Foreground(lipgloss.Yellow),
		Null:   lipgloss.NewStyle().Foreground(lipgloss.Magenta),
		Punct:  lipgloss.NewStyle().Faint(true),
		Fold:   lipgloss.NewStyle().Foreground(lipgloss.BrightBlack).Italic(true),
		Cursor: lipgloss.NewStyle().Reverse(true),
		Note:   lipgloss.NewStyle().Foreground(lipgloss.Yellow).Italic(true),
	}
}

// PlainStyles has no colour, attributes only (NO_COLOR).
func PlainStyles() Styles {
	return Styles{
		Key:    lipgloss.NewStyle().Bold(true),
		Null:   lipgloss.NewStyle().Italic(true),
		Fold:   lipgloss.NewStyle().Faint(true),
		Cursor: lipgloss.NewStyle().Reverse(true),
		Note:   lipgloss.NewStyle().Italic(true),
	}
}

// symbols drawn by the viewer.
type symbols struct {
	open, closed string // gutter fold markers
	ellipsis     string
}

var (
	unicodeSymbols = symbols{open: "▾ ", closed: "▸ ", ellipsis: "…"}
	asciiSymbols   = symbols{open: "v ", closed: "> ", ellipsis: "..."}
)

// KeyMap holds the viewer's bindings; they feed both Update and the help.
type KeyMap struct {
	scroll.Keys
	Toggle             key.Binding // fold or unfold the value under the cursor
	Expand, Collapse   key.Binding // unfold / fold, or move into / out of it
	ExpandAll, FoldAll key.Binding
}

// DefaultKeyMap: arrows and hjkl, PgUp/PgDn, ctrl+u/ctrl+d, g/G, enter or
// space to toggle a fold, l/→ to expand, h/← to collapse, L to expand
// everything, H to fold everything.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Keys:      scroll.DefaultKeys(),
		Toggle:    key.NewBinding(key.WithKeys("enter", "space"), key.WithHelp("enter/space", "fold/unfold")),
		Expand:    key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "expand")),
		Collapse:  key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "collapse")),
		ExpandAll: key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "expand all")),
		FoldAll:   key.NewBinding(key.WithKeys("H"), key.WithHelp("H", "fold all")),
	}
}

// ShortHelp is the footer's view of the bindings.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Toggle, k.Expand, k.Collapse, k.ExpandAll, k.FoldAll}
}

// FullHelp is the help screen's view of the bindings.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom},
		{k.Toggle, k.Expand, k.Collapse, k.ExpandAll, k.FoldAll},
	}
}

// ASCII returns the key map with help labels in ASCII.
func (k KeyMap) ASCII() KeyMap {
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.HalfUp, &k.HalfDown,
		&k.Top, &k.Bottom, &k.Toggle, &k.Expand, &k.Collapse, &k.ExpandAll, &k.FoldAll} {
		scroll.ASCIIHelp(b)
	}
	return k
}

// ShortHelp returns the keys that work in the viewer (help.KeyMap).
func (m Model) ShortHelp() []key.Binding { return m.KeyMap.ShortHelp() }

// FullHelp returns the keys that work in the viewer (help.KeyMap).
func (m Model) FullHelp() [][]key.Binding { return m.KeyMap.FullHelp() }
