package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/ui/screen"
)

// A shared run (Config.Shared): one follower merges the run into its one
// store for every screen that shows it (a hub's sessions), and this screen
// merges nothing. It subscribes when it starts and leaves when it ends;
// Update, View, Init and Frame run under the follower's read lock
// (sharedScreen), so that no merge happens while the screen reads the
// store or its tracker; the changes the follower made are drained there
// (Pending) and applied to the panes' indexes like the local watch's
// deltas, with the tracker's changes the follower decided. Pause and live
// view are the run's: the screen shows what the one poll does
// (poller.Health), and the Backend decides who may change it.

// sharedMsg says the follower has changes for this screen.
type sharedMsg struct{}

// waitShared waits for the subscription's next changes. Leave (when the
// program has ended) wakes it too.
func waitShared(s *follow.Subscription) tea.Cmd {
	if s == nil {
		return nil
	}
	return func() tea.Msg {
		<-s.Ready()
		return sharedMsg{}
	}
}

// onShared applies every change waiting, under the follower's read lock
// (Update runs under it).
func (m *Model) onShared() tea.Cmd {
	var cmds []tea.Cmd
	for _, c := range m.shared.Pending() {
		cmds = append(cmds, m.onChange(c))
	}
	if m.done {
		return tea.Batch(cmds...)
	}
	return tea.Batch(append(cmds, waitShared(m.shared))...)
}

// onChange applies one change of the follower: what onUpdate does for an
// update, without merging.
func (m *Model) onChange(c follow.Change) tea.Cmd {
	d := &c.Delta
	if !d.Empty() || d.TreeChanged {
		m.env.clock.observe(d.Events)
		m.index(d)
	}
	m.attended(c.Attention)
	m.health, m.hasHealth = c.Health, true
	if m.paused != c.Health.Paused {
		m.paused = c.Health.Paused
		m.markAll()
	}
	if m.env.liveView != c.Health.LiveView {
		m.env.liveView = c.Health.LiveView
		m.sessions.rebuild()
	}
	if c.Tokens != nil && c.Tokens != m.tokens {
		m.tokens = c.Tokens
		m.tokensAt = m.env.store.Run().CreditsUsed
	}
	switch {
	case c.Err != nil:
		m.lastErr = oneLine(c.Err.Error())
	case c.Health.Failures == 0:
		m.lastErr = ""
	}
	if c.Note != "" {
		m.env.flash = c.Note
	}
	if c.Done {
		m.done = true
		m.markAll()
		if m.exitOnFinish {
			return tea.Quit
		}
	}
	return m.armTicks()
}

// pauseShared is p on a shared run: the run's one poll pauses or resumes
// for every viewer; the header follows the poll's health when it does.
func (m *Model) pauseShared() {
	if m.pollReadOnly != "" {
		m.env.flash = m.pollReadOnly
		return
	}
	m.backend.SetPaused(!m.paused)
	if m.paused {
		m.env.flash = "resuming the run's polling for every viewer" + m.env.sym.Ellipsis
	} else {
		m.env.flash = "pausing the run's polling for every viewer" + m.env.sym.Ellipsis
	}
}

// liveViewShared is l on a shared run: the run's one poll asks for
// live-view links, or stops, from its next request, for every viewer.
func (m *Model) liveViewShared() {
	if m.pollReadOnly != "" {
		m.env.flash = m.pollReadOnly
		return
	}
	on := !m.env.liveView
	m.backend.SetLiveView(on)
	if on {
		if !m.done {
			m.backend.PollNow()
		}
		m.env.flash = "live view on for every viewer: open sessions get their links from the next poll (o opens one)"
	} else {
		m.env.flash = "live view off for every viewer from the next poll"
	}
}

// sharedScreen is the screen of a shared run as the program runs it: every
// call under the follower's read lock.
type sharedScreen struct {
	m *Model
	f *follow.Follower
}

func (s sharedScreen) Init() (cmd tea.Cmd) {
	s.f.View(func(*follow.Run) { cmd = s.m.Init() })
	return cmd
}

func (s sharedScreen) Update(msg tea.Msg) (cmd tea.Cmd) {
	s.f.View(func(*follow.Run) { cmd = s.m.Update(msg) })
	return cmd
}

func (s sharedScreen) View() (v string) {
	s.f.View(func(*follow.Run) { v = s.m.View() })
	return v
}

func (s sharedScreen) Frame() (f screen.Frame) {
	s.f.View(func(*follow.Run) { f = s.m.Frame() })
	return f
}
