// Package ui is firewatch's watch screen (Bubble Tea v2): a person watches
// an agent run live, digs into it and acts on it, over SSH too. The map of
// its files (by name, one room each):
//
//   - run.go: Config, Backend (what the UI may ask of the service) and Run
//     (through program.RunOn, as every full screen is run).
//   - model.go: the root Model: merging poller.Updates into the store,
//     focus, scope, ticks; Update and relayout.
//   - layout.go: the frame and the pane rectangles (full and compact; the
//     end-of-run banner at the top of the timeline's band in the full
//     layout, so the panes keep their places when a run ends), View and
//     Frame (the window title, mouse and focus reports: package screen).
//   - keys.go: every key binding of the main screen (the list keys from
//     internal/keymap, one set for every screen); dispatch.go routes a key,
//     a wheel turn or a click to what handles it.
//   - component.go: the one contract of panes, overlays and detail
//     bodies (setSize, render, helpKeys).
//   - pane.go: the pane contract and the nav/list/box they embed
//     (navigation, the visible-rows render);
//     pane_agents.go, pane_sessions.go, pane_tools.go, pane_timeline.go,
//     pane_artifacts.go: one pane each; pane_timeline_union.go: the
//     timeline's view of a scope of several agents (their events merged
//     without copying them).
//   - filter.go: the / filter's query and what it matches; input.go: the
//     one-line text input it is typed in.
//   - header.go: the header lines and the end banner; help.go: the ?
//     screen; confirm.go: the cancel question (internal/confirm, the
//     screens' one y/n widget) as an overlay; textview.go: a scrollable
//     overlay of prepared lines (the help, the minimal details).
//   - overlay.go: the overlay contract and the stack (an overlay opened from
//     another goes back to it on esc); overlay_waterfall.go: the waterfall.
//   - detail.go: the tabbed detail frame; detail_event.go, detail_tool.go,
//     detail_agent.go, detail_session.go, detail_artifact.go: one kind of
//     detail each; detail_bodies.go and detail_fields.go: what they are
//     built from.
//   - action_cancel.go, action_copy.go, action_open.go, action_liveview.go,
//     action_result.go, action_attention.go, action_rerun.go: what a key
//     does to the run or to the outside world (! steps through what needs
//     attention; R, F and = start a rerun, a follow-up, a comparison).
//   - shared.go: a run followed for many screens (Config.Shared, a hub's
//     follow.Follower): the screen subscribes and merges nothing itself.
//   - messages.go: every message type of the package.
//   - env.go: the read-only context every pane and overlay gets (store,
//     styles, symbols, clock, the snapshot cache); only the root writes
//     it, children ask with messages (flash, want); styles.go: the theme
//     mapped onto the components' styles; text.go: cell-width text
//     building.
//
// Everything that waits happens in commands: snapshot fetches (cached for
// the program by the root, snapshots.go), the cancel request, copying
// (OSC 52, package clipboard), opening a browser (package browser), saving
// a file, large diffs (package linediff, off the loop), markdown rendering.
// The update loop only merges, indexes and draws. Timers are armed from one
// place each and tagged: the 1 s clock while the run runs, and a 10 fps
// spinner only while a snapshot loads; nothing ticks when the run is over.
//
// Widgets live in subpackages with the SetSize / Update / View / ShortHelp /
// FullHelp contract: jsonview, content, diff, waterfall, attn (what
// package attention found, drawn), clipboard, browser. The other full
// screens are packages of their own (runs, crawl, compare, interact),
// wrapped by package screen (Screen, Frame, Root); package remote is a hub
// session's terminal. What every full screen shares is internal: program
// (running a screen: RunOn), keymap (the list keys), confirm (the y/n
// question), scroll (the scroll arithmetic and bindings), cell (a line or
// a column fitted to a width), filterinput (the / filter's typing),
// textwrap (wrapping in linear time), rerunform (the rerun form, shared
// with the runs screen), alert (notifications through the program),
// suspend (Ctrl-Z); golden is the tests'. The test fixtures in testdata
// are written by go generate (internal/fixturegen). The project's
// ARCHITECTURE.md says where to add a pane, a detail view or a screen.
package ui
