// Package crawl is the crawl screen: a crawl's header (URL, status, a
// completed-of-total bar, pages a minute, credits, expiry and the
// transport), its pages as they arrive (URL, status code, title, size;
// failed and robots-blocked pages marked, from GET /v2/crawl/{id}/errors),
// a filter, a page view (markdown through ui/content, metadata, links),
// keys to copy a page's URL and save it, and c to cancel after a
// confirmation a key typed ahead cannot answer.
//
// It follows the UI's component contract: SetSize, Update returning a
// command, View that only draws the visible rows, ShortHelp and FullHelp
// from one KeyMap. The watch runs on its own goroutine through Service:
// each document's JSON goes to a private temporary file there (store.go)
// and only the page's metadata reaches the update loop, so memory stays
// proportional to the pages' metadata, not their content.
package crawl

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/clipboard"
	"github.com/firewatch/firewatch/ui/content"
	"github.com/firewatch/firewatch/ui/internal/alert"
	"github.com/firewatch/firewatch/ui/internal/confirm"
	"github.com/firewatch/firewatch/ui/internal/filterinput"
	"github.com/firewatch/firewatch/ui/internal/program"
	"github.com/firewatch/firewatch/ui/remote"
)

// Service is what the screen asks of the service; *poller.Client is one.
type Service interface {
	WatchCrawl(ctx context.Context, id string, o poller.CrawlWatchOptions, sink func(poller.CrawlUpdate)) (*poller.CrawlStatus, poller.CrawlWatchStats, error)
	CrawlErrorsOf(ctx context.Context, id string) (*poller.CrawlErrors, error)
	CancelCrawl(ctx context.Context, id string) (string, error)
}

// Config configures a Model.
type Config struct {
	Service Service
	ID      string
	URL     string // the crawl's URL when known ("" until the first page says)
	NoColor bool
	ASCII   bool
	SaveDir string
	Watch   poller.CrawlWatchOptions
	Back    bool // esc leaves the screen with Result.Back (the team tab's shell)
	Now     func() time.Time
	// Timeout bounds each request the screen makes besides the watch.
	Timeout time.Duration
	// Secrets redacts what a key saves (nil: none known).
	Secrets *text.Secrets
	// Notes are lines the service's client says while the screen is up
	// (each wait before asking again, with its length); the footer shows
	// them. nil: none.
	Notes <-chan string
	// OnDoc, when set, is handed each document as it arrives, on the
	// watch's goroutine (crawl --pages-dir). nil: none.
	OnDoc func(*poller.CrawlDoc)
	// Alerts are desktop notifications for the terminal, written through
	// the program while the terminal is not focused (ui/internal/alert);
	// nil: none.
	Alerts <-chan string
	// ReadOnly, when set, is what c says instead of cancelling: the person
	// may not change the crawl (a hub's viewer).
	ReadOnly string
	// Terminal, when set, is a remote session's terminal to draw on (a
	// hub's SSH session, package remote) instead of the process's; s saves
	// nothing there.
	Terminal *remote.Terminal
}

// Result is how the screen ended.
type Result struct {
	Status string // the crawl's final status; "" when it was still going
	Back   bool   // esc with Config.Back
	Err    error  // the error that ended the watch, if any
	// Interrupted: Ctrl-C ended the screen (a shell such as the team tab
	// ends with 130 for it).
	Interrupted bool
	// Seen is what the screen learned of the crawl, however it ended (for
	// --summary).
	Seen Seen
	// Focused: the terminal last reported it was focused (Config.Alerts).
	Focused bool
}

// Seen is what the screen learned of a crawl.
type Seen struct {
	Status                string // the last status the service gave
	Completed, Total      int
	Credits               *float64
	Pages, Failed, Robots int                 // pages listed or past the list's bound; failed and robots-blocked
	FailedPages           []poller.CrawlError // the first failed pages (at most 5)
	Late, Missing         int                 // poller.CrawlWatchStats's: pages fetched at the end, pages never delivered
	ErrorsAfterEnd        bool                // Failed and Robots were read after the crawl ended
}

