package ui

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/attn"
	"github.com/firewatch/firewatch/ui/browser"
	"github.com/firewatch/firewatch/ui/clipboard"
	artcontent "github.com/firewatch/firewatch/ui/content"
	"github.com/firewatch/firewatch/ui/internal/alert"
	"github.com/firewatch/firewatch/ui/internal/textwrap"
	"github.com/firewatch/firewatch/ui/remote"
	"github.com/firewatch/firewatch/ui/waterfall"
)

// Model is the root of the UI: it owns the store's updates, the layout,
// the focus and key routing, the header, footer, banner and overlays. The
// panes are its children; it hands each its box.
type Model struct {
	env  *env
	keys keyMap
	help help.Model

	backend      Backend
	updates      <-chan poller.Update
	notes        <-chan string // Config.Notes
	alerts       *alert.Gate   // Config.Alerts
	watched      func([]attention.Change)
	debug        io.Writer
	jobID        string
	mouse        bool
	exitOnFinish bool
	dark         bool

	width, height int

	agents    *agentsPane
	timeline  *timelinePane
	tools     *toolsPane
	artifacts *artifactsPane
	sessions  *sessionsPane
	panes     []pane // in focus order
	focus     int

	scope     *scope
	scopeA    *model.Agent // the agent the scope was built for
	input     lineInput
	filtering bool

	overlay overlay
	wf      *waterfall.Model // the waterfall, kept current open or not

	attnCycle attn.Cycle // where ! is in the items that need attention

	health    poller.Health
	hasHealth bool
	tokens    *poller.TokenUsage
	tokensAt  float64 // the run's creditsUsed when tokens arrived
	lastErr   string
	done      bool // the watch ended
	paused    bool

	clockTag int
	clockOn  bool
	spin     int // the spinner's frame: it turns with the clock
	spinTag  int // the loading spinner (snapshots): 10 fps while one loads
	spinOn   bool
	// after makes the timers (tea.Tick; tests replace it).
	after func(d time.Duration, msg tea.Msg) tea.Cmd

	copyNote string // said after the next "copied ..." (o without a desktop)
	userQuit bool
	// interrupted: the quit was Ctrl-C (Result.Interrupted).
	interrupted bool
	// backToList is Config.BackToList; back is set when esc used it.
	backToList, back bool
	// readOnly is Config.ReadOnly: what c says instead of cancelling;
	// pollReadOnly Config.PollReadOnly, what p and l say.
	readOnly, pollReadOnly string
	// person is "alice · viewer": who the session is on a hub (header).
	person string
	// start is Config.Start (nil: R and F say why not); rerunOf is
	// Config.RerunOf. started is the run R or F started, compare set by
	// = (Result).
	start   func(ctx context.Context, req poller.AgentRequest) (string, error)
	rerunOf string
	started startedMsg
	compare bool
	// shared is the subscription to a shared run's follower (shared.go);
	// nil when the screen merges its own updates.
	shared *follow.Subscription
}

// Pane indexes in focus order: reading order of the full layout.
const (
	paneAgents = iota
	paneSessions
	paneTools
	paneTimeline
	paneArtifacts
)

