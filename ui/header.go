package ui

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/attn"
)

// The header: run id, state badge, phase and message, elapsed time,
// credits and tokens, the team's remaining tokens and the connection's
// health; the phase bar; the end-of-run banner.

func (m *Model) shortID() string {
	id := m.env.store.Run().ID
	if id == "" {
		id = m.jobID
	}
	if id == "" {
		return "--------"
	}
	return describe.ShortID(id)
}

// stateWord is the badge's text: running, cancel requested, succeeded,
// failed, cancelled, refused, credit limit (or an unknown outcome as sent).
func (m *Model) stateWord() string {
	r := m.env.store.Run()
	if r.State != model.StateFinished {
		switch {
		case r.CancelRequested:
			return "cancel requested"
		case m.done:
			// The watch ended (a refusal, a recording that stops early):
			// the run's end is unknown.
			return "not finished"
		}
		return "running"
	}
	switch r.Outcome {
	case model.OutcomeCreditLimitReached:
		return "credit limit"
	case "":
		return "finished"
	}
	return string(r.Outcome)
}

func (m *Model) badgeStyle() theme.Style {
	st := m.env.st
	r := m.env.store.Run()
	if r.State != model.StateFinished {
		if r.CancelRequested || m.done {
			return st.BadgeWarn
		}
		return st.BadgeRunning
	}
	switch r.Outcome {
	case model.OutcomeSucceeded:
		return st.BadgeGood
	case model.OutcomeCancelled, model.OutcomeCreditLimitReached:
		return st.BadgeWarn
	}
	return st.BadgeBad
}

func (m *Model) badge() string {
	sym := m.env.sym
	r := m.env.store.Run()
	mark := sym.Running
	if r.State == model.StateFinished {
		mark, _ = outcomeSymbol(r.Outcome, m.env.st, sym)
	}
	return " " + mark + " " + m.stateWord() + " "
}

// spinner turns once a second while the run is running. It sits next to
// the elapsed time, which changes at the same moment, so that a tick
// rewrites a few adjacent cells and not the whole header line.
func (m *Model) spinner() string {
	sym := m.env.sym
	if m.running() && !m.paused && len(sym.Spinner) > 0 {
		return sym.Spinner[m.spin%len(sym.Spinner)]
	}
	return " "
}

// elapsed is the run's duration so far (or in all, once finished).
func (m *Model) elapsed() string {
	r := m.env.store.Run()
	if d, ok := r.Duration(); ok {
		return text.Duration(d)
	}
	if r.StartedAt.IsZero() {
		return "-"
	}
	if r.State == model.StateFinished {
		return "-"
	}
	d, _ := m.env.since(r.StartedAt)
	if m.done {
		return "-"
	}
	return text.Elapsed(d)
}

// actorTexts is who cancelled the run (a cancelled run, or one whose
// cancel a hub asked for) or else who started it through a hub, longest
// form first; nil when there is nothing to say. A cancel firewatch did not
// see is said to be unknown, never given a name.
func (m *Model) actorTexts() []string {
	r := m.env.store.Run()
	a := m.env.store.Actors()
	switch {
	case a.CancelledBy == "" && a.CancelledHere && (r.CancelRequested || r.Outcome == model.OutcomeCancelled):
		return []string{"by " + describe.CancelledHere, "by this firewatch"}
	case r.State == model.StateFinished && r.Outcome == model.OutcomeCancelled && a.CancelledBy == "":
		return []string{"by " + describe.UnknownCanceller, "by someone firewatch did not see", "by ?"}
	case a.CancelledBy != "" && (r.CancelRequested || r.Outcome == model.OutcomeCancelled):
		return []string{"by " + describe.CancelledBy(a), "by " + flat(person(a.CancelledBy))}
	case a.StartedBy != "":
		return []string{"started by " + describe.StartedBy(a), "started by " + flat(person(a.StartedBy))}
	}
	return nil
}

// threadTexts names the run's thread and turn, longest form first; nil
// when the service did not say.
func (m *Model) threadTexts() []string {
	t := m.env.store.Thread()
	if t.ID == "" {
		return nil
	}
	th := "thread " + describe.ShortID(t.ID)
	if t.Turn == 0 {
		return []string{th}
	}
	turn := "turn " + strconv.Itoa(t.Turn)
	return []string{th + " · " + turn, turn}
}

