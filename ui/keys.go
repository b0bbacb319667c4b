package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/ui/attn"
	"github.com/firewatch/firewatch/ui/internal/keymap"
	"github.com/firewatch/firewatch/ui/internal/scroll"
)

// keyMap is every key binding of the main screen in one place: Update
// dispatches with key.Matches on these, and the footer and the `?` help
// render the same bindings, so help can never disagree with behaviour.
// Left/right are the arrows and h; l is the live-view toggle.
//
// Where a key goes: dispatch.go matches it; what it does is in the file
// named after it (c: action_cancel.go, y: action_copy.go, o:
// action_open.go, l: action_liveview.go, a: action_result.go, w:
// overlay_waterfall.go, enter: detail_*.go, ?: help.go).
//
// The detail views and the waterfall get every key first (but q, ctrl+c,
// c and ?): there the arrows, hjkl, enter and tab mean what their
// components say (detailKeys, jsonview, content, diff, waterfall), and y,
// o, s, d act on what the view shows.
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
	Suspend              key.Binding // ctrl+z: back to the shell, fg resumes

	// Digging in and acting.
	Waterfall key.Binding // w
	Result    key.Binding // a: the result artifact
	Cancel    key.Binding // c, after a y/n confirmation
	Copy      key.Binding // y
	Open      key.Binding // o
	LiveView  key.Binding // l
	Save      key.Binding // s (an artifact's content)
	Diff      key.Binding // d (an artifact's last two versions)
	Zoom      key.Binding // + and -: the waterfall's zoom

	Attention key.Binding // !: the next item that needs attention

	Rerun, FollowUp key.Binding // R, F: start a run from this one
	Compare         key.Binding // =: a rerun with its original

	// replay: no service behind the screen; help leaves out the keys
	// that would ask it.
	replay bool
	// noContent: no artifact content can be fetched (a replay of a file):
	// help leaves out s and d, which need it.
	noContent bool
	// readOnly: c would be refused (a hub's viewer), pollReadOnly: p and
	// l would be; noSave: s saves nothing (a remote session). The footer
	// and help do not offer them (the keys still say why, if pressed).
	readOnly, pollReadOnly, noSave bool
	// noStart: R and F cannot start a run here (no Config.Start);
	// noCompare: = has no original (not a rerun).
	noStart, noCompare bool
}

// offered is bs without the keys this screen would refuse.
func (k keyMap) offered(bs []key.Binding) []key.Binding {
	out := bs[:0:0]
	for _, b := range bs {
		if k.refused(b) {
			continue
		}
		out = append(out, b)
	}
	return out
}

// refused reports whether b is a key this screen would refuse: c for a
// viewer, p and l for a viewer of a shared run, s in a remote session.
func (k keyMap) refused(b key.Binding) bool {
	keys := strings.Join(b.Keys(), " ")
	switch keys {
	case strings.Join(k.Cancel.Keys(), " "):
		return k.readOnly
	case strings.Join(k.Rerun.Keys(), " "), strings.Join(k.FollowUp.Keys(), " "):
		return k.readOnly || k.noStart
	case strings.Join(k.Compare.Keys(), " "):
		return k.noCompare
	case strings.Join(k.Pause.Keys(), " "), strings.Join(k.LiveView.Keys(), " "):
		return k.pollReadOnly
	case strings.Join(k.Save.Keys(), " "):
		return k.noSave
	}
	return false
}

