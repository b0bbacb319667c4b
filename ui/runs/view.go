package runs

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/internal/cell"
)

// Layout: a title line, a filter line, the list (with the details pane at
// its right from 150 columns, else below it), and the footer.

const (
	sideMin    = 150 // from this width the details pane sits at the right
	sideWidth  = 40
	bottomRows = 7 // the details pane's height below the list
)

// layout is the list's width and height.
func (m *Model) layout() (int, int) {
	h := m.height - 3 // title, filter line, footer
	w := m.width
	if m.width >= sideMin {
		w = m.width - sideWidth - 1
	} else {
		h -= bottomRows + 1
	}
	return max(w, 10), max(h, 1)
}

// View draws the screen: exactly height lines, none wider than width.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	var lines []string
	lines = append(lines, m.titleLine())
	switch {
	case m.showHelp:
		lines = append(lines, m.helpLines()...)
	case m.tab == TabTeam:
		lines = append(lines, m.teamLines(m.height-2)...)
	case m.confirmID != "":
		lines = append(lines, m.confirm.Lines(m.st, m.width)...)
	case m.form != nil:
		lines = append(lines, m.formLines()...)
	default:
		lines = append(lines, m.filterLine())
		lines = append(lines, m.body()...)
	}
	for len(lines) < m.height-1 {
		lines = append(lines, "")
	}
	lines = lines[:m.height-1]
	lines = append(lines, m.footer())
	for i, l := range lines {
		lines[i] = fit(l, m.width)
	}
	return strings.Join(lines, "\n")
}

// fit cuts a styled line to w cells, with one ellipsis: a cut that falls
// just after a value's own ellipsis does not add a second.
func fit(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	if w <= 1 {
		return ansi.Truncate(s, w, "")
	}
	t := ansi.Truncate(s, w-1, "")
	if strings.HasSuffix(strings.TrimRight(ansi.Strip(t), " "), "…") {
		return t
	}
	return t + "…"
}

func (m *Model) titleLine() string {
	tabs := []string{"Runs", "Team"}
	var b strings.Builder
	b.WriteString(m.st.Bold.Render("firewatch") + "  ")
	for i, t := range tabs {
		if i == m.tab {
			b.WriteString(m.st.TitleFocus.Render(" " + t + " "))
		} else {
			b.WriteString(m.st.Muted.Render(" " + t + " "))
		}
	}
	right := ""
	if u := m.usage; u != nil {
		right = text.Credits(math.Round(u.RemainingTokens/model.TokensPerCredit)) + " left"
	}
	left := b.String()
	if who := describe.HubPerson(m.cfg.Person, m.cfg.Role); who != "" {
		// Who the session is on a hub, before the team's figure.
		if right == "" {
			right = who
		} else if m.width-ansi.StringWidth(left)-describe.Width(who+" · "+right)-1 > 0 {
			right = who + " · " + right
		} else {
			right = who
		}
	}
	if gap := m.width - ansi.StringWidth(left) - describe.Width(right) - 1; right != "" && gap > 0 {
		return left + strings.Repeat(" ", gap) + m.st.Muted.Render(right)
	}
	return left
}

func (m *Model) filterLine() string {
	var parts []string
	parts = append(parts, "status "+m.st.Accent.Render(m.status))
	switch {
	case m.composing:
		// The end of a long prompt stays in sight while it is typed.
		d := []rune(m.draft)
		for len(d) > 0 && describe.Width(string(d)) > m.width-12 {
			d = d[1:]
		}
		if m.followThread != "" {
			return "follow-up to " + describe.ShortID(m.followOf) + ": " + string(d) + "▏"
		}
		return "new run: " + string(d) + "▏"
	case m.editing:
		parts = append(parts, "filter /"+m.filter+"▏")
	case m.filter != "":
		parts = append(parts, "filter "+m.st.Match.Render(m.filter))
	}
	count := strconv.Itoa(len(m.view)) + " of " + strconv.Itoa(len(m.rows)) + " loaded"
	switch {
	case m.loading:
		count += ", loading more…"
	case !m.done && m.pages > 0:
		count += ", more below"
	case m.stopped != nil:
		var ps *poller.PagingStopped
		if errors.As(m.stopped, &ps) {
			count += ", paging stopped: " + ps.Reason
		}
	}
	parts = append(parts, m.st.Muted.Render(count))
	return strings.Join(parts, m.st.Muted.Render(" · "))
}