func (m *Model) headerLines(compact bool) []string {
	st := m.env.st
	r := m.env.store.Run()
	w := m.width

	// Line 1: name, id, badge, phase and message | elapsed.
	l1 := newRow(w, m.env.ascii)
	l1.space(1)
	if !compact {
		l1.add(st.Bold, "firewatch")
		l1.space(2)
	}
	l1.add(st.Muted, m.shortID())
	l1.space(2)
	l1.add(m.badgeStyle(), m.badge())
	l1.space(2)
	// The right part has a fixed width so that the phase text before it
	// never moves when the elapsed time grows a digit.
	right := "elapsed " + m.elapsed() + " " + m.spinner()
	reserve := len("elapsed 12h59m ") + 2
	if compact {
		right = m.elapsed() + " " + m.spinner()
		reserve = len("12h59m ") + 2
	}
	phase := ""
	if r.Phase != "" || r.Message != "" {
		phase = string(r.Phase)
		if r.Message != "" {
			phase += ": " + r.Message
		}
	}
	room := l1.left() - reserve - 2
	if who := m.actorTexts(); len(who) > 0 && room > 0 {
		// Who cancelled or started it, before the phase: the first form
		// that fits.
		w := who[len(who)-1]
		for _, c := range who {
			if width(c) <= room {
				w = c
				break
			}
		}
		w = cut(flat(w), room, m.env.sym.Ellipsis)
		l1.add(st.Muted, w)
		room -= width(w)
		if phase != "" && room > 3 {
			l1.add(st.Muted, " · ")
			room -= 3
		}
	}
	if room > 0 && phase != "" {
		l1.add(st.Text, cut(flat(phase), room, m.env.sym.Ellipsis))
	}
	l1.addRight(st.Text, right+" ")

	// Line 2: credits and tokens, errors, the connection | the team's
	// tokens. What changes with every poll (credits, the last poll's
	// time) sits together: the renderer rewrites a line from its first
	// changed cell to its last.
	l2 := newRow(w, m.env.ascii)
	l2.space(1)
	var parts []string
	if r.HasCredits {
		parts = append(parts, describe.Credits(r.CreditsUsed))
		if b := attn.Burn(m.env.attn, m.env.sym, compact); b != "" {
			parts = append(parts, b)
		}
	} else {
		parts = append(parts, "credits: -")
	}
	if n := len(m.env.store.Errors()); n > 0 && !compact {
		parts = append(parts, describe.Count(n, "error"))
	}
	left := m.env.text(strings.Join(parts, " · "))
	var teams []string // what the team has left, longest first, then none
	if t := m.tokens; t != nil && !m.health.TokensHidden && !compact {
		// In credits, as the runs screen's title says it.
		c := math.Round(m.teamTokens(t) / model.TokensPerCredit)
		teams = append(teams, "team "+text.Credits(c)+" left", "team "+text.Number(c)+" left")
	}
	teams = append(teams, "")
	if m.person != "" {
		// Who the session is on a hub, at the right, the team figure
		// before it while there is room.
		for i, t := range teams {
			if t == "" {
				teams[i] = m.person
			} else {
				teams[i] = t + " · " + m.person
			}
		}
		teams = append(teams, "")
	}
	healths, hst := m.healthTexts()
	if b := attn.BadgeText(m.env.attn, m.env.sym); b != "" {
		l2.add(st.BadgeWarn, b)
		l2.space(1)
	}
	l2.add(st.Text, left)
	if th := m.threadTexts(); len(th) > 0 {
		// The run's thread and turn, after the credits: the first form
		// that leaves the connection's shortest state its room.
		need := 3
		if healths[0] != "" {
			need += width(healths[len(healths)-1]) + 3
		}
		for _, t := range th {
			if width(t) <= l2.left()-need {
				l2.add(st.Muted, " · "+t)
				break
			}
		}
	}
	// The connection's state is never cut while a shorter team figure, a
	// shorter state, or no team figure makes it fit.
	health, team := healths[0], teams[0]
	if health != "" {
		room := l2.left() - 1 - 3
		fits := func(h, t string) bool {
			need := width(h)
			if t != "" {
				need += width(t) + 3
			}
			return need <= room
		}
		// The whole state with a shorter team figure first, then the
		// short state; the team figure goes last.
		health, team = healths[len(healths)-1], ""
	search:
		for _, ts := range [][]string{teams[:len(teams)-1], teams[len(teams)-1:]} {
			for _, h := range healths {
				for _, t := range ts {
					if fits(h, t) {
						health, team = h, t
						break search
					}
				}
			}
		}
		l2.add(st.Muted, " · ")
		r := room
		if team != "" {
			r -= width(team) + 3
		}
		l2.add(hst, cut(health, max(0, r), m.env.sym.Ellipsis))
	}
	if team != "" {
		l2.addRight(st.Muted, team+" ")
	}
	return []string{l1.String(), l2.String()}
}