// Defaults.
const (
	errorsEvery  = 10 * time.Second
	maxRows      = 500000 // pages kept; a crawl past it shows a note
	batchMax     = 512    // updates taken from the watch per message
	rateWindow   = time.Minute
	defaultTimer = 20 * time.Second
)

// row kinds
const (
	kindPage = iota
	kindFailed
	kindRobots
)

// row is one page: metadata only; the document is in the store.
type row struct {
	url, title string
	err        string
	off        int64
	code       int32
	size       int32
	n          int32
	kind       uint8
}

// Model is the crawl screen.
type Model struct {
	cfg    Config
	keys   KeyMap
	st     *theme.Styles
	sym    theme.Symbols
	width  int
	height int

	store   *pageStore
	updates chan tea.Msg
	cancel  context.CancelFunc

	// the crawl
	status     string
	completed  int
	total      int
	credits    *float64
	expires    time.Time
	transport  string
	why        string
	health     string
	done       bool
	final      string
	err        error
	started    time.Time
	samples    []sample
	dropped    int
	storeErr   string
	errorsNext time.Time

	rows   []row
	bad    map[string]bool // failed and robots-blocked URLs shown
	failed int
	robots int
	view   []int32 // rows shown when filtering; nil: all
	sel    int
	top    int
	filter string
	typing bool

	page *pageView

	alerts *alert.Gate // Config.Alerts

	question   *confirm.Question // the cancel confirmation while it is up
	cancelling bool
	// swallow: the question vanished (the crawl ended): the next key,
	// meant as its answer, goes nowhere.
	swallow bool

	late, missing  int  // from the watch's stats, at its end
	errorsAfterEnd bool // the failed pages shown were read after the end

	flash    string
	showHelp bool
	result   Result

	renderer *content.Renderer
}

type sample struct {
	at        time.Time
	completed int
}

// New makes the screen; Init starts the watch.
func New(cfg Config) (*Model, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimer
	}
	st, err := newPageStore()
	if err != nil {
		return nil, fmt.Errorf("crawl screen: a temporary file for the pages: %w", err)
	}
	m := &Model{cfg: cfg, keys: DefaultKeyMap(), st: theme.New(theme.Dark(), cfg.NoColor), sym: theme.Unicode(),
		store: st, updates: make(chan tea.Msg, 64), bad: map[string]bool{}, started: cfg.Now(), status: "…", alerts: alert.New(cfg.Alerts)}
	if cfg.ASCII {
		m.sym = theme.ASCII()
		m.keys.ASCII()
	}
	if cfg.Terminal != nil {
		m.keys.Suspend.SetEnabled(false) // it would stop the process, and every session with it
	}
	g := content.GlamourDark
	if cfg.NoColor {
		g = content.GlamourNoTTY
	}
	if cfg.ASCII {
		g = content.GlamourASCII
	}
	sty := content.DefaultStyles()
	if cfg.NoColor {
		sty = content.PlainStyles()
	}
	m.renderer = content.NewRenderer(sty, content.Options{Glamour: g, ASCII: cfg.ASCII})
	return m, nil
}

// Close removes the temporary file.
func (m *Model) Close() error {
	if m.cancel != nil {
		m.cancel()
	}
	return m.store.Close()
}

// messages
type (
	// pageMsg is a document already in the store.
	pageMsg struct{ r row }
	// batchMsg is several updates at once.
	batchMsg    []tea.Msg
	statusMsg   struct{ s *poller.CrawlStatus }
	transMsg    struct{ transport, why string }
	healthMsg   struct{ wait poller.Wait }
	noteMsg     string
	storeErrMsg struct{ err error }
	watchEndMsg struct {
		final *poller.CrawlStatus
		stats poller.CrawlWatchStats
		err   error
	}
	errorsMsg struct {
		e        *poller.CrawlErrors
		err      error
		afterEnd bool // asked for once the watch had ended
	}
	cancelMsg struct {
		status string
		err    error
	}
	tickMsg  struct{}
	savedMsg struct {
		path string
		err  error
	}
	openMsg struct {
		v   *pageView
		err error
	}
)

// Init starts the watch, the clock and the first errors fetch.
func (m *Model) Init() tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	go m.watch(ctx)
	return tea.Batch(m.next(), m.tick(), m.note(), m.alerts.Wait())
}

