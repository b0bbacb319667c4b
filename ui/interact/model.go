// Package interact is the console on a scrape's browser session
// (`firewatch interact SCRAPE_ID`): an input with multi-line editing, a
// mode switch between code (node, python, bash) and prompt, a scrollback of
// exchanges, history with search, the session's links, and a question on
// leaving (stop the session, keep it, or stay).
//
// One call runs at a time: a send while one runs is refused with a message
// and the input is kept. Everything the service returns is sanitised
// (text.Sanitize) in the command that made the call, before it reaches the
// update loop. An output of any size costs the scrollback its last
// lines that fit its height (keepTail at most): the whole opens in the content viewer (ctrl+o) and saves
// to a file (ctrl+s). The scrollback renders only its visible window, and
// each exchange's lines are built once per width: a keystroke costs the
// same with 1 000 exchanges and a 10 MB output as in an empty console
// (BenchmarkKeystroke).
//
// Waiting: while a call runs, a 100 ms tick drives the spinner and the
// elapsed time; idle, the console schedules nothing.
package interact

import (
	"github.com/firewatch/firewatch/ui/internal/program"

	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/browser"
	"github.com/firewatch/firewatch/ui/clipboard"
	"github.com/firewatch/firewatch/ui/content"
)

// Backend is what the console asks of the service, for one scrape job.
type Backend interface {
	Interact(ctx context.Context, req *poller.InteractRequest) (*poller.InteractResult, error)
	Stop(ctx context.Context) (*poller.StopResult, error)
}

// Config configures the console.
type Config struct {
	ScrapeID string
	Backend  Backend
	Language string // node (default), python or bash
	Timeout  int    // seconds a call may run, 1-300 (default 30)
	NoColor  bool
	ASCII    bool
	SaveDir  string // where ctrl+s saves (default: the current directory)

	// For Run; tests leave them nil.
	Input         io.Reader
	Output        io.Writer
	Width, Height int // when Output is not a terminal

	// Opener and Getenv replace the machine's browser opener and
	// environment (tests).
	Opener *browser.Opener
	Getenv func(string) string
	// Now replaces the clock (tests).
	Now func() time.Time
}

// Result is how the console ended.
type Result struct {
	Stopped   bool   // the session was stopped (DELETE)
	Kept      bool   // left with the session running
	StopNote  string // what the stop answered ("" when not stopped)
	Exchanges int
	// SessionOpen: a call opened (or used) the session and it was not
	// stopped here.
	SessionOpen bool
	// OutputErr is the first write to the output that failed (Run).
	OutputErr error
	// Interrupted: Ctrl-C at the leave question (a second Ctrl-C): the
	// console ended without an answer, as on a signal.
	Interrupted bool
}

type overlayKind int

const (
	overlayNone overlayKind = iota
	overlayLinks
	overlaySearch
	overlayLeave
	overlayViewer
	overlayHelp
)

// Model is the console.
type Model struct {
	cfg   Config
	keys  KeyMap
	okeys overlayKeys
	st    *theme.Styles
	sym   theme.Symbols
	help  help.Model
	input textarea.Model
	now   func() time.Time

	width, height int

	promptMode bool
	language   string
	timeout    int

	ex      []*exchange
	running *exchange
	cancel  context.CancelFunc
	frame   int // spinner frame

	// scroll is how many lines the scrollback is scrolled up from its end.
	scroll int

	history []histEntry
	histIdx int    // len(history) when not browsing
	draft   string // the input before browsing history

	overlay overlayKind
	// links
	linkSel int
	links   [3]string
	// search
	query     string
	searchHit int // index in history, -1 none
	// leave
	stopping bool
	leaveErr string
	// viewer
	opening  bool // a viewer is being built
	viewer   content.Model
	viewerEx int
	renderer *content.Renderer

	status   string
	statusAt time.Time

	result Result
	quit   bool

	tick func() tea.Cmd // the spinner's tick; tests replace it

	rendered int // exchanges rendered so far (tests count the work of a frame)
}