// New builds the root model. Run uses it; tests drive it directly.
func New(cfg Config) *Model {
	store := cfg.Store
	if store == nil {
		store = model.NewStore()
	}
	lookup, getenv, opener := os.LookupEnv, os.Getenv, browser.New()
	if t := cfg.Terminal; t != nil {
		// A remote session: its environment, and nothing opened here.
		lookup, getenv, opener.Remote = t.LookupEnv, t.Getenv, "the screen is a remote session's"
	}
	noColor := cfg.NoColor || theme.NoColorEnv(lookup)
	ascii := cfg.ASCII || theme.ASCIIEnv(lookup)
	sym := theme.Unicode()
	if ascii {
		sym = theme.ASCII()
	}
	e := &env{
		store:    store,
		st:       theme.New(theme.Dark(), noColor),
		sym:      sym,
		ascii:    ascii,
		noColor:  noColor,
		liveView: cfg.LiveView,
		loc:      time.Local,
		clock:    &serverClock{wall: time.Now, replay: cfg.Backend == nil},
		replay:   cfg.Backend == nil,
		ordinal:  map[string]int{},
		snaps:    newSnapshots(cfg),
		dk:       defaultDetailKeys(),
		saveDir:  cfg.SaveDir,
		getenv:   getenv,
		opener:   opener,
	}
	if cfg.Terminal != nil {
		e.noSave = remote.NoSave
	}
	e.attn = cfg.Attention
	if e.attn == nil {
		e.attn = attention.New(store, attention.Options{})
	}
	if store.Len() > 0 && cfg.Shared == nil { // a store merged before the UI started
		e.attn.Update(model.Delta{Events: store.Timeline()}, e.clock.wall())
	}
	m := &Model{
		env:          e,
		keys:         defaultKeys(),
		help:         help.New(),
		backend:      cfg.Backend,
		updates:      cfg.Updates,
		notes:        cfg.Notes,
		alerts:       alert.New(cfg.Alerts),
		watched:      cfg.Watched,
		debug:        cfg.Debug,
		jobID:        text.Sanitize(cfg.JobID),
		mouse:        cfg.Mouse,
		exitOnFinish: cfg.ExitOnFinish,
		dark:         true,
		scope:        &scope{},
		after: func(d time.Duration, msg tea.Msg) tea.Cmd {
			return tea.Tick(d, func(time.Time) tea.Msg { return msg })
		},
	}
	m.agents = newAgents(e)
	m.timeline = newTimeline(e)
	m.tools = newTools(e)
	m.artifacts = newArtifacts(e)
	m.sessions = newSessions(e)
	m.panes = []pane{m.agents, m.sessions, m.tools, m.timeline, m.artifacts}
	m.focus = paneTimeline
	m.input.limit = 200
	m.applyStyles()
	if ascii {
		m.keys = asciiKeys(m.keys)
	}
	// A replay has no service to ask: neither the footer nor ? offers the
	// keys that would (pressed, they say why they do nothing).
	m.keys.replay = cfg.Backend == nil
	m.keys.noContent = !m.env.snaps.canLoad()
	// A store that already holds events (a replay loaded at once, tests);
	// a shared run's first change is the whole run.
	if store.Len() > 0 && cfg.Shared == nil {
		all := model.Delta{Events: store.Timeline(), TreeChanged: true, RunChanged: true,
			Agents: store.Agents(), ToolCalls: store.ToolCalls(), Artifacts: store.Artifacts(), Sessions: store.Sessions()}
		m.applyDelta(&all)
	}
	m.backToList = cfg.BackToList
	m.start, m.rerunOf = cfg.Start, cfg.RerunOf
	m.keys.noStart, m.keys.noCompare = cfg.Start == nil, cfg.RerunOf == ""
	m.readOnly, m.pollReadOnly = cfg.ReadOnly, cfg.PollReadOnly
	m.keys.readOnly, m.keys.pollReadOnly, m.keys.noSave = cfg.ReadOnly != "", cfg.PollReadOnly != "", m.env.noSave != ""
	m.person = describe.HubPerson(cfg.Person, cfg.Role)
	if cfg.Terminal != nil {
		m.keys.Suspend.SetEnabled(false) // it would stop the process, and every session with it
	}
	return m
}

// Result is how the UI ended so far: Quit when the user quit before the
// run finished.
func (m *Model) Result() Result {
	return Result{Quit: m.userQuit && m.env.store.Run().State != model.StateFinished, Back: m.back, Interrupted: m.interrupted,
		Focused: m.alerts.Focused(), Started: m.started.id, StartedRerunOf: m.started.rerunOf,
		StartedChanged: m.started.changed, FollowUp: m.started.followUp, Compare: m.compare}
}

// SetClock freezes the UI's clock and time zone (tests and goldens).
func (m *Model) SetClock(now func() time.Time, loc *time.Location) {
	m.env.clock = &serverClock{wall: now, replay: m.env.replay}
	m.env.clock.observe(m.env.store.Timeline())
	m.env.loc = loc
	m.wf.SetNow(m.env.clock.Now())
	m.markAll()
}

