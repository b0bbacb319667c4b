package cli

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/cli/internal/historytext"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// firewatch archive: keep the team's runs past the service's 24 hours.

type archiveOptions struct {
	Every time.Duration
	Once  bool
}

func (a *app) archiveCommand() *cobra.Command {
	o := &watchOptions{}
	ao := &archiveOptions{}
	cmd := &cobra.Command{
		Use:   "archive",
		Short: "Keep the team's runs past the service's 24 hours, in the archive",
		Long: `Page through the team's runs (GET /v2/agent) and fetch every run the archive
does not hold, or held while it was still processing: its status, trace and
artifact snapshots. Then sleep (--every) and do it again; --once does one
pass and exits (for cron or a systemd timer).

One request at a time, paced: the passes and background completions on
the archive take half the team's rate limit together ($FIREWATCH_RATE_LIMIT:
requests a minute, 500 unless set, or N/DURATION), so that live watches
keep the rest; a 429 is waited out and slows the pace. A second pass
fetches nothing new; a pass killed halfway is completed by the next.
Each run is written in one transaction: nothing half-written.

A run the service cannot give now (an answer that stays 5xx) is skipped and
said, with why, on its own line; what could be read of it is kept (a run
without one of its snapshots is still archived), and the next pass tries
the rest again. An endpoint (a run's status, trace or snapshots) that
fails for 3 runs in a row is asked no more in the pass, said once: what it
serves is left for the next pass. A first-generation run has no trace: its list item and
status are archived as the whole of it. Runs are kept per team:
a pass marks expired only runs its own key's team owns and no longer lists.

Exit codes: 0 the pass did its job (runs it skipped are said and tried
again next pass). Only a pass that could archive none of the runs it had to
fetch, or could not read the list, fails, with the code of the failure as
for any request: 6 the service refused (a bad key, a 4xx, a 429 that
stayed), 1 it failed (a 5xx, the network). 2 bad usage, or an archive
firewatch cannot read; 8 the archive cannot be written (no space left,
read-only, or another program held its lock for 30s); 130 interrupted.
With --every a failed pass is said and the next one runs.

The archive is --archive, else $FIREWATCH_ARCHIVE, else
$XDG_DATA_HOME/firewatch/archive.db (see docs/archive.md).`,
		Example: `  firewatch archive --once
  firewatch archive --every 30m
  firewatch archive import run.ndjson
  firewatch archive prune --before 90d`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.archiveRun(cmd, o, ao)) },
	}
	f := cmd.Flags()
	f.DurationVar(&ao.Every, "every", 10*time.Minute, "time between passes")
	f.BoolVar(&ao.Once, "once", false, "one pass, then exit")
	o.register(cmd, flagsConnection)
	cmd.AddCommand(a.archiveImportCommand(), a.archivePruneCommand())
	return cmd
}

