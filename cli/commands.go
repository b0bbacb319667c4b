package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// newSession checks the flags and prepares what every watch shares: the
// output mode, colour, the debug log and the --summary target. Files that
// cannot be created are usage errors (exit 2), found before any request
// and before any file is created (see outputs): the debug log is created
// last, --record by watchLive, --summary when watching ends.
func (a *app) newSession(cmd *cobra.Command, o *watchOptions) (w *watchSession, cleanup func(), err error) {
	a.out = &outputs{stderr: a.stderr}
	cleanup = a.out.close
	w = &watchSession{Opts: o, Store: model.NewStore(), Stdout: a.out.guarded("stdout", a.stdout), Stderr: a.stderr}
	termOut, width := isTerminal(a.stdout)
	if w.Output, err = resolveOutput(o.Output, termOut); err != nil {
		return nil, cleanup, err
	}
	if w.Output == OutputTUI {
		if err := checkTUI(a.stdin, termOut); err != nil {
			return nil, cleanup, err
		}
		a.out.defer_ = true
	}
	if err := checkOutputs(o); err != nil {
		return nil, cleanup, err
	}
	if termOut {
		w.Width = width
	}
	w.Color = termOut && !o.NoColor && !noColorEnv() && os.Getenv("TERM") != "dumb"
	if o.Debug != "" {
		f, err := a.out.create("--debug", o.Debug)
		if err != nil {
			return nil, cleanup, err
		}
		w.Debug = newDebugLog(f)
		a.out.debug = w.Debug
		w.Debug.Printf("firewatch %s: %s", Version(), cmd.CommandPath())
	}
	return w, cleanup, nil
}

// watch follows a run of the service (watch JOB_ID, firewatch JOB_ID).
func (a *app) watch(cmd *cobra.Command, o *watchOptions, jobID string) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	// The id is checked before anything else: no request for a bad one.
	if err := poller.ValidateJobID(jobID); err != nil {
		return withCode(ExitUsage, err)
	}
	key := poller.ResolveAPIKey(o.APIKey)
	if key == "" {
		return usageErrorf("no API key: set FIRECRAWL_API_KEY (export FIRECRAWL_API_KEY=fc-...; keys are on https://www.firecrawl.dev/app/api-keys)")
	}
	a.stderr.key = key
	// The address and key are checked before any file is created.
	if _, err := poller.New(poller.Config{BaseURL: poller.ResolveBaseURL(o.APIURL), APIKey: key}); err != nil {
		return withCode(ExitUsage, err)
	}
	// A run the service forgot is shown from the archive (cli/archive.go).
	if handled, err := a.watchFromArchive(cmd, o, poller.ResolveBaseURL(o.APIURL), key, jobID); handled {
		return err
	}
	w, cleanup, err := a.newSession(cmd, o)
	if err != nil {
		return err
	}
	defer cleanup()
	return a.watchLive(cmd.Context(), w, poller.ResolveBaseURL(o.APIURL), key, jobID, nil)
}

// watchLive watches jobID at baseURL: the code path of watch and demo.
// hook, if set, runs in its own goroutine once the client exists.
func (a *app) watchLive(ctx context.Context, w *watchSession, baseURL, key, jobID string, hook func(context.Context, *poller.Client)) error {
	o := w.Opts
	a.stderr.key = key
	w.Debug.setKey(key)
	cfg := poller.Config{BaseURL: baseURL, APIKey: key}
	if w.Debug != nil {
		cfg.Logf = w.Debug.Printf
	}
	client, err := poller.New(cfg)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	wopts := poller.WatchOptions{Interval: o.Interval, Tail: o.Tail, LiveView: o.LiveView}
	if o.Record != "" {
		f, err := a.out.create("--record", o.Record)
		if err != nil {
			return err
		}
		wopts.Record = f
	}
	// The archive gets the recording too, poll by poll (cli/archive.go).
	aw := a.archiveWatch(ctx, w, baseURL, jobID)
	defer aw.close(w)
	wopts.Record = teeRecord(wopts.Record, aw)
	watcher := client.Watch(jobID, wopts)
	w.JobID, w.Client, w.Watcher, w.Source = jobID, client, watcher, watcher.Run
	w.Store.SetRunID(jobID)
	w.Debug.Printf("service %s, job %s", baseURL, jobID)
	otlp, err := o.OTLP.live(w, key)
	if err != nil {
		return err
	}
	defer otlp.finish()
	if aw != nil {
		aw.attachNotes(w)
	}
	if hook != nil {
		hctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go hook(hctx, client)
	}
	ctx, stop := a.out.context(ctx)
	defer stop(nil)
	return a.out.finish(w, w.run(ctx))
}

