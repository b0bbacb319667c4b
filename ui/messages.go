package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/poller"
)

// The UI's own messages, all in one place.

// updateMsg carries one poller.Update from the watch.
type updateMsg struct{ u poller.Update }

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