type histEntry struct {
	prompt   bool
	language string
	text     string
}

// recall puts a history entry in the input, with its mode and language.
func (m *Model) recall(h histEntry) {
	m.promptMode = h.prompt
	if !h.prompt && h.language != "" {
		m.language = h.language
	}
	m.setPrompt()
	m.input.SetValue(h.text)
}

// New returns the console.
func New(cfg Config) *Model {
	if cfg.Language == "" {
		cfg.Language = "node"
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = poller.DefaultInteractTimout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	m := &Model{cfg: cfg, keys: DefaultKeyMap(), okeys: defaultOverlayKeys(), language: cfg.Language, timeout: cfg.Timeout, now: cfg.Now, searchHit: -1, tick: tick}
	m.st = theme.New(theme.Dark(), cfg.NoColor)
	m.sym = theme.Unicode()
	if cfg.ASCII {
		m.sym = theme.ASCII()
	}
	m.help = help.New()
	m.help.Styles.ShortKey = m.st.LipKey
	m.help.Styles.FullKey = m.st.LipKey
	m.help.Styles.ShortDesc = m.st.LipMuted
	m.help.Styles.FullDesc = m.st.LipMuted
	m.help.Styles.ShortSeparator = m.st.LipMuted
	m.help.Styles.FullSeparator = m.st.LipMuted
	m.help.Styles.Ellipsis = m.st.LipMuted
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.CharLimit = poller.MaxInteractCode
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = 6
	ta.Placeholder = "code to run in the page; tab switches to a plain-words prompt"
	styles := textarea.DefaultStyles(true)
	styles.Cursor.Blink = false
	plain := textarea.StyleState{Base: lipgloss.NewStyle(), Text: lipgloss.NewStyle(), Placeholder: m.st.LipMuted, Prompt: m.st.LipKey}
	styles.Focused, styles.Blurred = plain, plain
	if cfg.NoColor {
		styles.Cursor.Color = nil
	}
	ta.SetStyles(styles)
	ta.KeyMap.InsertNewline = m.keys.Newline
	ta.KeyMap.TransposeCharacterBackward = key.NewBinding(key.WithDisabled())
	// The terminal pastes (bracketed paste); ctrl+v would run a clipboard
	// tool on this machine, which over SSH is not the person's clipboard.
	ta.KeyMap.Paste = key.NewBinding(key.WithDisabled())
	ta.SetVirtualCursor(true)
	ta.Focus()
	m.input = ta
	m.setPrompt()
	m.histIdx = 0
	gl := content.GlamourDark
	cs := content.DefaultStyles()
	if cfg.NoColor {
		gl, cs = content.GlamourNoTTY, content.PlainStyles()
	}
	m.renderer = content.NewRenderer(cs, content.Options{Glamour: gl, ASCII: cfg.ASCII})
	return m
}

// label is the prompt's mode: the language, or "prompt".
func (m *Model) label() string {
	if m.promptMode {
		return "prompt"
	}
	return m.language
}

func (m *Model) setPrompt() {
	l := m.label()
	w := len(l) + 2
	m.input.SetPromptFunc(w, func(pi textarea.PromptInfo) string {
		if pi.LineNumber == 0 {
			return l + "> "
		}
		return strings.Repeat(" ", w-2) + ". "
	})
	if m.promptMode {
		m.input.Placeholder = "a task in plain words, e.g. click the pricing tab and list the plans"
	} else {
		m.input.Placeholder = "code to run in the page, e.g. " + map[string]string{
			"node": "await page.title()", "python": "print(await page.title())", "bash": "get title (agent-browser commands)"}[m.language]
	}
	m.input.SetWidth(max(m.width, 10))
}

// Init starts nothing: the console waits for the person.
func (m *Model) Init() tea.Cmd { return nil }

// Result is how the console ended.
func (m *Model) Result() Result {
	r := m.result
	r.Exchanges = len(m.ex)
	r.SessionOpen = !r.Stopped && (m.links[0] != "" || m.links[2] != "")
	return r
}

// SetSize sets the screen's size.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.input.SetWidth(max(w, 10))
	m.help.SetWidth(w)
	if m.overlay == overlayViewer {
		m.viewer.SetSize(w, max(h-3, 1))
	}
}

