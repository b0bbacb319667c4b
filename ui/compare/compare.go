// Package compare is the compare screen (`firewatch compare A B` on a
// terminal): two runs side by side. A header names the baseline and the
// candidate (id, model, outcome, prompt); four tabs show the comparison
// that `--output json` prints (package compare, built once by the command):
//
//  1. metrics: baseline, candidate, delta and delta % of each metric and
//     the outcome, deltas coloured worse or better, the --fail-on
//     thresholds crossed marked;
//  2. agents: the agents aligned by name and role, side by side, and the
//     selected one's tool calls below;
//  3. steps: an agent's tool calls aligned step by step in two columns
//     (same, changed parameters, added, removed); enter diffs a step's
//     parameters;
//  4. result: the final results diffed in ui/diff's view.
//
// It follows the UI's component contract: SetSize, Update returning a
// command, View that only draws the visible rows (exactly height lines of
// width cells), ShortHelp and FullHelp from one KeyMap. Everything shown
// from the runs is sanitised through describe (text.Sanitize); nothing in
// the comparison reaches the terminal raw.
package compare

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/go-json-experiment/json/jsontext"

	cmp "github.com/firewatch/firewatch/compare"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/linediff"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/diff"
	"github.com/firewatch/firewatch/ui/internal/program"
	"github.com/firewatch/firewatch/ui/internal/scroll"
	"github.com/firewatch/firewatch/ui/remote"
)

// Config configures a Model.
type Config struct {
	C *cmp.Comparison
	// Gates are --fail-on's thresholds (none: nil): the metrics they
	// gate show "ok" or "crossed".
	Gates   cmp.Gates
	NoColor bool
	ASCII   bool
	Mouse   bool // the wheel scrolls (--mouse); off keeps text selection working
	// Terminal, when set, is a remote session's terminal (a hub's SSH
	// session) to draw on instead of the process's.
	Terminal *remote.Terminal
}

// Result is how the screen ended.
type Result struct {
	Interrupted bool // Ctrl-C (q leaves with false)
}

// Tabs.
type tab int

const (
	tabMetrics tab = iota
	tabAgents
	tabSteps
	tabResult
	tabCount
)

var tabNames = [tabCount]string{"metrics", "agents", "steps", "result"}

// chrome is the rows around the body: two header lines, the tabs, the
// footer.
const chrome = 4

// Model is the compare screen.
type Model struct {
	cfg  Config
	c    *cmp.Comparison
	keys KeyMap
	st   *theme.Styles
	sym  theme.Symbols

	width, height int
	tab           tab

	crossed map[string]bool // metrics (and cmp.OutcomeGate) whose threshold is crossed

	metricTop int

	agent    int // the selected agent (index in c.Agents)
	agentTop int
	steps    []cmp.Step    // the selected agent's steps
	shown    []shownParams // per step, what its two cells show (selectAgent)
	step     int
	stepTop  int

	params *diff.Model // the selected step's parameters diffed; nil when closed

	result    diff.Model
	hasResult bool

	help        bool
	interrupted bool
}

// New makes the screen for a comparison.
func New(cfg Config) *Model {
	c := cfg.C
	if c == nil {
		c = &cmp.Comparison{}
	}
	if c.Baseline == nil {
		c.Baseline = &cmp.Side{}
	}
	if c.Candidate == nil {
		c.Candidate = &cmp.Side{}
	}
	m := &Model{cfg: cfg, c: c, keys: DefaultKeyMap(), st: theme.New(theme.Dark(), cfg.NoColor), sym: theme.Unicode(),
		crossed: map[string]bool{}}
	if cfg.ASCII {
		m.sym = theme.ASCII()
		m.keys.ASCII()
	}
	for _, s := range c.Crossed {
		if n := cmp.GateMetric(s); n != "" {
			m.crossed[n] = true
		}
	}
	if c.Result != nil {
		m.result = diff.New(c.Result.Computed, m.diffStyles(), diff.WithASCII(cfg.ASCII), diff.WithLabel("baseline "+m.sym.Arrow+" candidate"))
		m.hasResult = true
	}
	m.selectAgent(0)
	return m
}

func (m *Model) diffStyles() diff.Styles {
	if m.cfg.NoColor {
		return diff.PlainStyles()
	}
	return diff.DefaultStyles()
}

// Result is how the screen ended.
func (m *Model) Result() Result { return Result{Interrupted: m.interrupted} }

// Init does nothing: the comparison is ready.
func (m *Model) Init() tea.Cmd { return nil }

// SetSize sets the screen's size.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = max(w, 0), max(h, 0)
	m.sizeChildren()
}

