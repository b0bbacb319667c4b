package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/cli/internal/comparetext"
	"github.com/firewatch/firewatch/cli/internal/exitcode"
	"github.com/firewatch/firewatch/compare"
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
			// A regression gate: internal/exitcode gives 1 only to a crossed
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
	comparison  = compare.Comparison
	compareSide = compare.Side
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
	// The comparison, then the gate: a write that fails is said and coded
	// by Execute (exit 8).
	if err := comparetext.Write(a.print, c, o.Output, a.secrets, termOut && !o.NoColor && !a.noColorEnv()); err != nil {
		return err
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
	fmt.Fprint(a.stderr, comparetext.Unused(gates, c, a.secrets))
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

// compareScreen draws the comparison built by comparison; the gate
// decides the exit code when it closes, as without it.
func (a *app) compareScreen(ctx context.Context, o *watchOptions, c *comparison, gates compare.Gates) error {
	// A hub session's terminal, else the command's own streams.
	res, err := uicompare.Run(ctx, uicompare.Config{C: c, Gates: gates, NoColor: o.NoColor || a.noColorEnv(), ASCII: o.ASCII || a.sessionASCII(),
		Mouse: o.Mouse, Terminal: a.hub.Terminal()}, a.screenStreams())
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
		return &failure{Err: err}
	case res.Interrupted:
		return errInterrupted
	}
	return a.crossed(c)
}

// crossed says the thresholds c crossed, if any: the gate's exit 1.
func (a *app) crossed(c *comparison) error {
	if len(c.Crossed) > 0 {
		fmt.Fprintf(a.stderr, "firewatch: compare: crossed %s\n", strings.Join(c.Crossed, ", "))
		return &exitcode.ThresholdCrossed{Names: c.Crossed}
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
	s, run := comparetext.SideOf(ref, rr, a.secrets)
	return s, run, nil
}