func (a *app) archiveRun(cmd *cobra.Command, o *watchOptions, ao *archiveOptions) error {
	if ao.Every < time.Second {
		return badUsage("--every %s: it must be at least 1s", ao.Every)
	}
	svc, err := a.service(o.APIURL, o.APIKey)
	if err != nil {
		return err
	}
	limit, err := archiving.LimitFromEnv()
	if err != nil {
		return badUsage("%s", err)
	}
	term, _ := isTerminal(a.stderr.w)
	// The client waits out a 429 or a 5xx as poller.Retry says, each wait
	// said on stderr (on a terminal, over the progress line).
	say := func(line string) { fmt.Fprintf(a.stderr, "firewatch: %s\n", line) }
	if term {
		say = func(line string) { fmt.Fprintf(a.stderr, "\r\x1b[Kfirewatch: %s\n", line) }
	}
	c, err := a.client(svc, nil, say)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	st, err := a.openArchive(ctx, needArchive, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	service := svc.baseURL
	// Who this process is to the team, in the leases of the list and runs.
	label := "archive --every"
	if ao.Once {
		label = "archive --once"
	}
	holder := archive.NewHolder(label)
	// Its requests take what the team's live follows leave of the limit,
	// with every other pass and completion on the archive (budget.go).
	// A pass's 429s slow it for the rest of it: the next starts at the
	// budget's pace again.
	team := archive.TeamOf(svc.key)
	for {
		budget := archiving.NewBudget(st, service, team, limit, nil)
		p := &archiving.Pass{C: c, St: st, Secrets: a.secrets, Service: service, Team: team, Report: passReport{a, term}, Holder: holder, ShareList: !ao.Once, Budget: budget}
		err := passErr(p.Run(ctx))
		if ctx.Err() != nil {
			return errInterrupted
		}
		if err != nil {
			if ao.Once {
				return err
			}
			fmt.Fprintf(a.stderr, "firewatch: archive: pass failed: %s; next pass in %s\n", a.secrets.Redact(err.Error()), text.Duration(ao.Every))
		}
		if ao.Once {
			return nil
		}
		t := time.NewTimer(ao.Every)
		select {
		case <-ctx.Done():
			t.Stop()
			return errInterrupted
		case <-t.C:
		}
	}
}

// rateLimit is the team's limit for the background work of a screen or a
// hub: $FIREWATCH_RATE_LIMIT, or the default when it is unset or cannot be
// read (firewatch archive refuses the latter).
func rateLimit() archiving.Limit {
	l, err := archiving.LimitFromEnv()
	if err != nil {
		return archiving.Limit{N: archiving.DefaultRateLimit, Per: time.Minute}
	}
	return l
}

// passReport says what a pass of firewatch archive does, on stderr: where
// it is on a line rewritten in place on a terminal (one line at the end
// otherwise), each run it skips on a line of its own.
type passReport struct {
	a    *app
	term bool
}

func (r passReport) Progress(p archiving.PassCounts, final bool) {
	if p.ListedBy != "" {
		if final {
			r.say(fmt.Sprintf("archive: the team's list is archived by %s now: this pass is left to it", p.ListedBy))
		}
		return
	}
	line := fmt.Sprintf("archive: %d runs seen, %d fetched, %s", p.Seen, p.Fetched, text.Size(int(p.Bytes)))
	if p.Partial > 0 {
		line += fmt.Sprintf(", %d without some snapshots", p.Partial)
	}
	if p.Skipped > 0 {
		line += fmt.Sprintf(", %d skipped (tried again next pass)", p.Skipped)
	}
	if p.Polled > 0 {
		line += fmt.Sprintf(", %d polled by another firewatch (archived by it)", p.Polled)
	}
	if p.Expired > 0 {
		line += fmt.Sprintf(", %d gone before they could be fetched", p.Expired)
	}
	if p.Forgotten > 0 {
		line += fmt.Sprintf(", %d no longer kept by the service", p.Forgotten)
	}
	switch {
	case r.term && !final:
		fmt.Fprintf(r.a.stderr, "\r\x1b[K%s", line)
	case r.term:
		fmt.Fprintf(r.a.stderr, "\r\x1b[K%s (%s)\n", line, text.Duration(time.Since(p.Started)))
	case final:
		paced := ""
		if p.Paced >= time.Second {
			paced = fmt.Sprintf(" (%s of it paced, leaving the live work its share)", text.Duration(p.Paced))
		}
		fmt.Fprintf(r.a.stderr, "firewatch: %s, %d requests, %s%s\n", line, p.Requests, text.Duration(time.Since(p.Started)), paced)
	}
}

// EndpointOff says, once, that the pass asks an endpoint no more.
func (r passReport) EndpointOff(endpoint string, runs int, err error) {
	what := map[string]string{"status": "runs' statuses", "trace": "runs' traces", "snapshot": "runs' snapshots"}[endpoint]
	if what == "" {
		what = "runs' " + endpoint + "s"
	}
	r.say(fmt.Sprintf("archive: the service failed to give the %s for %d runs in a row (%s): this pass asks for them no more; the next pass tries again",
		what, runs, r.a.secrets.Redact(err.Error())))
}

// Skip says why a run (or a part of it) could not be archived.
func (r passReport) Skip(id, what string, err error) {
	r.say(fmt.Sprintf("archive: run %s %s (%s); the next pass tries again", id, what, r.a.secrets.Redact(err.Error())))
}

func (r passReport) FirstGen(id string) {
	r.say(fmt.Sprintf("archive: run %s archived without a trace: a first-generation run has none", id))
}

// say says one line about a run, over the progress line on a terminal.
func (r passReport) say(line string) {
	if r.term {
		fmt.Fprintf(r.a.stderr, "\r\x1b[Kfirewatch: %s\n", line)
		return
	}
	fmt.Fprintf(r.a.stderr, "firewatch: %s\n", line)
}

// passErr is a pass's error as the command's: the archive's failure by
// archiveErr's rule, the service's as it is.
func passErr(err error) error {
	if se := (*archiving.StoreError)(nil); errors.As(err, &se) {
		return archiveErr(se.Err)
	}
	return err
}

// firewatch archive import FILE...

func (a *app) archiveImportCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "import FILE...",
		Short:   "Add --record recordings to the archive",
		Example: `  firewatch archive import runs/*.ndjson`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return badUsage("archive import needs one or more recording files")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.archiveImport(cmd, args)) },
	}
}