func (m *Model) bodyHeight() int { return max(m.height-chrome, 1) }

func (m *Model) sizeChildren() {
	if m.hasResult {
		m.result.SetSize(m.width, m.bodyHeight())
	}
	if m.params != nil {
		m.params.SetSize(m.width, m.bodyHeight()-1)
	}
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.SetSize(msg.Width, msg.Height)
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseWheelMsg:
		m.wheel(msg)
	}
	return nil
}

// wheel scrolls the tab's view or moves its selection, as the arrows do.
func (m *Model) wheel(msg tea.MouseWheelMsg) {
	if m.help {
		return
	}
	k := m.keys.Keys
	switch m.tab {
	case tabMetrics:
		n, h := len(m.c.Metrics)+1, m.bodyHeight()-1
		if off, ok := scroll.Move(msg, k, m.metricTop, h, n); ok {
			m.metricTop = scroll.Clamp(off, n, h)
		}
	case tabAgents:
		if sel, ok := scroll.Move(msg, k, m.agent, 1, len(m.c.Agents)-1); ok {
			m.selectAgent(sel)
		}
	case tabSteps:
		if m.params != nil {
			p, _ := m.params.Update(msg)
			m.params = &p
		} else if sel, ok := scroll.Move(msg, k, m.step, 1, len(m.steps)-1); ok {
			m.step, m.stepTop = scroll.Follow(sel, m.stepTop, len(m.steps), m.stepRows())
		}
	case tabResult:
		if m.hasResult {
			m.result, _ = m.result.Update(msg)
		}
	}
}

// key routes a key: the global keys, the help, the parameters' diff, then
// the tab's.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case msg.String() == "ctrl+c":
		m.interrupted = true
		return tea.Quit
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Suspend):
		return program.Suspend
	case key.Matches(msg, k.Help):
		m.help = !m.help
		return nil
	}
	if m.help {
		if key.Matches(msg, k.Back) {
			m.help = false
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Metrics):
		m.setTab(tabMetrics)
		return nil
	case key.Matches(msg, k.Agents):
		m.setTab(tabAgents)
		return nil
	case key.Matches(msg, k.Steps):
		m.setTab(tabSteps)
		return nil
	case key.Matches(msg, k.Result):
		m.setTab(tabResult)
		return nil
	case key.Matches(msg, k.Next):
		m.setTab((m.tab + 1) % tabCount)
		return nil
	case key.Matches(msg, k.Prev):
		m.setTab((m.tab + tabCount - 1) % tabCount)
		return nil
	}
	switch m.tab {
	case tabMetrics:
		if off, ok := scroll.Move(msg, k.Keys, m.metricTop, m.bodyHeight()-1, len(m.c.Metrics)+1); ok {
			m.metricTop = scroll.Clamp(off, len(m.c.Metrics)+1, m.bodyHeight()-1)
		}
	case tabAgents:
		n := len(m.c.Agents)
		if sel, ok := scroll.Move(msg, k.Keys, m.agent, m.agentRows()-1, n-1); ok {
			m.selectAgent(sel)
			return nil
		}
		if key.Matches(msg, k.Open) && n > 0 {
			m.setTab(tabSteps)
		}
	case tabSteps:
		return m.stepsKey(msg)
	case tabResult:
		if m.hasResult {
			m.result, _ = m.result.Update(msg)
		}
	}
	return nil
}

func (m *Model) setTab(t tab) {
	m.tab = t
	m.params = nil
}

// selectAgent selects the agent at i (clamped) and its steps.
func (m *Model) selectAgent(i int) {
	n := len(m.c.Agents)
	m.agent = min(max(i, 0), max(n-1, 0))
	m.steps, m.shown = nil, nil
	if n > 0 {
		m.steps = m.c.StepsOf(m.agent)
		m.shown = shownOf(m.steps)
	}
	m.step, m.stepTop, m.params = 0, 0, nil
	m.agent, m.agentTop = scroll.Follow(m.agent, m.agentTop, n, max(m.agentRows()-1, 1))
}

