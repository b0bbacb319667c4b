package watchprint

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// plainPrinter writes one aligned line per event:
//
//	12:04:05.123  orchestrator          phase     working: Comparing pricing
//	12:04:05.480    pricing-researcher  tool      mcp__tools__search query="…" limit=5
//
// then a short closing block. Only text that went through describe (which
// sanitises) reaches the output, and escape sequences are added only for
// colour on a terminal.
type Plain struct {
	w      Watch
	ascii  bool
	color  bool
	agentW int // agent column
	lineW  int // the most cells a line takes
	buf    strings.Builder
}

// Column widths.
const (
	timeW      = len("15:04:05.000")
	gap        = "  "
	maxIndent  = 6   // depth levels indented; deeper ones line up with the sixth
	pipeLineW  = 200 // line width when stdout is not a terminal
	minDetailW = 24
	// DefaultTermW is the width taken for a terminal whose size
	// cannot be read.
	DefaultTermW = 100
)

// NewPlain is the plain printer of w.
func NewPlain(w Watch) *Plain {
	p := &Plain{w: w, ascii: w.ASCII, color: w.Color, agentW: 22, lineW: pipeLineW}
	if w.Width > 0 {
		p.lineW = w.Width
		switch {
		case w.Width < 80:
			p.agentW = 12
		case w.Width < 100:
			p.agentW = 18
		case w.Width >= 140:
			p.agentW = 26
		}
	}
	return p
}

