// Package comparetext writes a comparison of two runs (compare.Comparison)
// for people: as plain text for a terminal or a log, and as Markdown for a
// pull request's comment. Everything from the runs goes through describe,
// which sanitises it.
package comparetext

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/firewatch/firewatch/compare"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/text"
)

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func delta(m compare.Metric) (string, string) {
	d := text.Fixed(m.Delta)
	if m.Delta > 0 {
		d = "+" + d
	}
	p := "—"
	if m.DeltaPercent != nil {
		p = strconv.FormatFloat(*m.DeltaPercent, 'f', 1, 64) + "%"
		if *m.DeltaPercent > 0 {
			p = "+" + p
		}
	}
	return d, p
}

func sideName(s *compare.Side) string {
	if s.ID != nil {
		return describe.ShortID(*s.ID)
	}
	return text.Sanitize(s.Ref)
}

// Markdown is the comparison for a pull request comment.
func Markdown(c *compare.Comparison) string {
	var b strings.Builder
	esc := func(s string) string { return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s) }
	fmt.Fprintf(&b, "### firewatch compare: %s → %s\n\n", esc(sideName(c.Baseline)), esc(sideName(c.Candidate)))
	fmt.Fprintf(&b, "Outcome: **%s** → **%s**\n\n", esc(sideOutcome(c.Baseline)), esc(sideOutcome(c.Candidate)))
	b.WriteString("| metric | baseline | candidate | delta | delta % |\n|---|--:|--:|--:|--:|\n")
	for _, m := range c.Metrics {
		d, p := delta(m)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", esc(m.Name), text.Fixed(m.Baseline), text.Fixed(m.Candidate), d, p)
	}
	counts := map[string]int{}
	for _, s := range c.Steps {
		counts[s.Change]++
	}
	fmt.Fprintf(&b, "\nTool-call steps: %d same, %d changed, %d added, %d removed.\n", counts["same"], counts["changed"], counts["added"], counts["removed"])
	if c.Result != nil {
		if c.Result.Same {
			b.WriteString("\nResult: no changes.\n")
		} else {
			fmt.Fprintf(&b, "\nResult: +%d −%d lines.\n", c.Result.Added, c.Result.Removed)
		}
	}
	if len(c.Crossed) > 0 {
		fmt.Fprintf(&b, "\n**Thresholds crossed:** %s\n", esc(strings.Join(c.Crossed, ", ")))
	}
	return b.String()
}

// Text is the comparison as plain text (colour: with SGR colours): the metrics table, the agents,
// the steps that differ and the result's diff.
func Text(c *compare.Comparison, color bool) string {
	var b strings.Builder
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	fmt.Fprintf(&b, "baseline  %s  %s  %s\n", sideName(c.Baseline), sideOutcome(c.Baseline), runsFirst(c.Baseline.Prompt))
	fmt.Fprintf(&b, "candidate %s  %s  %s\n\n", sideName(c.Candidate), sideOutcome(c.Candidate), runsFirst(c.Candidate.Prompt))
	nameW := len("metric")
	for _, m := range c.Metrics {
		nameW = max(nameW, describe.Width(describe.OneLine(m.Name, 40)))
	}
	row := func(name, x, y, d, p string) {
		fmt.Fprintf(&b, "%s%s %9s %9s %8s %8s\n", name, strings.Repeat(" ", nameW-describe.Width(name)), x, y, d, p)
	}
	row("metric", "baseline", "candidate", "delta", "delta %")
	for _, m := range c.Metrics {
		d, p := delta(m)
		if m.Delta > 0 {
			d, p = paint("33", fmt.Sprintf("%8s", d)), paint("33", fmt.Sprintf("%8s", p))
		}
		row(describe.OneLine(m.Name, 40), text.Fixed(m.Baseline), text.Fixed(m.Candidate), d, p)
	}
	b.WriteString("\nagents (by name and role)\n")
	for _, ag := range c.Agents {
		bs, cs := "—", "—"
		if ag.Baseline != nil {
			bs = fmt.Sprintf("%d calls %s", ag.Baseline.ToolCalls, orDash(deref(ag.Baseline.Outcome)))
		}
		if ag.Candidate != nil {
			cs = fmt.Sprintf("%d calls %s", ag.Candidate.ToolCalls, orDash(deref(ag.Candidate.Outcome)))
		}
		fmt.Fprintf(&b, "  %-20s %-12s %-21s %s\n", describe.OneLine(ag.Name, 20), describe.OneLine(ag.Role, 12), bs, cs)
	}
	b.WriteString("\ntool calls that differ\n")
	shown := 0
	for _, s := range c.Steps {
		if s.Change == "same" {
			continue
		}
		shown++
		if shown > 40 {
			continue
		}
		var line string
		switch s.Change {
		case "added":
			line = paint("32", fmt.Sprintf("  + %s #%d %s %s", describe.OneLine(s.Agent, 20), s.Step, s.Candidate.ToolName, describe.OneLine(string(s.Candidate.Parameters), 60)))
		case "removed":
			line = paint("31", fmt.Sprintf("  - %s #%d %s %s", describe.OneLine(s.Agent, 20), s.Step, s.Baseline.ToolName, describe.OneLine(string(s.Baseline.Parameters), 60)))
		default:
			line = paint("33", fmt.Sprintf("  ~ %s #%d %s %s → %s", describe.OneLine(s.Agent, 20), s.Step, s.Candidate.ToolName,
				describe.OneLine(string(s.Baseline.Parameters), 40), describe.OneLine(string(s.Candidate.Parameters), 40)))
		}
		b.WriteString(line + "\n")
	}
	if shown == 0 {
		b.WriteString("  none: the same tools in the same order with the same parameters\n")
	} else if shown > 40 {
		fmt.Fprintf(&b, "  … and %d more (--output json has them all)\n", shown-40)
	}
	if c.Result != nil {
		b.WriteString("\nresult\n")
		if c.Result.Same {
			b.WriteString("  no changes\n")
		}
		for _, l := range c.Result.Diff {
			switch {
			case strings.HasPrefix(l, "+"):
				l = paint("32", l)
			case strings.HasPrefix(l, "-"):
				l = paint("31", l)
			}
			b.WriteString("  " + l + "\n")
		}
	}
	if len(c.Crossed) > 0 {
		fmt.Fprintf(&b, "\n%s %s\n", paint("31", "thresholds crossed:"), strings.Join(c.Crossed, ", "))
	}
	return b.String()
}

// sideOutcome is a side's outcome, "incomplete" for a run known only in
// part (its figures are what was read).
func sideOutcome(s *compare.Side) string {
	if !s.Complete {
		return "incomplete"
	}
	return orDash(deref(s.Outcome))
}

func runsFirst(p *string) string {
	if p == nil {
		return ""
	}
	return describe.OneLine(*p, 44)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