// demo options.
type demoOptions struct {
	Scenario string
	Speed    float64
	Seed     int64
	History  int
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
		Example: `  go run . demo
  firewatch demo --scenario failure --speed 5
  firewatch demo --speed 20 --output json | jq -r .type`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.demo(cmd, o, d)) },
	}
	f := cmd.Flags()
	f.StringVar(&d.Scenario, "scenario", sim.ScenarioResearch, "the run to simulate: "+strings.Join(sim.Scenarios(), ", "))
	f.Float64Var(&d.Speed, "speed", 1, "pace multiplier (2 is twice as fast)")
	f.Int64Var(&d.Seed, "seed", 1, "the same seed gives the same run")
	f.IntVar(&d.History, "history", 0, "also host this many finished runs in the team's list and open on the runs screen (terminal UI; 40+ make several pages)")
	_ = cmd.RegisterFlagCompletionFunc("scenario", scenarioCompletion)
	o.register(cmd, flagsPolling|flagsOutput|flagsOTLP)
	return cmd
}

func (a *app) demo(cmd *cobra.Command, o *watchOptions, d *demoOptions) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	if !slices.Contains(sim.Scenarios(), d.Scenario) {
		return usageErrorf("--scenario %q: it must be one of %s", d.Scenario, strings.Join(sim.Scenarios(), ", "))
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
	a.noArchive = true // the demo's runs are not the user's
	ctx := cmd.Context()
	if d.History < 0 {
		return usageErrorf("--history %d: it must not be negative", d.History)
	}
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
	return a.watchLive(ctx, w, srv.URL, srv.Key, job.ID, hook)
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

// replay options.
type replayOptions struct {
	Speed   float64
	Instant bool
}

func (a *app) replayCommand() *cobra.Command {
	o := &watchOptions{}
	r := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "Show a recorded run (a --record file or a saved trace body; - for stdin)",
		Long: `Show a recorded run: a file written by --record, or a saved trace response
body (curl -H "Authorization: Bearer $FIRECRAWL_API_KEY" \
  https://api.firecrawl.dev/v2/agent/$JOB/trace > run.json).

With plain and JSON output it is shown at once (--instant); with --speed, or
in the terminal UI, at its original pace times --speed. The exit code is
the recorded run's.`,
		Example: `  firewatch watch $JOB --record run.ndjson
  firewatch replay run.ndjson --summary -
  firewatch replay run.ndjson --speed 4 --output plain`,
		Args: exactlyOne("a FILE (a --record file or a saved trace body; - for stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.replay(cmd, o, r, args[0])) },
	}
	f := cmd.Flags()
	f.Float64Var(&r.Speed, "speed", 1, "pace multiplier over the recorded pace")
	f.BoolVar(&r.Instant, "instant", false, "show everything at once (the default for plain and JSON output)")
	o.register(cmd, flagsOutput|flagsOTLP)
	return cmd
}

func (a *app) replay(cmd *cobra.Command, o *watchOptions, r *replayOptions, file string) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	if !(r.Speed > 0) {
		return usageErrorf("--speed %v: it must be above 0", r.Speed)
	}
	in, name, closeIn, err := a.openRecording(file)
	if err != nil {
		return err
	}
	defer closeIn()
	w, cleanup, err := a.newSession(cmd, o)
	if err != nil {
		return err
	}
	defer cleanup()
	instant := r.Instant
	if !cmd.Flags().Changed("instant") {
		instant = w.Output != OutputTUI && !cmd.Flags().Changed("speed")
	}
	w.Replay = true
	if f, ok := in.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			w.InputBytes = st.Size()
		}
	}
	w.Source = func(ctx context.Context, sink func(poller.Update)) error {
		err := poller.Replay(ctx, in, poller.ReplayOptions{Speed: r.Speed, Instant: instant}, sink)
		if err != nil && ctx.Err() == nil {
			// The file is not one firewatch can read: bad usage.
			return withCode(ExitUsage, fmt.Errorf("%s: %w", name, err))
		}
		return err
	}
	w.Debug.Printf("replay %s, speed %v, instant %v", name, r.Speed, instant)
	otlp, err := o.OTLP.live(w, "")
	if err != nil {
		return err
	}
	defer otlp.finish()
	ctx, stop := a.out.context(cmd.Context())
	defer stop(nil)
	return a.out.finish(w, w.run(ctx))
}

// serve options.
type serveOptions struct {
	sim.Options
	Scenarios []string
}

