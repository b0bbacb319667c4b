package runs

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/clipboard"
	"github.com/firewatch/firewatch/ui/internal/confirm"
	"github.com/firewatch/firewatch/ui/internal/rerunform"
)

// The list's actions on a run: y copies its id, c cancels it after the
// same confirmation as the watch screen's, n starts a new run from a
// prompt typed on the filter line (enter then watches it).

type (
	cancelDoneMsg struct {
		id  string
		err error
	}
	startedMsg struct {
		id  string
		err error
	}
)

// OfferCompare makes = open the compare screen of orig and rerun (the
// shell calls it once a rerun it watched is over).
func (m *Model) OfferCompare(orig, rerun string) {
	m.compareWith = [2]string{orig, rerun}
	m.flash = "= compares rerun " + describe.ShortID(rerun) + " with " + describe.ShortID(orig)
}

// SetOutcome records how a run ended as its trace says (the caller
// watched it): the list shows that rather than the service's status,
// which reports a cancelled run as failed.
func (m *Model) SetOutcome(id, outcome string) {
	if id == "" || outcome == "" {
		return
	}
	if m.outcomes == nil {
		m.outcomes = map[string]string{}
	}
	m.outcomes[strings.ToLower(id)] = outcome
	m.rebuild()
}

// actorsOf is who started or cancelled run r through a hub: what the
// archive's record says (its details', else its row's), then what this
// screen did itself.
func (m *Model) actorsOf(r *poller.RunInfo, st *poller.Status) model.Actors {
	var a model.Actors
	for _, k := range []*poller.Known{knownOf(st), r.Known} {
		if k != nil {
			a = a.Merge(model.Actors{StartedBy: k.StartedBy, CancelledBy: k.CancelledBy})
		}
	}
	return a.Merge(m.actors[strings.ToLower(r.ID)])
}

// acted records who this screen's person (Config.Person) cancelled or
// started run id.
func (m *Model) acted(id string, a model.Actors) {
	if m.cfg.Person == "" || id == "" {
		return
	}
	if m.actors == nil {
		m.actors = map[string]model.Actors{}
	}
	k := strings.ToLower(id)
	m.actors[k] = m.actors[k].Merge(a)
}

// shownStatus is the word drawn for r in its row: see shown.
func (m *Model) shownStatus(r *poller.RunInfo) string { return m.shown(r, nil) }

// shown is the word drawn for run r, with its details st when they came
// (nil: the row): once the run is over, its outcome as its trace says
// (firewatch's record of it, or a watch or cancel from this screen), since
// the service reports a cancelled or credit-limited run as failed (a
// success and a failure keep the service's words, completed and failed);
// "incomplete" for a run the archive holds only in part; else the
// service's status. The row and the details pane show the same outcome.
func (m *Model) shown(r *poller.RunInfo, st *poller.Status) string {
	switch o := model.Outcome(m.outcome(r, st)); o {
	case "":
	case model.OutcomeSucceeded:
		return "completed" // the service's word: the list reads alike
	case model.OutcomeFailed:
		return "failed"
	default:
		return describe.Outcome(o).Word
	}
	if r.Archived && r.Known != nil && !r.Known.Complete {
		return "incomplete"
	}
	if st != nil && (!isProcessing(st.Status) || isProcessing(r.Status)) {
		return st.Status
	}
	return r.Status
}

// outcome is the outcome shown for r ("" while the run is processing or
// when none is known).
func (m *Model) outcome(r *poller.RunInfo, st *poller.Status) string {
	// Over when either says so: a run does not start again.
	if isProcessing(r.Status) && (st == nil || isProcessing(st.Status)) {
		return ""
	}
	for _, k := range []*poller.Known{knownOf(st), r.Known} {
		if k != nil && k.Outcome != "" {
			return k.Outcome
		}
	}
	return m.outcomes[strings.ToLower(r.ID)]
}

func knownOf(st *poller.Status) *poller.Known {
	if st == nil {
		return nil
	}
	return st.Known
}

func (m *Model) copyID() tea.Cmd {
	r := m.Selected()
	if r == nil {
		return nil
	}
	return clipboard.Copy(r.ID, "run id "+describe.ShortID(r.ID), clipboard.Options{Getenv: m.cfg.Getenv})
}

// askCancel opens the confirmation for the selected run while it is
// processing: the screens' one question (ui/internal/confirm).
func (m *Model) askCancel() tea.Cmd {
	r := m.Selected()
	if r == nil {
		return nil
	}
	if !isProcessing(r.Status) {
		m.flash = "run " + describe.ShortID(r.ID) + " is " + describe.OneLine(m.shownStatus(r), 20) + ": there is nothing to cancel"
		return nil
	}
	m.confirmID = r.ID
	m.confirm = confirm.New("Cancel run "+describe.ShortID(r.ID)+" ("+describe.OneLine(m.shownStatus(r), 20)+")?",
		"firewatch asks the service to stop the run (DELETE /v2/agent/{jobId}). Cancelling is cooperative: credits can still accrue for a moment, then the trace reports run.cancel_requested and the run ends \"cancelled\".",
		"yes, cancel the run", "no, keep it running")
	arm := m.confirm.Arm()
	return m.tick(confirm.ArmAfter, func(time.Time) tea.Msg { return arm })
}