// ---- messages ----

type tickMsg struct{}

type doneMsg struct{ r result }

type stoppedMsg struct {
	res *poller.StopResult
	err error
}

type savedMsg struct {
	path string
	err  error
}

func tick() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.SetSize(msg.Width, msg.Height)
		return nil
	case tickMsg:
		if m.running == nil {
			return nil
		}
		m.frame++
		return m.tick()
	case doneMsg:
		return m.onDone(msg.r)
	case stoppedMsg:
		return m.onStopped(msg)
	case viewerMsg:
		m.opening = false
		m.status = ""
		if m.overlay != overlayNone && m.overlay != overlayViewer {
			return nil
		}
		m.viewer, m.viewerEx, m.overlay = msg.v, msg.i, overlayViewer
		if w, h := m.width, max(m.height-3, 1); w != msg.w || h != msg.h {
			return m.viewer.SetSize(w, h)
		}
		return msg.cmd
	case savedMsg:
		if msg.err != nil {
			m.say("not saved: " + text.Sanitize(msg.err.Error()))
		} else {
			m.say("saved to " + text.Sanitize(msg.path))
		}
		return nil
	case clipboard.CopiedMsg:
		m.say(msg.Status())
		return nil
	case browser.OpenedMsg:
		switch {
		case msg.Err == nil:
			m.say("opened " + text.Sanitize(msg.URL))
		case msg.NoDesktop():
			m.say("no desktop to open it on: copied instead (y)")
		default:
			m.say("not opened: " + text.Sanitize(msg.Err.Error()))
		}
		return nil
	case tea.KeyPressMsg:
		return m.onKey(msg)
	case tea.PasteMsg:
		if m.overlay == overlayNone {
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(msg)
			return cmd
		}
		return nil
	}
	if m.overlay == overlayViewer {
		var cmd tea.Cmd
		m.viewer, cmd = m.viewer.Update(msg)
		return cmd
	}
	return nil
}

func (m *Model) say(s string) {
	m.status = s
	m.statusAt = m.now()
}