func (a *app) serveCommand() *cobra.Command {
	so := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the simulated service, for firewatch, the official SDKs and CLI, or tests",
		Long: `Run the simulated Firecrawl service until interrupted. It first prints

    FIRECRAWL_API_URL=http://127.0.0.1:PORT
    FIRECRAWL_API_KEY=KEY
    JOB_ID=<uuid>            (one line per --scenario, in order)
    SCRAPE_ID=<uuid>         (one line per ready-made scrape, --scrapes)

on stdout (ready for eval or a .env file), then one line per request on
stderr. The key is the simulator's own, not yours. The runs start at once.`,
		Example: `  firewatch serve --scenario research --scenario failure
  firewatch serve --addr 127.0.0.1:3002 --key fc-test --rate-limit -1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.serve(cmd, so)) },
	}
	f := cmd.Flags()
	f.StringVar(&so.Addr, "addr", "127.0.0.1:0", "listen address (loopback unless told otherwise)")
	f.StringArrayVar(&so.Scenarios, "scenario", []string{sim.ScenarioResearch}, "a run to host (repeat for several): "+strings.Join(sim.Scenarios(), ", "))
	f.Float64Var(&so.Speed, "speed", 1, "pace multiplier")
	f.Int64Var(&so.Seed, "seed", 1, "the same seed gives the same runs")
	f.StringVar(&so.Key, "key", "", "the API key to accept (default: a random fc- key)")
	f.IntVar(&so.Events, "events", sim.DefaultEvents, "events of the large scenario")
	f.IntVar(&so.History, "history", 0, "also host this many finished runs in the team's list, 20 a page (40+ make several pages)")
	f.IntVar(&so.MaxCredits, "max-credits", sim.DefaultMaxCredits, "credit cap of the credit-limit scenario")
	f.IntVar(&so.RateLimit, "rate-limit", sim.DefaultRateLimit, "requests a minute per key before 429 (-1: no limit)")
	f.IntVar(&so.Scrapes, "scrapes", 1, "ready-made scrape jobs to interact with (0: none)")
	f.IntVar(&so.MaxBrowserSessions, "max-browser-sessions", 5, "scrape browser sessions open at once before interact answers 429")
	f.DurationVar(&so.Retention, "retention", sim.DefaultRetention, "how long a run is kept: after it its trace, status and snapshots answer 404 and the list leaves it out")
	f.BoolVar(&so.RetryAfterHeader, "retry-after", false, "send a Retry-After header with 429s (the real service usually does not)")
	_ = cmd.RegisterFlagCompletionFunc("scenario", scenarioCompletion)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%v", err) })
	return cmd
}

func (a *app) serve(cmd *cobra.Command, so *serveOptions) error {
	for _, sc := range so.Scenarios {
		if !slices.Contains(sim.Scenarios(), sc) {
			return usageErrorf("--scenario %q: it must be one of %s", sc, strings.Join(sim.Scenarios(), ", "))
		}
	}
	if err := checkSpeed(so.Speed); err != nil {
		return err
	}
	if so.Events < 1 || so.MaxCredits < 1 {
		return usageErrorf("--events and --max-credits must be at least 1")
	}
	if so.History < 0 {
		return usageErrorf("--history %d: it must not be negative", so.History)
	}
	if so.RateLimit == 0 {
		return usageErrorf("--rate-limit 0 would refuse every request; use -1 for no limit")
	}
	if host, _, err := net.SplitHostPort(so.Addr); err != nil {
		return usageErrorf("--addr %q: %v", so.Addr, err)
	} else if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(a.stderr, "firewatch: serve: listening on %s, which is not loopback: anyone who can reach it can use the simulator\n", so.Addr)
	}
	if so.Scrapes < 0 || so.MaxBrowserSessions < 1 {
		return usageErrorf("--scrapes must be at least 0 and --max-browser-sessions at least 1")
	}
	opts := so.Options
	opts.Scenarios = so.Scenarios
	if opts.Scrapes == 0 {
		opts.Scrapes = -1 // none
	}
	opts.Log = a.stderr
	ctx := cmd.Context()
	srv, err := sim.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer srv.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "FIRECRAWL_API_URL=%s\n", srv.URL)
	fmt.Fprintf(&b, "FIRECRAWL_API_KEY=%s\n", srv.Key)
	for _, j := range srv.Jobs {
		fmt.Fprintf(&b, "JOB_ID=%s\n", j.ID)
	}
	for _, id := range srv.ScrapeIDs {
		fmt.Fprintf(&b, "SCRAPE_ID=%s\n", id)
	}
	if _, err := io.WriteString(a.stdout, b.String()); err != nil {
		return err
	}
	<-ctx.Done()
	if c := context.Cause(ctx); c != nil && !errors.Is(c, errInterrupted) && !errors.Is(c, context.Canceled) {
		return c
	}
	return nil
}
