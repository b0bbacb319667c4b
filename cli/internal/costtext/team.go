package costtext

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/cli/internal/historytext"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// cost --team: the service's own figures for the team (the billing
// period's balance, the historical bins by day and by API key, the last 24
// hours of activity) beside what the archive knows exactly (agent runs,
// crawls). The period's use is split into the archive's agent runs
// (billed), its crawls, and the rest of the team's usage: the service's
// total minus those two, named as such. Each part the service does not
// give (a self-hosted service answers 404 or 501) or gives in a form that
// cannot be used is named in unavailable; the rest is shown.

// Ledger is cost --team's: the period, its parts, the service's bins and
// activity, and what could not be learned.
type Ledger struct {
	Period *Period `json:"period"`
	// PeriodChanged is set when the billing period turned over while cost
	// asked: Period and every figure of it are then the new period's.
	PeriodChanged *PeriodChange `json:"periodChanged,omitempty"`
	Parts         *Parts        `json:"parts"`
	Projection    *Projection   `json:"projection"`
	ByDay         []Day         `json:"byDay"`
	ByKey         []Key         `json:"byKey"`
	Activity      []Activity    `json:"activity"`
	// Unavailable names each part that could not be learned, and why.
	Unavailable map[string]string `json:"unavailable,omitempty"`

	// Failed are the parts that failed other than by being absent: the
	// command exits 1 after showing the rest.
	Failed []error `json:"-"`
}

type Period struct {
	Start            *time.Time `json:"start"`
	End              *time.Time `json:"end"`
	PlanCredits      *float64   `json:"planCredits"`
	RemainingCredits *float64   `json:"remainingCredits"`
	UsedCredits      *float64   `json:"usedCredits"` // plan − remaining
	// Source: "credit-usage", or "token-usage" (its tokens / 15) where the
	// service has no credit-usage.
	Source string `json:"source"`
}

type Parts struct {
	AgentRuns Runs   `json:"agentRuns"`
	Crawls    Crawls `json:"crawls"`
	// Rest is the service's total minus the billed agent runs and the
	// crawls: what the team used that firewatch cannot attribute
	// (scrapes, searches, extracts, maps, runs of another archive, runs
	// whose outcome is not known yet). Null when the total is not known.
	Rest *float64 `json:"rest"`
	// RestWhy says why Rest is negative (never silently).
	RestWhy string `json:"restWhy,omitempty"`
	// Total is the service's figure the three parts add up to.
	Total *float64 `json:"total"`
}

type Runs struct {
	Runs           int     `json:"runs"`
	BilledCredits  float64 `json:"billedCredits"`
	FailedRuns     int     `json:"failedRuns"`
	FailedCredits  float64 `json:"failedCredits"` // not billed: not in the total
	UnknownRuns    int     `json:"unknownRuns"`
	UnknownCredits float64 `json:"unknownCredits"` // outcome not known: in the rest
}

type Crawls struct {
	Crawls      int     `json:"crawls"`
	CreditsUsed float64 `json:"creditsUsed"`
	Unfinished  int     `json:"unfinished"` // still going when last seen: their credits so far
}

type Projection struct {
	PerDay        float64    `json:"perDay"` // the last 7 whole days' mean
	Days          int        `json:"days"`   // the days it is taken over
	LastsUntil    *time.Time `json:"lastsUntil"`
	DaysBeforeEnd *int       `json:"daysBeforeEnd"` // > 0: the plan runs out that many days before the period ends
	Text          string     `json:"text"`
}

type Day struct {
	Day     string   `json:"day"`     // YYYY-MM-DD (UTC)
	Credits *float64 `json:"credits"` // the service's; null: unusable figure
	// The archive's part of the day, where it has runs or crawls of it.
	AgentRuns *float64 `json:"agentRuns"`
	Crawls    *float64 `json:"crawls"`
	Rest      *float64 `json:"rest"`
}

