// Package runs is the runs screen: the team's agent runs from GET
// /v2/agent (processing first, then newest first), paged lazily as the
// cursor nears the end, filtered by text (/) and status (1-4), refreshed
// every 10 s and on r, with the selected run's details (GET
// /v2/agent/{id}) fetched lazily for that row only, and a team tab (tokens
// left, processing runs, active crawls with their scrape options).
//
// It follows the UI's component contract: SetSize, Update returning a
// command, View that only draws (the visible rows only), ShortHelp and
// FullHelp from one KeyMap. All I/O is in commands with a timeout, through
// Service. Enter on a run ends the screen's program with Chosen set; the
// caller (cli's runsLoop) watches the run in the watch screen with
// ui.Config.BackToList, where esc ends it with Result.Back, and starts this
// screen again with the same Model, which keeps its rows, filter and
// selection.
package runs

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/internal/confirm"
	"github.com/firewatch/firewatch/ui/internal/filterinput"
	"github.com/firewatch/firewatch/ui/internal/program"
	"github.com/firewatch/firewatch/ui/internal/rerunform"
	"github.com/firewatch/firewatch/ui/remote"
)

// Service is what the screen asks of the service; *poller.Client is one,
// made to ask once (no Config.Retry, or WithRetry(Retry{Tries: 1})): the
// screen schedules its own retries and says each wait on screen.
type Service = poller.TeamRuns

// Config configures a Model.
type Config struct {
	Service  Service
	NoColor  bool
	ASCII    bool
	Status   string        // initial status filter: all, processing, completed, failed
	Interval time.Duration // refresh; default 10 s
	Timeout  time.Duration // per request; default 20 s
	Now      func() time.Time
	Getenv   func(string) string // for the clipboard (TMUX, TERM); nil: os.Getenv (or Terminal's)
	// ReadOnly, when set, is what c and n say instead of cancelling or
	// starting a run: the person may not change runs (a hub's viewer).
	ReadOnly string
	// Person and Role, when set, are who the session is on a hub (the
	// name from its keys file) and "operator" or "viewer": the footer
	// says them, and the runs this screen cancels or starts are said to
	// be theirs.
	Person, Role string
	// HubName is the hub's name (firewatch hub --name), recorded with
	// what Person does here ("alice via hub prod").
	HubName string
	// Terminal, when set, is a remote session's terminal to draw on (a
	// hub's SSH session, package remote) instead of the process's.
	Terminal *remote.Terminal
}

// Defaults.
const (
	DefaultInterval = 10 * time.Second
	// prefetch: the next page is asked for when the cursor is this close
	// to the last loaded row.
	prefetch = 5
	// detailDelay: the selected row's details are fetched once the
	// selection has rested this long (holding a key fetches nothing).
	detailDelay = 150 * time.Millisecond
)

// Tabs.
const (
	TabRuns = iota
	TabTeam
)

