package runs

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/ui/internal/cell"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/scrapeopts"
	"github.com/firewatch/firewatch/text"
)

// The team tab: tokens left of the plan in the billing period (a bar and
// figures; 1 credit = 15 tokens), the processing runs, and the active
// crawls with their scrape options rendered the v2 way; enter on a crawl
// watches it (the shell opens the crawl screen), o shows all its options
// as JSON.

// UsageHistorian is a Service that also gives the team's usage by day
// (*poller.Client, archiving.Listing over one): the team tab then says
// when the plan runs out at the last 7 days' rate.
type UsageHistorian interface {
	UsageHistory(ctx context.Context, timeRange string, byKey bool) (*poller.UsageHistory, error)
}

// ProjectionLine is the team tab's projection (cost --team's): "" when
// the usage by day or the period's end is not known.
func ProjectionLine(u *poller.TokenUsage, h *poller.UsageHistory, now time.Time) string {
	p := projection(u, h, now)
	if p == nil {
		return ""
	}
	return p.Text
}

// ProjectionFit is the projection's line in at most w cells: the whole
// line where it fits, else a shorter form that still says when the plan
// runs out and whether that is before the period ends (the rate goes
// first), cut on a word with "…" only where even the shortest does not
// fit; "" when there is no projection.
func ProjectionFit(u *poller.TokenUsage, h *poller.UsageHistory, now time.Time, w int) string {
	p := projection(u, h, now)
	if p == nil || w <= 0 {
		return ""
	}
	forms := projectionForms(p)
	for _, f := range forms {
		if ansi.StringWidth(f) <= w {
			return f
		}
	}
	return cutWords(forms[len(forms)-1], w)
}

func projection(u *poller.TokenUsage, h *poller.UsageHistory, now time.Time) *poller.Projection {
	if u == nil || h == nil || u.BillingPeriodEnd.IsZero() {
		return nil
	}
	p, _ := h.Project(u.RemainingTokens/model.TokensPerCredit, u.BillingPeriodEnd, now)
	return p
}

// projectionForms are the projection's line, longest first.
func projectionForms(p *poller.Projection) []string {
	forms := []string{p.Text}
	if p.LastsUntil == nil || p.DaysBeforeEnd == nil || !(p.PerDay > 0) {
		return forms // used up, or no use: short already
	}
	until := p.LastsUntil.UTC().Format("Jan 2")
	var verdict string
	switch d := *p.DaysBeforeEnd; {
	case d == 1:
		verdict = "1 day early"
	case d > 0:
		verdict = fmt.Sprintf("%d days early", d)
	case strings.HasSuffix(p.Text, "the day the period ends"):
		verdict = "the period's last day"
	default:
		verdict = "past the period's end"
	}
	return append(forms,
		"at "+text.Credits(p.PerDay)+" a day the plan lasts until "+until+", "+verdict,
		"at "+text.Number(p.PerDay)+" a day: lasts until "+until+", "+verdict,
		"lasts until "+until+", "+verdict,
	)
}

// cutWords cuts s to w cells on a space, ending with "…" (a word longer
// than w is cut inside).
func cutWords(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	out := ""
	for _, word := range strings.Fields(s) {
		next := word
		if out != "" {
			next = out + " " + word
		}
		if ansi.StringWidth(strings.TrimRight(next, ",:"))+1 > w {
			break
		}
		out = next
	}
	if out == "" {
		return ansi.Truncate(s, w, "…")
	}
	return strings.TrimRight(out, ",:") + "…"
}

// TokenLine is the token balance in figures: "1,234,567 of 1,500,000 tokens
// left (82%) = 82,304 credits".
func TokenLine(u *poller.TokenUsage) string {
	s := describe.Tokens(u.RemainingTokens)
	if u.PlanTokens > 0 {
		s += " of " + describe.Tokens(u.PlanTokens) + fmt.Sprintf(" tokens left (%.0f%%)", 100*u.RemainingTokens/u.PlanTokens)
	} else {
		s += " tokens left"
	}
	return s + " = " + text.Credits(math.Round(u.RemainingTokens/model.TokensPerCredit))
}

// PeriodLine is the billing period: "billing period 2026-11-01 – 2026-12-01
// (8 days left)"; "" when the service gave none.
func PeriodLine(u *poller.TokenUsage, now time.Time) string {
	if u.BillingPeriodStart.IsZero() && u.BillingPeriodEnd.IsZero() {
		return ""
	}
	start, end := u.BillingPeriodStart, u.BillingPeriodEnd
	if !start.IsZero() && !end.IsZero() && !end.After(start) {
		return "billing period unknown (the service's ends before it starts)"
	}
	s := "billing period " + day(start) + " – " + day(end)
	// Days left only for an end a period can have: a year at most.
	if !end.IsZero() && end.After(now) && end.Sub(now) <= maxPeriod {
		s += fmt.Sprintf(" (%d days left)", int(end.Sub(now).Hours()/24))
	}
	return s
}

// maxPeriod is the longest billing period whose days left are shown.
const maxPeriod = 366 * 24 * time.Hour

func day(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return t.UTC().Format("2006-01-02")
}