type Key struct {
	Month   string   `json:"month"` // YYYY-MM
	APIKey  string   `json:"apiKey"`
	Credits *float64 `json:"credits"`
}

type Activity struct {
	Endpoint string   `json:"endpoint"`
	Count    int      `json:"count"`
	Newest   []string `json:"newest"` // up to three targets, newest first
}

// Service is what cost --team asks (*poller.Client is one).
type Service interface {
	CreditUsage(ctx context.Context) (*poller.CreditUsage, error)
	UsageHistory(ctx context.Context, timeRange string, byKey bool) (*poller.UsageHistory, error)
	Activity(ctx context.Context, pages int) ([]poller.Activity, error)
}

// Absent reports whether err is a service without the endpoint (404, or
// 501 from a self-hosted one without its analytics store).
func Absent(err error) (string, bool) {
	var pe *poller.Error
	if errors.As(err, &pe) && (pe.Status == 404 || pe.Status == 501 || pe.Kind == poller.KindNotFound) {
		return fmt.Sprintf("not offered by this service (%d)", pe.Status), true
	}
	return "", false
}

// BuildTeam asks the service and joins its figures to the archive's runs
// and crawls of service. now is the clock for the projection.
func BuildTeam(ctx context.Context, svc Service, st archive.Store, service string, secrets *text.Secrets, now time.Time) (*Ledger, error) {
	t := &Ledger{Unavailable: map[string]string{}, ByDay: []Day{}, ByKey: []Key{}, Activity: []Activity{}}
	miss := func(part string, err error) {
		if why, ok := Absent(err); ok {
			t.Unavailable[part] = why
			return
		}
		t.Unavailable[part] = secrets.Redact(text.Sanitize(err.Error()))
		t.Failed = append(t.Failed, fmt.Errorf("%s: %w", part, err))
	}
	cu, err := svc.CreditUsage(ctx)
	if err != nil {
		var pe *poller.Error
		if errors.As(err, &pe) && (pe.Kind == poller.KindUnauthorized || pe.Kind == poller.KindNetwork || pe.Kind == poller.KindInsecure) || ctx.Err() != nil {
			return nil, err // nothing else would answer either
		}
		miss("period", err)
	}
	start, end := t.setPeriod(cu)
	if err := t.addParts(ctx, st, service, start, end); err != nil {
		return nil, err
	}
	month, err := svc.UsageHistory(ctx, "month", false)
	if err != nil {
		miss("byDay", err)
	} else {
		if err := t.addDays(ctx, st, service, month); err != nil {
			return nil, err
		}
		t.project(month, now)
	}
	keys, err := svc.UsageHistory(ctx, "", true)
	if err != nil {
		miss("byKey", err)
	} else {
		for _, b := range keys.Bins {
			t.ByKey = append(t.ByKey, Key{Month: b.Start.UTC().Format("2006-01"), APIKey: keyName(secrets.Redact(b.APIKey)), Credits: b.Credits})
		}
		if keys.Dropped > 0 {
			t.Unavailable["byKey"] = fmt.Sprintf("%d rows with a figure that cannot be used (negative, absurd or absent) are shown without it", keys.Dropped)
		}
	}
	act, err := svc.Activity(ctx, 5)
	if err != nil {
		miss("activity", err)
	} else {
		t.addActivity(act, secrets)
	}
	if err := t.recheckPeriod(ctx, svc, st, service, month, start, end, now); err != nil {
		return nil, err
	}
	if t.Projection == nil && t.Unavailable["projection"] == "" {
		t.Unavailable["projection"] = "no usage by day to take a rate from"
	}
	if len(t.Unavailable) == 0 {
		t.Unavailable = nil
	}
	return t, nil
}

