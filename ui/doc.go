// Package ui is firewatch's full-screen terminal UI (Bubble Tea v2): a
// person watches an agent run live, digs into it and acts on it, over SSH
// too.
//
// The root Model merges every poller.Update into the model's store and
// hands each pane (Agents, Browser sessions, Tool calls, Timeline,
// Artifacts) the deltas and its box; the panes render only their visible
// rows from indexes kept up to date by the deltas. Over the panes, an
// overlay can take their place: the ? help, the details of a row
// (detail.go: events, tool calls, agents, browser sessions; detail_artifact.go:
// an artifact's versions and content), the waterfall (wfview.go) and the
// cancel confirmation (actions.go). Overlays stack: one opened from another
// goes back to it on esc.
//
// Everything that waits happens in commands: snapshot fetches (cached for
// the program, snapshots.go), the cancel request, copying (OSC 52, package
// clipboard), opening a browser (package browser), saving a file, large
// diffs, markdown rendering. The update loop only merges, indexes and
// draws. Timers are armed from one place each and tagged: the 1 s clock
// while the run runs, and a 10 fps spinner only while a snapshot loads;
// nothing ticks when the run is over.
//
// The detail components live in subpackages (jsonview, content, diff,
// waterfall, clipboard, browser); components.go maps the theme's palette
// onto their styles.
package ui