// Model is the runs screen.
type Model struct {
	cfg    Config
	keys   KeyMap
	st     *theme.Styles
	sym    theme.Symbols
	width  int
	height int

	rows    []poller.RunInfo // every run loaded, deduplicated by id
	byID    map[string]int
	view    []int // rows shown: filtered and sorted
	sel     int   // index into view
	selID   string
	top     int // first visible row
	status  string
	filter  string
	editing bool // typing a filter

	// paging
	cursor  time.Time          // before of the next page
	done    bool               // the last page is in
	stopped error              // why paging stopped before the list's end (a *poller.PagingStopped), nil
	loading bool               // a page request is in flight
	asked   map[int64]bool     // cursors already requested (no page twice)
	pages   int                // pages received
	gen     int                // refresh generation (tags the tick)
	nextTry time.Time          // a 429 asked to wait until then
	fails   int                // failed page requests in a row
	note    string             // the last problem, for the footer
	details map[string]*detail // by run id

	detailSeq int

	// team tab
	tab        int
	usage      *poller.TokenUsage
	history    *poller.UsageHistory // the team's daily usage (UsageHistorian), for the projection line
	historyAt  time.Time            // when it was asked
	usageNone  bool
	crawls     []poller.Crawl
	crawlSel   int
	crawlOpen  bool // showing all options of the selected crawl
	jsonTop    int
	usageNote  string // why the token usage could not be fetched
	crawlsNote string // why the active crawls could not be fetched
	teamAt     time.Time

	showHelp bool

	// outcomes are the runs' outcomes as their traces say (SetOutcome).
	outcomes map[string]string
	// actors is who this screen's person cancelled or started (acted).
	actors map[string]model.Actors
	// the cancel confirmation and the run it asks about.
	confirmID string
	confirm   *confirm.Question
	// a new run's prompt being typed (n), or a follow-up's (F: to
	// followOf's thread, followThread).
	composing              bool
	draft                  string
	followThread, followOf string
	// form is the rerun form R opened; nil when none.
	form *rerunform.Form
	// groups are the shown rows of a thread of two turns or more, by
	// row index (threads.go).
	groups map[int]threadGroup
	// threads are the runs' threads learnt from their status or the
	// shell (NoteThread), for the runs the archive does not name.
	threads map[string]threadNote
	// compareWith is the pair a rerun watched from here offers to compare
	// (OfferCompare; = opens it): the original and the rerun.
	compareWith [2]string
	// flash is what the last action did, for the footer until the next
	// key (note is the last problem with the list, which a refresh clears).
	flash string

	// tick is lifeTick; tests replace it to decide when timers fire.
	tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
	// life ends with the program showing the screen (Run): its requests
	// and timers end with it.
	life context.Context
	// reopening: Run shows the screen again (it has rows): Init is Reopen.
	reopening bool

	// Chosen is the run enter picked; the screen's program ends with it.
	Chosen string
	// RerunOf and RerunChanged are the run Chosen was rerun from (R) and
	// the request fields changed; "" and nil for any other start. The
	// shell keeps them in the archive.
	RerunOf      string
	RerunChanged []string
	// ChosenCompare is the pair = picked (the original, the rerun): the
	// shell opens the compare screen, then this screen again.
	ChosenCompare [2]string
	// ChosenCrawl is the active crawl enter picked on the team tab (and
	// ChosenCrawlURL its URL); the program ends with it (the shell opens
	// the crawl screen).
	ChosenCrawl, ChosenCrawlURL string
	// Interrupted: Ctrl-C ended the screen (q quits; Ctrl-C interrupts,
	// which the shell says with its exit code).
	Interrupted bool
	// Requests counts the list pages requested (for tests and figures).
	Requests int
}

type detail struct {
	st      *poller.Status
	err     string
	at      time.Time
	loading bool
}

// New makes the screen. Call Init (or Reopen when coming back).
func New(cfg Config) *Model {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 20 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	m := &Model{cfg: cfg, keys: DefaultKeyMap(), st: theme.New(theme.Dark(), cfg.NoColor), sym: theme.Unicode(),
		byID: map[string]int{}, asked: map[int64]bool{}, details: map[string]*detail{}, status: "all", life: context.Background()}
	m.tick = m.lifeTick
	if cfg.ASCII {
		m.sym = theme.ASCII()
		m.keys.ASCII()
	}
	if t := cfg.Terminal; t != nil {
		if m.cfg.Getenv == nil {
			m.cfg.Getenv = t.Getenv
		}
		m.keys.Suspend.SetEnabled(false) // it would stop the process, and every session with it
	}
	switch s := strings.ToLower(cfg.Status); s {
	case "processing", "completed", "failed":
		m.status = s
	}
	return m
}

// Messages.
type (
	pageMsg struct {
		before  time.Time
		refresh bool
		list    *poller.RunList
		err     error
	}
	statusMsg struct {
		id  string
		st  *poller.Status
		err error
	}
	teamMsg struct {
		usage     *poller.TokenUsage
		history   *poller.UsageHistory // the daily usage, for the projection; nil: not offered
		histAsked bool                 // history was asked (it is asked every historyEvery)
		usageNone bool
		crawls    []poller.Crawl
		usageErr  error // each part stands alone
		crawlsErr error
	}
	tickMsg       struct{ gen int }
	detailTickMsg struct{ seq int }
)

