package ui

// toggleLiveView is l: ask the trace for live-view links, or stop.
func (m *Model) toggleLiveView() {
	if m.backend == nil {
		m.env.flash = "live view is not available in replay"
		return
	}
	if m.shared != nil {
		m.liveViewShared()
		return
	}
	m.env.liveView = !m.env.liveView
	m.backend.SetLiveView(m.env.liveView)
	m.sessions.rebuild()
	if m.env.liveView {
		if !m.done {
			m.backend.PollNow()
		}
		m.env.flash = "live view on: open sessions get their live-view links from the next poll (o opens one)"
	} else {
		m.env.flash = "live view off"
	}
}