// setPeriod takes the period's balance from cu (nil: not learned) and
// returns the period's bounds (zero: none usable).
func (t *Ledger) setPeriod(cu *poller.CreditUsage) (start, end time.Time) {
	if cu == nil {
		return start, end
	}
	delete(t.Unavailable, "total")
	p := &Period{PlanCredits: cu.Plan, RemainingCredits: cu.Remaining, Source: "credit-usage"}
	if cu.FromTokens {
		p.Source = "token-usage"
	}
	if !cu.PeriodStart.IsZero() && !cu.PeriodEnd.IsZero() && cu.PeriodEnd.After(cu.PeriodStart) {
		start, end = cu.PeriodStart.UTC(), cu.PeriodEnd.UTC()
		p.Start, p.End = &start, &end
	} else {
		t.Unavailable["period"] = "the service gave no usable billing period"
	}
	switch {
	case cu.Plan == nil:
		t.Unavailable["total"] = "the service gave no usable plan figure"
	case cu.Remaining == nil:
		t.Unavailable["total"] = "the service gave no usable remaining figure"
	default:
		used := *cu.Plan - *cu.Remaining
		p.UsedCredits = &used
	}
	t.Period = p
	return start, end
}

// recheckPeriod asks the balance again once the other parts have come: a
// billing period that turned over meanwhile (the service's start or end
// differs) is said, and the period's figures (balance, parts, projection)
// are all the new period's, never the old total beside the new split. An
// answer that fails or has no usable period changes nothing.
func (t *Ledger) recheckPeriod(ctx context.Context, svc Service, st archive.Store, service string, month *poller.UsageHistory, start, end, now time.Time) error {
	if start.IsZero() {
		return nil
	}
	cu, err := svc.CreditUsage(ctx)
	if err != nil || cu == nil || cu.PeriodStart.IsZero() || !cu.PeriodEnd.After(cu.PeriodStart) ||
		cu.PeriodStart.Equal(start) && cu.PeriodEnd.Equal(end) {
		return nil
	}
	from := Span{Start: start, End: end}
	ns, ne := t.setPeriod(cu)
	t.PeriodChanged = &PeriodChange{From: from, To: Span{Start: ns, End: ne},
		Text: "the billing period changed while cost asked the service (" + from.text() + ", then " + Span{Start: ns, End: ne}.text() +
			"): the period's figures are all the new period's"}
	t.Parts = nil
	if err := t.addParts(ctx, st, service, ns, ne); err != nil {
		return err
	}
	t.Projection = nil
	delete(t.Unavailable, "projection")
	if month != nil {
		t.project(month, now)
	}
	return nil
}

// Span is a billing period's bounds.
type Span struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

func (s Span) text() string {
	return s.Start.Format("Jan 2") + " – " + s.End.Format("Jan 2, 2006")
}

// PeriodChange is a billing period that turned over between the
// requests cost --team made.
type PeriodChange struct {
	From Span   `json:"from"`
	To   Span   `json:"to"`
	Text string `json:"text"`
}

// keyLike is a key's value as the service's keys look (fc-…, fco_…,
// fcmcp_…): the service names keys, and a name that looks like a value
// is shown cut.
var keyLike = regexp.MustCompile(`^(fc-|fco_|fcmcp_)[A-Za-z0-9]{16,}$`)

// keyName is a key's name as shown: one that looks like a key's value is
// cut to its prefix and last four characters.
func keyName(s string) string {
	if m := keyLike.FindStringSubmatch(s); m != nil {
		return m[1] + "…" + s[len(s)-4:] + " (looks like a key: cut)"
	}
	return s
}

