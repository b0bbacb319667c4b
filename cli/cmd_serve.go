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

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/sim"
)

// serve options.
type serveOptions struct {
	sim.Options
	Scenarios  []string
	StartLog   string // --start-log: every POST /v2/agent body, one JSON line each
	selfHosted bool
}

func (a *app) serveCommand() *cobra.Command {
	so := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the simulated service, for firewatch, the official SDKs and CLI, or tests",
		Long: `Run the simulated Firecrawl service until interrupted. It first prints

    FIRECRAWL_API_URL=http://127.0.0.1:PORT
    FIRECRAWL_API_KEY=KEY
    SEED=N                   (--seed N serves the same runs, ids included)
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
	seedFlag(f, &so.Seed, "runs")
	f.StringVar(&so.Key, "key", "", "the API key to accept (default: a random fc- key)")
	f.IntVar(&so.Events, "events", sim.DefaultEvents, "events of the large scenario")
	f.IntVar(&so.History, "history", 0, "also host this many finished runs in the team's list, 20 a page (40+ make several pages), and 62 days of the team's other usage (scrapes, searches, extracts, maps) by a few named API keys")
	f.IntVar(&so.MaxCredits, "max-credits", sim.DefaultMaxCredits, "credit cap of the credit-limit scenario")
	f.IntVar(&so.RateLimit, "rate-limit", sim.DefaultRateLimit, "requests a minute per key before 429 (-1: no limit)")
	f.IntVar(&so.Scrapes, "scrapes", 1, "ready-made scrape jobs to interact with (0: none)")
	f.IntVar(&so.MaxBrowserSessions, "max-browser-sessions", 5, "scrape browser sessions open at once before interact answers 429")
	f.DurationVar(&so.Retention, "retention", sim.DefaultRetention, "how long a run is kept: after it its trace, status and snapshots answer 404 and the list leaves it out")
	f.BoolVar(&so.RetryAfterHeader, "retry-after", false, "send a Retry-After header with 429s (the real service usually does not)")
	f.StringArrayVar(&so.CrawlFaults, "crawl-fault", nil, "make crawls misbehave as real deployments have (repeat for several): "+strings.Join(sim.CrawlFaults(), ", "))
	f.StringArrayVar(&so.TeamOff, "team-off", nil, "answer a team endpoint as a self-hosted service lacking it does (activity 501, the others 404; repeat for several): "+strings.Join(sim.TeamEndpoints(), ", "))
	f.BoolVar(&so.selfHosted, "self-hosted", false, "like a self-hosted service: --team-off historical, activity and queue-status")
	f.StringArrayVar(&so.TeamFaults, "team-fault", nil, "make the team endpoints answer badly (repeat for several): "+strings.Join(sim.TeamFaults(), ", "))
	f.IntVar(&so.CrawlMarkdownBytes, "crawl-markdown-bytes", 0, "pad each crawled page's markdown to about this many bytes (with --crawl-fault unbounded-pages, 700000 makes a status answer of 100 pages larger than firewatch reads)")
	f.StringVar(&so.StartLog, "start-log", "", "append every POST /v2/agent body (and its answer's status and id) to `FILE`, one JSON line each")
	f.BoolVar(&so.NoThreads, "no-threads", false, "refuse follow-ups (a start with threadId) with 503 threads_disabled")
	_ = cmd.RegisterFlagCompletionFunc("scenario", scenarioCompletion)
	_ = cmd.RegisterFlagCompletionFunc("crawl-fault", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return sim.CrawlFaults(), cobra.ShellCompDirectiveNoFileComp
	})
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badUsage("%v", err) })
	return cmd
}

func (a *app) serve(cmd *cobra.Command, so *serveOptions) error {
	for _, sc := range so.Scenarios {
		if !slices.Contains(sim.Scenarios(), sc) {
			return badUsage("--scenario %q: it must be one of %s", sc, strings.Join(sim.Scenarios(), ", "))
		}
	}
	if err := checkSpeed(so.Speed); err != nil {
		return err
	}
	if so.Events < 1 || so.MaxCredits < 1 {
		return badUsage("--events and --max-credits must be at least 1")
	}
	if so.History < 0 {
		return badUsage("--history %d: it must not be negative", so.History)
	}
	if so.RateLimit == 0 {
		return badUsage("--rate-limit 0 would refuse every request; use -1 for no limit")
	}
	if host, _, err := net.SplitHostPort(so.Addr); err != nil {
		return badUsage("--addr %q: %v", so.Addr, err)
	} else if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(a.stderr, "firewatch: serve: listening on %s, which is not loopback: anyone who can reach it can use the simulator\n", so.Addr)
	}
	for _, f := range so.CrawlFaults {
		if !slices.Contains(sim.CrawlFaults(), f) {
			return badUsage("--crawl-fault %q: it must be one of %s", f, strings.Join(sim.CrawlFaults(), ", "))
		}
	}
	for _, n := range so.TeamOff {
		if !slices.Contains(sim.TeamEndpoints(), n) {
			return badUsage("--team-off %q: it must be one of %s", n, strings.Join(sim.TeamEndpoints(), ", "))
		}
	}
	for _, n := range so.TeamFaults {
		if !slices.Contains(sim.TeamFaults(), n) {
			return badUsage("--team-fault %q: it must be one of %s", n, strings.Join(sim.TeamFaults(), ", "))
		}
	}
	if so.selfHosted {
		so.TeamOff = append(so.TeamOff, sim.TeamHistorical, sim.TeamActivity, sim.TeamQueueStatus)
	}
	if so.CrawlMarkdownBytes < 0 || so.CrawlMarkdownBytes > 64<<20 {
		return badUsage("--crawl-markdown-bytes %d: it must be from 0 to %d", so.CrawlMarkdownBytes, 64<<20)
	}
	if so.Scrapes < 0 || so.MaxBrowserSessions < 1 {
		return badUsage("--scrapes must be at least 0 and --max-browser-sessions at least 1")
	}
	opts := so.Options
	opts.Seed = chooseSeed(opts.Seed)
	opts.Scenarios = so.Scenarios
	if opts.Scrapes == 0 {
		opts.Scrapes = -1 // none
	}
	opts.Log = a.stderr
	if so.StartLog != "" {
		lf, err := os.OpenFile(so.StartLog, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return badUsage("--start-log: %v", err)
		}
		defer lf.Close()
		opts.StartLog = lf
	}
	ctx := cmd.Context()
	srv, err := sim.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer srv.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "FIRECRAWL_API_URL=%s\n", srv.URL)
	fmt.Fprintf(&b, "FIRECRAWL_API_KEY=%s\n", srv.Key)
	fmt.Fprintf(&b, "SEED=%d\n", opts.Seed)
	for _, j := range srv.Jobs {
		fmt.Fprintf(&b, "JOB_ID=%s\n", j.ID)
	}
	for _, id := range srv.ScrapeIDs {
		fmt.Fprintf(&b, "SCRAPE_ID=%s\n", id)
	}
	if _, err := io.WriteString(a.print, b.String()); err != nil {
		return err
	}
	<-ctx.Done()
	if c := context.Cause(ctx); c != nil && !errors.Is(c, errInterrupted) && !errors.Is(c, context.Canceled) {
		return c
	}
	return nil
}
