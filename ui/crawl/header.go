package crawl

import (
	"fmt"
	"strings"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
)

// The header: title and status; the bar and figures; the transport and
// counts.

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
