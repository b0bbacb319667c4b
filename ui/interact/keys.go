package interact

import (
	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/ui/internal/keymap"
	"github.com/firewatch/firewatch/ui/internal/program"
)

// KeyMap is every key of the console. Letters and symbols go to the input,
// so the console's own keys are control keys, function keys and the
// arrows at the input's edges.
type KeyMap struct {
	Send       key.Binding
	Newline    key.Binding
	Mode       key.Binding
	Language   key.Binding
	HistPrev   key.Binding
	HistNext   key.Binding
	Search     key.Binding
	ScrollUp   key.Binding
	ScrollDown key.Binding
	PageUp     key.Binding
	PageDown   key.Binding
	Bottom     key.Binding
	Links      key.Binding
	View       key.Binding
	Save       key.Binding
	Help       key.Binding
	Leave      key.Binding
	Suspend    key.Binding
}

// DefaultKeyMap is the console's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Send:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		Newline:    key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"), key.WithHelp("alt+enter/ctrl+j", "new line")),
		Mode:       key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "code/prompt")),
		Language:   key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "language")),
		HistPrev:   key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "older")),
		HistNext:   key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "newer")),
		Search:     key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r or /", "search history")),
		ScrollUp:   key.NewBinding(key.WithKeys("alt+up", "shift+up"), key.WithHelp("alt+↑/↓", "scroll")),
		ScrollDown: key.NewBinding(key.WithKeys("alt+down", "shift+down"), key.WithHelp("alt+↓", "scroll down")),
		PageUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "page")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Bottom:     key.NewBinding(key.WithKeys("ctrl+end", "alt+>"), key.WithHelp("ctrl+end", "latest")),
		Links:      key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "session links")),
		View:       key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "open output")),
		Save:       key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save output")),
		Help:       key.NewBinding(key.WithKeys("f1"), key.WithHelp("f1", "help")),
		Leave:      key.NewBinding(key.WithKeys("ctrl+c", "ctrl+d", "ctrl+q"), key.WithHelp("ctrl+c", "leave")),
		Suspend:    key.NewBinding(key.WithKeys(program.SuspendKeys...), key.WithHelp("ctrl+z", "suspend (fg resumes)")),
	}
}

// ShortHelp is the footer's keys.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Send, k.Mode, k.HistPrev, k.Search, k.Links, k.View, k.Help, k.Leave}
}

// FullHelp is the help screen's keys, in groups.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Send, k.Newline, k.Mode, k.Language},
		{k.HistPrev, k.HistNext, k.Search},
		{k.ScrollUp, k.PageUp, k.Bottom},
		{k.Links, k.View, k.Save, k.Help, k.Leave, k.Suspend},
	}
}

// overlayKeys are the keys of the links list, the search and the leave
// question (no input there: letters are free).
type overlayKeys struct {
	Up, Down, Copy, Open, Close key.Binding
	Stop, Keep, Cancel          key.Binding
	SearchOlder, Accept         key.Binding
}

func defaultOverlayKeys() overlayKeys {
	l := keymap.DefaultList() // the list keys of every screen
	return overlayKeys{
		Up:          keymap.Say(l.Up, "↑/↓", "select"),
		Down:        keymap.Say(l.Down, "↓", "down"),
		Copy:        key.NewBinding(key.WithKeys("y", "c"), key.WithHelp("y", "copy")),
		Open:        key.NewBinding(key.WithKeys("o", "enter"), key.WithHelp("o", "open")),
		Close:       key.NewBinding(key.WithKeys("esc", "ctrl+l", "q"), key.WithHelp("esc", "close")),
		Stop:        key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "stop the session and leave")),
		Keep:        key.NewBinding(key.WithKeys("k"), key.WithHelp("k", "keep it and leave")),
		Cancel:      key.NewBinding(key.WithKeys("esc", "c", "n"), key.WithHelp("esc", "stay")),
		SearchOlder: key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "older match")),
		Accept:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "use it")),
	}
}