// note waits for the client's next line (Config.Notes).
func (m *Model) note() tea.Cmd {
	ch := m.cfg.Notes
	if ch == nil {
		return nil
	}
	return func() tea.Msg { return noteMsg(<-ch) }
}

// watch runs the service's watch, writing each document to the store and
// sending its metadata on.
func (m *Model) watch(ctx context.Context) {
	send := func(msg tea.Msg) {
		select {
		case m.updates <- msg:
		case <-ctx.Done():
		}
	}
	final, stats, err := m.cfg.Service.WatchCrawl(ctx, m.cfg.ID, m.cfg.Watch, func(u poller.CrawlUpdate) {
		switch {
		case u.Doc != nil:
			d := u.Doc
			if m.cfg.OnDoc != nil {
				m.cfg.OnDoc(d)
			}
			r := row{url: d.URL, title: d.Title, code: int32(d.StatusCode), size: int32(min(d.Size(), 1<<31-1)), kind: kindPage, err: d.Error}
			off, n, err := m.store.add(d.Raw)
			if err != nil {
				send(storeErrMsg{err})
			}
			r.off, r.n = off, int32(n)
			send(pageMsg{r})
		case u.Status != nil:
			send(statusMsg{u.Status})
		case u.Transport != "":
			send(transMsg{u.Transport, u.Why})
		case u.Wait != nil:
			send(healthMsg{*u.Wait})
		}
	})
	send(watchEndMsg{final, stats, err})
}

// next waits for the watch's next update and takes what else is queued.
func (m *Model) next() tea.Cmd {
	ch := m.updates
	return func() tea.Msg {
		first := <-ch
		b := batchMsg{first}
		for len(b) < batchMax {
			select {
			case msg := <-ch:
				b = append(b, msg)
			default:
				return b
			}
		}
		return b
	}
}

func (m *Model) tick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} })
}

func (m *Model) fetchErrors() tea.Cmd {
	svc, id, to, end := m.cfg.Service, m.cfg.ID, m.cfg.Timeout, m.done
	m.errorsNext = m.cfg.Now().Add(errorsEvery)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), to)
		defer cancel()
		e, err := svc.CrawlErrorsOf(ctx, id)
		return errorsMsg{e, err, end}
	}
}

// SetSize sets the screen's size.
func (m *Model) SetSize(w, h int) tea.Cmd {
	m.width, m.height = w, h
	if m.page != nil {
		return m.page.setSize(w, max(h-3, 1))
	}
	return nil
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := m.alerts.Update(msg); ok {
		return cmd
	}
	if _, key := msg.(tea.KeyPressMsg); !key && m.question != nil {
		if _, arming := m.question.Update(msg); arming {
			return nil
		}
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m.SetSize(msg.Width, msg.Height)
	case batchMsg:
		defer m.sample()
		var cmds []tea.Cmd
		end := false
		for _, x := range msg {
			if _, ok := x.(watchEndMsg); ok {
				end = true
			}
			cmds = append(cmds, m.apply(x))
		}
		if !end {
			cmds = append(cmds, m.next())
		}
		return tea.Batch(cmds...)
	case noteMsg:
		m.flash = oneLine(string(msg))
		return m.note()
	case errorsMsg:
		if msg.err == nil {
			m.applyErrors(msg.e)
			m.errorsAfterEnd = m.errorsAfterEnd || msg.afterEnd
		}
		return nil
	case cancelMsg:
		m.cancelling = false
		if msg.err != nil {
			m.flash = "cancel failed: " + oneLine(msg.err.Error())
		} else {
			m.flash = "the service answered " + oneLine(msg.status) + ": the screen follows the crawl to its end"
		}
		return nil
	case tickMsg:
		var cmd tea.Cmd
		if !m.done && !m.cfg.Now().Before(m.errorsNext) {
			cmd = m.fetchErrors()
		}
		return tea.Batch(cmd, m.tick())
	case savedMsg:
		if msg.err != nil {
			m.flash = "not saved: " + oneLine(msg.err.Error())
		} else {
			m.flash = "saved " + text.Sanitize(msg.path)
		}
		return nil
	case openMsg:
		if msg.err != nil {
			m.flash = "cannot open the page: " + oneLine(msg.err.Error())
			return nil
		}
		m.page = msg.v
		return m.page.setSize(m.width, max(m.height-3, 1))
	case clipboard.CopiedMsg:
		m.flash = msg.Status()
		return nil
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	if m.page != nil {
		return m.page.update(msg)
	}
	return nil
}

// apply takes one update of the watch.
func (m *Model) apply(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case pageMsg:
		if len(m.rows) >= maxRows {
			m.dropped++
			return nil
		}
		m.addRow(msg.r)
	case statusMsg:
		s := msg.s
		if s.Status != "" {
			m.status = s.Status
		}
		m.completed, m.total = s.Completed, s.Total
		if s.CreditsUsed != nil {
			m.credits = s.CreditsUsed
		}
		if !s.ExpiresAt.IsZero() {
			m.expires = s.ExpiresAt
		}
		m.health = ""
	case transMsg:
		m.transport, m.why = msg.transport, msg.why
	case healthMsg:
		m.health = oneLine(msg.wait.String())
	case storeErrMsg:
		m.storeErr = "pages cannot be kept for reading: " + oneLine(msg.err.Error())
	case watchEndMsg:
		m.done = true
		m.err = msg.err
		m.late, m.missing = msg.stats.Late, msg.stats.Missing
		if msg.final != nil {
			m.final = msg.final.Status
			m.status = msg.final.Status
			m.completed, m.total = msg.final.Completed, msg.final.Total
			if msg.final.CreditsUsed != nil {
				m.credits = msg.final.CreditsUsed
			}
		}
		if msg.err != nil {
			m.flash = "watch ended: " + oneLine(msg.err.Error())
		}
		m.dropQuestion()
		return m.fetchErrors()
	}
	m.dropQuestion()
	return nil
}