// SGR sequences for colour (only on a terminal, never without colour).
const (
	sgrReset  = "\x1b[0m"
	sgrFaint  = "\x1b[2m"
	sgrBold   = "\x1b[1m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrCyan   = "\x1b[36m"
)

func (p *Plain) paint(sgr, s string) {
	if p.color && sgr != "" && s != "" {
		p.buf.WriteString(sgr)
		p.buf.WriteString(s)
		p.buf.WriteString(sgrReset)
		return
	}
	p.buf.WriteString(s)
}

func levelColor(l describe.Level) string {
	switch l {
	case describe.Good:
		return sgrGreen
	case describe.Warn:
		return sgrYellow
	case describe.Bad:
		return sgrRed
	case describe.Dim:
		return sgrFaint
	}
	return ""
}

func (p *Plain) sym(s string) string {
	if p.ascii {
		return text.ASCII(s)
	}
	return s
}

func (p *Plain) tail() string { return p.sym("…") }

// Events prints one poll's new events. Within a poll they are shown in
// timeline order (the service lists them grouped by agent), which reads
// better than the order of the response body; JSON output keeps that order.
func (p *Plain) Events(evs []*model.Event) {
	evs = slices.Clone(evs)
	slices.SortStableFunc(evs, func(a, b *model.Event) int { return a.Pos() - b.Pos() })
	for _, e := range evs {
		p.buf.Reset()
		p.line(e)
		p.buf.WriteByte('\n')
		p.flush()
	}
}

func (p *Plain) flush() {
	if _, err := p.w.Stdout.Write([]byte(p.buf.String())); err != nil {
		p.w.debugf("writing stdout: %v", err)
	}
}

func (p *Plain) line(e *model.Event) {
	s := p.w.Run.Store
	l := describe.Event(e, s)
	kind, detail := l.Kind, l.Detail
	if describe.Width(kind) > describe.KindWidth {
		// An event type the spec does not name, too long for the column.
		kind, detail = "event", kind+" "+detail
	}
	kind, detail = p.sym(kind), p.sym(detail)

	// time
	ts := "--:--:--.---"
	if !e.OccurredAt.IsZero() {
		ts = e.OccurredAt.Local().Format("15:04:05.000")
	}
	p.paint(sgrFaint, ts)
	p.buf.WriteString(gap)

	// agent, indented by depth
	name, depth := e.Agent.Name, 0
	if a := s.Agent(e.Agent.ID); a != nil {
		if a.Name != "" {
			name = a.Name
		}
		depth = a.Depth
	}
	if name == "" {
		name = describe.ShortID(e.Agent.ID)
	}
	agent := strings.Repeat("  ", min(depth, maxIndent)) + describe.OneLine(name, 0)
	agent = truncate(agent, p.agentW, p.tail())
	p.paint(boldIf(depth == 0), agent)
	p.buf.WriteString(strings.Repeat(" ", p.agentW-describe.Width(agent)))
	p.buf.WriteString(gap)

	// kind
	kc := levelColor(l.Level)
	if kc == "" {
		kc = sgrCyan
	}
	p.paint(kc, kind)
	p.buf.WriteString(strings.Repeat(" ", max(0, describe.KindWidth-describe.Width(kind))))
	p.buf.WriteString(gap)

	// detail, cut to what is left of the line
	used := timeW + len(gap) + p.agentW + len(gap) + describe.KindWidth + len(gap)
	detail = truncate(detail, max(minDetailW, p.lineW-used), p.tail())
	dc := ""
	if l.Level == describe.Warn || l.Level == describe.Bad || l.Level == describe.Dim {
		dc = levelColor(l.Level)
	}
	p.paint(dc, detail)
}

func boldIf(b bool) string {
	if b {
		return sgrBold
	}
	return ""
}

// truncate cuts a sanitised single line to n cells, ending with tail.
func truncate(s string, n int, tail string) string {
	if describe.Width(s) <= n {
		return s
	}
	return ansi.Truncate(s, n, tail)
}

// Health says a change of the connection's health on stderr.
func (p *Plain) Health(msg string) {
	fmt.Fprintf(p.w.Stderr, "firewatch: %s\n", p.sym(msg))
}

// Heartbeat says the run is still going after a quiet while.
func (p *Plain) Heartbeat(idle time.Duration) {
	p.buf.Reset()
	p.paint(sgrFaint, time.Now().Format("15:04:05.000"))
	p.buf.WriteString(gap)
	p.paint(sgrFaint, truncate(HeartbeatText(p.w, idle, p.ascii), max(minDetailW, p.lineW-timeW-len(gap)), p.tail()))
	p.buf.WriteByte('\n')
	p.flush()
}

// End writes the closing block:
//
//	run         3f2a9c1e-…
//	outcome     succeeded
//	duration    1m02s
//	cancelled   by alice through the hub      (a cancelled run; "by the service or…" when not known)
//	started     by bob through the hub        (when a hub started it)
//	credits     312 credits (4,680 tokens)
//	agents      5 (1 failed)
//	tool calls  34 (1 failed, 0 unfinished)
//	errors      2 (0 fatal)
func (p *Plain) End(note string) {
	s := p.w.Run.Store
	r := s.Run()
	if s.Len() == 0 && note == NoteRefused {
		return // nothing was shown; the service's answer goes to stderr
	}
	p.buf.Reset()
	p.buf.WriteByte('\n')
	row := p.closingRow
	id := r.ID
	if id == "" {
		id = p.w.JobID
	}
	if id != "" {
		row("run", "", id)
	}
	if r.State == model.StateFinished {
		o := describe.Outcome(r.Outcome).Word
		switch {
		case r.Outcome == model.OutcomeCreditLimitReached:
			// What the cap was: the error (and its explanation below)
			// only says that there was one.
			b := p.w.Run.Tracker().Burn()
			o += ": the run " + describe.CapHit(b.Cap, b.CapAssumed, r.CreditsUsed) + " and stopped"
		case r.Outcome != model.OutcomeSucceeded && r.Error != nil:
			o += ": " + describe.Error(r.Error)
		}
		row("outcome", levelColor(describe.Outcome(r.Outcome).Level), o)
		if d, ok := r.Duration(); ok {
			row("duration", "", text.Duration(d))
		}
		if r.Outcome == model.OutcomeCancelled {
			// Who, when a hub did it; else honestly unknown.
			row("cancelled", "", "by "+describe.CancelledBy(s.Actors()))
		}
	} else {
		st := "still running"
		if r.CancelRequested {
			st += " (cancel requested)"
		}
		if r.Phase != "" {
			st += ", " + string(r.Phase)
			if r.Message != "" {
				st += ": " + r.Message
			}
		}
		if note != "" {
			st += " · " + note
		}
		row("outcome", sgrYellow, st)
		if a := s.Actors(); a.CancelledBy != "" {
			row("cancelled", "", "by "+describe.CancelledBy(a))
		}
		if !r.StartedAt.IsZero() && s.Len() > 0 {
			// Known only from the events: from the start to the latest.
			var last time.Time
			for _, e := range s.Timeline() {
				if e.OccurredAt.After(last) {
					last = e.OccurredAt
				}
			}
			if d, ok := model.Span(r.StartedAt, last); ok && d > 0 {
				row("duration", "", text.Duration(d)+" so far")
			}
		}
	}
	if by := describe.StartedBy(s.Actors()); by != "" {
		row("started", "", "by "+by)
	}
	if r.HasCredits {
		row("credits", "", describe.RunCredits(r))
	}
	row("agents", "", agentCounts(s))
	row("tool calls", "", toolCounts(s))
	errs, fatal := 0, 0
	for _, en := range s.Errors() {
		errs++
		if en.Fatal {
			fatal++
		}
	}
	ec := ""
	if fatal > 0 {
		ec = sgrRed
	} else if errs > 0 {
		ec = sgrYellow
	}
	row("errors", ec, fmt.Sprintf("%d (%d fatal)", errs, fatal))
	p.attentionRows(row)
	if u := s.UnknownEvents(); u > 0 {
		row("unknown", "", text.Plural(u, "event of a type firewatch does not know", "events of types firewatch does not know"))
	}
	if n := len(s.Rejected()); n > 0 {
		row("set aside", sgrYellow, text.Plural(n, "malformed event", "malformed events"))
	}
	if t := p.w.Run.Tokens; t != nil {
		v := describe.Tokens(t.RemainingTokens) + " tokens left"
		if t.PlanTokens > 0 {
			v += " of " + describe.Tokens(t.PlanTokens)
		}
		row("team", "", v)
	}
	p.flush()
}

// closingRow writes one row of the closing block: the label, then the
// value whole. The block stays in the scrollback, so nothing is cut: on a
// terminal a long value wraps under itself, at spaces where it can; piped
// it is one line. Leading spaces of the value (an indent) are kept.
func (p *Plain) closingRow(label, sgr, value string) {
	indent := len(value) - len(strings.TrimLeft(value, " "))
	v := strings.Repeat(" ", indent) + p.sym(describe.OneLine(value, 0))
	lines := []string{v}
	if p.w.Width > 0 {
		lines = strings.Split(ansi.Wrap(v, max(minDetailW, p.lineW-ClosingLabelW), ""), "\n")
	}
	for i, l := range lines {
		if i == 0 {
			p.buf.WriteString(fmt.Sprintf("%-*s", ClosingLabelW, label))
		} else {
			p.buf.WriteString(strings.Repeat(" ", ClosingLabelW+indent))
			l = strings.TrimLeft(l, " ")
		}
		p.paint(sgr, l)
		p.buf.WriteByte('\n')
	}
}

// ClosingLabelW is the closing block's label column ("tool calls  ").
const ClosingLabelW = 12

func agentCounts(s *model.Store) string {
	n, failed, running := 0, 0, 0
	for _, a := range s.Agents() {
		n++
		switch {
		case a.State != model.StateFinished:
			running++
		case a.Outcome != model.OutcomeSucceeded && a.Outcome != model.OutcomeCancelled:
			failed++
		}
	}
	v := fmt.Sprintf("%d (%d failed", n, failed)
	if running > 0 {
		v += fmt.Sprintf(", %d running", running)
	}
	return v + ")"
}

func toolCounts(s *model.Store) string {
	n, failed, unfinished, running := 0, 0, 0, 0
	for _, t := range s.ToolCalls() {
		n++
		if t.Failed() {
			failed++
		}
		switch t.State {
		case model.StateUnfinished:
			unfinished++
		case model.StateRunning:
			running++
		}
	}
	v := fmt.Sprintf("%d (%d failed, %d unfinished", n, failed, unfinished)
	if running > 0 {
		v += fmt.Sprintf(", %d running", running)
	}
	return v + ")"
}
