package cli

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/compare"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/text"
	uicompare "github.com/firewatch/firewatch/ui/compare"
)

// firewatch compare A B: two runs side by side, and a regression gate.

type compareOptions struct {
	FailOn   string
	Previous bool // --previous: one run, compared with the one before it
}

func (a *app) compareCommand() *cobra.Command {
	o := &watchOptions{}
	co := &compareOptions{}
	cmd := &cobra.Command{
		Use:   "compare BASELINE CANDIDATE | compare --previous CANDIDATE",
		Short: "Two runs side by side: metrics, agents, tool calls, results; a regression gate",
		Long: `Compare two runs: job ids (from the archive, else the service) or recording
files (an existing file or - is a file, otherwise a UUID is a job id).

It shows a metrics table (baseline, candidate, delta, delta %) for the
duration, credits, tokens, agents, tool calls (in all and per tool), errors and
attention items, and the outcomes; the agents aligned by name and role, each
agent's tool calls aligned step by step (added, removed, changed
parameters); and the final results diffed as JSON.

On a terminal it opens a screen with these as tabs (1 metrics, 2 agents,
3 steps, 4 result; ? lists the keys); --output plain prints them as text
(the default when stdout is not a terminal), --output json gives
{baseline, candidate, metrics, agents, steps, result, crossed}, --output md
a table for a pull request comment.

--fail-on makes it a regression gate: a comma-separated list of
  METRIC:+N%   the candidate is more than N% above the baseline
  METRIC:+N    the candidate is more than N above the baseline
  METRIC:-N% / METRIC:-N   ... below it
  outcome      the candidate's outcome differs from the baseline's and is not succeeded
with the JSON's metric names (durationMs, creditsUsed, tokensUsed, agents,
toolCalls, errors, attention, toolCalls:<toolName>). A percentage of a
baseline of 0 is crossed by any change in its direction. A threshold on a
tool neither run called is said on stderr, with the tools they did call.

--previous CANDIDATE takes the baseline from the archive's lineage: the run
CANDIDATE was rerun from (firewatch rerun), else its thread's previous turn
(firewatch follow-up).

Exit codes: 0 no threshold crossed, 1 a threshold crossed, 2 bad usage or an
unreadable (or newer) archive or file, 6 the service refused an id, 8 the
output could not be written, 130 Ctrl-C on the screen. Never 1 for anything
but a crossed threshold: after q the screen leaves with the gate's code.`,
		Example: `  firewatch compare $YESTERDAY $TODAY
  firewatch compare base.ndjson $JOB --output md > comment.md
  firewatch compare $BASE $CAND --fail-on creditsUsed:+20%,durationMs:+50%,toolCalls:mcp__tools__scrape:+3,outcome`,
		Args: func(cmd *cobra.Command, args []string) error {
			if co.Previous {
				if len(args) != 1 {
					return badUsage("compare --previous takes one run (CANDIDATE), got %d", len(args))
				}
				return nil
			}
			if len(args) != 2 {
				return badUsage("compare takes two runs (BASELINE CANDIDATE), got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// A regression gate: exitcode.go gives 1 only to a crossed
			// threshold.
			if co.Previous {
				base, err := a.previousOf(cmd.Context(), o, args[0])
				if err != nil {
					return runE(gateErr(err))
				}
				args = []string{base, args[0]}
			}
			return runE(gateErr(a.compare(cmd, o, co, args[0], args[1])))
		},
	}
	cmd.Flags().StringVar(&co.FailOn, "fail-on", "", "thresholds that make it exit 1 (see above)")
	cmd.Flags().BoolVar(&co.Previous, "previous", false, "compare one run (CANDIDATE) with the run it was rerun from, or its thread's previous turn (from the archive)")
	o.register(cmd, flagsOutput)
	sourceFlags(cmd.Flags(), &o.APIURL, &o.APIKey)
	return cmd
}

// The comparison's data (package compare), under the names this file and
// its tests use.
type (
	comparison    = compare.Comparison
	compareSide   = compare.Side
	compareMetric = compare.Metric
)

func (a *app) compare(cmd *cobra.Command, o *watchOptions, co *compareOptions, refA, refB string) error {
	md := o.Output == "md"
	if md {
		o.Output = OutputPlain
	}
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	if md {
		o.Output = "md"
	}
	gates, err := parseFailOn(co.FailOn)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	c, err := a.comparison(ctx, refA, refB, gates, o.APIURL, o.APIKey)
	if err != nil {
		return err
	}
	termOut, _ := isTerminal(a.stdout)
	if o.Output == OutputTUI {
		if err := checkTUI(a.stdin, termOut); err != nil {
			return err
		}
	}
	if o.Output == OutputTUI || o.Output == OutputAuto && termOut && a.onTerminal() {
		return a.compareScreen(ctx, o, c, gates)
	}
	var out []byte
	switch o.Output {
	case OutputJSON:
		out, err = json.Marshal(c, json.Deterministic(true), jsontext.WithIndent("  "))
		if err != nil {
			return err
		}
		out, _ = a.secrets.RedactJSON(out)
		out = append(out, '\n')
	case "md":
		out = []byte(a.secrets.Redact(compareMarkdown(c)))
	default:
		out = []byte(a.secrets.Redact(compareText(c, termOut && !o.NoColor && !a.noColorEnv())))
	}
	if _, err := a.print.Write(out); err != nil {
		return err // said and coded by Execute (exit 8)
	}
	return a.crossed(c)
}

// comparison reads both runs and compares them: what every output of
// compare shows, the screen's included. A JOB_ID is asked of the service
// at apiURL with apiKey (the environment's when empty).
func (a *app) comparison(ctx context.Context, refA, refB string, gates compare.Gates, apiURL, apiKey string) (*comparison, error) {
	base, rb, err := a.loadSide(ctx, refA, apiURL, apiKey)
	if err != nil {
		return nil, err
	}
	cand, rc, err := a.loadSide(ctx, refB, apiURL, apiKey)
	if err != nil {
		return nil, err
	}
	c := compare.Build(base, cand, rb, rc)
	c.Apply(gates)
	a.warnUnusedTools(gates, c)
	return c, nil
}

// parseFailOn reads --fail-on (compare.ParseFailOn); a wrong item is bad
// usage, exit 2.
func parseFailOn(s string) (compare.Gates, error) {
	g, err := compare.ParseFailOn(s)
	if err != nil {
		return nil, asUsage(err)
	}
	return g, nil
}

// warnUnusedTools says of each --fail-on threshold on a tool that neither
// run called (compare.Gates.Unused) that it did not apply.
func (a *app) warnUnusedTools(gs compare.Gates, c *comparison) {
	for _, u := range gs.Unused(c) {
		called := "neither called any tool"
		if len(u.Called) > 0 {
			called = "they called " + strings.Join(u.Called, ", ")
		}
		fmt.Fprintf(a.stderr, "firewatch: compare: --fail-on %s: neither run called %s (%s); it crosses only when a candidate calls it\n",
			text.Sanitize(u.Gate.Spec), text.Sanitize(u.Tool), a.secrets.Sanitize(called))
	}
}

// compareScreen draws the comparison built by comparison; the gate
// decides the exit code when it closes, as without it.
func (a *app) compareScreen(ctx context.Context, o *watchOptions, c *comparison, gates compare.Gates) error {
	res, err := uicompare.Run(ctx, uicompare.Config{C: c, Gates: gates, NoColor: o.NoColor || a.noColorEnv(), ASCII: o.ASCII, Mouse: o.Mouse})
	return a.compareScreenEnd(ctx, c, res, err)
}

// compareScreenEnd is how compare ends after its screen: a signal's cause,
// the program's failure (never 1: gateErr), 130 for Ctrl-C; after q, the
// gate's verdict on c, as without the screen.
func (a *app) compareScreenEnd(ctx context.Context, c *comparison, res uicompare.Result, err error) error {
	switch {
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case err != nil:
		return &failure{err}
	case res.Interrupted:
		return errInterrupted
	}
	return a.crossed(c)
}

// crossed says the thresholds c crossed, if any: the gate's exit 1.
func (a *app) crossed(c *comparison) error {
	if len(c.Crossed) > 0 {
		fmt.Fprintf(a.stderr, "firewatch: compare: crossed %s\n", strings.Join(c.Crossed, ", "))
		return &thresholdCrossed{c.Crossed}
	}
	return nil
}

// loadSide reads one run (readRun: a file, or a job id from the archive,
// else the service) with its figures.
func (a *app) loadSide(ctx context.Context, ref, apiURL, apiKey string) (*compareSide, *compare.Run, error) {
	rr, err := a.readRun(ctx, ref, apiURL, apiKey)
	if err != nil {
		return nil, nil, err
	}
	f := &rr.Figures
	sum := rr.Run.Summary()
	s := &compareSide{Ref: ref, Prompt: strOrNil(a.secrets.Sanitize(f.Prompt)), Model: strOrNil(a.secrets.Sanitize(f.Model)),
		Outcome: strOrNil(f.Outcome), MaxCredits: f.MaxCredits, BilledCredits: f.Bill.BilledCredits(), Complete: f.Complete}
	if id := cmp.Or(f.ID, rr.Store().Run().ID); id != "" {
		s.ID = &id
	}
	run := &compare.Run{Secrets: a.secrets, Store: rr.Store(), DurationMs: f.DurationMs, TokensUsed: sum.TokensUsed, Result: f.Result,
		Agents: len(sum.Agents), ToolCalls: len(sum.ToolCalls), Errors: len(sum.Errors), Attention: f.Attention, CreditsByAgent: f.CreditsByAgent}
	if f.CreditsUsed != nil {
		run.CreditsUsed = *f.CreditsUsed
	}
	return s, run, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func fmtNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func fmtDelta(m compareMetric) (string, string) {
	d := fmtNum(m.Delta)
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

func sideName(s *compareSide) string {
	if s.ID != nil {
		return describe.ShortID(*s.ID)
	}
	return text.Sanitize(s.Ref)
}

// compareMarkdown is the comparison for a pull request comment.
func compareMarkdown(c *comparison) string {
	var b strings.Builder
	esc := func(s string) string { return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s) }
	fmt.Fprintf(&b, "### firewatch compare: %s → %s\n\n", esc(sideName(c.Baseline)), esc(sideName(c.Candidate)))
	fmt.Fprintf(&b, "Outcome: **%s** → **%s**\n\n", esc(sideOutcome(c.Baseline)), esc(sideOutcome(c.Candidate)))
	b.WriteString("| metric | baseline | candidate | delta | delta % |\n|---|--:|--:|--:|--:|\n")
	for _, m := range c.Metrics {
		d, p := fmtDelta(m)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", esc(m.Name), fmtNum(m.Baseline), fmtNum(m.Candidate), d, p)
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

// compareText is the comparison as plain text: the metrics table, the agents,
// the steps that differ and the result's diff.
func compareText(c *comparison, color bool) string {
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
		d, p := fmtDelta(m)
		if m.Delta > 0 {
			d, p = paint("33", fmt.Sprintf("%8s", d)), paint("33", fmt.Sprintf("%8s", p))
		}
		row(describe.OneLine(m.Name, 40), fmtNum(m.Baseline), fmtNum(m.Candidate), d, p)
	}
	b.WriteString("\nagents (by name and role)\n")
	for _, ag := range c.Agents {
		bs, cs := "—", "—"
		if ag.Baseline != nil {
			bs = fmt.Sprintf("%d calls %s", ag.Baseline.ToolCalls, watchprint.OrDash(deref(ag.Baseline.Outcome)))
		}
		if ag.Candidate != nil {
			cs = fmt.Sprintf("%d calls %s", ag.Candidate.ToolCalls, watchprint.OrDash(deref(ag.Candidate.Outcome)))
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
func sideOutcome(s *compareSide) string {
	if !s.Complete {
		return "incomplete"
	}
	return watchprint.OrDash(deref(s.Outcome))
}

func runsFirst(p *string) string {
	if p == nil {
		return ""
	}
	return describe.OneLine(*p, 44)
}
