package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/cli/internal/costtext"
	"github.com/firewatch/firewatch/cli/internal/hubsvc"
	"github.com/firewatch/firewatch/cli/internal/outputs"
	"github.com/firewatch/firewatch/compare"
	"github.com/firewatch/firewatch/export"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/mcpserver"
	"github.com/firewatch/firewatch/poller"
)

// firewatch mcp: the runs for a coding agent, as an MCP server on stdin and
// stdout (package mcpserver). This file is its wiring: the key, service,
// archive and leases every command uses, and on a hub the hub's followers
// and the person's role.

type mcpOptions struct {
	AllowActions bool
	Budget       float64
	Interval     time.Duration
}

func (a *app) mcpCommand() *cobra.Command {
	o := &watchOptions{}
	mo := &mcpOptions{}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "The team's runs for a coding agent: an MCP server on stdin and stdout",
		Long: `Serve the Model Context Protocol on stdin and stdout, for a coding agent
(Claude Code, Codex, Cursor) that starts firewatch as a tool server. Its
tools read the team's runs with the key, service and archive every command
uses: list_runs, get_run, get_tree, get_events, get_tool_call, get_artifact,
get_result, wait_for_run (blocks until the run ends, raises an attention item or records
an event: a run is followed once however many clients wait on it, and once
for every firewatch on the archive, through its lease), compare_runs (with
the --fail-on gate), cost and report. docs/mcp.md lists them.

Every result has a character budget and says what it cut; everything the
service sent is sanitised and labelled as web content; the key is never a
tool argument and never in a result, an error or the log (stderr).

--allow-actions adds cancel_run and start_run (whose max_credits may be at
most --budget). Each action is logged on stderr and kept in the run's
archive record with who asked ("mcp:<client name>").

Over a hub (ssh HUB mcp) the server uses the hub's key, followers and
archive; a viewer's server has no acting tools.`,
		Example: `  firewatch mcp
  firewatch mcp --allow-actions --budget 200
  claude mcp add firewatch -- firewatch mcp
  ssh -p 2222 hub.example.com mcp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runE(a.serveMCP(cmd.Context(), o, mo))
		},
	}
	f := cmd.Flags()
	f.BoolVar(&mo.AllowActions, "allow-actions", false, "offer cancel_run and start_run")
	f.Float64Var(&mo.Budget, "budget", 0, "the most max_credits start_run may ask for (with --allow-actions)")
	f.DurationVar(&mo.Interval, "interval", 2*time.Second, "how often a followed run is polled")
	o.register(cmd, flagsConnection)
	return cmd
}

func (a *app) serveMCP(ctx context.Context, o *watchOptions, mo *mcpOptions) error {
	if !(mo.Budget >= 0) {
		return badUsage("--budget %v: it must not be negative", mo.Budget)
	}
	if mo.Interval < 500*time.Millisecond {
		return badUsage("--interval %s: at least 500ms", mo.Interval)
	}
	svc, err := a.service(o.APIURL, o.APIKey)
	if err != nil {
		return err
	}
	b, err := a.mcpBackend(ctx, svc, o, mo)
	if err != nil {
		return err
	}
	defer b.close()
	cfg := mcpserver.Config{Backend: b, Secrets: a.secrets, Version: Version(), AllowActions: mo.AllowActions, Budget: mo.Budget, Log: a.stderr}
	if a.hub != nil {
		cfg.Person = a.hub.PersonName()
		if a.hub.ReadOnly() != "" {
			cfg.AllowActions = false // a viewer's server has no acting tools
		}
	}
	if cfg.AllowActions && mo.Budget == 0 {
		fmt.Fprintln(a.stderr, "firewatch mcp: --allow-actions without --budget: start_run refuses every start (cancel_run is offered)")
	}
	s := mcpserver.New(cfg)
	out := &outputs.WriteGuard{W: a.stdout}
	err = s.Run(ctx, mcpserver.Transport(a.stdin, out))
	werr := out.Failed()
	if werr != nil && !errors.Is(werr, syscall.EPIPE) {
		// stdout is the protocol: a full disk or a broken descriptor ends
		// the server with exit 8, as every command's stdout does.
		return &outputError{Name: "stdout", Err: werr}
	}
	if ctx.Err() != nil || werr != nil {
		return nil // the client went away, or an interrupt: a server's usual end
	}
	return err
}

// mcpBackend is the server's Backend: this app's key, service, archive
// (kept open for the server's life) and leases.
type mcpBack struct {
	a      *app
	svc    service
	o      *watchOptions
	client *poller.Client
	team   poller.TeamRuns // the list, with the archive behind it
	act    poller.TeamRuns // cancels and starts
	st     archive.Store   // nil: off or not to be had
	hubs   bool            // st is the hub's one store: the hub closes it
	fs     *mcpserver.Followers
	hubRun func(id string) (*follow.Follower, func()) // on a hub: the hub's one follower per run
	held   *mcpserver.HeldRuns                        // the hub's followers kept between calls
}

func (a *app) mcpBackend(ctx context.Context, svc service, o *watchOptions, mo *mcpOptions) (*mcpBack, error) {
	client, err := a.client(svc, nil, func(line string) { fmt.Fprintf(a.stderr, "firewatch mcp: %s\n", line) })
	if err != nil {
		return nil, err
	}
	b := &mcpBack{a: a, svc: svc, o: o, client: client, team: client, act: client}
	if _, err := a.archiveDSN(); err == nil {
		var st archive.Store
		if b.hubs = a.hub.Shares(); b.hubs {
			st = a.hub.Store() // the hub's one store (nil: none)
		} else {
			st, err = a.openArchive(ctx, keepArchive, &lockNote{quiet: true})
		}
		switch {
		case err != nil:
			fmt.Fprintf(a.stderr, "firewatch mcp: the archive is not used: %s\n", a.secrets.Redact(err.Error()))
		case st != nil:
			b.st = st
			b.team = archiving.NewListing(client, st, archive.Query{Service: svc.baseURL})
		}
	}
	if a.hub != nil {
		b.team, b.act = a.hub.RunsService(b.team), a.hub.RunsService(client)
		if a.hub.Shares() {
			b.held = mcpserver.NewHeldRuns(func(id string) (*follow.Follower, func()) {
				r, release := a.hub.Hub().Open(id)
				return r.F, release
			})
			b.hubRun = b.held.Open
		}
	}
	b.fs = &mcpserver.Followers{Secrets: a.secrets, Make: func(ctx context.Context, id string) (follow.Source, func(*follow.Run), error) {
		return b.source(ctx, id, mo.Interval)
	}}
	b.fs.Start(ctx)
	return b, nil
}

// source is a run's: the archive's copy when it holds the run to its end,
// else its polls through its lease (one poller for every firewatch on the
// archive), with what it was asked.
func (b *mcpBack) source(ctx context.Context, id string, interval time.Duration) (follow.Source, func(*follow.Run), error) {
	if b.st != nil {
		if r, polls, err := archiving.Load(ctx, b.st, b.svc.baseURL, id); err == nil && r != nil && r.Complete && len(polls) > 0 {
			return archiving.Archived(r, polls), nil, nil
		}
	}
	var kept *keptArchive // the server's one store, borrowed (nil: the feed opens its own)
	if b.st != nil {
		kept = &keptArchive{st: b.st, borrowed: true, lock: &lockNote{}}
	}
	feed, err := b.a.sharedSource(ctx, b.svc, id, interval, nil, kept)
	if err != nil {
		return nil, nil, err
	}
	done := func(run *follow.Run) {
		// The status once the run ended: its result and the service's own
		// figures (credits, expiry), as a watch keeps them.
		ended := run.Store.Run().Outcome != ""
		feed.Shared.Sink().KeepStatus(ctx, b.client, nil, ended, nil)
		feed.Done(run)
	}
	return hubsvc.WithRequest(b.client, feed.Shared.Sink(), b.a.secrets, b.svc.baseURL, id, nil, feed.Source), done, nil
}

func (b *mcpBack) close() {
	b.fs.Stop()
	b.held.Close()
	if b.st != nil && !b.hubs {
		b.st.Close()
	}
}

func (b *mcpBack) Team() poller.TeamRuns { return b.team }

func (b *mcpBack) Act() poller.TeamRuns { return b.act }

func (b *mcpBack) Follow(ctx context.Context, id string) (*follow.Follower, func(), error) {
	if err := poller.ValidateJobID(id); err != nil {
		return nil, nil, err
	}
	if b.hubRun != nil {
		f, release := b.hubRun(id)
		return f, release, nil
	}
	return b.fs.Open(ctx, id)
}

func (b *mcpBack) Record(ctx context.Context, id string) (*archive.Run, error) {
	if b.st == nil {
		return nil, nil
	}
	r, err := b.st.Get(ctx, b.svc.baseURL, id)
	if errors.Is(err, archive.ErrNotFound) {
		return nil, nil
	}
	return r, err
}

func (b *mcpBack) Snapshot(ctx context.Context, id, snapshotID string) (string, error) {
	if b.st != nil {
		if s, err := b.st.Snapshot(ctx, b.svc.baseURL, id, snapshotID); err == nil {
			return s, nil
		}
	}
	s, err := b.client.Snapshot(ctx, id, snapshotID)
	if err != nil {
		return "", err
	}
	return s.Content, nil
}

// settle is the wait of the archive's readers for the runs that just
// ended here (Followers.Settle).
const settle = 5 * time.Second

func (b *mcpBack) Compare(ctx context.Context, x, y string, gates compare.Gates) (*compare.Comparison, error) {
	b.fs.Settle(ctx, settle)
	return b.a.comparison(ctx, x, y, gates, b.o.APIURL, b.o.APIKey)
}

func (b *mcpBack) Cost(ctx context.Context, since, by string) (*mcpserver.CostOut, error) {
	if b.st == nil {
		return nil, errors.New("cost reads firewatch's archive, which is off or could not be opened (see --archive)")
	}
	b.fs.Settle(ctx, settle)
	ho := &historyOptions{Since: since, Status: "all"}
	q, err := ho.query(b.svc.baseURL, time.Now())
	if err != nil {
		return nil, err
	}
	list, err := b.st.List(ctx, q)
	if err != nil {
		return nil, archiveErr(err)
	}
	rep := costtext.Build(by, list, time.Now())
	out := &mcpserver.CostOut{By: rep.By, Total: costTotalOut(rep.Total), Buckets: []mcpserver.CostBucket{}}
	for _, bk := range rep.Buckets {
		out.Buckets = append(out.Buckets, mcpserver.CostBucket{Key: bk.Key, CostTotal: costTotalOut(bk.Total)})
	}
	return out, nil
}

func costTotalOut(t costtext.Total) mcpserver.CostTotal {
	return mcpserver.CostTotal{Runs: t.Runs, CreditsUsed: t.CreditsUsed, BilledCredits: t.BilledCredits, FailedRuns: t.FailedRuns,
		FailedCredits: t.FailedCredits, UnknownRuns: t.UnknownRuns, UnknownCredits: t.UnknownCredits}
}

func (b *mcpBack) Result(ctx context.Context, id string) ([]byte, string, error) {
	rec, err := b.Record(ctx, id)
	if err != nil {
		rec = nil
	}
	return b.a.findResult(ctx, b.svc.baseURL, b.svc.key, id, rec, "")
}

func (b *mcpBack) Report(ctx context.Context, id string) (string, error) {
	b.fs.Settle(ctx, settle)
	rr, err := b.a.readRun(ctx, id, b.o.APIURL, b.o.APIKey)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	ro := export.ReportOptions{Version: Version(), Secrets: b.a.secrets, Facts: rr.Figures.Facts()}
	if err := export.Report(&buf, rr.Store(), export.FormatMarkdown, ro); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// Acted keeps who acted in the run's archive record (on a hub the hub
// does: its runs service told it).
func (b *mcpBack) Acted(ctx context.Context, who, what, id string, err error) {
	if err != nil || id == "" || b.st == nil || b.a.hub != nil {
		return
	}
	r := &archive.Run{StartedBy: who}
	if what == "cancel" {
		r = &archive.Run{CancelRequested: true, CancelledBy: who}
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), archiving.WriteTimeout)
	defer cancel()
	if err := b.st.PutRun(wctx, archiving.WithID(r, b.svc.baseURL, id)); err != nil {
		fmt.Fprintf(b.a.stderr, "firewatch mcp: who acted on run %s is not archived: %s\n", id, b.a.secrets.Redact(err.Error()))
	}
}
