package ui

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/internal/rerunform"
)

// R and F on a run's screen, as on the runs screen: R opens the start form
// filled with the run's request (ui/internal/rerunform), F a follow-up
// prompt for the run's thread; enter starts the run through Config.Start
// and the screen ends with Result.Started, for the shell to watch it. =
// on a rerun's screen (Config.RerunOf), once it has ended, ends the screen
// with Result.Compare.

// startedMsg is the service's answer to a start R or F sent.
type startedMsg struct {
	id       string
	err      error
	rerunOf  string
	changed  []string
	followUp bool
}

// startTimeout bounds the start request.
const startTimeout = 30 * time.Second

// canStart says why R and F cannot start a run here ("" when they can).
func (m *Model) canStart() string {
	switch {
	case m.readOnly != "":
		return m.readOnly
	case m.start == nil:
		return "R and F start runs on a live watch: not on a replay or an archived run"
	}
	return ""
}

// openRerun opens the form filled with the run's request as the screen
// knows it (the start, the archive, the service's status and list).
func (m *Model) openRerun() {
	if why := m.canStart(); why != "" {
		m.env.flash = why
		return
	}
	req := m.env.store.Request()
	id := m.env.store.Run().ID
	if id == "" {
		id = m.jobID
	}
	o := rerunform.Original{Prompt: req.Prompt, Model: req.Model, Effort: req.Effort, URLs: req.URLs}
	f := rerunform.New(id, o)
	if req.MaxCredits > 0 && req.MaxCredits < math.MaxInt32 {
		f.Fields[len(f.Fields)-1].Was = strconv.Itoa(int(req.MaxCredits))
		f.Fields[len(f.Fields)-1].Value = f.Fields[len(f.Fields)-1].Was
		f.CapNote = "maxCredits: the run's cap."
	} else {
		f.CapNote = "maxCredits: the run's cap is not known; empty sends none (the service's default, 2,500)."
	}
	m.push(&startView{e: m.env, m: m, form: f})
}

// openFollowUp opens the prompt of a follow-up in the run's thread.
func (m *Model) openFollowUp() {
	if why := m.canStart(); why != "" {
		m.env.flash = why
		return
	}
	t := m.env.store.Thread()
	if t.ID == "" {
		m.env.flash = "the service does not say which thread run " + m.shortID() + " is in: R reruns it"
		return
	}
	m.push(&startView{e: m.env, m: m, thread: t.ID})
}

// startRun sends req in a command; the answer comes as startedMsg.
func (m *Model) startRun(req poller.AgentRequest, rerunOf string, changed []string) tea.Cmd {
	start := m.start
	follow := req.ThreadID != ""
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		id, err := start(ctx, req)
		return startedMsg{id: id, err: err, rerunOf: rerunOf, changed: changed, followUp: follow}
	}
}

// onStarted ends the screen on the new run, or says why it did not start.
func (m *Model) onStarted(msg startedMsg) tea.Cmd {
	if msg.err != nil {
		m.env.flash = "start failed: " + oneLine(msg.err.Error())
		return nil
	}
	m.started = msg
	return tea.Quit
}

// compareRerun is =: a rerun that has ended ends the screen for the
// compare screen of it and its original.
func (m *Model) compareRerun() tea.Cmd {
	switch {
	case m.rerunOf == "":
		m.env.flash = "= compares a rerun with its original: this run is not a rerun watched from here (R reruns it)"
		return nil
	case m.env.store.Run().State != model.StateFinished:
		m.env.flash = "= compares the rerun with " + describe.ShortID(m.rerunOf) + " once it has ended"
		return nil
	}
	m.compare = true
	return tea.Quit
}

// startView is R's form or F's prompt, over the panes: it takes every key
// (typing q or c types them), enter starts, esc drops it.
type startView struct {
	stackBase
	e      *env
	m      *Model
	form   *rerunform.Form // R
	thread string          // F: the thread followed up
	draft  string
	w, h   int
}

func (v *startView) title() string {
	if v.form != nil {
		return "Rerun with changes"
	}
	return "Follow up in the thread"
}

func (v *startView) setSize(w, h int) tea.Cmd { v.w, v.h = w, h; return nil }

func (v *startView) update(msg tea.Msg, k keyMap) (overlay, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return v, nil
	}
	if v.form != nil {
		switch v.form.Key(km) {
		case rerunform.Drop:
			return v.back, flash("not rerun")
		case rerunform.Submit:
			req, changed, bad := v.form.Request()
			if bad != "" {
				return v, flash(bad)
			}
			return v.back, tea.Batch(flash("starting the rerun of "+describe.ShortID(v.form.Of)+v.e.sym.Ellipsis),
				v.m.startRun(req, v.form.Of, changed))
		}
		return v, nil
	}
	switch km.String() {
	case "esc", "ctrl+c":
		return v.back, flash("no follow-up started")
	case "enter":
		prompt := strings.TrimSpace(v.draft)
		if prompt == "" {
			return v, flash("type the follow-up's prompt, or esc")
		}
		req := poller.AgentRequest{Prompt: prompt, ThreadID: v.thread}
		if err := req.Validate(); err != nil {
			return v, flash(err.Error())
		}
		return v.back, tea.Batch(flash("starting the follow-up to "+v.m.shortID()+v.e.sym.Ellipsis), v.m.startRun(req, "", nil))
	}
	v.draft = rerunform.Type(v.draft, km)
	return v, nil
}

func (v *startView) render() []string {
	st := v.e.st
	var out []string
	if v.form != nil {
		out = v.form.Lines(st, v.w)
	} else {
		t := v.m.env.store.Thread()
		head := " Follow up run " + v.m.shortID() + " in thread " + describe.ShortID(t.ID)
		if t.Turn > 0 {
			head += " (its next turn)"
		}
		d := []rune(v.draft)
		for len(d) > 0 && width(string(d)) > v.w-12 {
			d = d[1:] // the end of what is typed stays in sight
		}
		out = []string{st.Bold.Render(head), "", " prompt: " + string(d) + "▏", "",
			st.Muted.Render(" The follow-up continues the conversation: the service keeps the thread's schema.")}
	}
	for i, l := range out {
		out[i] = padStyled(l, v.w)
	}
	for len(out) < v.h {
		out = append(out, blank(v.w))
	}
	return out[:v.h]
}

func (v *startView) helpKeys(k keyMap) []key.Binding {
	if v.form != nil {
		return []key.Binding{key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next field")),
			key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "rerun and watch it")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "drop it"))}
	}
	return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "start it and watch it")),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "drop it"))}
}