func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Suspend) {
		return program.Suspend
	}
	switch m.overlay {
	case overlayLinks:
		return m.linksKey(msg)
	case overlaySearch:
		return m.searchKey(msg)
	case overlayLeave:
		return m.leaveKey(msg)
	case overlayViewer:
		return m.viewerKey(msg)
	case overlayHelp:
		if key.Matches(msg, m.keys.Leave) {
			m.overlay = overlayLeave
			return nil
		}
		m.overlay = overlayNone
		return nil
	}
	k := m.keys
	m.status = ""
	switch {
	case key.Matches(msg, k.Leave):
		m.overlay, m.leaveErr = overlayLeave, ""
		return nil
	case key.Matches(msg, k.Send):
		return m.send()
	case key.Matches(msg, k.Mode):
		m.promptMode = !m.promptMode
		m.setPrompt()
		return nil
	case key.Matches(msg, k.Language):
		if m.promptMode {
			m.say("the language is for code: tab switches back to code")
			return nil
		}
		for i, l := range poller.InteractLanguages {
			if l == m.language {
				m.language = poller.InteractLanguages[(i+1)%len(poller.InteractLanguages)]
				break
			}
		}
		m.setPrompt()
		return nil
	case key.Matches(msg, k.HistPrev) && m.input.Line() == 0:
		m.histMove(-1)
		return nil
	case key.Matches(msg, k.HistNext) && m.input.Line() >= m.input.LineCount()-1:
		m.histMove(1)
		return nil
	case key.Matches(msg, k.Search) || msg.String() == "/" && m.input.Value() == "":
		m.overlay, m.query, m.searchHit = overlaySearch, "", -1
		return nil
	case key.Matches(msg, k.ScrollUp):
		m.scrollBy(1)
		return nil
	case key.Matches(msg, k.ScrollDown):
		m.scrollBy(-1)
		return nil
	case key.Matches(msg, k.PageUp):
		m.scrollBy(max(m.scrollHeight()-1, 1))
		return nil
	case key.Matches(msg, k.PageDown):
		m.scrollBy(-max(m.scrollHeight()-1, 1))
		return nil
	case key.Matches(msg, k.Bottom):
		m.scroll = 0
		return nil
	case key.Matches(msg, k.Links):
		if m.links[0] == "" && m.links[1] == "" && m.links[2] == "" {
			m.say("no session links yet: the session starts with the first call")
			return nil
		}
		m.overlay = overlayLinks
		return nil
	case key.Matches(msg, k.View):
		return m.openViewer(len(m.ex) - 1)
	case key.Matches(msg, k.Save):
		return m.save(m.lastWithOutput())
	case key.Matches(msg, k.Help):
		m.overlay = overlayHelp
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// send starts a call with the input, unless one runs.
func (m *Model) send() tea.Cmd {
	if m.opening {
		m.say("opening an output: send again in a moment")
		return nil
	}
	in := m.input.Value()
	if strings.TrimSpace(in) == "" {
		m.say("nothing to send")
		return nil
	}
	if m.running != nil {
		m.say(fmt.Sprintf("call %d is still running (%s): one call at a time; your input is kept", m.running.n, text.Duration(m.now().Sub(m.running.started))))
		return nil
	}
	req := &poller.InteractRequest{Language: m.language, Timeout: m.timeout, Origin: "firewatch"}
	if m.promptMode {
		req.Prompt = in
	} else {
		req.Code = in
	}
	if err := req.Validate(); err != nil {
		m.say("not sent: " + err.Error())
		return nil
	}
	e := &exchange{n: len(m.ex) + 1, prompt: m.promptMode, language: m.language, timeout: m.timeout,
		sent: text.Sanitize(in), started: m.now(), running: true}
	m.ex = append(m.ex, e)
	m.running = e
	m.scroll = 0
	if len(m.history) == 0 || m.history[len(m.history)-1].text != in || m.history[len(m.history)-1].prompt != m.promptMode {
		m.history = append(m.history, histEntry{prompt: m.promptMode, language: m.language, text: in})
	}
	m.histIdx = len(m.history)
	m.draft = ""
	m.input.Reset()
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	b, n, now := m.cfg.Backend, e.n, m.now
	call := func() tea.Msg {
		defer cancel()
		start := now()
		res, err := b.Interact(ctx, req)
		return doneMsg{prepare(n, res, err, now().Sub(start))}
	}
	return tea.Batch(call, m.tick())
}

func (m *Model) onDone(r result) tea.Cmd {
	var e *exchange
	if r.n >= 1 && r.n <= len(m.ex) {
		e = m.ex[r.n-1]
	}
	if e == nil {
		return nil
	}
	e.finish(r)
	if m.running == e {
		m.running = nil
		m.cancel = nil
		// A word about the call running is stale once it ended, however
		// it ended.
		if strings.HasPrefix(m.status, fmt.Sprintf("call %d is still running", e.n)) {
			m.status = ""
		}
	}
	if r.res != nil {
		for i, l := range []string{r.res.LiveViewURL, r.res.InteractiveLiveViewURL, r.res.CDPURL} {
			if l != "" {
				m.links[i] = l
			}
		}
	}
	return nil
}

// histMove browses the history: -1 older, +1 newer; past the newest the
// draft comes back.
func (m *Model) histMove(d int) {
	if len(m.history) == 0 {
		return
	}
	if m.histIdx == len(m.history) {
		m.draft = m.input.Value()
	}
	i := min(max(m.histIdx+d, 0), len(m.history))
	if i == m.histIdx {
		return
	}
	m.histIdx = i
	if i == len(m.history) {
		m.input.SetValue(m.draft)
		return
	}
	m.recall(m.history[i])
}

// ---- search ----

func (m *Model) searchKey(msg tea.KeyPressMsg) tea.Cmd {
	o := m.okeys
	switch {
	case msg.String() == "esc" || key.Matches(msg, m.keys.Leave):
		m.overlay = overlayNone
	case key.Matches(msg, o.Accept):
		if m.searchHit >= 0 {
			m.recall(m.history[m.searchHit])
			m.histIdx = len(m.history)
		}
		m.overlay = overlayNone
	case key.Matches(msg, o.SearchOlder):
		m.searchFrom(m.searchHit - 1)
	case msg.String() == "backspace":
		if r := []rune(m.query); len(r) > 0 {
			m.query = string(r[:len(r)-1])
		}
		m.searchFrom(len(m.history) - 1)
	default:
		if t := msg.Text; t != "" {
			m.query += t
			m.searchFrom(len(m.history) - 1)
		}
	}
	return nil
}

// searchFrom finds the newest entry at or before i that holds the query.
func (m *Model) searchFrom(i int) {
	if m.query == "" {
		m.searchHit = -1
		return
	}
	q := strings.ToLower(m.query)
	for ; i >= 0; i-- {
		if strings.Contains(strings.ToLower(m.history[i].text), q) {
			m.searchHit = i
			return
		}
	}
	if m.searchHit >= 0 && !strings.Contains(strings.ToLower(m.history[m.searchHit].text), q) {
		m.searchHit = -1
	}
}

// ---- links ----

var linkNames = [3]string{"read-only live view", "interactive live view", "CDP WebSocket URL"}

func (m *Model) linksKey(msg tea.KeyPressMsg) tea.Cmd {
	o := m.okeys
	switch {
	case key.Matches(msg, o.Close):
		m.overlay = overlayNone
	case key.Matches(msg, m.keys.Leave):
		m.overlay = overlayLeave
	case key.Matches(msg, o.Up):
		m.linkSel = (m.linkSel + 2) % 3
	case key.Matches(msg, o.Down):
		m.linkSel = (m.linkSel + 1) % 3
	case key.Matches(msg, o.Copy):
		l := m.links[m.linkSel]
		if l == "" {
			m.say("the service sent no " + linkNames[m.linkSel])
			return nil
		}
		return clipboard.Copy(l, linkNames[m.linkSel], clipboard.Options{Getenv: m.cfg.Getenv})
	case key.Matches(msg, o.Open):
		l := m.links[m.linkSel]
		if l == "" {
			m.say("the service sent no " + linkNames[m.linkSel])
			return nil
		}
		if m.linkSel == 2 {
			m.say("a CDP URL is for a DevTools client (e.g. Playwright connectOverCDP), not a browser tab: y copies it")
			return nil
		}
		op := browser.New()
		if m.cfg.Opener != nil {
			op = *m.cfg.Opener
		}
		if ok, why := op.CanOpen(); !ok {
			m.say(why + ": y copies it")
			return nil
		}
		return op.OpenCmd(l)
	}
	return nil
}

// ---- leaving ----

func (m *Model) leaveKey(msg tea.KeyPressMsg) tea.Cmd {
	o := m.okeys
	if msg.String() == "ctrl+c" {
		// Out now, without an answer: the caller treats it as a signal
		// (an open session is stopped, exit 130).
		m.result.Interrupted = true
		m.quit = true
		if m.cancel != nil {
			m.cancel()
		}
		return tea.Quit
	}
	if m.stopping {
		return nil
	}
	switch {
	case key.Matches(msg, o.Stop):
		m.stopping, m.leaveErr = true, ""
		if m.cancel != nil {
			m.cancel()
		}
		b := m.cfg.Backend
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := b.Stop(ctx)
			return stoppedMsg{res, err}
		}
	case key.Matches(msg, o.Keep):
		m.result.Kept = true
		m.quit = true
		if m.cancel != nil {
			m.cancel()
		}
		return tea.Quit
	case key.Matches(msg, o.Cancel):
		m.overlay = overlayNone
	}
	return nil
}