// body is the list and the details pane.
func (m *Model) body() []string {
	lw, lh := m.layout()
	list := m.listLines(lw, lh)
	if m.width >= sideMin {
		det := m.detailLines(sideWidth, lh)
		out := make([]string, lh)
		sep := m.st.Border.Render(m.sym.Vertical)
		for i := range lh {
			l, d := "", ""
			if i < len(list) {
				l = list[i]
			}
			if i < len(det) {
				d = det[i]
			}
			out[i] = padStyled(l, lw) + sep + d
		}
		return out
	}
	out := append([]string(nil), list...)
	for len(out) < lh {
		out = append(out, "")
	}
	out = append(out, m.st.Border.Render(strings.Repeat(m.sym.Rule, m.width)))
	return append(out, m.detailLines(m.width, bottomRows)...)
}

func padStyled(s string, w int) string {
	s = fit(s, w)
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// statusSym is the symbol and style of a word shown (status or outcome).
func (m *Model) statusSym(s string) (string, theme.Style) {
	switch strings.ToLower(s) {
	case "processing":
		return m.sym.Running, m.st.Running
	case "completed":
		return m.sym.Succeeded, m.st.Good
	case "failed":
		return m.sym.Failed, m.st.Bad
	case "cancelled", "canceled":
		return m.sym.Cancelled, m.st.Warn
	case "incomplete":
		return m.sym.Unfinished, m.st.Muted
	}
	for _, o := range []model.Outcome{model.OutcomeSucceeded, model.OutcomeRefused, model.OutcomeCreditLimitReached} {
		if in := describe.Outcome(o); in.Word == s {
			sty := m.st.Bad
			if in.Level == describe.Good {
				sty = m.st.Good
			}
			return in.Symbol(m.sym), sty
		}
	}
	return m.sym.Pending, m.st.Muted
}

// listLines draws the visible rows only.
func (m *Model) listLines(w, h int) []string {
	if len(m.view) == 0 {
		switch {
		case m.pages == 0 && m.note == "":
			return []string{m.st.Muted.Render("  loading the team's runs…")}
		case m.note != "" && len(m.rows) == 0:
			return []string{m.st.Bad.Render("  " + m.note)}
		case len(m.rows) == 0:
			return []string{m.st.Muted.Render("  no runs yet: start one with firewatch run \"PROMPT\"")}
		}
		return []string{m.st.Muted.Render("  no run matches (esc clears the filter, 1 shows every status)")}
	}
	now := m.cfg.Now()
	out := make([]string, 0, h)
	// Columns: status 12, id 8, age 9, prompt (rest), model 15, target 18, label.
	showModel, showTarget := w >= 90, w >= 110
	for k := m.top; k < len(m.view) && len(out) < h; k++ {
		r := &m.rows[m.view[k]]
		shown := m.shownStatus(r)
		sym, sty := m.statusSym(shown)
		status := cell.Fit(describe.OneLine(shown, 10), 10, "…")
		id := describe.ShortID(r.ID)
		age := cell.Fit(text.Age(now, r.CreatedAt), 8, "…")
		tail := ""
		if showModel {
			tail += "  " + cell.Fit(ModelEffort(r), 14, "…")
		}
		if showTarget {
			tail += "  " + cell.Fit(describe.OneLine(r.TargetHint, 16), 16, "…")
		}
		mark := m.threadMark(m.view[k], w) + m.marks(r)
		fixed := 2 + 1 + 1 + 10 + 2 + 8 + 2 + 8 + 2
		pw := max(w-fixed-describe.Width(tail)-describe.Width(mark), 8)
		prompt := cell.Fit(mark+FirstLine(r.Prompt, pw+describe.Width(mark)), pw+describe.Width(mark), "…")
		line := " " + sty.Render(sym) + " " + sty.Render(status) + "  " + m.st.Muted.Render(cell.Fit(id, 8, "…")) + "  " + m.st.Muted.Render(age) + "  " + prompt + m.st.Muted.Render(tail)
		if k == m.sel {
			line = m.st.Selected.Render(padStyled(ansi.Strip(line), w))
		}
		out = append(out, line)
	}
	return out
}

// marks are a row's star, [label] and (hidden) marks, as drawn.
func (m *Model) marks(r *poller.RunInfo) string {
	mark := ""
	if r.Starred {
		mark = "★ "
		if m.sym.ASCII {
			mark = "* "
		}
	}
	if r.Label != "" {
		mark += "[" + describe.OneLine(r.Label, 14) + "] "
	}
	if r.Hidden {
		mark += "(hidden) "
	}
	if r.Archived {
		mark += "(archived) "
	}
	return mark
}

// ModelEffort is "spark-2/high", "spark-2", "high" or "".
func ModelEffort(r *poller.RunInfo) string {
	switch {
	case r.Model != "" && r.Effort != "":
		return describe.OneLine(r.Model, 10) + "/" + describe.OneLine(r.Effort, 6)
	case r.Model != "":
		return describe.OneLine(r.Model, 14)
	}
	return describe.OneLine(r.Effort, 14)
}

// FirstLine is a prompt's first non-blank line, cut to n cells.
func FirstLine(s string, n int) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			return describe.OneLine(l, n)
		}
	}
	return ""
}