// Init asks for the first page (one request) and, for the team figures in
// the header, the token usage and active crawls; for a screen coming back
// (Run with a Model that has rows), it is Reopen.
func (m *Model) Init() tea.Cmd {
	if m.reopening {
		return m.Reopen()
	}
	return tea.Batch(m.fetchPage(time.Time{}, false), m.fetchTeam())
}

// Reopen is Init for a screen coming back from watching a run: a refresh
// of the first page, the rows and selection as they were.
func (m *Model) Reopen() tea.Cmd {
	m.Chosen = ""
	// Answers in flight when the last program ended were lost with it.
	if m.loading {
		m.loading = false
		delete(m.asked, cursorKey(m.cursor))
	}
	for _, d := range m.details {
		d.loading = false
	}
	return tea.Batch(m.refresh(), m.fetchTeam(), m.scheduleDetail())
}

func (m *Model) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(m.life, m.cfg.Timeout)
}

// lifeTick is tea.Tick, ended with the program: Bubble Tea leaves a
// command's goroutine running when its program ends, and the refresh's
// waits ten seconds. A session of a hub that drops leaves none behind.
func (m *Model) lifeTick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	t := time.NewTimer(d)
	done := m.life.Done()
	return func() tea.Msg {
		defer t.Stop()
		select {
		case now := <-t.C:
			return fn(now)
		case <-done:
			return nil
		}
	}
}

// fetchPage asks for the page before cursor (zero: the newest). A paging
// request for a cursor already asked is not sent again.
func (m *Model) fetchPage(before time.Time, refresh bool) tea.Cmd {
	if !refresh {
		k := cursorKey(before)
		if m.asked[k] || m.loading {
			return nil
		}
		m.asked[k] = true
		m.loading = true
	}
	m.Requests++
	svc := m.cfg.Service
	ctx, cancel := m.ctx()
	return func() tea.Msg {
		defer cancel()
		l, err := svc.Runs(ctx, before)
		return pageMsg{before: before, refresh: refresh, list: l, err: err}
	}
}

// cursorKey is a page's key in asked: -1 for the newest page.
func cursorKey(before time.Time) int64 {
	if before.IsZero() {
		return -1
	}
	return before.UnixMilli()
}

// historyEvery is how often the team tab asks the usage by day (its
// projection's rate is of whole days): not at every refresh of the list.
const historyEvery = 10 * time.Minute

func (m *Model) fetchTeam() tea.Cmd {
	svc := m.cfg.Service
	askHist := m.historyAt.IsZero() || m.cfg.Now().Sub(m.historyAt) >= historyEvery
	if askHist {
		m.historyAt = m.cfg.Now()
	}
	ctx, cancel := m.ctx()
	return func() tea.Msg {
		defer cancel()
		var t teamMsg
		u, err := svc.TokenUsage(ctx)
		var pe *poller.Error
		switch {
		case errors.As(err, &pe) && pe.Kind == poller.KindNotFound:
			t.usageNone = true
		case err != nil:
			t.usageErr = err
		default:
			t.usage = u
			if h, ok := svc.(UsageHistorian); ok && askHist {
				// The projection line only: a service without it is no news.
				t.history, _ = h.UsageHistory(ctx, "month", false)
				t.histAsked = true
			}
		}
		t.crawls, t.crawlsErr = svc.ActiveCrawls(ctx)
		return t
	}
}

func (m *Model) refresh() tea.Cmd {
	return m.fetchPage(time.Time{}, true)
}

// arm schedules the next refresh (from one place, tagged).
func (m *Model) arm(d time.Duration) tea.Cmd {
	m.gen++
	gen := m.gen
	return m.tick(d, func(time.Time) tea.Msg { return tickMsg{gen} })
}