func (m *Model) onStopped(msg stoppedMsg) tea.Cmd {
	m.stopping = false
	if msg.err != nil {
		m.leaveErr = text.Sanitize(errText(msg.err))
		return nil
	}
	m.result.Stopped = true
	switch {
	case msg.res.NoSession:
		m.result.StopNote = "there was no session to stop: " + msg.res.Message
	default:
		note := "session stopped"
		if msg.res.SessionDuration > 0 {
			note += " after " + text.Duration(msg.res.SessionDuration)
		}
		if msg.res.CreditsBilled != nil {
			note += ", " + text.Credits(*msg.res.CreditsBilled) + " billed"
		}
		m.result.StopNote = note
	}
	m.quit = true
	return tea.Quit
}

// ---- viewer and saving ----

func (m *Model) lastWithOutput() int {
	for i := len(m.ex) - 1; i >= 0; i-- {
		if m.ex[i].hasOutput() {
			return i
		}
	}
	return -1
}

// openViewer opens exchange i's whole output (the last with output when i
// has none). The viewer is built in a command: a 10 MB output is cut into
// lines there, not in the update loop.
func (m *Model) openViewer(i int) tea.Cmd {
	if i < 0 || i >= len(m.ex) || !m.ex[i].hasOutput() {
		i = m.lastWithOutput()
	}
	if i < 0 {
		m.say("no output to open yet")
		return nil
	}
	e, r, w, h := m.ex[i], m.renderer, m.width, max(m.height-3, 1)
	m.opening = true
	m.say(fmt.Sprintf("opening the output of call %d (%s)…", e.n, text.Size(len(e.stdout.whole)+len(e.stderr.whole)+len(e.output.whole))))
	return func() tea.Msg {
		v := content.New(r, model.KindText, hardWrap(e.whole(), w))
		cmd := v.SetSize(w, h)
		return viewerMsg{i: i, v: v, cmd: cmd, w: w, h: h}
	}
}

