package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/cli/internal/outputs"
	"github.com/firewatch/firewatch/cli/internal/runresult"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/runs"
)

// newSession checks the flags and prepares what every watch shares: the
// output mode, colour, the debug log and the --summary target. Files that
// cannot be created are usage errors (exit 2), found before any request
// and before any file is created (see outputs): the debug log is created
// last, --record by watchLive, --summary when watching ends.
func (a *app) newSession(cmd *cobra.Command, o *watchOptions) (w *watchSession, cleanup func(), err error) {
	out := &outputs.Outputs{Stderr: a.stderr}
	cleanup = out.Close
	w = &watchSession{Opts: o, Run: follow.NewRun(), out: out,
		display: display{Secrets: a.secrets, Stdout: out.Guarded("stdout", a.stdout), Stderr: a.stderr}}
	w.Store.SetSecrets(a.secrets)
	w.TrackerOptions = w.attentionOptions
	w.hub = a.hub
	termOut, width := a.stdoutTerminal()
	out.StdoutTTY = termOut
	if w.Output, err = resolveOutput(o.Output, termOut); err != nil {
		return nil, cleanup, err
	}
	if w.Output == OutputTUI {
		// A hub session's terminal is one; the process's is checked.
		if err := checkTUI(a.stdin, termOut); err != nil && a.hub.Terminal() == nil {
			return nil, cleanup, err
		}
		w.Notes = make(chan string, 4)
		w.streams = a.screenStreams()
		out.Defer = true
	}
	if err := checkOutputs(o); err != nil {
		return nil, cleanup, err
	}
	if termOut {
		w.Width = width
	}
	w.Color = termOut && !o.NoColor && !a.noColorEnv()
	if o.Debug != "" {
		f, err := out.Create("--debug", o.Debug)
		if err != nil {
			return nil, cleanup, err
		}
		w.Debug = newDebugLog(f, a.secrets)
		out.Debug = w.Debug
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
		return asUsage(err)
	}
	// The address and key are checked before any file is created.
	svc, err := a.service(o.APIURL, o.APIKey)
	if err != nil {
		return err
	}
	// The archive, opened once: a run the service forgot is shown from it
	// (cli/archive.go), else the watch keeps its run in it.
	kept := a.keepArchiveFor(cmd.Context())
	defer kept.close()
	if handled, err := a.watchFromArchive(cmd, o, svc, jobID, kept); handled {
		return err
	}
	w, cleanup, err := a.newSession(cmd, o)
	if err != nil {
		return err
	}
	defer cleanup()
	err = a.watchLive(cmd.Context(), w, svc, jobID, liveOptions{archive: kept})
	_, err = a.watchNext(cmd, o, svc, w, err)
	return err
}

// liveOptions are what a command gives watchLive besides the session.
type liveOptions struct {
	// label says what the process is to the team, in the run's lease
	// ("watch" when empty).
	label string
	// private: a run of a service no other firewatch can reach (the
	// demo's own simulator): polled by this watch alone, with no lease.
	private bool
	// hook, if set, runs in its own goroutine once the client exists.
	hook func(context.Context, *poller.Client)
	// archive is the archive the command opened for the watch (nil:
	// watchLive opens it); its seed, what the command knows of a run it
	// started.
	archive *keptArchive
	// started: this process started the run (run, demo), so it was going
	// even when the first poll finds it over, and its end is told.
	started bool
}