// SetSize gives the screen its box.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.clamp()
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.SetSize(msg.Width, msg.Height)
		return nil
	case pageMsg:
		return m.onPage(msg)
	case statusMsg:
		d := m.details[msg.id]
		if d == nil {
			d = &detail{}
			m.details[msg.id] = d
		}
		d.loading = false
		d.at = m.cfg.Now()
		if msg.err != nil {
			d.err = errText(msg.err)
		} else {
			d.st, d.err = msg.st, ""
			if msg.st != nil {
				m.NoteThread(msg.id, msg.st.ThreadID, msg.st.ThreadTurn)
			}
		}
		return nil
	case teamMsg:
		m.teamAt = m.cfg.Now()
		// Each part keeps what it had when its own request failed, and
		// says why in its own section.
		m.usageNote, m.crawlsNote = "", ""
		if msg.usageErr != nil {
			m.usageNote = errText(msg.usageErr)
		} else {
			m.usage, m.usageNone = msg.usage, msg.usageNone
			if msg.histAsked {
				m.history = msg.history
			}
		}
		if msg.crawlsErr != nil {
			m.crawlsNote = errText(msg.crawlsErr)
		} else {
			m.crawls = msg.crawls
		}
		m.crawlSel = min(m.crawlSel, max(len(m.crawls)-1, 0))
		return nil
	case tickMsg:
		if msg.gen != m.gen {
			return nil
		}
		if wait := m.nextTry.Sub(m.cfg.Now()); wait > 0 {
			return m.arm(wait)
		}
		// The selected run's details too, when it is processing and its
		// details are older than the interval.
		return tea.Batch(m.refresh(), m.fetchTeam(), m.fetchDetail())
	case detailTickMsg:
		if msg.seq != m.detailSeq {
			return nil
		}
		return m.fetchDetail()
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	if cmd, ok := m.onAction(msg); ok {
		return cmd
	}
	return nil
}

// retry is the screen's policy: poller.Retry as a poller's (never giving
// up, no 429 waited less than the refresh interval).
func (m *Model) retry() poller.Retry {
	return poller.Retry{Tries: -1, Interval: m.cfg.Interval}
}

func errText(err error) string {
	var pe *poller.Error
	if errors.As(err, &pe) {
		return pe.Short()
	}
	return err.Error()
}

// onPage merges a page: new runs are added, known ones updated; the
// selection stays on the same run.
func (m *Model) onPage(msg pageMsg) tea.Cmd {
	if !msg.refresh {
		m.loading = false
	}
	var cmds []tea.Cmd
	if msg.err != nil {
		if !msg.refresh {
			// Let the same page be asked again later.
			delete(m.asked, cursorKey(msg.before))
		}
		// The one retry policy, as a poller's: the wait is said on screen.
		m.fails++
		m.note = errText(msg.err)
		d := m.cfg.Interval
		if w, ok := m.retry().Delay(msg.err, m.fails); ok {
			d, m.note = w.Delay, w.String()
		}
		m.nextTry = m.cfg.Now().Add(d)
		if msg.refresh || msg.before.IsZero() {
			cmds = append(cmds, m.arm(d))
		}
		return tea.Batch(cmds...)
	}
	m.note = ""
	m.nextTry = time.Time{}
	m.fails = 0
	first := len(m.rows) == 0
	fresh := 0
	stale := false
	for _, r := range msg.list.Runs {
		if i, ok := m.byID[r.ID]; ok {
			m.rows[i] = r
			// Details fetched while it ran are stale once the list says
			// it is over: the row and its details show the same.
			if d := m.details[r.ID]; d != nil && d.st != nil && isProcessing(d.st.Status) && !isProcessing(r.Status) {
				d.at = time.Time{}
				stale = stale || m.Selected() != nil && m.Selected().ID == r.ID
			}
			continue
		}
		if r.ID == "" {
			continue
		}
		m.byID[r.ID] = len(m.rows)
		m.rows = append(m.rows, r)
		fresh++
	}
	if !msg.refresh {
		m.pages++
		// The one paging rule (poller.PageStep), and the bound of a pager
		// that may look for rows it never finds.
		next, done, why := poller.PageStep(msg.before, msg.list, fresh)
		if !done && m.pages >= poller.MaxScanPages {
			done, why = true, poller.ErrScanBound
		}
		m.done = done
		if done {
			m.stopped = why
		} else {
			m.cursor = next
		}
	} else if m.pages == 0 || m.pages == 1 && m.done && m.stopped == nil {
		// A refresh before the first page came is the first page; one
		// after a first page that said there was no other says it afresh
		// (that page may have been read from the team's archive while its
		// holder was still storing it), and paging goes on from it.
		m.pages = 1
		m.asked[-1] = true
		if msg.list.Next == "" || msg.list.NextBefore.IsZero() {
			m.done = true
		} else {
			m.done = false
			m.cursor = msg.list.NextBefore
		}
	}
	m.rebuild()
	if msg.refresh || msg.before.IsZero() {
		cmds = append(cmds, m.arm(m.cfg.Interval))
	}
	if first {
		cmds = append(cmds, m.scheduleDetail())
	}
	if stale {
		cmds = append(cmds, m.fetchDetail())
	}
	cmds = append(cmds, m.maybeMore())
	return tea.Batch(cmds...)
}