// addParts splits the period's use: the archive's runs and crawls created
// in it, and the rest.
func (t *Ledger) addParts(ctx context.Context, st archive.Store, service string, start, end time.Time) error {
	if start.IsZero() {
		return nil
	}
	runs, err := st.List(ctx, archive.Query{Service: service, Since: start, Before: end})
	if err != nil {
		return &StoreError{err}
	}
	crawls, err := historytext.Crawls(ctx, st, archive.Query{Service: service, Since: start, Before: end})
	if err != nil {
		return &StoreError{err}
	}
	rep := Build("day", runs, time.Now())
	p := &Parts{AgentRuns: Runs{Runs: rep.Total.Runs, BilledCredits: rep.Total.BilledCredits, FailedRuns: rep.Total.FailedRuns,
		FailedCredits: rep.Total.FailedCredits, UnknownRuns: rep.Total.UnknownRuns, UnknownCredits: rep.Total.UnknownCredits}}
	var cs microSum
	for _, c := range crawls {
		p.Crawls.Crawls++
		cs.add(MicroOf(c.CreditsUsed))
		if !archive.CrawlEnded(c.Status) {
			p.Crawls.Unfinished++
		}
	}
	p.Crawls.CreditsUsed = cs.credits()
	if t.Period != nil && t.Period.UsedCredits != nil {
		total := *t.Period.UsedCredits
		rest := math.Round((total-p.AgentRuns.BilledCredits-p.Crawls.CreditsUsed)*micro) / micro
		p.Total, p.Rest = &total, &rest
		if rest < 0 {
			p.RestWhy = "the archive counts more than the service's total for the period: runs or crawls the service counts in another period " +
				"(the archive dates them by creation), a figure the service has not counted yet, or a period that changed"
		}
	}
	t.Parts = p
	return nil
}

// MicroOf is a figure in micro-credits, bounded as cost bounds a run's.
func MicroOf(f *float64) uint64 {
	if f == nil || !(*f > 0) {
		return 0
	}
	return uint64(math.Round(min(*f, model.MaxCredits) * micro))
}

// addDays is the historical month's daily bins, with the archive's part
// of each day where it has runs or crawls created that day.
func (t *Ledger) addDays(ctx context.Context, st archive.Store, service string, h *poller.UsageHistory) error {
	if h.Dropped > 0 {
		t.Unavailable["byDay"] = fmt.Sprintf("%d days with a figure that cannot be used (negative, absurd or absent) are shown without it", h.Dropped)
	}
	if len(h.Bins) == 0 {
		return nil
	}
	first, last := h.Bins[0].Start, h.Bins[len(h.Bins)-1].End
	for _, b := range h.Bins {
		if !b.Start.IsZero() && b.Start.Before(first) {
			first = b.Start
		}
		if b.End.After(last) {
			last = b.End
		}
	}
	agent, crawl := map[string]float64{}, map[string]float64{}
	if !first.IsZero() && last.After(first) && last.Sub(first) <= 400*24*time.Hour {
		runs, err := st.List(ctx, archive.Query{Service: service, Since: first, Before: last})
		if err != nil {
			return &StoreError{err}
		}
		for _, b := range Build("day", runs, time.Now()).Buckets {
			agent[b.Key] = b.BilledCredits
		}
		crawls, err := historytext.Crawls(ctx, st, archive.Query{Service: service, Since: first, Before: last})
		if err != nil {
			return &StoreError{err}
		}
		for _, c := range crawls {
			if c.CreatedAt != nil {
				crawl[c.CreatedAt.UTC().Format("2006-01-02")] += float64(MicroOf(c.CreditsUsed)) / micro
			}
		}
	}
	for _, b := range h.Bins {
		d := Day{Day: b.Start.UTC().Format("2006-01-02"), Credits: b.Credits}
		a, hasA := agent[d.Day]
		c, hasC := crawl[d.Day]
		if hasA || hasC {
			d.AgentRuns, d.Crawls = &a, &c
			if b.Credits != nil {
				r := math.Round((*b.Credits-a-c)*micro) / micro
				d.Rest = &r
			}
		}
		t.ByDay = append(t.ByDay, d)
	}
	return nil
}