// teamTokens is the team's tokens left, moving with the run: the last
// figure the service gave, less what the run has used since (1 credit is
// 15 tokens), so that it does not wait for the next fetch (a minute) or
// the end of the run to move.
func (m *Model) teamTokens(t *poller.TokenUsage) float64 {
	used := m.env.store.Run().CreditsUsed - m.tokensAt
	if used <= 0 {
		return t.RemainingTokens
	}
	return max(t.RemainingTokens-used*model.TokensPerCredit, 0)
}

// healthTexts is healthText, then a shorter form when there is one.
func (m *Model) healthTexts() ([]string, theme.Style) {
	s, st := m.healthText()
	out := []string{s}
	if short, _, ok := strings.Cut(s, ", polling every "); ok {
		out = append(out, short)
	}
	return out, st
}

// healthText is the connection's state: connecting, ok with the last poll,
// retrying with why and when, paused, or how the watch ended.
func (m *Model) healthText() (string, theme.Style) {
	st, sym := m.env.st, m.env.sym
	h := m.health
	now := m.env.clock.wall()
	switch {
	case m.done && m.lastErr != "":
		return sym.Failed + " " + m.lastErr, st.Bad
	case m.paused:
		return sym.Paused + " paused · p resumes", st.Warn
	case m.done:
		if h.Replay {
			return "replay ended", st.Muted
		}
		if !h.LastGood.IsZero() {
			return "watch ended · last poll " + m.env.clockTime(h.LastGood), st.Muted
		}
		return "watch ended", st.Muted
	case !m.hasHealth:
		if m.backend == nil && m.updates == nil {
			return "", st.Muted
		}
		return "connecting" + sym.Ellipsis, st.Muted
	case h.Failures > 0:
		return sym.Warn + " " + oneLine(h.StringAt(now)), st.Warn
	case h.Replay:
		return "replay", st.Muted
	case h.Polls == 0:
		return "connecting" + sym.Ellipsis, st.Muted
	}
	// Healthy, the line says so and nothing more: a poll time (or a "2s
	// ago") here would repaint the line at every poll or every second
	// for no news. The last good poll shows when there is trouble.
	s := sym.OK + " live"
	switch {
	case h.Via != "":
		// Another firewatch polls the run; this one reads what it stores.
		s += ", polled by " + oneLine(h.Via)
	case h.Interval > 0:
		s += ", polling every " + interval(h.Interval)
	}
	if h.Tail {
		s = "run finished, waiting for late events"
	}
	return s, st.Muted
}

// phases is the order of the phase bar.
var phases = []model.Phase{model.PhasePlanning, model.PhaseWorking, model.PhaseFinalizing}