// rebuild recomputes the shown rows (filter, sort) and puts the selection
// back on the same run.
func (m *Model) rebuild() {
	m.view = m.view[:0]
	f := strings.ToLower(m.filter)
	for i := range m.rows {
		r := &m.rows[i]
		if !StatusMatches(m.status, m.shownStatus(r)) {
			continue
		}
		if f != "" && !strings.Contains(strings.ToLower(m.rowText(r)), f) {
			continue
		}
		m.view = append(m.view, i)
	}
	slices.SortStableFunc(m.view, func(a, b int) int {
		ra, rb := &m.rows[a], &m.rows[b]
		pa, pb := isProcessing(ra.Status), isProcessing(rb.Status)
		if pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		return rb.CreatedAt.Compare(ra.CreatedAt)
	})
	m.groupThreads()
	m.sel = 0
	if m.selID != "" {
		for k, i := range m.view {
			if m.rows[i].ID == m.selID {
				m.sel = k
				break
			}
		}
	}
	m.clamp()
	m.remember()
}

func isProcessing(s string) bool { return strings.EqualFold(s, "processing") }

// StatusMatches applies a status filter ("all" or "" matches every run; a
// cancelled run counts as failed, as the service reports it).
func StatusMatches(filter, status string) bool {
	s := strings.ToLower(status)
	switch filter {
	case "", "all":
		return true
	case "failed":
		return s == "failed" || s == "cancelled" || s == "canceled"
	}
	return s == filter
}

// remember notes the selected run's id (the selection follows it).
func (m *Model) remember() {
	if m.sel >= 0 && m.sel < len(m.view) {
		m.selID = m.rows[m.view[m.sel]].ID
	}
}

// Selected is the selected run, or nil.
func (m *Model) Selected() *poller.RunInfo {
	if m.sel < 0 || m.sel >= len(m.view) {
		return nil
	}
	return &m.rows[m.view[m.sel]]
}

// Loaded is the number of runs loaded; Pages the pages received.
func (m *Model) Loaded() int { return len(m.rows) }

// Pages is the number of list pages received (refreshes not counted).
func (m *Model) Pages() int { return m.pages }

// Done reports whether the last page is in.
func (m *Model) Done() bool { return m.done }

// listHeight is the rows the list shows.
func (m *Model) listHeight() int {
	_, lh := m.layout()
	return max(lh, 1)
}

func (m *Model) clamp() {
	n := len(m.view)
	m.sel = min(max(m.sel, 0), max(n-1, 0))
	h := m.listHeight()
	if m.sel < m.top {
		m.top = m.sel
	}
	if m.sel >= m.top+h {
		m.top = m.sel - h + 1
	}
	m.top = min(max(m.top, 0), max(n-h, 0))
}

// maybeMore asks for the next page when the cursor is near the end of
// what is loaded (or the filter leaves too few rows to fill the screen).
func (m *Model) maybeMore() tea.Cmd {
	if m.done || m.loading || m.pages == 0 || !m.nextTry.IsZero() && m.cfg.Now().Before(m.nextTry) {
		return nil
	}
	if m.sel >= len(m.view)-prefetch || len(m.view) < m.listHeight() && (m.filter != "" || m.status != "all") {
		return m.fetchPage(m.cursor, false)
	}
	return nil
}