func (m *Model) stepsKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if m.params != nil {
		if key.Matches(msg, k.Back) {
			m.params = nil
			return nil
		}
		p, _ := m.params.Update(msg)
		m.params = &p
		return nil
	}
	n := len(m.steps)
	page := m.stepRows()
	if sel, ok := scroll.Move(msg, k.Keys, m.step, page, n-1); ok {
		m.step, m.stepTop = scroll.Follow(sel, m.stepTop, n, page)
		return nil
	}
	switch {
	case key.Matches(msg, k.NextAgent):
		m.selectAgent(m.agent + 1)
	case key.Matches(msg, k.PrevAgent):
		m.selectAgent(m.agent - 1)
	case key.Matches(msg, k.NextChange), key.Matches(msg, k.PrevChange):
		dir := 1
		if key.Matches(msg, k.PrevChange) {
			dir = -1
		}
		for i := m.step + dir; i >= 0 && i < n; i += dir {
			if m.steps[i].Change != cmp.Same {
				m.step, m.stepTop = scroll.Follow(i, m.stepTop, n, page)
				break
			}
		}
	case key.Matches(msg, k.Open):
		if n > 0 {
			m.openParams()
		}
	}
	return nil
}

// openParams diffs the selected step's parameters as JSON; a call only
// one run made shows its parameters all added or all removed.
func (m *Model) openParams() {
	s := m.steps[m.step]
	var r linediff.Result
	switch {
	case s.Baseline != nil && s.Candidate != nil:
		r = linediff.Compute(model.KindJSON, string(s.Baseline.Parameters), string(s.Candidate.Parameters), -1)
	case s.Baseline != nil:
		r = oneSided(s.Baseline.Parameters, true)
	case s.Candidate != nil:
		r = oneSided(s.Candidate.Parameters, false)
	}
	d := diff.New(r, m.diffStyles(), diff.WithASCII(m.cfg.ASCII), diff.WithLabel("parameters, baseline "+m.sym.Arrow+" candidate"))
	m.params = &d
	m.sizeChildren()
}

// oneSided is the diff of parameters against none: every line removed
// (removed) or added.
func oneSided(v jsontext.Value, removed bool) linediff.Result {
	lines, ok := linediff.JSONLines(v)
	if !ok {
		lines = []string{describe.OneLine(string(v), 0)}
	}
	if removed {
		return linediff.Lines(lines, nil, -1)
	}
	return linediff.Lines(nil, lines, -1)
}

// ShortHelp is the footer's keys: those that work now.
func (m *Model) ShortHelp() []key.Binding {
	k := m.keys
	tabs := key.NewBinding(key.WithKeys("1", "2", "3", "4"), key.WithHelp("1-4", "tabs"))
	if m.help {
		return []key.Binding{k.Back, k.Quit}
	}
	var b []key.Binding
	switch m.tab {
	case tabMetrics:
		b = []key.Binding{tabs, k.Down}
	case tabAgents:
		b = []key.Binding{tabs, k.Down}
		if len(m.c.Agents) > 0 {
			b = append(b, withHelp(k.Open, "steps"))
		}
	case tabSteps:
		if m.params != nil {
			return []key.Binding{k.Down, k.NextChange, k.Back, k.Help, k.Quit}
		}
		b = []key.Binding{tabs, k.Down}
		if len(m.steps) > 0 {
			b = append(b, withHelp(k.Open, "diff parameters"))
		}
		if m.changes() > 0 {
			b = append(b, k.NextChange)
		}
		if len(m.c.Agents) > 1 {
			b = append(b, k.NextAgent)
		}
	case tabResult:
		b = []key.Binding{tabs}
		if m.hasResult {
			b = append(b, k.Down, k.NextChange)
		}
	}
	return append(b, k.Help, k.Quit)
}

// changes is the selected agent's steps that are not the same.
func (m *Model) changes() int {
	n := 0
	for _, s := range m.steps {
		if s.Change != cmp.Same {
			n++
		}
	}
	return n
}

func withHelp(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// FullHelp is every key that works on the current tab, grouped: the
// screen's, then the tab's.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.keys
	global := []key.Binding{k.Metrics, k.Agents, k.Steps, k.Result, k.Next, k.Prev, k.Help, k.Quit, k.Suspend}
	scrollKeys := []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom}
	var local []key.Binding
	switch m.tab {
	case tabMetrics:
		local = scrollKeys
	case tabAgents:
		local = append(scrollKeys, withHelp(k.Open, "the agent's steps"))
	case tabSteps:
		if m.params != nil {
			local = append(scrollKeys, k.NextChange, k.PrevChange, withHelp(k.Back, "back to the steps"))
		} else {
			local = append(scrollKeys, withHelp(k.Open, "diff the step's parameters"), k.NextChange, k.PrevChange, k.NextAgent, k.PrevAgent)
		}
	case tabResult:
		if m.hasResult {
			local = append(scrollKeys, k.NextChange, k.PrevChange)
		}
	}
	if len(local) == 0 {
		return [][]key.Binding{global}
	}
	return [][]key.Binding{global, local}
}