// phaseBar shows where the run is: planning → working → finalizing.
func (m *Model) phaseBar() string {
	st, sym := m.env.st, m.env.sym
	r := m.env.store.Run()
	finished := r.State == model.StateFinished
	cur := slices.Index(phases, r.Phase)
	reached := func(i int) bool {
		return slices.Contains(r.PhasesSeen, phases[i]) || (cur >= 0 && i <= cur)
	}
	labels := make([]string, len(phases))
	lw := 0
	for i, p := range phases {
		mark := sym.PhaseTodo
		switch {
		case i == cur && !finished:
			mark = sym.PhaseNow
		case reached(i):
			mark = sym.PhaseDone
		}
		labels[i] = mark + " " + string(p)
		lw += width(labels[i])
	}
	extra := ""
	if cur < 0 && r.Phase != "" {
		extra = "  " + sym.PhaseNow + " " + string(r.Phase)
	}
	cw := clamp((m.width-2-lw-width(extra)-len(phases)*2)/(len(phases)-1), 3, 36)
	row := newRow(m.width, m.env.ascii)
	row.space(1)
	for i := range phases {
		lst := st.Muted
		switch {
		case i == cur && !finished:
			lst = st.TitleFocus
		case reached(i):
			lst = st.Good
		}
		row.add(lst, labels[i])
		if i < len(phases)-1 {
			row.space(1)
			if reached(i + 1) {
				row.add(st.Good, strings.Repeat(sym.PhaseFill, cw-1)+sym.PhaseArrow)
			} else {
				row.add(st.Border, strings.Repeat(sym.PhaseEmpty, cw-1)+sym.PhaseArrow)
			}
			row.space(1)
		}
	}
	row.add(st.Warn, extra)
	return row.String()
}

// bannerHeight is the number of lines of the end-of-run banner.
func (m *Model) bannerHeight(kind int) int {
	r := m.env.store.Run()
	if r.State == model.StateFinished {
		if r.Error != nil {
			return 2
		}
		return 1
	}
	if m.done && m.lastErr != "" {
		return 1
	}
	return 0
}

// banner is the end of the run: outcome, duration, credits and tokens,
// and the fatal error's code, source and message.
func (m *Model) banner(f frame) []string {
	n := m.bannerHeight(f.kind)
	if n == 0 {
		return nil
	}
	st, sym := m.env.st, m.env.sym
	r := m.env.store.Run()
	w := m.width
	if r.State != model.StateFinished {
		return []string{styled(st.BadgeBad, " "+sym.Failed+" watch stopped before the run finished: "+m.lastErr, w, m.env.ascii)}
	}
	mark, _ := outcomeSymbol(r.Outcome, st, sym)
	parts := []string{" " + mark + " Run " + m.stateWord()}
	if r.Outcome == model.OutcomeCreditLimitReached && m.env.attn != nil {
		b := m.env.attn.Burn()
		parts = append(parts, describe.CapHit(b.Cap, b.CapAssumed, r.CreditsUsed))
	}
	if d, ok := r.Duration(); ok {
		parts = append(parts, "in "+text.Duration(d))
	}
	credits := -1
	if r.HasCredits {
		credits = len(parts)
		parts = append(parts, describe.RunCredits(r))
	}
	parts = append(parts, describe.Count(m.env.store.Len(), "event"))
	if n := len(m.env.store.Errors()); n > 0 {
		parts = append(parts, describe.Count(n, "error"))
	}
	line := m.env.text(strings.Join(parts, " · "))
	// The result artifact is one key away: a. When the line is short of
	// room, the hint gets shorter and the credits lose their tokens.
	if hint := m.resultHint(); hint != "" {
		// The short form: the credits without their tokens ("280 credits").
		if credits >= 0 {
			parts[credits] = text.Credits(r.CreditsUsed)
		}
		short := m.env.text(strings.Join(parts, " · "))
		switch {
		case width(line)+width(hint)+4 <= w:
		case width(line)+len("a: result")+4 <= w:
			hint = "a: result"
		default:
			line, hint = short, "a: result"
		}
		if width(line)+width(hint)+4 <= w {
			line = padRight(line, w-width(hint)-1) + hint
		}
	}
	lines := []string{styled(m.badgeStyle(), line, w, m.env.ascii)}
	if r.Error != nil {
		e := r.Error
		text := "   " + orDash(string(e.Code)) + " · source " + orDash(string(e.Source)) + " · " + retryable(e.Retryable)
		if e.Message != "" {
			text += " · " + e.Message
		}
		lines = append(lines, styled(st.Bad, text, w, m.env.ascii))
	}
	return lines
}

func retryable(b bool) string {
	if b {
		return "retryable"
	}
	return "not retryable"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// itoa is strconv.Itoa, for brevity in row building.
func itoa(n int) string { return strconv.Itoa(n) }

// interval is a poll interval: "2s", "500ms", "1.5s".
func interval(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return text.Duration(d)
}

// person is an actor's record without its hub ("alice via hub prod":
// "alice"), for a header too narrow for both.
func person(actor string) string {
	p, _ := model.SplitActor(actor)
	return p
}