// scheduleDetail fetches the selected row's details once the selection
// rests.
func (m *Model) scheduleDetail() tea.Cmd {
	m.detailSeq++
	seq := m.detailSeq
	return m.tick(detailDelay, func(time.Time) tea.Msg { return detailTickMsg{seq} })
}

// fetchDetail asks for the selected run's status unless it is fresh (a
// finished run's status does not change; a processing one is asked again
// after the refresh interval).
func (m *Model) fetchDetail() tea.Cmd {
	r := m.Selected()
	if r == nil {
		return nil
	}
	d := m.details[r.ID]
	if d != nil && (d.loading || d.st != nil && (d.st.Terminal() || m.cfg.Now().Sub(d.at) < m.cfg.Interval)) {
		return nil
	}
	if d == nil {
		d = &detail{}
		m.details[r.ID] = d
	}
	d.loading = true
	id := r.ID
	svc := m.cfg.Service
	ctx, cancel := m.ctx()
	return func() tea.Msg {
		defer cancel()
		st, err := svc.Status(ctx, id)
		return statusMsg{id: id, st: st, err: err}
	}
}

// move changes the selection by delta rows (clamped).
func (m *Model) move(delta int) tea.Cmd {
	old := m.sel
	m.sel += delta
	m.clamp()
	m.remember()
	if m.sel == old {
		return m.maybeMore()
	}
	return tea.Batch(m.maybeMore(), m.scheduleDetail())
}

func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	m.flash = ""
	// Ctrl-C interrupts from anywhere on the screen but the new run's
	// prompt, where it drops the draft as in a shell's line.
	if msg.String() == "ctrl+c" && !m.composing && m.form == nil {
		m.Interrupted = true
		return tea.Quit
	}
	if m.editing {
		return m.editFilter(msg)
	}
	if m.composing {
		return m.composeKey(msg)
	}
	if m.form != nil {
		return m.formKey(msg)
	}
	if m.confirmID != "" {
		return m.confirmKey(msg)
	}
	k := m.keys
	if key.Matches(msg, k.Suspend) {
		return program.Suspend
	}
	if m.showHelp {
		if key.Matches(msg, k.Help, k.Back) {
			m.showHelp = false
			return nil
		}
	}
	if m.tab == TabTeam {
		return m.teamKey(msg)
	}
	if cmd, ok := m.actionKey(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
	case key.Matches(msg, k.Up):
		return m.move(-1)
	case key.Matches(msg, k.Down):
		return m.move(1)
	case key.Matches(msg, k.PageUp):
		return m.move(-m.listHeight())
	case key.Matches(msg, k.PageDown):
		return m.move(m.listHeight())
	case key.Matches(msg, k.Top):
		return m.move(-len(m.view))
	case key.Matches(msg, k.Bottom):
		return m.move(len(m.view))
	case key.Matches(msg, k.Open):
		if r := m.Selected(); r != nil {
			m.Chosen = r.ID
			return tea.Quit
		}
	case key.Matches(msg, k.Filter):
		m.editing = true
	case key.Matches(msg, k.Back):
		if m.filter != "" {
			m.filter = ""
			m.rebuild()
			return m.scheduleDetail()
		}
	case key.Matches(msg, k.All):
		return m.setStatus("all")
	case key.Matches(msg, k.Processing):
		return m.setStatus("processing")
	case key.Matches(msg, k.Completed):
		return m.setStatus("completed")
	case key.Matches(msg, k.Failed):
		return m.setStatus("failed")
	case key.Matches(msg, k.Refresh):
		if w := m.nextTry.Sub(m.cfg.Now()); w > 0 {
			m.note = "rate limited: the service asked to wait " + w.Round(time.Second).String()
			return nil
		}
		return tea.Batch(m.refresh(), m.fetchTeam())
	case key.Matches(msg, k.Team):
		m.tab = TabTeam
	}
	return nil
}