type viewerMsg struct {
	i    int
	v    content.Model
	cmd  tea.Cmd
	w, h int // the size it was built for
}

func (m *Model) viewerKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc", "q", "ctrl+o":
		m.overlay = overlayNone
		return nil
	case "s", "ctrl+s":
		return m.save(m.viewerEx)
	case "y":
		return clipboard.Copy(m.ex[m.viewerEx].whole(), fmt.Sprintf("output of call %d", m.viewerEx+1), clipboard.Options{Getenv: m.cfg.Getenv})
	case "[":
		for i := m.viewerEx - 1; i >= 0; i-- {
			if m.ex[i].hasOutput() {
				return m.openViewer(i)
			}
		}
		return nil
	case "]":
		for i := m.viewerEx + 1; i < len(m.ex); i++ {
			if m.ex[i].hasOutput() {
				return m.openViewer(i)
			}
		}
		return nil
	}
	if key.Matches(msg, m.keys.Leave) {
		m.overlay = overlayLeave
		return nil
	}
	var cmd tea.Cmd
	m.viewer, cmd = m.viewer.Update(msg)
	return cmd
}

// save writes exchange i's whole output to a new file in the save folder.
func (m *Model) save(i int) tea.Cmd {
	if i < 0 || i >= len(m.ex) || !m.ex[i].hasOutput() {
		m.say("no output to save yet")
		return nil
	}
	dir := m.cfg.SaveDir
	if dir == "" {
		dir = "."
	}
	id := m.cfg.ScrapeID
	if len(id) > 8 {
		id = id[:8]
	}
	name := fmt.Sprintf("interact-%s-%d.txt", id, i+1)
	e := m.ex[i]
	return func() tea.Msg {
		p, err := content.Save(dir, &model.Artifact{Path: name, Kind: model.KindText}, nil, e.whole())
		if err == nil {
			if abs, e := filepath.Abs(p); e == nil {
				p = abs
			}
		}
		return savedMsg{p, err}
	}
}