func (m *Model) applyStyles() {
	p := theme.Dark()
	if !m.dark {
		p = theme.Light()
	}
	m.env.st = theme.New(p, m.env.noColor)
	st := m.env.st
	cs := newComponentStyles(p, m.env.noColor, m.env.ascii)
	if m.env.render == nil || cs.glamour != m.env.cs.glamour {
		m.env.render = artcontent.NewRenderer(cs.content, artcontent.Options{Glamour: cs.glamour, ASCII: m.env.ascii})
	}
	m.env.cs = cs
	wf := waterfall.New(m.env.store, cs.waterfall, waterfall.WithASCII(m.env.ascii))
	if m.wf == nil {
		m.wf = &wf
	} else {
		*m.wf = wf // the waterfall view shares the pointer
	}
	m.help.Styles = help.Styles{
		Ellipsis:       st.LipMuted,
		ShortKey:       st.LipKey,
		ShortDesc:      st.LipMuted,
		ShortSeparator: st.LipMuted,
		FullKey:        st.LipKey,
		FullDesc:       st.LipText,
		FullSeparator:  st.LipMuted,
	}
	if m.env.ascii {
		m.help.ShortSeparator = " | "
		m.help.Ellipsis = text.Ellipsis
	} else {
		m.help.ShortSeparator = " · "
	}
	m.markAll()
}

// markAttention redraws the rows that show attention marks (agents, tool
// calls) after items appeared or cleared.
func (m *Model) markAttention() {
	m.agents.dirty = true
	m.tools.dirty = true
}

func (m *Model) markAll() {
	for _, p := range m.panes {
		switch p := p.(type) {
		case *agentsPane:
			p.dirty = true
		case *timelinePane:
			p.dirty = true
			p.dropRows()
		case *toolsPane:
			p.dirty = true
		case *artifactsPane:
			p.dirty = true
		case *sessionsPane:
			p.dirty = true
		}
	}
}

// Init starts reading updates, asks the terminal for its background colour
// and starts the clock.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{waitUpdate(m.updates), waitShared(m.shared), waitNote(m.notes), m.alerts.Wait(), m.armTicks()}
	if !m.env.noColor {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	return tea.Batch(cmds...)
}

// running reports whether anything on screen still moves by itself.
func (m *Model) running() bool {
	return !m.done && m.env.store.Run().State == model.StateRunning
}

// armTicks starts the 1 s clock if the run is running and it is not
// already ticking. It is the one place ticks are armed. The header's
// spinner turns with the clock: one frame a second is enough to show life,
// and costs a few bytes a second on a slow link.
func (m *Model) armTicks() tea.Cmd {
	if !m.running() {
		return nil
	}
	var cmds []tea.Cmd
	if !m.clockOn {
		m.clockOn = true
		m.clockTag++
		// Tick on the run's whole seconds so elapsed times change together.
		d := clockEvery
		if start := m.env.store.Run().StartedAt; !start.IsZero() {
			d = clockEvery - m.env.clock.Now().Sub(start)%clockEvery
		}
		d = m.env.clock.wallFor(d) // a replay's second passes sooner at --speed 2
		cmds = append(cmds, m.after(d, clockMsg{tag: m.clockTag}))
	}
	return tea.Batch(cmds...)
}