func defaultKeys() keyMap {
	l := keymap.DefaultList() // the list keys, one set for every screen
	return keyMap{
		Up:        l.Up,
		Down:      l.Down,
		Move:      key.NewBinding(key.WithKeys("up", "down", "k", "j"), key.WithHelp("↑↓/jk", "move")),
		Left:      key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "pane left")),
		Right:     key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "pane right")),
		PageUp:    l.PageUp,
		PageDown:  l.PageDown,
		Top:       l.Top,
		Bottom:    l.Bottom,
		NextPane:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "pane")),
		PrevPane:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Enter:     keymap.Say(l.Open, "enter", "details"),
		Back:      keymap.Say(l.Back, "esc", "back / clear filter"),
		Filter:    l.Filter,
		NextMatch: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		PrevMatch: key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match")),
		Errors:    key.NewBinding(key.WithKeys("e", "E"), key.WithHelp("e/E", "errors")),
		NextError: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "next error")),
		PrevError: key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "previous error")),
		Follow:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow")),
		Pause:     key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause polling")),
		PollNow:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "poll now")),
		Help:      l.Help,
		Quit:      l.Quit,
		Suspend:   l.Suspend,

		Waterfall: key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "waterfall")),
		Result:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "result artifact")),
		Cancel:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "cancel the run")),
		Copy:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy id, link or JSON")),
		Open:      key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open link")),
		LiveView:  key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "live view on/off")),
		Save:      key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save artifact")),
		Diff:      key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "diff versions")),
		Zoom:      key.NewBinding(key.WithKeys("+", "-"), key.WithHelp("+/-", "zoom (waterfall)")),
		Attention: attn.DefaultKeys().Next,
		Rerun:     key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "rerun with changes")),
		FollowUp:  key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "follow up in its thread")),
		Compare:   key.NewBinding(key.WithKeys("="), key.WithHelp("=", "compare with the original")),
	}
}

// all lists every binding (for tests and the full help).
func (k keyMap) all() []key.Binding {
	return []key.Binding{
		k.Up, k.Down, k.Left, k.Right, k.PageUp, k.PageDown, k.Top, k.Bottom,
		k.NextPane, k.PrevPane, k.Enter, k.Back, k.Filter, k.NextMatch, k.PrevMatch,
		k.NextError, k.PrevError, k.Follow, k.Pause, k.PollNow, k.Help, k.Quit, k.Suspend,
		k.Waterfall, k.Result, k.Cancel, k.Copy, k.Open, k.LiveView, k.Save, k.Diff, k.Zoom,
		k.Attention, k.Rerun, k.FollowUp, k.Compare,
	}
}

// fullHelp is the `?` screen: every binding that works, in groups (a
// replay's has no cancel, live view, pause or poll).
func (k keyMap) fullHelp() [][]key.Binding {
	// The run's actions and the watch's own keys are two groups, so that
	// the help screen packs them side by side (at 120x40 it all fits).
	acts := []key.Binding{k.Cancel, k.Rerun, k.FollowUp, k.Compare}
	last := []key.Binding{k.LiveView, k.Pause, k.PollNow, k.Help, k.Quit, k.Suspend}
	if k.replay {
		acts, last = nil, []key.Binding{k.Help, k.Quit, k.Suspend}
	}
	views := []key.Binding{k.Waterfall, k.Zoom, k.Result, k.Copy, k.Open}
	if !k.noContent {
		views = append(views, k.Save, k.Diff)
	}
	groups := [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.NextPane, k.PrevPane, k.Left, k.Right, k.Enter, k.Back},
		{k.Filter, k.NextMatch, k.PrevMatch, k.NextError, k.PrevError, k.Follow, k.Attention},
		k.offered(views),
		k.offered(acts),
		k.offered(last),
	}
	return slices.DeleteFunc(groups, func(g []key.Binding) bool { return len(g) == 0 })
}

// scrolling is the keys that move a detail view's text or list by lines
// and pages (the main screen's panes move through pane.move).
func (k keyMap) scrolling() scroll.Keys {
	return scroll.Keys{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Top: k.Top, Bottom: k.Bottom}
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

// detailKeys are the keys of the detail views and the waterfall beyond
// those of their components. They are not main-screen bindings (the views
// get every key first), so they may reuse main-screen keys.
type detailKeys struct {
	NextTab, PrevTab key.Binding
	Focus            key.Binding // the artifact view: versions or content
	Back             key.Binding
	Open             key.Binding // enter on a row of a list
	Retry            key.Binding // a snapshot that failed to load
	// y, o, d and s with the footer's short labels.
	Copy, OpenLink, Diff, Save key.Binding
}

func defaultDetailKeys() detailKeys {
	return detailKeys{
		NextTab:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next tab")),
		PrevTab:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous tab")),
		Focus:    key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab", "versions/content")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		Retry:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "retry")),
		Copy:     key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy")),
		OpenLink: key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open")),
		Diff:     key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "diff")),
		Save:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save")),
	}
}
