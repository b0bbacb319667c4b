package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// demo options.
type demoOptions struct {
	Scenario string
	Speed    float64
	Seed     int64
	History  int
	Crawl    bool // a crawl instead of an agent run (cmd_crawl.go)
}

func scenarioCompletion(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return sim.Scenarios(), cobra.ShellCompDirectiveNoFileComp
}

func (a *app) demoCommand() *cobra.Command {
	o := &watchOptions{}
	d := &demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Watch a realistic run of the built-in simulator: no account needed",
		Long: `Start the simulated service in-process (on loopback, with a random key) and
watch its run exactly as firewatch watches a real one.

Scenarios: ` + strings.Join(sim.Scenarios(), ", ") + `.
research (the default) takes about a minute at --speed 1. In plain and JSON
output the cancel scenario is cancelled by the demo itself after a while.`,
		Example: `  firewatch demo
  firewatch demo --scenario failure --speed 5
  firewatch demo --speed 20 --output json | jq -r .type`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.demo(cmd, o, d)) },
	}
	f := cmd.Flags()
	f.StringVar(&d.Scenario, "scenario", sim.ScenarioResearch, "the run to simulate: "+strings.Join(sim.Scenarios(), ", "))
	f.Float64Var(&d.Speed, "speed", 1, "pace multiplier (2 is twice as fast)")
	seedFlag(f, &d.Seed, "run")
	f.BoolVar(&d.Crawl, "crawl", false, "watch a simulated crawl (failures, robots-blocked and a hostile page) instead of an agent run")
	f.IntVar(&d.History, "history", 0, "also host this many finished runs in the team's list and open on the runs screen (terminal UI; 40+ make several pages)")
	_ = cmd.RegisterFlagCompletionFunc("scenario", scenarioCompletion)
	o.register(cmd, flagsPolling|flagsOutput|flagsOTLP|flagsNotifyDemo)
	return cmd
}

func (a *app) demo(cmd *cobra.Command, o *watchOptions, d *demoOptions) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	if d.Crawl {
		return a.demoCrawl(cmd, o, d)
	}
	if !slices.Contains(sim.Scenarios(), d.Scenario) {
		return badUsage("--scenario %q: it must be one of %s", d.Scenario, strings.Join(sim.Scenarios(), ", "))
	}
	if err := checkSpeed(d.Speed); err != nil {
		return err
	}
	if !cmd.Flags().Changed("interval") {
		// Poll as often, relative to the run, as at the real pace.
		o.Interval = max(MinInterval, time.Duration(float64(defaultInterval)/d.Speed))
	}
	w, cleanup, err := a.newSession(cmd, o)
	if err != nil {
		return err
	}
	defer cleanup()
	a.archiveFlag = archive.Off // the demo's runs are not the user's: as --archive off
	ctx := cmd.Context()
	if d.History < 0 {
		return badUsage("--history %d: it must not be negative", d.History)
	}
	d.Seed = chooseSeed(d.Seed)
	// Said before the screen takes over: the way to see this run again.
	fmt.Fprintf(w.Stderr, "firewatch: demo: seed %d (--seed %d shows this run again)\n", d.Seed, d.Seed)
	sopts := sim.Options{Scenarios: []string{d.Scenario}, Speed: d.Speed, Seed: d.Seed, History: d.History}
	if w.Debug != nil {
		sopts.Log = &lineLogger{prefix: "sim: ", d: w.Debug}
	}
	srv, err := sim.Start(ctx, sopts)
	if err != nil {
		return err
	}
	defer srv.Close()
	if d.History > 0 && w.Output == OutputTUI {
		// With a history, the demo opens on the runs screen.
		return a.demoRuns(cmd, o, srv)
	}

	job := srv.Jobs[0]
	// The demo started the run: it knows the cap, and its clock runs
	// --speed times faster than the detectors' fixed times assume.
	o.timeScale, o.StartedMaxCredits = d.Speed, float64(srv.MaxCredits(job.ID))
	jr := srv.Request(job.ID)
	w.Request = model.Request{Prompt: jr.Prompt, Model: jr.Model, Effort: jr.Effort, URLs: jr.URLs, MaxCredits: float64(jr.MaxCredits)}
	w.Debug.Printf("demo: simulator at %s, scenario %s, speed %v, seed %d", srv.URL, d.Scenario, d.Speed, d.Seed)

	var hook func(context.Context, *poller.Client)
	if d.Scenario == sim.ScenarioCancel && w.Output != OutputTUI {
		// Nobody is at a keyboard to cancel it: the demo does, as a user
		// would, a while into the run.
		after := time.Duration(float64(20*time.Second) / d.Speed)
		hook = func(ctx context.Context, c *poller.Client) {
			t := time.NewTimer(after)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			fmt.Fprintf(w.Stderr, "firewatch: demo: cancelling the run, as a user would (DELETE /v2/agent/%s)\n", job.ID)
			if err := c.Cancel(ctx, job.ID); err != nil && ctx.Err() == nil {
				fmt.Fprintf(w.Stderr, "firewatch: demo: %v\n", err)
			}
		}
	}
	svc := service{baseURL: srv.URL, key: srv.Key}
	if err := a.use(svc); err != nil {
		return err
	}
	err = a.watchLive(ctx, w, svc, job.ID, liveOptions{hook: hook, label: "demo", private: true, started: true})
	_, err = a.watchNext(cmd, o, svc, w, err)
	return err
}

// lineLogger turns writes (the simulator's request log) into debug lines.
type lineLogger struct {
	prefix string
	d      *debugLog
}

func (l *lineLogger) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		l.d.Printf("%s%s", l.prefix, line)
	}
	return len(b), nil
}