func (m *Model) addRow(r row) {
	m.rows = append(m.rows, r)
	if m.view != nil && m.matches(&m.rows[len(m.rows)-1]) {
		m.view = append(m.view, int32(len(m.rows)-1))
	}
}

// applyErrors adds the failed and robots-blocked pages not shown yet.
func (m *Model) applyErrors(e *poller.CrawlErrors) {
	for _, x := range e.Errors {
		k := "f" + x.URL
		if m.bad[k] || len(m.rows) >= maxRows {
			continue
		}
		m.bad[k] = true
		m.failed++
		m.addRow(row{url: x.URL, kind: kindFailed, err: x.Error})
	}
	for _, u := range e.RobotsBlocked {
		k := "r" + u
		if m.bad[k] || len(m.rows) >= maxRows {
			continue
		}
		m.bad[k] = true
		m.robots++
		m.addRow(row{url: u, kind: kindRobots, err: "blocked by robots.txt"})
	}
}

func (m *Model) matches(r *row) bool {
	f := strings.ToLower(m.filter)
	if f == "" {
		return true
	}
	switch {
	case strings.Contains(strings.ToLower(r.url), f), strings.Contains(strings.ToLower(r.title), f):
		return true
	case r.kind == kindFailed && strings.Contains("failed", f), r.kind == kindRobots && strings.Contains("robots", f):
		return true
	}
	return false
}

func (m *Model) rebuild() {
	if m.filter == "" {
		m.view = nil
	} else {
		m.view = m.view[:0:0]
		for i := range m.rows {
			if m.matches(&m.rows[i]) {
				m.view = append(m.view, int32(i))
			}
		}
	}
	m.sel = min(m.sel, max(m.shown()-1, 0))
}

func (m *Model) shown() int {
	if m.view != nil || m.filter != "" {
		return len(m.view)
	}
	return len(m.rows)
}

func (m *Model) rowAt(i int) *row {
	if m.view != nil || m.filter != "" {
		return &m.rows[m.view[i]]
	}
	return &m.rows[i]
}

func (m *Model) selected() *row {
	if m.sel < 0 || m.sel >= m.shown() {
		return nil
	}
	return m.rowAt(m.sel)
}

func (m *Model) listHeight() int { return max(m.height-6, 1) }

func (m *Model) move(d int) {
	m.sel = min(max(m.sel+d, 0), max(m.shown()-1, 0))
}

