// Package archiving is the archive as firewatch's commands use it, below
// the command line:
//
//   - A live run's source (NewFeed, the one constructor, for a watch, a
//     run, the runs screen, the hub and the MCP server): Shared
//     (shared.go), a follow.Source that takes the run's lease (service,
//     run) and polls, or follows what the holder stores, woken by
//     doorbells, and takes over from the last stored poll when the
//     holder's lease ends. While the archive is away it polls on its own,
//     said once, keeping those polls (aloneLog, alone.go, bounded) to
//     write under the lease when back; it never lets the archive call a
//     run complete while the archive lacks what it showed. Its one
//     recorder writes --record and hands the same line to the Sink;
//     LeaseLine is a lease for the logs.
//   - What a watch writes (Sink, sink.go): each poll (Append) on a
//     goroutine of its own, under the lease (AppendLeased, fenced by its
//     token), a failure said once; the run's artifact snapshots
//     (SnapshotKeeper, fetched by the leaseholder). The store is its
//     opener's: Sink.Close leaves it open.
//   - Completing the runs a listing shows, fetching only what the archive
//     lacks, under each run's lease (Completer; Background for the runs
//     screen, one per hub for every session; Pass, one pass of firewatch
//     archive or of a hub, which stops asking an endpoint that fails run
//     after run: endpoints.go), and the runs screen over the archive
//     (Listing, UseBackground).
//   - The background work's request budget (Budget, budget.go: a
//     poller.Pacer through the archive's fw_budget row, half the team's
//     limit for every pass and completion together); live follows are
//     never paced, only counted into the row (LiveMeter, live.go).
//   - The team's newest page through the list's lease (TeamList,
//     teamlist.go): its holder asks the service and stores the new or
//     changed items, the others read them back (Store.Listed).
//   - Reading a run back (Reader, read.go: the FILE-or-JOB_ID rule, a
//     JOB_ID from the archive when it holds its polls, else the service;
//     ReadRun, Archived, Forgotten; Load, RecordingOf, Replay) and
//     importing a recording (ReadRecording, MoreComplete).
//
// One truth about a run. Whatever firewatch learns of a run (a start, a
// recording's header, the service's list item or status, what a watch or a
// replay derived from the trace, a cancel) becomes an archive.Run and joins
// the run's record by archive.Merge; every reader (history, cost, compare,
// report, export, replay, result, watch of a forgotten run, the runs
// screen, the summary) takes its figures from a record through FiguresOf
// (record.go; DerivedRun, RecordOf for what a watch derived). A run read
// from a file or the service alone has a record too, made the same way,
// that is simply not stored.
//
// A failure of the store is a StoreError: the command decides what it
// means. Opening the archive, and what a failure to open it means to a
// command, is the command line's (cli/archive.go); so is everything said
// to people.
package archiving
