package ui

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/ui/internal/confirm"
)

// askCancel opens the confirmation, over whatever is shown. It takes an
// answer only once it has been on the screen confirm.ArmAfter: keys typed
// ahead, already queued when it opened ("cy" typed fast, a paste), reach
// it before the arming message and are dropped.
func (m *Model) askCancel() tea.Cmd {
	if m.backend == nil {
		m.env.flash = "cancel is not available in replay: the run is not being watched live"
		return nil
	}
	if m.readOnly != "" {
		m.env.flash = m.readOnly
		return nil
	}
	v := newConfirmView(m.env, m.shortID(), m.stateWord(), m.cancelCmd)
	v.back = m.overlay
	m.overlay = v
	return m.after(confirm.ArmAfter, v.q.Arm())
}

// cancelCmd sends the cancel request, in a command with a timeout.
func (m *Model) cancelCmd() tea.Cmd {
	b := m.backend
	m.env.flash = "cancelling the run" + m.env.sym.Ellipsis
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
		defer cancel()
		return cancelDoneMsg{err: b.Cancel(ctx)}
	}
}

// onCancelDone shows the answer; after a success it polls at once so
// that the screen follows the cancellation as the trace reports it.
func (m *Model) onCancelDone(msg cancelDoneMsg) {
	if msg.err != nil {
		s := oneLine(msg.err.Error())
		if !strings.HasPrefix(s, "cancel") {
			s = "cancel failed: " + s
		}
		m.env.flash = s
		return
	}
	m.env.flash = "cancel accepted by the service: the run stops as its agents do (the badge follows the trace)"
	if m.shared == nil {
		// This screen merges into its own store: the header, the
		// notifications and the summary know the cancel was made here.
		m.env.store.SetActors(model.Actors{CancelledHere: true})
	}
	if m.backend != nil && !m.done {
		m.backend.PollNow()
	}
}

// cancelTimeout bounds the cancel request.
const cancelTimeout = 15 * time.Second