// key handles a key press.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	// Ctrl-C ends the screen from anywhere, a question or the filter too.
	if msg.String() == "ctrl+c" {
		m.result.Interrupted = true
		return tea.Quit
	}
	if m.swallowed() {
		return nil
	}
	if m.question != nil {
		return m.answer(msg)
	}
	if m.typing {
		return m.editFilter(msg)
	}
	if m.page != nil {
		switch {
		case key.Matches(msg, k.Back), key.Matches(msg, k.Quit):
			m.page = nil
			return nil
		case key.Matches(msg, k.Copy):
			return clipboard.Copy(m.page.url, "page URL", m.clipboard())
		case key.Matches(msg, k.Save) && m.cfg.Terminal != nil:
			m.flash = remote.NoSave
			return nil
		case key.Matches(msg, k.Save):
			return m.page.save(m.cfg.SaveDir, m.cfg.Secrets)
		}
		return m.page.update(msg)
	}
	m.flash = ""
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Back):
		switch {
		case m.filter != "":
			m.filter = ""
			m.rebuild()
		case m.cfg.Back:
			m.result.Back = true
			return tea.Quit
		}
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.PageUp):
		m.move(-m.listHeight())
	case key.Matches(msg, k.PageDown):
		m.move(m.listHeight())
	case key.Matches(msg, k.Top):
		m.sel = 0
	case key.Matches(msg, k.Bottom):
		m.sel = max(m.shown()-1, 0)
	case key.Matches(msg, k.Filter):
		m.typing = true
	case key.Matches(msg, k.Open):
		return m.open()
	case key.Matches(msg, k.Copy):
		if r := m.selected(); r != nil {
			return clipboard.Copy(r.url, "page URL", m.clipboard())
		}
	case key.Matches(msg, k.Save) && m.cfg.Terminal != nil:
		m.flash = remote.NoSave
	case key.Matches(msg, k.Save):
		if r := m.selected(); r != nil && r.kind == kindPage {
			return m.saveRow(r)
		}
	case key.Matches(msg, k.Cancel) && m.cfg.ReadOnly != "":
		m.flash = m.cfg.ReadOnly
	case key.Matches(msg, k.Cancel):
		if m.over() {
			m.flash = "the crawl is over (" + oneLine(m.status) + "): nothing to cancel"
			return nil
		}
		if m.cancelling {
			return nil
		}
		return m.askCancel()
	case key.Matches(msg, k.Suspend):
		return program.Suspend
	}
	return nil
}

// askCancel puts the screens' one question (ui/internal/confirm) in place
// of the list: cancel the crawl?
func (m *Model) askCancel() tea.Cmd {
	m.question = confirm.New("Cancel crawl "+describe.ShortID(m.cfg.ID)+" ("+describe.OneLine(m.status, 20)+")?",
		"Asks the service to stop it (DELETE /v2/crawl/{id}). Pages already scraped stay billed; the screen follows it to cancelled.",
		"yes, cancel the crawl", "no, keep it going")
	arm := m.question.Arm()
	return tea.Tick(confirm.ArmAfter, func(time.Time) tea.Msg { return arm })
}

// answer takes a key while the question is up: y cancels the crawl, n or
// esc keep it going; a key before the question is armed is typed ahead,
// not an answer.
func (m *Model) answer(msg tea.KeyPressMsg) tea.Cmd {
	switch a, _ := m.question.Update(msg); a {
	case confirm.Yes:
		m.question, m.cancelling = nil, true
		m.flash = "cancelling the crawl" + m.sym.Ellipsis
		svc, id, to := m.cfg.Service, m.cfg.ID, m.cfg.Timeout
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), to)
			defer cancel()
			s, err := svc.CancelCrawl(ctx, id)
			return cancelMsg{s, err}
		}
	case confirm.No:
		m.question = nil
		m.flash = "not cancelled: the crawl goes on"
	}
	return nil
}

// clipboard is where y copies: the terminal the screen is drawn on.
func (m *Model) clipboard() clipboard.Options {
	if t := m.cfg.Terminal; t != nil {
		return clipboard.Options{Getenv: t.Getenv}
	}
	return clipboard.Options{}
}