// project is the plan's end at the rate of the last 7 whole days
// (poller.Project, the team tab's too).
func (t *Ledger) project(h *poller.UsageHistory, now time.Time) {
	if t.Period == nil || t.Period.RemainingCredits == nil || t.Period.End == nil {
		t.Unavailable["projection"] = "no remaining credits or period end to project from"
		return
	}
	pj, why := h.Project(*t.Period.RemainingCredits, *t.Period.End, now)
	if pj == nil {
		t.Unavailable["projection"] = why
		return
	}
	t.Projection = &Projection{PerDay: pj.PerDay, Days: pj.Days, LastsUntil: pj.LastsUntil, DaysBeforeEnd: pj.DaysBeforeEnd, Text: pj.Text}
}

// addActivity counts the last 24 hours per endpoint, most first.
func (t *Ledger) addActivity(list []poller.Activity, secrets *text.Secrets) {
	idx := map[string]int{}
	for _, a := range list {
		ep := a.Endpoint
		if ep == "" {
			ep = "?"
		}
		i, ok := idx[ep]
		if !ok {
			i = len(t.Activity)
			idx[ep] = i
			t.Activity = append(t.Activity, Activity{Endpoint: secrets.Redact(ep), Newest: []string{}})
		}
		x := &t.Activity[i]
		x.Count++
		tg := secrets.Redact(a.Target)
		if tg != "" && len(x.Newest) < 3 && !slices.Contains(x.Newest, tg) {
			x.Newest = append(x.Newest, tg)
		}
	}
	slices.SortStableFunc(t.Activity, func(a, b Activity) int { return b.Count - a.Count })
}

