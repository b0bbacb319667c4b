package cli

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/poller"
)

// sharedRun is one run followed through the archive's leases
// (archiving.Shared): polled once by every firewatch that shares the
// archive, this one or another whose polls it reads.
type sharedRun struct {
	svc    service
	client *poller.Client
	jobID  string
	watch  poller.WatchOptions
	label  string // what this process is to the team ("watch", "hub"...)
	// visible: the service said this key may see the run (or the command
	// started it); else it is asked before another's polls are shown.
	visible bool
	say     func(string) // the archive unreachable and back: stderr, or the footer
	debug   *debugLog
	logf    func(format string, args ...any) // the lease's lines, instead of debug (the hub's log)
	// snapshotLogf is the snapshot keeper's log (nil: none).
	snapshotLogf func(format string, args ...any)
}

// newFeed is sr's source (archiving.NewFeed, the one constructor of a
// live run's), its polls stored in sink (nil: none, or reopen opens the
// archive later).
func (a *app) newFeed(sr sharedRun, sink *archiving.Sink, reopen func(context.Context) (*archiving.Sink, error)) *archiving.Feed {
	label := cmp.Or(sr.label, "watch")
	if a.hub != nil {
		label = "hub"
	}
	sc := archiving.SharedConfig{Sink: sink, Reopen: reopen, Client: sr.client, Service: sr.svc.baseURL, JobID: sr.jobID,
		Watch: sr.watch, Label: label, Logf: sr.logf, Say: sr.say, SnapshotLogf: sr.snapshotLogf}
	if sc.Logf == nil {
		sc.Logf = sr.debug.Printf
	}
	if sc.Say == nil {
		sc.Say = func(msg string) { fmt.Fprintf(a.stderr, "firewatch: %s\n", msg) }
	}
	if !sr.visible {
		client, id := sr.client, sr.jobID
		sc.Visible = func(ctx context.Context) error {
			_, err := client.Status(ctx, id)
			return err
		}
	}
	return archiving.NewFeed(sc)
}

// sharedFeed is a run's source made by sharedSource: Source for the
// follower (the run's polls, its snapshots kept on the way), Shared for
// its controls (pause, poll now, live view; Holder says who this process
// is to the team), and Done to close its archiving once the follower
// ends, given the follower's run (what the archive's record is derived
// from), called once.
type sharedFeed struct {
	Source follow.Source
	Shared *archiving.Shared
	Done   func(*follow.Run)
}

// sharedSource is the one way a place that follows a run for many readers
// (the hub's one follow.Follower per run) makes its source: the run jobID
// at svc, polled every interval by whichever firewatch holds its lease in
// the app's archive (this process, or another whose stored polls it
// reads), every take, renewal, loss and takeover in debug; its polls kept
// in kept's store (nil: it opens one of its own, closed by Done). Without
// an archive (off, or not to be had) it is the service's polls.
func (a *app) sharedSource(ctx context.Context, svc service, jobID string, interval time.Duration, debug *debugLog, kept *keptArchive) (sharedFeed, error) {
	client, err := a.client(svc, debug, nil)
	if err != nil {
		return sharedFeed{}, err
	}
	if kept == nil {
		kept = a.keepArchiveFor(ctx)
	}
	sink, reopen := a.archiveWatch(ctx, sinkTo{stderr: a.stderr, debug: debug}, svc, jobID, kept)
	feed := a.newFeed(sharedRun{svc: svc, client: client, jobID: jobID, label: "hub", debug: debug, snapshotLogf: debug.Printf,
		watch: poller.WatchOptions{Interval: interval}}, sink, reopen)
	return sharedFeed{Source: feed.Source, Shared: feed.Shared, Done: func(run *follow.Run) {
		if s := feed.Sink(); s != nil {
			s.Close(run)
		}
		kept.close()
	}}, nil
}
