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
//
// Its files, by concern as in ui/: crawl.go (Config, the Model, Update),
// watch.go (the watch's updates coming in), store.go (the documents in a
// temporary file, the rows and the filter), keys.go and dispatch.go (the
// key map and where a key goes), actions.go (cancel after the question,
// read, copy, save), view.go, header.go, pane_list.go and page.go
// (drawing), ending.go (the crawl's end), program.go (Frame and Run).
package crawl

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/clipboard"
	"github.com/firewatch/firewatch/ui/content"
	"github.com/firewatch/firewatch/ui/internal/alert"
	"github.com/firewatch/firewatch/ui/internal/confirm"
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

	crawlState // what the watch said (watch.go)
	rowState   // the pages and the filter (store.go)

	page     *pageView
	alerts   *alert.Gate // Config.Alerts
	renderer *content.Renderer

	question   *confirm.Question // the cancel confirmation while it is up
	cancelling bool
	// swallow: the question vanished (the crawl ended): the next key,
	// meant as its answer, goes nowhere.
	swallow bool

	flash    string
	showHelp bool
	result   Result
}

// crawlState is the crawl as the watch told it.
type crawlState struct {
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

	late, missing  int  // from the watch's stats, at its end
	errorsAfterEnd bool // the failed pages shown were read after the end
}

// rowState is the list: its rows, the filter's view and the selection.
type rowState struct {
	rows   []row
	bad    map[string]bool // failed and robots-blocked URLs shown
	failed int
	robots int
	view   []int32 // rows shown when filtering; nil: all
	sel    int
	top    int
	filter string
	typing bool
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
		store: st, updates: make(chan tea.Msg, 64), alerts: alert.New(cfg.Alerts),
		crawlState: crawlState{started: cfg.Now(), status: "…"}, rowState: rowState{bad: map[string]bool{}}}
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

// CrawlOver reports whether status ends a crawl.
func CrawlOver(status string) bool { return poller.CrawlTerminal(status) }
