package crawl

import (
	"fmt"

	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
)

// The crawl's end as the screen shows it: the cancel key offered only
// while there is something to cancel, the question closed when the crawl
// ends under it (and the key meant as its answer dropped), the pages the
// end found late or missing, and what the screen tells its caller.

// over reports whether the crawl is over: nothing is left to cancel.
func (m *Model) over() bool { return CrawlOver(m.status) }

// cancelKey is the cancel binding while there is something to cancel;
// none once the crawl is over (the footer and ? leave it out).
func (m *Model) cancelKey() []key.Binding {
	if m.over() || m.cfg.ReadOnly != "" { // a hub's viewer may not cancel
		return nil
	}
	return []key.Binding{m.keys.Cancel}
}

// dropQuestion closes the cancel question once the crawl is over: there
// is nothing left to cancel, and a y would only earn a 409. The next key,
// typed as the question's answer, is dropped (swallowed).
func (m *Model) dropQuestion() {
	if m.question != nil && m.over() {
		m.question, m.swallow = nil, true
		m.flash = "the crawl is over (" + oneLine(m.status) + "): nothing to cancel; the next key is ignored"
	}
}

// swallowed reports whether the key is the one after a question that
// vanished: it goes nowhere, and the footer says why.
func (m *Model) swallowed() bool {
	if !m.swallow {
		return false
	}
	m.swallow = false
	m.flash = "the crawl is over (" + oneLine(m.status) + "): nothing was cancelled, and that key was not taken"
	return true
}

// endNotes are the header's words for the pages the watch's end found:
// fetched late, or never delivered.
func (m *Model) endNotes() string {
	s := ""
	if m.late > 0 {
		s += "  " + m.st.Muted.Render(describe.Count(m.late, "page")+" fetched late")
	}
	if m.missing > 0 {
		s += "  " + m.st.Bad.Render(fmt.Sprintf("%s %s not delivered", m.sym.Error, describe.Count(m.missing, "page")))
	}
	return s
}

// seen is what the screen learned of the crawl, for its caller.
func (m *Model) seen() Seen {
	s := Seen{Status: m.status, Completed: m.completed, Total: m.total, Credits: m.credits,
		Pages: len(m.rows) - m.failed - m.robots + m.dropped, Failed: m.failed, Robots: m.robots,
		Late: m.late, Missing: m.missing, ErrorsAfterEnd: m.errorsAfterEnd}
	for i := range m.rows {
		if len(s.FailedPages) == 5 {
			break
		}
		if r := &m.rows[i]; r.kind == kindFailed {
			s.FailedPages = append(s.FailedPages, poller.CrawlError{URL: r.url, Error: r.err})
		}
	}
	return s
}
