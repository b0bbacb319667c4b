package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/cli/internal/teamview"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/runs"
)

// firewatch team: the team at a glance, for scripts: tokens left in the
// billing period, the processing runs and the active crawls.

func (a *app) teamCommand() *cobra.Command {
	o := &watchOptions{}
	var output string
	cmd := &cobra.Command{
		Use:   "team",
		Short: "The team at a glance: tokens left, processing runs, active crawls",
		Long: `Print the team's token balance for the billing period (GET /v2/team/token-usage;
1 credit = 15 tokens), its processing runs (GET /v2/agent) and its active
crawls (GET /v2/crawl/active) with the scrape options that differ from the v2
defaults; options left over from v1 (parsePDF, an "extract" format) are
flagged as renamed.

With an archive (--archive, $FIREWATCH_ARCHIVE, the default file), it also
says who polls what: the leases the firewatch processes sharing it hold now
(each run is polled by one of them, the others follow what it stores), with
the holder's host and process, since when, and its last renewal; then the
lease rows nobody holds (released, or ended). An odd row is flagged: an
expiry far in the future or a renewal in it, a lease not renewed for longer
than its TTL, a token at its limit. A lease is believed only while its
holder renews it, whatever its row's expiry says.

--output plain (the default) is for people; json is one object with
tokenUsage, activeCrawls, runs (the processing runs as the service sent
them) and leases (run, service, label, host, pid, since, renewed, expires,
token, held, odd: every row, the held ones first). A team without token usage information gets tokenUsage null.`,
		Example: `  firewatch team
  firewatch team -o json | jq .tokenUsage.remainingTokens`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.team(cmd, o, output)) },
	}
	cmd.Flags().StringVarP(&output, "output", "o", OutputPlain, "plain or json")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{OutputPlain, OutputJSON}, cobra.ShellCompDirectiveNoFileComp))
	o.register(cmd, flagsConnection)
	return cmd
}

func (a *app) team(cmd *cobra.Command, o *watchOptions, output string) error {
	output = strings.ToLower(strings.TrimSpace(output))
	if output != OutputPlain && output != OutputJSON {
		return badUsage("--output %q: it must be plain or json", output)
	}
	c, svc, err := a.connect(o)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	t := teamview.Fetch(ctx, c, func(ctx context.Context) ([]poller.RunInfo, error) {
		return collectRuns(ctx, a, c, 1<<30, latestPages, func(r *poller.RunInfo) bool { return runs.StatusMatches("processing", r.Status) })
	})
	t.Leases = teamview.ReadLeases(ctx, func(ctx context.Context) (archive.Store, error) {
		return a.openArchive(ctx, keepArchive, nil)
	}, svc.baseURL)
	if t.CrawlsErr == nil && len(t.Crawls) > 0 {
		// The crawls seen are kept, as a watch keeps its crawl.
		keep := a.keepCrawls(ctx, svc, nil)
		if keep != nil {
			if err := keep.Seen(ctx, t.Crawls, time.Now()); err != nil {
				fmt.Fprintf(a.stderr, "firewatch: the crawls are not archived: %v\n", err)
			}
			keep.Close()
		}
	}
	failed := t.Failed()
	if len(failed) == 3 || ctx.Err() != nil {
		// Nothing to show (the key refused, no network, interrupted): the
		// first failure says it.
		return errors.Join(t.UsageErr, t.CrawlsErr, t.RunsErr)
	}
	if err := t.Write(a.print, output == OutputJSON, time.Now(), a.secrets, maxIDCells); err != nil {
		return err
	}
	if len(failed) > 0 {
		// What came is shown; the parts that did not are named, exit 1.
		return &failure{Err: errors.Join(failed...)}
	}
	return nil
}