// CrawlOver reports whether status ends a crawl.
func CrawlOver(status string) bool { return poller.CrawlTerminal(status) }

func (m *Model) editFilter(msg tea.KeyPressMsg) tea.Cmd {
	m.filter, m.typing = filterinput.Edit(m.filter, msg)
	m.rebuild()
	return nil
}

// open reads the selected page's document from the store, off the loop.
func (m *Model) open() tea.Cmd {
	r := m.selected()
	if r == nil {
		return nil
	}
	if r.kind != kindPage {
		m.flash = describe.OneLine(r.url, 80) + ": " + r.err
		return nil
	}
	rr, st, rend := *r, m.store, m.renderer
	return func() tea.Msg {
		b, err := st.get(rr.off, int(rr.n))
		if err != nil {
			return openMsg{err: err}
		}
		d, ok := poller.ParseCrawlDoc(b)
		if !ok {
			return openMsg{err: fmt.Errorf("the stored document is not JSON")}
		}
		return openMsg{v: newPageView(&d, rend, m.st, m.sym)}
	}
}

func (m *Model) saveRow(r *row) tea.Cmd {
	rr, st, dir := *r, m.store, m.cfg.SaveDir
	return func() tea.Msg {
		b, err := st.get(rr.off, int(rr.n))
		if err != nil {
			return savedMsg{err: err}
		}
		d, _ := poller.ParseCrawlDoc(b)
		p, err := SavePage(dir, rr.url, ".md", d.Markdown, m.cfg.Secrets)
		return savedMsg{p, err}
	}
}

// Result is how the screen ended.
func (m *Model) Result() Result {
	r := m.result
	r.Status = m.final
	r.Err = m.err
	r.Focused = m.alerts.Focused()
	r.Seen = m.seen()
	return r
}

func oneLine(s string) string { return describe.OneLine(text.Sanitize(s), 200) }

// ---- drawing ----

// View draws the screen: exactly height lines of width cells.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	var out []string
	out = append(out, m.header()...)
	if m.page != nil {
		out = append(out[:min(len(out), 2)], m.page.render(w, h-3)...)
	} else if m.question != nil {
		out = append(out, m.question.Lines(m.st, w)...)
	} else if m.showHelp {
		out = append(out, m.helpLines()...)
	} else {
		out = append(out, m.listLines(h-len(out)-1)...)
	}
	for len(out) < h-1 {
		out = append(out, "")
	}
	out = out[:h-1]
	out = append(out, m.footer())
	for i, l := range out {
		out[i] = fitLine(l, w)
	}
	return strings.Join(out, "\n")
}

// fitLine cuts or pads a styled line to w cells.
func fitLine(s string, w int) string {
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "")
	}
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

func (m *Model) statusStyle() (theme.Style, string) {
	switch strings.ToLower(m.status) {
	case "completed":
		return m.st.BadgeGood, m.sym.Succeeded
	case "failed":
		return m.st.BadgeBad, m.sym.Failed
	case "cancelled", "canceled":
		return m.st.BadgeWarn, m.sym.Cancelled
	}
	return m.st.BadgeRunning, m.sym.Running
}