func (m *Model) setStatus(s string) tea.Cmd {
	m.status = s
	m.rebuild()
	return tea.Batch(m.maybeMore(), m.scheduleDetail())
}

// editFilter handles keys while typing a filter: text, backspace, enter
// (keep it), esc (drop it).
func (m *Model) editFilter(msg tea.KeyPressMsg) tea.Cmd {
	m.filter, m.editing = filterinput.Edit(m.filter, msg)
	if msg.String() == "enter" {
		return tea.Batch(m.maybeMore(), m.scheduleDetail())
	}
	m.rebuild()
	return m.maybeMore()
}

// teamKey handles keys on the team tab.
func (m *Model) teamKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Back):
		if m.crawlOpen {
			m.crawlOpen = false
		} else {
			m.tab = TabRuns
		}
	case key.Matches(msg, k.Team):
		m.tab, m.crawlOpen = TabRuns, false
	case key.Matches(msg, k.Up):
		if m.crawlOpen {
			m.jsonTop = max(m.jsonTop-1, 0)
		} else {
			m.crawlSel = max(m.crawlSel-1, 0)
		}
	case key.Matches(msg, k.Down):
		if m.crawlOpen {
			m.jsonTop++
		} else {
			m.crawlSel = min(m.crawlSel+1, max(len(m.crawls)-1, 0))
		}
	case key.Matches(msg, k.PageDown):
		if m.crawlOpen {
			m.jsonTop += max(m.height-4, 1)
		}
	case key.Matches(msg, k.PageUp):
		if m.crawlOpen {
			m.jsonTop = max(m.jsonTop-max(m.height-4, 1), 0)
		}
	case key.Matches(msg, k.Open):
		if m.crawlOpen {
			return nil
		}
		if m.crawlSel < len(m.crawls) {
			m.ChosenCrawl, m.ChosenCrawlURL = m.crawls[m.crawlSel].ID, m.crawls[m.crawlSel].URL
			return tea.Quit
		}
	case key.Matches(msg, k.Options):
		if len(m.crawls) > 0 {
			m.crawlOpen, m.jsonTop = true, 0
		}
	case key.Matches(msg, k.Refresh):
		return m.fetchTeam()
	}
	return nil
}

// rowText is what a row shows, for the filter: the status word, the id,
// the star, [label] and (hidden) marks, the prompt, the model and effort,
// and the target.
func (m *Model) rowText(r *poller.RunInfo) string {
	var b strings.Builder
	b.WriteString(m.shownStatus(r) + " " + r.ID + " ")
	b.WriteString(m.marks(r))
	b.WriteString(r.Prompt + " " + ModelEffort(r) + " " + r.TargetHint)
	return b.String()
}

// ShortHelp is the footer's keys.
func (m *Model) ShortHelp() []key.Binding {
	k := m.keys
	if m.tab == TabTeam {
		if m.crawlOpen {
			return []key.Binding{k.Up, k.Down, k.Back, k.Quit}
		}
		return []key.Binding{k.Up, k.Down, k.Open, k.Options, k.Refresh, k.Team, k.Quit}
	}
	// r is left to ?: the list refreshes itself every 10 s.
	if m.cfg.ReadOnly != "" {
		// A hub's viewer is not offered what would be refused.
		return []key.Binding{k.Open, k.Filter, k.Copy, k.Team, k.Help, k.Quit}
	}
	return []key.Binding{k.Open, k.Filter, k.New, k.Cancel, k.Copy, k.Team, k.Help, k.Quit}
}

// FullHelp is every key, grouped.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.keys
	acts := []key.Binding{k.New, k.Cancel, k.Copy, k.Rerun, k.FollowUp, k.Compare}
	if m.cfg.ReadOnly != "" {
		acts = []key.Binding{k.Copy} // a hub's viewer may not start, rerun or cancel
	}
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Open, k.Filter, k.Back, k.Refresh},
		acts,
		{k.All, k.Processing, k.Completed, k.Failed},
		{k.Team, k.Help, k.Quit, k.Suspend},
	}
}
