package crawl

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/clipboard"
	"github.com/firewatch/firewatch/ui/internal/confirm"
)

// What the keys do: cancel the crawl after a question, read a page, copy
// its URL, save it.

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
