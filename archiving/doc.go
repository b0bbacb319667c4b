// Package archiving is the archive as firewatch's commands use it, below
// the command line: a live watch's source (NewFeed: Shared, the run polled
// once under its lease, whose one recorder feeds --record and Sink.Append;
// SnapshotKeeper, the run's artifact snapshots), completing the
// runs a listing shows (Completer, Background; the runs screen's Listing
// over the archive), reading a run back (Reader: the FILE-or-JOB_ID rule;
// Load, RecordingOf, Replay), importing a recording (ReadRecording) and
// the one record of a run.
//
// One truth about a run. Whatever firewatch learns of a run (a start, a
// recording's header, the service's list item or status, what a watch or a
// replay derived from the trace, a cancel) becomes an archive.Run and joins
// the run's record by archive.Merge; every reader (history, cost, compare,
// report, export, replay, result, watch of a forgotten run, the runs
// screen, the summary) takes its figures from a record through FiguresOf.
// A run read from a file or the service alone has a record too, made the
// same way, that is simply not stored.
//
// Opening the archive, and what a failure to open it means to a command,
// is the command line's (cli/archive.go); so is everything said to people.
package archiving