// confirmKey handles a key while the confirmation is up: y cancels, n or
// esc keeps the run going, anything else (or anything before it is
// armed) is ignored.
func (m *Model) confirmKey(msg tea.KeyPressMsg) tea.Cmd {
	switch a, _ := m.confirm.Update(msg); a {
	case confirm.Yes:
		id := m.confirmID
		m.confirmID, m.confirm = "", nil
		m.flash = "cancelling run " + describe.ShortID(id) + "…"
		svc := m.cfg.Service
		ctx, cancel := m.ctx()
		return func() tea.Msg {
			defer cancel()
			return cancelDoneMsg{id: id, err: svc.Cancel(ctx, id)}
		}
	case confirm.No:
		m.confirmID, m.confirm = "", nil
		m.flash = "not cancelled: the run goes on"
	}
	return nil
}

// composeKey handles keys while a new run's prompt is typed: enter starts
// it, esc drops it.
func (m *Model) composeKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		prompt := strings.TrimSpace(m.draft)
		if prompt == "" {
			m.composing = false
			return nil
		}
		req := poller.AgentRequest{Prompt: prompt, ThreadID: m.followThread}
		if err := req.Validate(); err != nil {
			m.flash = err.Error()
			return nil
		}
		m.composing = false
		m.flash = "starting a run…"
		if m.followThread != "" {
			m.flash = "starting the follow-up to " + describe.ShortID(m.followOf) + "…"
		}
		m.followThread, m.followOf = "", ""
		m.RerunOf, m.RerunChanged = "", nil
		return m.start(req)
	case "esc", "ctrl+c":
		m.composing, m.draft = false, ""
		m.followThread, m.followOf = "", ""
	default:
		m.draft = rerunform.Type(m.draft, msg)
	}
	return nil
}

// onAction handles the answers of the actions.
func (m *Model) onAction(msg tea.Msg) (tea.Cmd, bool) {
	if _, key := msg.(tea.KeyPressMsg); !key && m.confirm != nil {
		if _, arming := m.confirm.Update(msg); arming {
			return nil, true
		}
	}
	switch msg := msg.(type) {
	case cancelDoneMsg:
		if msg.err != nil {
			m.flash = "cancel failed: " + errText(msg.err)
			return nil, true
		}
		m.flash = "cancel of " + describe.ShortID(msg.id) + " accepted: the run stops as its agents do"
		m.acted(msg.id, model.Actors{CancelledBy: model.ActorVia(m.cfg.Person, m.cfg.HubName)})
		m.SetOutcome(msg.id, "cancelled")
		if d := m.details[msg.id]; d != nil {
			d.st = nil // asked again: the status changes
		}
		// The list's next refresh shows it over; the details now.
		return m.fetchDetail(), true
	case startedMsg:
		if msg.err != nil {
			m.flash = "start failed: " + errText(msg.err)
			m.RerunOf, m.RerunChanged = "", nil
			return nil, true
		}
		// The run has started: the footer no longer says it is starting
		// (the screen comes back to this model after watching it).
		m.draft, m.flash = "", ""
		m.acted(msg.id, model.Actors{StartedBy: model.ActorVia(m.cfg.Person, m.cfg.HubName)})
		m.Chosen = msg.id
		return tea.Quit, true
	case clipboard.CopiedMsg:
		m.flash = msg.Status()
		return nil, true
	}
	return nil, false
}

// actionKeys are the list's action bindings, for dispatch and help.
func (m *Model) actionKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Copy):
		return m.copyID(), true
	case key.Matches(msg, k.Cancel), key.Matches(msg, k.New), key.Matches(msg, k.Rerun), key.Matches(msg, k.FollowUp):
		if m.cfg.ReadOnly != "" {
			m.flash = m.cfg.ReadOnly
			return nil, true
		}
		switch {
		case key.Matches(msg, k.Cancel):
			return m.askCancel(), true
		case key.Matches(msg, k.Rerun):
			return m.openRerun(), true
		case key.Matches(msg, k.FollowUp):
			return m.openFollowUp(), true
		}
		m.composing, m.draft, m.followThread = true, "", ""
		return nil, true
	case key.Matches(msg, k.Compare):
		if m.compareWith[0] == "" {
			m.flash = "no rerun watched from here to compare: R reruns a run"
			return nil, true
		}
		m.ChosenCompare = m.compareWith
		return tea.Quit, true
	}
	return nil, false
}