// detailLines is the selected run's pane.
func (m *Model) detailLines(w, h int) []string {
	r := m.Selected()
	if r == nil {
		return nil
	}
	lab := func(k, v string) string {
		return " " + m.st.Muted.Render(cell.Fit(k, 9, "…")) + describe.Truncate(v, max(w-11, 4))
	}
	out := []string{" " + m.st.Title.Render(describe.Truncate(r.ID, w-1))}
	d := m.details[r.ID]
	switch {
	case d == nil || d.loading && d.st == nil:
		out = append(out, lab("status", describe.OneLine(m.shown(r, nil), 20)+m.st.Muted.Render(" (fetching details…)")))
	case d.st == nil:
		out = append(out, lab("status", describe.OneLine(m.shown(r, nil), 20)), lab("details", m.st.Bad.Render(d.err)))
	default:
		st := d.st
		shown := m.shown(r, st)
		if strings.HasSuffix(st.Status, " (archived)") && !strings.HasSuffix(shown, " (archived)") {
			shown += " (archived)"
		}
		sym, sty := m.statusSym(m.shown(r, st))
		out = append(out, lab("status", sty.Render(sym+" "+describe.OneLine(shown, 32))))
		out = append(out, lab("credits", m.creditsText(r, st)))
		me := describe.OneLine(st.Model, 20)
		if st.Effort != "" {
			me += " / effort " + describe.OneLine(st.Effort, 10)
		}
		out = append(out, lab("model", orDash(me)))
		if st.ThreadID != "" {
			th := describe.ShortID(st.ThreadID)
			if st.ThreadTurn > 0 {
				th += " · turn " + strconv.Itoa(st.ThreadTurn)
			}
			if m.cfg.ReadOnly == "" { // a hub's viewer may not follow up
				th += m.st.Muted.Render("  (F follows up)")
			}
			out = append(out, lab("thread", th))
		}
		if st.ExpiresAt != nil {
			out = append(out, lab("expires", st.ExpiresAt.Local().Format("2006-01-02 15:04")+" ("+until(m.cfg.Now(), *st.ExpiresAt)+")"))
		}
		if st.Error != "" {
			out = append(out, lab("error", m.st.Bad.Render(describe.OneLine(st.Error, 200))))
		}
	}
	var st *poller.Status
	if d != nil {
		st = d.st
	}
	// Who acted comes right after the status, so a short pane (a run
	// with a thread, an expiry and an error) does not cut it.
	if who := m.whoText(r, st); who != "" {
		out = slices.Insert(out, 2, lab("who", who))
	}
	if r.TargetHint != "" {
		out = append(out, lab("target", describe.OneLine(r.TargetHint, 60)))
	}
	if o := r.Origin; o != "" || r.Integration != "" {
		v := describe.OneLine(o, 20)
		if r.Integration != "" {
			v += " via " + describe.OneLine(r.Integration, 20)
		}
		out = append(out, lab("origin", v))
	}
	out = append(out, lab("prompt", FirstLine(r.Prompt, 200)))
	if len(out) > h {
		out = out[:h]
	}
	return out
}

