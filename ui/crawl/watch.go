package crawl

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/poller"
)

// The watch: the service's updates arrive on a goroutine of their own
// (documents go to the store there, only their metadata reaches the
// update loop), in batches, with the clock and the errors list asked for
// beside them; apply takes each one in.

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