func (a *app) archiveImport(cmd *cobra.Command, files []string) error {
	ctx := cmd.Context()
	st, err := a.openArchive(ctx, needArchive, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, f := range files {
		name := text.Sanitize(f)
		r, polls, cut, err := archiving.ReadRecording(ctx, a.secrets, f)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return asUsage(err)
		}
		if cut > 0 {
			fmt.Fprintf(a.stderr, "firewatch: %s: its last line is cut short (%s; a --record that was stopped mid-write): the %d complete polls before it are imported\n", name, text.Size(cut), len(polls))
		}
		if held, err := st.Get(ctx, r.Service, r.ID); err == nil && held.Service == r.Service && held.Polls > 0 && !archiving.MoreComplete(r, len(polls), held) {
			fmt.Fprintf(a.print, "kept %s as the archive holds it (%s); %s holds %s\n", r.ID, completeness(held.Complete, held.Events, held.Polls), name, completeness(r.Complete, r.Events, len(polls)))
			continue
		} else if err != nil && !isArchiveNotFound(err) {
			return archiveErr(err)
		}
		if err := st.ReplaceRun(ctx, r, polls, nil); err != nil {
			return archiveErr(err)
		}
		fmt.Fprintf(a.print, "imported %s (%d polls, %d events) from %s\n", r.ID, len(polls), r.Events, name)
	}
	return nil
}

// completeness says how complete a copy of a run is.
func completeness(complete bool, events, polls int) string {
	state := "not finished"
	if complete {
		state = "finished"
	}
	return fmt.Sprintf("%s, %d events in %d polls", state, events, polls)
}

// firewatch archive prune

type pruneOptions struct {
	Before string
	Run    string
	All    bool
	DryRun bool
}

func (a *app) archivePruneCommand() *cobra.Command {
	po := &pruneOptions{}
	cmd := &cobra.Command{
		Use:   "prune (--before AGE | --run ID | --all)",
		Short: "Delete archived runs and crawls, and say how much",
		Long: `Delete archived runs created before an age or date (--before), one run
(--run), or every run (--all), and say how many runs, polls and bytes went.
Crawls go by the same rule: those firewatch first saw before the cut-off
(the service gives a crawl no creation time), the crawl --run names, or
every one with --all.

A cut-off that is not in the past (--before 0, a date to come) would delete
every run: it is refused unless --all is given too. --dry-run says what
would be deleted, and deletes nothing.`,
		Example: `  firewatch archive prune --before 90d --dry-run
  firewatch archive prune --before 90d
  firewatch archive prune --run 019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b
  firewatch archive prune --all`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.archivePrune(cmd, po)) },
	}
	cmd.Flags().StringVar(&po.Before, "before", "", "delete runs created before this age (90d, 12w, 36h, or an RFC 3339 date)")
	cmd.Flags().StringVar(&po.Run, "run", "", "delete this run (or this crawl)")
	cmd.Flags().BoolVar(&po.All, "all", false, "delete every run (or allow a --before that is not in the past)")
	cmd.Flags().BoolVar(&po.DryRun, "dry-run", false, "say what would be deleted, delete nothing")
	return cmd
}

func (a *app) archivePrune(cmd *cobra.Command, po *pruneOptions) error {
	if po.Run != "" && (po.Before != "" || po.All) || po.Run == "" && po.Before == "" && !po.All {
		return badUsage("archive prune needs one of --before AGE, --run ID or --all")
	}
	now := time.Now()
	var before time.Time
	switch {
	case po.Before != "":
		t, err := historytext.ParseAge(po.Before, now)
		if err != nil {
			return badUsage("--before %q: %v", text.Sanitize(po.Before), err)
		}
		if !t.Before(now) && !po.All {
			return badUsage("--before %q is not in the past: it would delete every archived run; add --all to do that (--dry-run says what would go)", text.Sanitize(po.Before))
		}
		before = t
	case po.All:
		before = time.UnixMilli(math.MaxInt64) // after every run
	}
	if po.Run != "" && poller.ValidateJobID(po.Run) != nil {
		return badUsage("--run %q: a job id is a UUID", text.Sanitize(po.Run))
	}
	ctx := cmd.Context()
	st, err := a.openArchive(ctx, needArchive, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	id := strings.ToLower(po.Run)
	if po.DryRun {
		p, err := st.Pruning(ctx, "", before, id)
		if err != nil {
			return archiveErr(err)
		}
		_, err = fmt.Fprintf(a.print, "would prune %d runs (%d polls, %s) and %s; nothing was deleted (--dry-run)\n", p.Runs, p.Polls, text.Size(int(p.Bytes)), plural(p.Crawls, "crawl", "crawls"))
		return err
	}
	p, err := st.Prune(ctx, "", before, id)
	if err != nil {
		return archiveErr(err)
	}
	_, err = fmt.Fprintf(a.print, "pruned %d runs (%d polls, %s) and %s\n", p.Runs, p.Polls, text.Size(int(p.Bytes)), plural(p.Crawls, "crawl", "crawls"))
	return err
}