// header is three lines: title and status; the bar and figures; the
// transport and counts.
func (m *Model) header() []string {
	w := m.width
	badge, sym := m.statusStyle()
	u := m.cfg.URL
	if u == "" && len(m.rows) > 0 {
		u = m.rows[0].url
	}
	title := m.st.Title.Render("crawl ") + m.st.Muted.Render(describe.ShortID(m.cfg.ID)) + "  " + describe.OneLine(u, max(w-40, 10))
	l1 := title + "  " + badge.Render(" "+sym+" "+describe.OneLine(m.status, 20)+" ")
	barW := min(30, max(w/4, 8))
	completed, total := m.progress()
	frac := 0.0
	of := fmt.Sprintf(" %d/%d", completed, total)
	switch {
	case !m.done && completed > m.total:
		// The socket brought pages past the last total the service
		// gave: the bar keeps the service's figures.
		of = fmt.Sprintf(" %d/?", completed)
		if m.total > 0 {
			frac = float64(m.completed) / float64(m.total)
		}
	case total > 0:
		frac = float64(completed) / float64(total)
	}
	l2 := " " + m.bar(frac, barW) + of + m.st.Muted.Render(" pages") +
		"  " + m.rate() + m.st.Muted.Render("/min") +
		"  " + credits(m.credits, m.st)
	if !m.expires.IsZero() {
		d := m.expires.Sub(m.cfg.Now())
		if d > 0 {
			l2 += "  " + m.st.Muted.Render("expires in ") + text.Remaining(d)
		} else {
			l2 += "  " + m.st.Warn.Render("expired")
		}
	}
	tr := m.st.Muted.Render("connecting" + m.sym.Ellipsis)
	switch m.transport {
	case poller.TransportLive:
		tr = m.st.Good.Render("live")
	case poller.TransportPolling:
		tr = m.st.Warn.Render("polling")
		if m.why != "" {
			tr += m.st.Muted.Render(": " + m.why)
		}
	}
	if m.done {
		tr = m.st.Muted.Render("watch ended")
	}
	l3 := " " + tr + "  " + m.st.Muted.Render("·") + " " + describe.Count(len(m.rows)-m.failed-m.robots, "page")
	if m.failed > 0 {
		l3 += "  " + m.st.Bad.Render(fmt.Sprintf("%s %d failed", m.sym.Error, m.failed))
	}
	if m.robots > 0 {
		l3 += "  " + m.st.Warn.Render(fmt.Sprintf("%d robots-blocked", m.robots))
	}
	if m.health != "" {
		l3 += "  " + m.st.Warn.Render(m.health)
	}
	if m.storeErr != "" {
		l3 += "  " + m.st.Bad.Render(m.storeErr)
	}
	if m.dropped > 0 {
		l3 += "  " + m.st.Warn.Render(fmt.Sprintf("%d pages past %d not listed", m.dropped, maxRows))
	}
	l3 += m.endNotes()
	return []string{l1, l2, l3}
}

func (m *Model) bar(frac float64, w int) string {
	frac = min(max(frac, 0), 1)
	n := int(frac*float64(w) + 0.5)
	full, empty := "█", "░"
	if m.cfg.ASCII {
		full, empty = "#", "."
	}
	return "[" + m.st.Good.Render(strings.Repeat(full, n)) + m.st.Muted.Render(strings.Repeat(empty, w-n)) + "]"
}

// sample records the progress for the rate: samples of the last minute,
// at most one a second.
func (m *Model) sample() {
	now := m.cfg.Now()
	c, _ := m.progress()
	if n := len(m.samples); n > 0 && now.Sub(m.samples[n-1].at) < time.Second {
		m.samples[n-1].completed = c
		return
	}
	m.samples = append(m.samples, sample{now, c})
	for len(m.samples) > 2 && now.Sub(m.samples[1].at) > rateWindow {
		m.samples = m.samples[1:]
	}
}

// progress is completed of total: the service's figures, raised to the
// pages the screen has seen (the WebSocket sends documents, not figures,
// between its catchup and done).
func (m *Model) progress() (completed, total int) {
	completed = m.completed
	if !m.done {
		completed = max(completed, len(m.rows)-m.robots)
	}
	return completed, max(m.total, completed)
}

// rate is pages a minute over the last minute of status updates.
func (m *Model) rate() string {
	if len(m.samples) < 2 {
		return "–"
	}
	a, b := m.samples[0], m.samples[len(m.samples)-1]
	d := b.at.Sub(a.at)
	if d < 2*time.Second {
		return "–"
	}
	return fmt.Sprintf("%.1f", float64(b.completed-a.completed)/d.Minutes())
}

// credits is the crawl's credits, the noun muted: "1 credit", "? credits"
// before the service said.
func credits(c *float64, st *theme.Styles) string {
	s := "? credits"
	if c != nil {
		s = text.Credits(*c)
	}
	n, noun, _ := strings.Cut(s, " ")
	return n + st.Muted.Render(" "+noun)
}