// whoText is who cancelled the run and who started it through a hub, as
// firewatch knows it: "cancelled by alice through the hub · started by
// bob through the hub"; a cancelled run nobody is known to have cancelled
// says so ("cancelled, by the service or a client firewatch did not
// see"). "" when there is nothing to say.
func (m *Model) whoText(r *poller.RunInfo, st *poller.Status) string {
	a := m.actorsOf(r, st)
	var parts []string
	if m.outcome(r, st) == string(model.OutcomeCancelled) || a.CancelledBy != "" {
		parts = append(parts, describe.Cancelled(a))
	}
	if by := describe.StartedBy(a); by != "" {
		parts = append(parts, "started by "+by)
	}
	return strings.Join(parts, " · ")
}

// creditsText is the details' credits: the figure, and what is billed of
// it by the one rule (model.BillOf) once the outcome is known.
func (m *Model) creditsText(r *poller.RunInfo, st *poller.Status) string {
	if st.CreditsUsed == nil {
		return "not reported while running"
	}
	c := describe.Credits(*st.CreditsUsed)
	o := m.outcome(r, st)
	if o == "" {
		return c // the bill follows the outcome, not known here
	}
	switch b := model.BillOf(model.Outcome(o), *st.CreditsUsed); {
	case !b.Known:
		return c + ", billed: not known"
	case b.Billed:
		return c + ", billed"
	}
	return c + ", not billed (a failed run is not billed)"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func until(now, t time.Time) string {
	d := t.Sub(now)
	if d <= 0 {
		return "expired"
	}
	return "in " + text.Remaining(d)
}

func (m *Model) footer() string {
	var parts []string
	if m.note != "" {
		parts = append(parts, m.st.Warn.Render(m.note))
	}
	if m.flash != "" {
		parts = append(parts, m.st.Accent.Render(m.flash))
	}
	if m.editing {
		parts = append(parts, m.st.Key.Render("enter")+" keep  "+m.st.Key.Render("esc")+" clear")
		return strings.Join(parts, "  ")
	}
	if m.composing {
		parts = append(parts, m.st.Key.Render("enter")+" start it and watch it  "+m.st.Key.Render("esc")+" drop it")
		return strings.Join(parts, "  ")
	}
	if m.form != nil {
		parts = append(parts, m.st.Key.Render("tab")+" next field  "+m.st.Key.Render("enter")+" rerun and watch it  "+m.st.Key.Render("esc")+" drop it")
		return strings.Join(parts, "  ")
	}
	if m.confirmID != "" {
		return strings.Join(parts, "  ")
	}
	parts = append(parts, m.keyHelp(m.ShortHelp()))
	return strings.Join(parts, "  ")
}

func (m *Model) keyHelp(bs []key.Binding) string {
	var b []string
	for _, k := range bs {
		h := k.Help()
		b = append(b, m.st.Key.Render(h.Key)+" "+m.st.Muted.Render(h.Desc))
	}
	return strings.Join(b, "  ")
}

// helpLines is the keys, grouped; groups that would not fit the screen's
// height in one column flow into a second beside it, so that at 80x24
// every key is still listed.
func (m *Model) helpLines() []string {
	var groups [][]string
	rows := 0
	for _, g := range m.FullHelp() {
		var lines []string
		for _, k := range g {
			if !k.Enabled() {
				continue // e.g. suspend in a hub's session
			}
			h := k.Help()
			lines = append(lines, "  "+m.st.Key.Render(cell.Fit(h.Key, 10, "…"))+" "+h.Desc)
		}
		if len(lines) == 0 {
			continue
		}
		groups = append(groups, lines)
		rows += len(lines) + 1
	}
	out := []string{m.st.Bold.Render(" Keys"), ""}
	avail := m.height - 1 - len(out) - 1 // the title, the heading, the footer
	if rows <= avail || m.width < 60 {
		for _, g := range groups {
			out = append(append(out, g...), "")
		}
		return out
	}
	// Two columns, split between groups where the taller is shortest.
	split, best, acc := 1, rows, 0
	for i, g := range groups[:len(groups)-1] {
		acc += len(g) + 1
		if t := max(acc, rows-acc); t < best {
			split, best = i+1, t
		}
	}
	var left, right []string
	for i, g := range groups {
		if i < split {
			left = append(append(left, g...), "")
		} else {
			right = append(append(right, g...), "")
		}
	}
	colW := m.width / 2
	for i := range max(len(left), len(right)) {
		var l, r string
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		if r == "" {
			out = append(out, l) // no trailing blanks to send
			continue
		}
		out = append(out, padStyled(l, colW-1)+" "+r)
	}
	return out
}