// watchLive watches jobID at svc: the code path of watch, run, the runs
// screen and demo.
func (a *app) watchLive(ctx context.Context, w *watchSession, svc service, jobID string, lo liveOptions) error {
	o := w.Opts
	var say func(string) // stderr
	if w.Output == OutputTUI {
		say = w.note // the footer: the screen is the UI's
	}
	client, err := a.client(svc, w.Debug, say)
	if err != nil {
		return err
	}
	if w.Start == nil && w.Output == OutputTUI {
		// R and F on the run's screen start through this client (a hub's
		// session: as its runs screen does, told and checked).
		w.Start = &screenStarts{start: a.hub.RunsService(runs.Service(client)).StartAgent}
	}
	// The archive gets the recording too, poll by poll (cli/archive.go);
	// what it holds of the run (a run started with --detach or from the
	// runs screen: its request, its cap) is what the watch knows too.
	var aw *archiving.Sink
	var reopen func(context.Context) (*archiving.Sink, error)
	if !lo.private {
		// A private run (the demo's) is polled by this watch alone, with
		// no lease: it is not archived.
		if lo.archive == nil {
			lo.archive = a.keepArchiveFor(ctx)
			defer lo.archive.close() // after the sink's close, below
		}
		aw, reopen = a.archiveWatch(ctx, sinkOf(w), svc, jobID, lo.archive)
	}
	var shared *archiving.Shared
	// The sink: the archive may have been reached later (Shared's).
	sinkNow := func() *archiving.Sink {
		if shared != nil && shared.Sink() != nil {
			return shared.Sink()
		}
		return aw
	}
	defer func() { closeArchive(sinkNow(), w) }()
	if aw != nil {
		// Its requests are live work, counted into the team's budget (the
		// last counts written before the store is closed).
		var stop func()
		var m *archiving.LiveMeter
		client, m, stop = a.meterLive(ctx, client, svc, aw.Store())
		defer stop()
		aw.CarrySpend(m) // its counts ride on the polls' writes
	}
	req := w.Request
	var told *archive.Run // what the service says of the run, for the archive
	// The service said this key may see the run (or this process started
	// it): the watch may show another process's polls of it. A request
	// the archive holds says nothing of this key.
	visible := lo.started
	if req.IsZero() {
		// The prompt and model, for the screen, the recording, the report
		// and the export; a failure costs nothing but them.
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if l, err := client.RunLookup(rctx, jobID); err != nil {
			w.Debug.Printf("the run's request: %v", err)
		} else {
			req, told = l.Request, archiving.ServiceRecord(a.secrets, svc.baseURL, jobID, l)
			visible = l.Status != nil
			if l.Status != nil {
				w.Store.SetThread(model.Thread{ID: l.Status.ThreadID, Turn: l.Status.ThreadTurn})
			}
		}
		cancel()
	} else if req.Model == "" {
		// A run started here without --model: the service says which
		// one it runs (every reader then names the same).
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if st, err := client.Status(rctx, jobID); err != nil {
			w.Debug.Printf("the run's status: %v", err)
		} else {
			req.Model, told = text.Sanitize(st.Model), archiving.ServiceRecord(a.secrets, svc.baseURL, jobID, poller.Lookup{Status: st})
			w.Store.SetThread(model.Thread{ID: st.ThreadID, Turn: st.ThreadTurn})
			visible = true
		}
		cancel()
	}
	if held := aw.Held(ctx); held != nil {
		req = req.Merge(archiving.RequestOf(held))
		// Who started or cancelled it through a hub, for the header,
		// the closing block, --summary and the notifications.
		w.Store.SetActors(archiving.ActorsOf(held))
		w.Store.SetThread(model.Thread{ID: held.ThreadID, Turn: held.ThreadTurn})
	}
	if o.StartedMaxCredits > 0 && req.MaxCredits == 0 {
		req.MaxCredits = o.StartedMaxCredits
	}
	w.Store.SetRequest(req)
	wopts := poller.WatchOptions{Interval: o.Interval, Tail: o.Tail, LiveView: o.LiveView, Request: w.Store.Request()}
	if o.Record != "" {
		f, err := w.out.Create("--record", o.Record)
		if err != nil {
			return err
		}
		wopts.Record = f
	}
	aw.KeepLookup(told)
	// The run is polled once by every firewatch that shares the archive
	// (archiving.Shared): this one, or another whose polls it reads.
	sayShared := say
	if sayShared == nil {
		sayShared = func(msg string) { fmt.Fprintf(w.Stderr, "firewatch: %s\n", msg) }
	}
	feed := a.newFeed(sharedRun{svc: svc, client: client, jobID: jobID, watch: wopts, label: lo.label,
		visible: visible, say: sayShared, debug: w.Debug, snapshotLogf: w.Debug.Printf}, aw, reopen)
	shared = feed.Shared
	w.JobID, w.Client, w.Watcher, w.Source = jobID, client, shared, feed.Source
	if feed.Snapshots != nil {
		w.keepSnapshot = feed.Snapshots.Keep
	}
	w.keepCancel = func() {
		if s := sinkNow(); s != nil {
			s.KeepCancel()
		}
	}
	var final *poller.Status // the status asked for --result, which the archive keeps too
	w.resultOf = runresult.Live(client, jobID, &final)
	w.Store.SetRunID(jobID)
	w.Debug.Printf("service %s, job %s", svc.baseURL, jobID)
	if w.notify, err = a.notifyWatch(w, svc); err != nil {
		return err
	}
	if w.notify != nil {
		if lo.started {
			w.notify.run.Started()
		}
		w.Saw = w.notify.saw // after every merge and tick (attend)
	}
	otlp, err := o.OTLP.live(w, a.secrets, func() bool { return sinkNow() != nil })
	if err != nil {
		return err
	}
	defer otlp.Finish()
	if lo.hook != nil {
		hctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go lo.hook(hctx, client)
	}
	ctx, stop := w.out.Context(ctx)
	defer stop(nil)
	err = w.run(ctx)
	sinkNow().KeepStatus(ctx, client, final, w.Store.Run().Outcome != "", w.Debug.Printf)
	return w.out.Finish(err)
}