// bar is a w-cell bar filled to frac.
func (m *Model) bar(frac float64, w int) string {
	frac = min(max(frac, 0), 1)
	n := int(frac*float64(w) + 0.5)
	full, empty := "█", "░"
	if m.sym.ASCII {
		full, empty = "#", "."
	}
	sty := m.st.Good
	switch {
	case frac < 0.1:
		sty = m.st.Bad
	case frac < 0.25:
		sty = m.st.Warn
	}
	return "[" + sty.Render(strings.Repeat(full, n)) + m.st.Muted.Render(strings.Repeat(empty, w-n)) + "]"
}

// teamLines draws the team tab in h lines.
func (m *Model) teamLines(h int) []string {
	if m.crawlOpen && m.crawlSel < len(m.crawls) {
		c := m.crawls[m.crawlSel]
		text := strings.Split(scrapeopts.Pretty(c.Options), "\n")
		out := []string{" " + m.st.Title.Render("All options of the crawl of "+describe.OneLine(c.URL, 80)) + m.st.Muted.Render("  (esc: back)")}
		m.jsonTop = min(m.jsonTop, max(len(text)-(h-1), 0))
		for i := m.jsonTop; i < len(text) && len(out) < h; i++ {
			out = append(out, "  "+strings.ReplaceAll(text[i], "\t", "  "))
		}
		return out
	}
	lab := func(k string) string { return " " + m.st.Muted.Render(cell.Fit(k, 14, "…")) }
	var out []string
	out = append(out, "")
	switch {
	case m.usage != nil:
		u := m.usage
		frac := 0.0
		if u.PlanTokens > 0 {
			frac = u.RemainingTokens / u.PlanTokens
		}
		out = append(out, lab("Tokens")+m.bar(frac, min(40, max(m.width-30, 10)))+fmt.Sprintf(" %.0f%% left", 100*frac))
		out = append(out, lab("")+TokenLine(u))
		if p := PeriodLine(u, m.cfg.Now()); p != "" {
			out = append(out, lab("")+p)
		}
		if p := ProjectionFit(u, m.history, m.cfg.Now(), m.width-ansi.StringWidth(lab(""))); p != "" {
			out = append(out, lab("")+p)
		}
	case m.usageNote != "":
		out = append(out, lab("Tokens")+m.st.Warn.Render("unavailable: "+m.usageNote))
	case m.usageNone:
		out = append(out, lab("Tokens")+m.st.Muted.Render("no token usage information for this team"))
	default:
		out = append(out, lab("Tokens")+m.st.Muted.Render("…"))
	}
	proc := 0
	for i := range m.rows {
		if isProcessing(m.rows[i].Status) {
			proc++
		}
	}
	out = append(out, lab("Processing")+fmt.Sprintf("%s (of the %d runs loaded)", describe.Count(proc, "run"), len(m.rows)))
	title := fmt.Sprintf("Active crawls (%d)", len(m.crawls))
	if m.crawlsNote != "" && len(m.crawls) == 0 {
		title = "Active crawls" // not known to be none
	}
	out = append(out, "", " "+m.st.Title.Render(title))
	if m.crawlsNote != "" {
		out = append(out, "   "+m.st.Warn.Render("unavailable: "+m.crawlsNote))
	}
	head := len(out)
	var body []string
	selStart := 0
	for i, c := range m.crawls {
		if i == m.crawlSel {
			selStart = len(body)
		}
		line := "   " + describe.OneLine(c.URL, 70) + "  " + m.st.Muted.Render(describe.ShortID(c.ID))
		if i == m.crawlSel {
			line = m.st.Selected.Render(padStyled(" "+m.sym.Arrow+" "+describe.OneLine(c.URL, 70)+"  "+describe.ShortID(c.ID), m.width))
		}
		body = append(body, line)
		if c.SetAside != "" {
			body = append(body, "       "+m.st.Warn.Render("set aside: "+c.SetAside))
			continue
		}
		opts := scrapeopts.Render(scrapeopts.ScrapeOptions(c.Options))
		if len(opts) == 0 {
			body = append(body, "       "+m.st.Muted.Render("(v2 defaults)"))
		}
		for _, o := range opts {
			body = append(body, "       "+m.st.Muted.Render(o.Name+":")+" "+o.Value)
			if o.Renamed != "" {
				body = append(body, "         "+m.st.Warn.Render(m.sym.Warn+" renamed: "+o.Renamed))
			}
		}
	}
	if len(m.crawls) == 0 && m.crawlsNote == "" {
		body = append(body, "   "+m.st.Muted.Render("none"))
	}
	room := max(h-head, 1)
	// Scroll so that the selected crawl's whole block shows.
	selEnd := len(body)
	if m.crawlSel+1 < len(m.crawls) {
		for i := selStart + 1; i < len(body); i++ {
			if !strings.HasPrefix(body[i], "       ") {
				selEnd = i
				break
			}
		}
	}
	start := 0
	if selEnd > room {
		start = min(selStart, selEnd-room)
	}
	for i := start; i < len(body) && len(out) < h; i++ {
		out = append(out, body[i])
	}
	return out
}