// listLines draws the column heads and the visible rows in h lines.
func (m *Model) listLines(h int) []string {
	w := m.width
	if h <= 0 {
		return nil
	}
	titleW := min(40, max(w/4, 10))
	urlW := max(w-titleW-20, 10)
	head := m.st.Muted.Render(" CODE  " + padRight("SIZE", 8) + "  " + padRight("TITLE", titleW) + "  URL")
	if m.filter != "" || m.typing {
		cur := ""
		if m.typing {
			cur = "▏"
		}
		head = " " + m.st.Key.Render("/") + m.filter + cur + m.st.Muted.Render(fmt.Sprintf("  %d of %d", m.shown(), len(m.rows)))
	}
	out := []string{head}
	rows := h - 1
	n := m.shown()
	m.top = followTop(m.sel, m.top, n, rows)
	for i := m.top; i < n && len(out) < h; i++ {
		r := m.rowAt(i)
		var l string
		switch r.kind {
		case kindFailed:
			l = " " + m.st.Bad.Render(padRight(m.sym.Error+" ERR", 5)) + "  " + padRight("", 8) + "  " +
				m.st.Bad.Render(padRight(describe.OneLine(r.err, titleW), titleW)) + "  " + describe.OneLine(r.url, urlW)
		case kindRobots:
			l = " " + m.st.Warn.Render(padRight("ROBOT", 5)) + "  " + padRight("", 8) + "  " +
				m.st.Muted.Render(padRight("blocked by robots.txt", titleW)) + "  " + describe.OneLine(r.url, urlW)
		default:
			code := padRight(codeText(int(r.code)), 5)
			cs := m.st.Good
			if r.code >= 400 {
				cs = m.st.Bad
			}
			l = " " + cs.Render(code) + "  " + padRight(text.Size(int(r.size)), 8) + "  " + padRight(describe.OneLine(r.title, titleW), titleW) +
				"  " + m.st.Muted.Render(describe.OneLine(r.url, urlW))
		}
		if i == m.sel {
			l = m.st.Selected.Render(ansi.Strip(fitLine(l, w)))
		}
		out = append(out, l)
	}
	if n == 0 {
		msg := "no pages yet"
		if m.filter != "" {
			msg = "no page matches the filter"
		}
		out = append(out, "   "+m.st.Muted.Render(msg))
	}
	return out
}

func followTop(sel, top, n, h int) int {
	h = max(h, 1)
	if sel < top {
		top = sel
	}
	if sel >= top+h {
		top = sel - h + 1
	}
	return min(max(top, 0), max(n-h, 0))
}

func codeText(n int) string {
	if n == 0 {
		return "---"
	}
	return fmt.Sprint(n)
}

func padRight(s string, w int) string {
	s = describe.Truncate(s, w)
	if n := describe.Width(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

func (m *Model) footer() string {
	if m.flash != "" {
		return " " + m.st.Accent.Render(describe.OneLine(m.flash, max(m.width-2, 1)))
	}
	var parts []string
	for _, b := range m.ShortHelp() {
		h := b.Help()
		parts = append(parts, m.st.Key.Render(h.Key)+" "+m.st.Muted.Render(h.Desc))
	}
	return " " + strings.Join(parts, "  ")
}

func (m *Model) helpLines() []string {
	out := []string{"", " " + m.st.Title.Render("Keys")}
	for _, g := range m.FullHelp() {
		for _, b := range g {
			h := b.Help()
			out = append(out, "   "+m.st.Key.Render(padRight(h.Key, 10))+" "+h.Desc)
		}
	}
	return out
}

// ShortHelp is the footer's keys.
func (m *Model) ShortHelp() []key.Binding {
	k := m.keys
	switch {
	case m.question != nil:
		return m.question.HelpKeys()
	case m.page != nil:
		return append(m.page.shortHelp(), k.Copy, k.Save, k.Back)
	case m.typing:
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")), key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "drop filter"))}
	}
	b := append([]key.Binding{k.Open, k.Filter, k.Copy, k.Save}, m.cancelKey()...)
	if m.cfg.Back {
		b = append(b, k.Back)
	}
	return append(b, k.Help, k.Quit)
}

// FullHelp is every key, grouped.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.keys
	keys := append([]key.Binding{k.Open, k.Filter, k.Copy, k.Save}, m.cancelKey()...)
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, append(keys, k.Back, k.Help, k.Quit, k.Suspend)}
}