// Update handles one message. After it, relayout gives every pane and the
// overlay (if any) its box — View only draws — and the loading spinner is
// armed while a snapshot loads.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if m.debug != nil {
		fmt.Fprintf(m.debug, "%s ui: %T\n", time.Now().Format("15:04:05.000"), msg)
	}
	cmd := m.update(msg)
	return tea.Batch(cmd, m.relayout(), m.armSpin())
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	if cmd, ok := m.alerts.Update(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return nil
	case tea.BackgroundColorMsg:
		if dark := msg.IsDark(); dark != m.dark {
			m.dark = dark
			m.applyStyles()
		}
		return nil
	case updateMsg:
		return m.onUpdate(msg.u)
	case sharedMsg:
		return m.onShared()
	case flashMsg:
		m.env.flash = msg.text
		return nil
	case noteMsg:
		m.env.flash = msg.text
		return waitNote(m.notes)
	case updatesClosedMsg:
		m.updates = nil
		m.done = true
		m.markAll()
		if m.exitOnFinish {
			return tea.Quit
		}
		return nil
	case clockMsg:
		if msg.tag != m.clockTag {
			return nil
		}
		m.clockOn = false
		if !m.paused {
			m.spin++
		}
		for _, p := range m.panes {
			p.tick()
		}
		if m.shared == nil { // a shared run's tracker ticks on its follower
			m.attended(m.env.attn.Tick(m.env.clock.wall()))
		}
		m.wf.SetNow(m.env.clock.Now())
		m.eachOverlay(func(o overlay) {
			if l, ok := o.(liveOverlay); ok {
				l.tick()
			}
		})
		return m.armTicks()
	case spinMsg:
		if msg.tag == m.spinTag {
			m.spinOn = false
			m.env.spin++
		}
		return nil
	case tea.KeyPressMsg:
		return m.onKey(msg)
	case tea.PasteMsg:
		if m.filtering {
			// Pasted text goes into the filter, one line of printable
			// characters.
			var rs []rune
			for _, r := range flat(text.Sanitize(msg.Content)) {
				if unicode.IsPrint(r) {
					rs = append(rs, r)
				}
			}
			m.input.insert(rs)
			m.setFilter(m.input.Value())
		}
		return nil
	case tea.MouseWheelMsg:
		return m.onWheel(msg)
	case tea.MouseClickMsg:
		return m.onClick(msg)
	case snapshotMsg:
		m.env.snaps.done(msg)
		return m.notifyOverlays(msg)
	case diffMsg:
		m.env.snaps.diffDone(msg)
		return m.notifyOverlays(msg)
	case snapshotWantMsg:
		return m.env.snaps.fetch(msg.id, msg.kind, m.env.render)
	case diffWantMsg:
		done, cmd := m.env.snaps.diff(msg.key, msg.kind)
		if done != nil {
			return m.notifyOverlays(*done)
		}
		return cmd
	case cancelDoneMsg:
		m.onCancelDone(msg)
		return nil
	case startedMsg:
		return m.onStarted(msg)
	case clipboard.CopiedMsg:
		m.onCopied(msg)
		return nil
	case openedMsg:
		return m.onOpened(msg)
	case savedMsg:
		m.env.flash = msg.status()
		return nil
	case waterfall.OpenMsg:
		m.openDetail(selectionOf(m.env.store, msg.Target))
		return nil
	case openDetailMsg:
		m.openDetail(msg.sel)
		return nil
	case tea.ResumeMsg:
		// Back from a suspend: draw the whole screen again.
		return tea.ClearScreen
	case textwrap.LaidMsg:
		// A large text laid out off the loop: its view takes it (or
		// drops it, when another layout was asked for since).
		if v, ok := msg.Owner.(*textView); ok {
			v.laid(msg)
		}
		return nil
	}
	return m.notifyOverlays(msg)
}

// openDetail opens sel's detail over what is shown.
func (m *Model) openDetail(sel Selection) {
	if sel.Empty() {
		m.env.flash = "nothing to show: it is no longer in the run"
		return
	}
	m.push(newDetail(m.env, sel))
}

// eachOverlay calls fn for the overlay shown and those under it.
func (m *Model) eachOverlay(fn func(o overlay)) {
	for o, n := m.overlay, 0; o != nil && n < 64; n++ {
		fn(o)
		s, ok := o.(stacked)
		if !ok {
			break
		}
		o = s.under()
	}
}

// notifyOverlays hands a command's result to every overlay that may have
// asked for it.
func (m *Model) notifyOverlays(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	m.eachOverlay(func(o overlay) {
		if n, ok := o.(notified); ok {
			cmds = append(cmds, n.notify(msg))
		}
	})
	return tea.Batch(cmds...)
}

// overlaySize is the box of the overlay: the body's rows under its title
// line, the whole width.
func (m *Model) overlaySize() (w, h int, ok bool) {
	f := m.frame()
	if f.kind == layoutSmall || m.width <= 0 {
		return 0, 0, false
	}
	return m.width, max(1, f.bodyH-1), true
}

// relayout hands each pane and the overlay its box, after every message
// (a no-op for a box that did not change): a resize, a header that grew a
// line, an overlay opened or closed.
func (m *Model) relayout() tea.Cmd {
	var cmds []tea.Cmd
	if m.width > 0 && m.height > 0 && m.frame().kind != layoutSmall {
		rects := m.paneRects()
		for i, p := range m.panes {
			cmds = append(cmds, p.setSize(rects[i].w, rects[i].h))
		}
	}
	for i, p := range m.panes {
		p.setFocus(i == m.focus)
	}
	return tea.Batch(append(cmds, m.sizeOverlay())...)
}

// sizeOverlay gives the overlay shown its box (a no-op when unchanged).
func (m *Model) sizeOverlay() tea.Cmd {
	if m.overlay == nil {
		return nil
	}
	w, h, ok := m.overlaySize()
	if !ok {
		return nil
	}
	return m.overlay.setSize(w, h)
}

// armSpin starts the loading spinner while a snapshot loads; like the
// clock, it is armed from this one place and tagged.
func (m *Model) armSpin() tea.Cmd {
	if m.spinOn || m.env.snaps.loading == 0 {
		return nil
	}
	m.spinOn = true
	m.spinTag++
	return m.after(spinEvery, spinMsg{tag: m.spinTag})
}

