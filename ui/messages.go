package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/linediff"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/browser"
	artcontent "github.com/firewatch/firewatch/ui/content"
)

// The UI's own messages, all in one place.

// updateMsg carries one poller.Update from the watch.
type updateMsg struct{ u poller.Update }

// flashMsg is a line a pane or an overlay wants in the footer (until the
// next key). Children send it with flash instead of writing the shared
// env, which only the root writes.
type flashMsg struct{ text string }

func flash(text string) tea.Cmd { return func() tea.Msg { return flashMsg{text} } }

// noteMsg is a footer line from outside the UI (Config.Notes).
type noteMsg struct{ text string }

func waitNote(ch <-chan string) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		if s, ok := <-ch; ok {
			return noteMsg{s}
		}
		return nil
	}
}

// updatesClosedMsg says the watch ended: the Updates channel was closed.
type updatesClosedMsg struct{}

// clockMsg is the 1 s clock, sent only while the run is running. tag tells
// the current tick from stale ones, like bubbles/spinner, so that ticks
// never multiply.
type clockMsg struct{ tag int }

const clockEvery = time.Second

// waitUpdate reads the next update. Only one read is ever pending: the
// root re-arms it from one place when an update arrives.
func waitUpdate(ch <-chan poller.Update) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		u, ok := <-ch
		if !ok {
			return updatesClosedMsg{}
		}
		return updateMsg{u}
	}
}

// cancelDoneMsg is the service's answer to the cancel request.
type cancelDoneMsg struct{ err error }

// openDetailMsg asks the root to open a row's detail over the current
// view (enter on a row of a detail's list).
type openDetailMsg struct{ sel Selection }

// savedMsg is the result of s.
type savedMsg struct {
	path string
	size int
	err  error
}

// openedMsg is browser.OpenedMsg with what the link was.
type openedMsg struct {
	what string
	browser.OpenedMsg
}

// snapshotWantMsg is a detail view asking for a snapshot (again, when it
// failed): the root owns the cache (snapshots.go) and starts the fetch.
type snapshotWantMsg struct {
	id   string
	kind model.ArtifactKind
}

// diffWantMsg is a detail view asking for the diff of two loaded
// snapshots; the root computes it (in a command when large).
type diffWantMsg struct {
	key  [2]string
	kind model.ArtifactKind
}

// want sends msg to the root.
func want(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// snapshotMsg is the result of a fetch.
type snapshotMsg struct {
	id      string
	content string
	err     error
	view    *artcontent.Model
	kind    model.ArtifactKind
}

// spinMsg turns the loading spinner: 10 frames a second, only while a
// snapshot loads. tag tells the current tick from stale ones.
type spinMsg struct{ tag int }

// diffMsg carries a diff computed in a command (large snapshots).
type diffMsg struct {
	key [2]string
	res linediff.Result
}