// WriteTeam prints the ledger for people, at most width columns.
func WriteTeam(w io.Writer, t *Ledger, now time.Time) error {
	var b strings.Builder
	line := func(label, value string) { fmt.Fprintf(&b, "%-18s%s\n", label, value) }
	b.WriteString("The team's usage: the service's figures beside the archive's (exact)\n\n")
	if pc := t.PeriodChanged; pc != nil {
		b.WriteString(wrapNote("Note: "+pc.Text+".", 80))
		b.WriteString("\n")
	}
	if p := t.Period; p != nil {
		if p.Start != nil {
			left := ""
			if p.End.After(now) {
				left = ", " + daysLeft(p.End.Sub(now)) + " left"
			}
			line("Billing period", p.Start.Format("Jan 2")+" – "+p.End.Format("Jan 2, 2006")+left)
		}
		switch {
		case p.UsedCredits != nil && *p.PlanCredits > 0:
			line("Used", fmt.Sprintf("%s of %s (%.1f%%)", text.Number(*p.UsedCredits), text.Credits(*p.PlanCredits), *p.UsedCredits / *p.PlanCredits * 100))
		case p.RemainingCredits != nil:
			line("Remaining", text.Credits(*p.RemainingCredits))
		}
		if p.Source == "token-usage" {
			line("", "(from the token usage, 15 tokens a credit: the service has no credit usage)")
		}
	}
	if pr := t.Parts; pr != nil {
		b.WriteString("\nWhere the period's credits went\n")
		row := func(label, credits, note string) {
			b.WriteString(strings.TrimRight(fmt.Sprintf("  %-29s%12s  %s", label, credits, note), " ") + "\n")
		}
		ar := pr.AgentRuns
		row("agent runs, billed (archive)", text.Number(ar.BilledCredits), text.Plural(ar.Runs-ar.FailedRuns-ar.UnknownRuns, "run", "runs"))
		cr := pr.Crawls
		note := text.Plural(cr.Crawls, "crawl", "crawls")
		if cr.Unfinished > 0 {
			note += fmt.Sprintf(", %d still going", cr.Unfinished)
		}
		row("crawls (archive)", text.Number(cr.CreditsUsed), note)
		if pr.Rest != nil {
			row("rest of the team's usage", text.Number(*pr.Rest), "the service's total minus the above")
			row("total (the service's)", text.Number(*pr.Total), "")
		} else {
			row("rest of the team's usage", "?", "the service's total is not known")
		}
		if ar.FailedRuns > 0 {
			row("failed runs, not billed", text.Number(ar.FailedCredits), text.Plural(ar.FailedRuns, "run", "runs")+", not in the total")
		}
		if ar.UnknownRuns > 0 {
			row("outcome not known yet", text.Number(ar.UnknownCredits), text.Plural(ar.UnknownRuns, "run", "runs")+", counted in the rest")
		}
		if pr.RestWhy != "" {
			b.WriteString(wrapNote("  The rest is negative: "+pr.RestWhy+".", 80))
		}
	}
	if pj := t.Projection; pj != nil {
		b.WriteString("\n")
		b.WriteString(wrapIndent(fmt.Sprintf("%-18s", "Projection"), pj.Text, 80, 18))
	}
	if len(t.Activity) > 0 {
		b.WriteString("\nThe last 24 hours by endpoint (the service gives no credits per call)\n")
		for _, a := range t.Activity {
			fmt.Fprintf(&b, "  %-14s%6d  %s\n", describe.OneLine(a.Endpoint, 14), a.Count, describe.OneLine(strings.Join(a.Newest, ", "), 56))
		}
	}
	if len(t.ByDay) > 0 {
		b.WriteString("\nBy day (UTC; the archive's part where it has runs or crawls of the day)\n")
		fmt.Fprintf(&b, "  %-12s%12s%12s%10s%12s\n", "DAY", "CREDITS", "AGENT RUNS", "CRAWLS", "REST")
		for _, d := range t.ByDay {
			fmt.Fprintf(&b, "  %-12s%12s%12s%10s%12s\n", d.Day, numOr(d.Credits), numOr(d.AgentRuns), numOr(d.Crawls), numOr(d.Rest))
		}
	}
	if len(t.ByKey) > 0 {
		b.WriteString("\nBy API key and month (the keys' names as the service gives them)\n")
		fmt.Fprintf(&b, "  %-9s%-40s%12s\n", "MONTH", "KEY", "CREDITS")
		for _, k := range t.ByKey {
			fmt.Fprintf(&b, "  %-9s%-40s%12s\n", k.Month, describe.OneLine(k.APIKey, 38), numOr(k.Credits))
		}
	}
	if len(t.Unavailable) > 0 {
		b.WriteString("\nNot learned\n")
		keys := make([]string, 0, len(t.Unavailable))
		for k := range t.Unavailable {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			b.WriteString(wrapNote(fmt.Sprintf("  %s: %s", k, describe.OneLine(t.Unavailable[k], 300)), 80))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// daysLeft is a period's time left in days (hours in its last day).
func daysLeft(d time.Duration) string {
	if d < 24*time.Hour {
		return text.Remaining(d)
	}
	return text.Plural(int(d.Hours()/24), "day", "days")
}

func numOr(f *float64) string {
	if f == nil {
		return "-"
	}
	return text.Number(*f)
}

// wrapNote wraps s at width on spaces, keeping its leading spaces and
// indenting the lines after the first by four.
func wrapNote(s string, width int) string {
	body := strings.TrimLeft(s, " ")
	return wrapIndent(s[:len(s)-len(body)], body, width, 4)
}

// wrapIndent is prefix then text wrapped at width on spaces, the lines
// after the first indented by indent.
func wrapIndent(prefix, text string, width, indent int) string {
	var b strings.Builder
	b.WriteString(prefix)
	n := len([]rune(prefix))
	for i, w := range strings.Fields(text) {
		wl := len([]rune(w))
		switch {
		case i == 0:
			b.WriteString(w)
			n += wl
		case n+1+wl > width:
			b.WriteString("\n" + strings.Repeat(" ", indent) + w)
			n = indent + wl
		default:
			b.WriteString(" " + w)
			n += 1 + wl
		}
	}
	b.WriteString("\n")
	return b.String()
}

var _ Service = (*poller.Client)(nil)