// onUpdate merges an update into the store and every pane's index.
func (m *Model) onUpdate(u poller.Update) tea.Cmd {
	if u.Request != nil {
		m.env.store.SetRequest(*u.Request)
	}
	if u.Thread != nil {
		m.env.store.SetThread(*u.Thread)
	}
	if m.env.replay {
		// The replay's clock is the recording's: at a poll, its recorded
		// time, before the poll is merged.
		if u.Poll != nil {
			m.env.clock.recorded(u.Health.Recorded, u.Health.Speed)
		}
		if u.Done || u.Health.Done {
			m.env.clock.stop()
		}
	}
	if u.Poll != nil {
		d := m.env.store.Merge(u.Poll)
		m.applyDelta(&d)
	}
	m.health, m.hasHealth = u.Health, true
	if u.Tokens != nil {
		m.tokens = u.Tokens
		m.tokensAt = m.env.store.Run().CreditsUsed
	}
	switch {
	case u.Err != nil:
		m.lastErr = oneLine(u.Err.Error())
	case u.Poll != nil:
		m.lastErr = ""
	}
	if u.Done || u.Health.Done {
		m.done = true
		m.markAll()
	}
	if m.done && m.exitOnFinish {
		return tea.Quit
	}
	return tea.Batch(waitUpdate(m.updates), m.armTicks())
}

// applyDelta brings the tracker and every pane's index up to date with
// one merge.
func (m *Model) applyDelta(d *model.Delta) {
	if d.Empty() && !d.TreeChanged {
		return
	}
	m.env.clock.observe(d.Events)
	m.attended(m.env.attn.Update(*d, m.env.clock.wall()))
	m.index(d)
}

// attended takes what the tracker changed: the rows that show its marks
// are drawn again, and Config.Watched is told.
func (m *Model) attended(ch []attention.Change) {
	if len(ch) > 0 {
		m.markAttention()
	}
	m.seen(ch)
}

// index brings every pane's index, the waterfall and the live overlays up
// to date with one merge. Applying a delta whose events the panes already
// hold changes nothing (a shared run's whole change, shared.go).
func (m *Model) index(d *model.Delta) {
	if d.TreeChanged {
		m.env.noteAgents(m.env.store.Agents())
	}
	m.agents.apply(d)
	// The tree can change the scope (a new agent in the selected subtree).
	if d.TreeChanged && m.scopeA != nil {
		m.rescope(true)
	}
	for _, p := range []pane{m.timeline, m.tools, m.artifacts, m.sessions} {
		p.apply(d)
	}
	if d.RunChanged {
		m.markAll()
	}
	m.wf.Changed(*d)
	m.wf.SetNow(m.env.clock.Now())
	m.eachOverlay(func(o overlay) {
		if l, ok := o.(liveOverlay); ok {
			l.apply(d)
		}
	})
}

// seen hands what the tracker changed to Config.Watched.
func (m *Model) seen(ch []attention.Change) {
	if m.watched != nil {
		m.watched(ch)
	}
}

// rescope rebuilds the scope when the selected agent or the filter
// changed (or force) and hands it to the panes.
func (m *Model) rescope(force bool) {
	a := m.agents.selected()
	q := m.scope.q
	if !force && a == m.scopeA {
		return
	}
	s := &scope{q: q}
	if a != nil {
		s.agents = map[string]bool{}
		var walk func(x *model.Agent)
		walk = func(x *model.Agent) {
			s.agents[x.ID] = true
			s.list = append(s.list, x)
			for _, c := range x.Children {
				walk(c)
			}
		}
		walk(a)
	}
	m.scopeA = a
	m.setScope(s)
}

func (m *Model) setScope(s *scope) {
	m.scope = s
	for _, p := range m.panes {
		p.setScope(s)
	}
}

// setFilter applies the `/` filter text.
func (m *Model) setFilter(s string) {
	q := newQuery(text.Sanitize(s))
	if q == m.scope.q {
		return
	}
	sc := *m.scope
	sc.q = q
	m.setScope(&sc)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(text.Sanitize(s)), " ")
}

// focused is the pane with the focus.
func (m *Model) focused() pane { return m.panes[m.focus] }

func (m *Model) setFocus(i int) {
	n := len(m.panes)
	m.focus = ((i % n) + n) % n
}

func quote(s string) string { return "“" + s + "”" }