func (a *app) watchCommand() *cobra.Command {
	o := &watchOptions{}
	cmd := &cobra.Command{
		Use:   "watch JOB_ID",
		Short: "Follow an agent run to its end (also: firewatch JOB_ID)",
		Long: `Follow an agent run to its end: poll its trace, show every event as it
arrives and the outcome when it finishes. The exit code says how it ended.

The key comes from FIRECRAWL_API_KEY (or --api-key); the service from
FIRECRAWL_API_URL (or --api-url), by default https://api.firecrawl.dev.

Every firewatch that shares an archive (a team's --archive postgres://...,
or one SQLite file on one machine) polls a run once between them: the one
that holds the run's lease polls it and stores each poll, the others show
what it stores (the header says "polled by ..."), and one of them takes
over when it stops. firewatch team says who polls what; --debug logs each
lease taken, renewed, lost or taken over. See docs/archive.md.`,
		Example: `  firewatch watch 019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b
  firewatch watch $JOB --output json | jq -c 'select(.type == "tool_call.started")'
  firewatch watch $JOB --output plain --summary run.json --timeout 10m`,
		Args: latestArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if latest, _ := cmd.Flags().GetBool("latest"); latest {
				return runE(a.watchLatest(cmd, o))
			}
			return runE(a.watch(cmd, o, args[0]))
		},
	}
	o.register(cmd, flagsConnection|flagsPolling|flagsOutput|flagsOTLP|flagsNotify)
	o.registerResult(cmd.Flags())
	cmd.Flags().Bool("latest", false, "watch the team's newest processing run instead of a JOB_ID")
	return cmd
}

// watchLatest watches the newest processing run (watch --latest): exit 2
// when none is processing; 1 when the only processing runs have ids that
// are not UUIDs (the service's doing, not the user's).
func (a *app) watchLatest(cmd *cobra.Command, o *watchOptions) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	c, _, err := a.connect(o)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	skipped := 0
	list, err := collectRuns(ctx, a, c, 1, latestPages, func(r *poller.RunInfo) bool {
		if !runs.StatusMatches("processing", r.Status) {
			return false
		}
		// A run whose id is not a UUID cannot be watched: skip it.
		if poller.ValidateJobID(r.ID) != nil {
			skipped++
			return false
		}
		return true
	})
	if err != nil && len(list) == 0 {
		return err
	}
	if len(list) == 0 && skipped > 0 {
		return &failure{Err: fmt.Errorf("--latest: the service listed %d processing run(s), none with an id that is a UUID: nothing to watch", skipped)}
	}
	if len(list) == 0 {
		return badUsage("--latest: no run is processing (firewatch runs lists the team's runs)")
	}
	fmt.Fprintf(a.stderr, "firewatch: watching the newest processing run %s\n", list[0].ID)
	return a.watch(cmd, o, list[0].ID)
}

// latestArgs: watch takes a JOB_ID, or none with --latest.
func latestArgs(cmd *cobra.Command, args []string) error {
	if latest, _ := cmd.Flags().GetBool("latest"); latest {
		if len(args) > 0 {
			return badUsage("watch --latest takes no JOB_ID (got %q)", args[0])
		}
		return nil
	}
	return exactlyOne("a JOB_ID (the run's UUID), or --latest")(cmd, args)
}
