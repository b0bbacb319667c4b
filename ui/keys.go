package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// keyMap is every key binding of the UI in one place: Update dispatches with
// key.Matches on these, and the footer and the `?` help render the same
// bindings, so help can never disagree with behaviour.
//
// Reserved for the detail views, waterfall, cancel and copy (issue 7), and
// bound to nothing here: w (waterfall), c (cancel), y (copy), o (open link),
// l (live view), s (save), d (diff), + and - (zoom). Left/right are the
// arrows and h; l stays free for the live-view toggle.
type keyMap struct {
	Up, Down, Left, Right key.Binding
	// Move and Errors are pairs in one, for the footer's short help;
	// dispatch uses Up/Down and NextError/PrevError.
	Move, Errors         key.Binding
	PageUp, PageDown     key.Binding
	Top, Bottom          key.Binding
	NextPane, PrevPane   key.Binding
	Enter, Back          key.Binding
	Filter               key.Binding
	NextMatch, PrevMatch key.Binding
	NextError, PrevError key.Binding
	Follow               key.Binding
	Pause, PollNow       key.Binding
	Help, Quit           key.Binding
}

// reservedKeys are the keys issue 7 binds; nothing in keyMap may use them.
var reservedKeys = []string{"w", "c", "y", "o", "l", "s", "d", "+", "-"}

func defaultKeys() keyMap {
	return keyMap{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Move:      key.NewBinding(key.WithKeys("up", "down", "k", "j"), key.WithHelp("↑↓/jk", "move")),
		Left:      key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "pane left")),
		Right:     key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "pane right")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		Top:       key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:    key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
		NextPane:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "pane")),
		PrevPane:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Enter:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back / clear filter")),
		Filter:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		NextMatch: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		PrevMatch: key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match")),
		Errors:    key.NewBinding(key.WithKeys("e", "E"), key.WithHelp("e/E", "errors")),
		NextError: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "next error")),
		PrevError: key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "previous error")),
		Follow:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow")),
		Pause:     key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause polling")),
		PollNow:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "poll now")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:      key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// all lists every binding (for tests and the full help).
func (k keyMap) all() []key.Binding {
	return []key.Binding{
		k.Up, k.Down, k.Left, k.Right, k.PageUp, k.PageDown, k.Top, k.Bottom,
		k.NextPane, k.PrevPane, k.Enter, k.Back, k.Filter, k.NextMatch, k.PrevMatch,
		k.NextError, k.PrevError, k.Follow, k.Pause, k.PollNow, k.Help, k.Quit,
	}
}

// fullHelp is the `?` screen: every binding, in groups.
func (k keyMap) fullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.NextPane, k.PrevPane, k.Left, k.Right, k.Enter, k.Back},
		{k.Filter, k.NextMatch, k.PrevMatch, k.NextError, k.PrevError, k.Follow},
		{k.Pause, k.PollNow, k.Help, k.Quit},
	}
}

// asciiKeys spells the arrows of the help labels in ASCII.
func asciiKeys(k keyMap) keyMap {
	r := strings.NewReplacer("↑", "up", "↓", "down", "←", "left", "→", "right")
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.Left, &k.Right, &k.Move} {
		h := b.Help()
		b.SetHelp(r.Replace(h.Key), h.Desc)
	}
	return k
}
