package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// component is the one contract of the watch screen's parts: the panes
// (pane.go), the overlays (overlay.go) and the bodies of a detail view's
// tabs (detail_bodies.go) are each a component plus what their place
// needs. The widgets in the sub-packages follow the same contract
// exported (SetSize / Update / View / ShortHelp / FullHelp).
//
//   - setSize gives the component its box; the root calls it from Update
//     (relayout, model.go), never from View. It returns what a new size
//     needs done (markdown rendered for the width, a first fetch).
//   - render only draws: exactly h lines of exactly w cells, only the
//     rows that are visible. A pane draws its cursor when it has the
//     focus (setFocus).
//   - helpKeys are its keys, from the key maps (keys.go, detailKeys):
//     the footer shows them and ? lists them.
//
// A component reads the shared env and never writes it: it reports by
// returning commands (flash, want in messages.go). Its update is named by
// its place: a pane is moved by the root's keys (navigation lives in the
// nav/list/box it embeds, pane.go), an overlay's update returns the
// overlay to show next, a body's update returns a command.
type component interface {
	setSize(w, h int) tea.Cmd
	render() []string
	helpKeys(k keyMap) []key.Binding
}
