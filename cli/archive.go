package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/text"
)

// The archive as the commands use it: opened only by commands that use it
// (--archive / FIREWATCH_ARCHIVE / the default file), written poll by poll
// by every live watch, read by watch of a forgotten run, replay, export,
// report, compare, history and cost.

// dsnFlag is --archive: its password, if any, joins the app's secrets as
// soon as the flag is read, so every output redacts it like the key.
type dsnFlag struct{ a *app }

func (f *dsnFlag) String() string { return archive.RedactDSN(f.a.archiveFlag) }
func (f *dsnFlag) Type() string   { return "DSN" }
func (f *dsnFlag) Set(v string) error {
	f.a.secrets.AddPassword(archive.Password(v))
	f.a.archiveFlag = v
	return nil
}

// archiveDSN is the DSN the commands use (--archive, $FIREWATCH_ARCHIVE or
// the default file); a password in it is one of the app's secrets.
func (a *app) archiveDSN() (string, error) {
	dsn, err := archive.ResolveDSN(a.archiveFlag)
	a.secrets.AddPassword(archive.Password(dsn))
	return dsn, err
}

// archiveUse is what a command does with the archive: it decides what a
// failure to open the archive means to the command (openArchive).
type archiveUse int

const (
	// readArchive: a command that reads it when it has it (replay, export,
	// report, compare, result of a JOB_ID). Off is no archive; one that
	// cannot be opened is the command's failure (archiveErr: exit 2, or 8
	// for one that cannot be written).
	readArchive archiveUse = iota
	// needArchive: a command that has nothing to do without it (history,
	// cost, archive, import, prune): as readArchive, and off is bad usage.
	needArchive
	// keepArchive: a command that keeps what it does in it beside its own
	// work (a watch, run --detach, the runs screen): a failure is the
	// reason it does not archive, which the command says, and goes on.
	// The opening waits for a busy archive at most archiving.WriteTimeout.
	keepArchive
)

// openArchive is the one place the archive is opened (--archive,
// $FIREWATCH_ARCHIVE or the default file), with use's rule for a failure;
// "off" is (nil, nil) but for needArchive. A write that waits for another
// program's lock is said once where lock says things (nil: on stderr).
func (a *app) openArchive(ctx context.Context, use archiveUse, lock *lockNote) (archive.Store, error) {
	dsn, err := a.archiveDSN()
	if err != nil {
		if use == keepArchive {
			return nil, err
		}
		return nil, asUsage(err)
	}
	if use == keepArchive {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, archiving.WriteTimeout)
		defer cancel()
	}
	st, err := openStore(ctx, dsn, archive.Options{Waiting: lock.waiting(a)})
	switch {
	case err == nil:
		return st, nil
	case errors.Is(err, archive.ErrOff) && use == needArchive:
		return nil, badUsage("the archive is off (--archive off or %s=off)", archive.EnvDSN)
	case errors.Is(err, archive.ErrOff):
		return nil, nil
	case use == keepArchive:
		return nil, redactedErr{err, a.secrets}
	}
	return nil, archiveErr(redactedErr{err, a.secrets})
}

// openStore opens a store: every one a command opens (tests count them).
var openStore = archive.OpenWith

// readArchiveStore is openArchive for a reader (archiving.Reader's).
func (a *app) readArchiveStore(ctx context.Context) (archive.Store, error) {
	return a.openArchive(ctx, readArchive, nil)
}

// archiveErr is a store's error as a command's: a write the archive cannot
// take (no space left, read-only, its lock held too long) is an output that
// cannot be written (exit 8); an interrupt stays one (130, settle); anything
// else is an archive the command cannot use (exit 2).
func archiveErr(err error) error {
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, archive.ErrNoSpace), errors.Is(err, archive.ErrReadOnly), errors.Is(err, archive.ErrLocked):
		return &outputError{Name: "the archive", Err: err}
	}
	return asUsage(err)
}

// lockNote is where a command that keeps the archive beside its work
// says, once, that a write waits for another program's lock: where its
// watch's sink says things once it has one (the footer once the screen is
// up), nowhere under a screen (quiet), else on stderr.
type lockNote struct {
	quiet bool
	sink  atomic.Pointer[archiving.Sink]
}

// waiting is the archive's Options.Waiting for n (nil: stderr).
func (n *lockNote) waiting(a *app) func() {
	return func() {
		switch {
		case n != nil && n.quiet:
		case n != nil && n.sink.Load() != nil:
			n.sink.Load().Say("the archive is locked by another program: waiting for it (the watch goes on)")
		default:
			fmt.Fprintf(a.stderr, "firewatch: the archive is locked by another program: waiting for it (up to %s)\n", text.Duration(archive.DefaultLockWait))
		}
	}
}

// keptArchive is the archive a live watch keeps its run in, as its command
// opened it: the store (nil: off, or why it cannot be had), what the
// command knows of a run it started (seed), and where a lock is said. The
// store is the command's, closed by close once the watch's sink is
// (Sink.Close leaves it open), or the process's (an MCP server's: borrowed, its
// owner closes it).
type keptArchive struct {
	st   archive.Store
	why  error // the archive cannot be had: said by the watch, which goes on
	seed *archive.Run
	lock *lockNote
	// borrowed: st is the process's (an MCP server's), and close leaves
	// it open.
	borrowed bool

	mu       sync.Mutex
	reopened []archive.Store // opened later (reopen), closed by close
}

// keepArchiveFor opens the archive a live watch keeps its run in.
func (a *app) keepArchiveFor(ctx context.Context) *keptArchive {
	k := &keptArchive{lock: &lockNote{}}
	k.st, k.why = a.openArchive(ctx, keepArchive, k.lock)
	return k
}

// close closes the stores the command opened for the watch, once its
// sink is closed.
func (k *keptArchive) close() {
	if k == nil || k.borrowed {
		return
	}
	if k.st != nil {
		k.st.Close()
		k.st = nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, st := range k.reopened {
		st.Close()
	}
	k.reopened = nil
}

// sinkTo is where a live watch's sink says things: stderr, its debug
// log, and (a terminal UI's watch) the footer.
type sinkTo struct {
	stderr io.Writer
	debug  *debugLog
	tui    *watchSession // nil: no screen
}

// sinkOf is where w's sink says things.
func sinkOf(w *watchSession) sinkTo {
	to := sinkTo{stderr: w.Stderr, debug: w.Debug}
	if w.Output == OutputTUI {
		to.tui = w
	}
	return to
}

// archiveWatch sets up archiving of a live watch into k's store: the sink
// its polls go to (k's store stays k's: close it once the sink is), or nil
// when archiving is off or the archive cannot be had (said once on stderr;
// the watch goes on). A PostgreSQL archive that cannot be reached now is
// no sink but reopen, which opens it again later (the watch's
// archiving.Shared says so, and tries every few seconds).
func (a *app) archiveWatch(ctx context.Context, to sinkTo, svc service, jobID string, k *keptArchive) (sink *archiving.Sink, reopen func(context.Context) (*archiving.Sink, error)) {
	st, err := k.st, k.why
	if err == nil && st != nil && archive.ReadOnly(st) {
		k.close()
		err = fmt.Errorf("archive %s: %w (it is still read by history, compare, cost and report)", st.Where(), archive.ErrReadOnly)
	}
	if errors.Is(err, archive.ErrUnavailable) {
		to.debug.Printf("archive: %s", a.secrets.Redact(err.Error()))
		return nil, func(ctx context.Context) (*archiving.Sink, error) {
			st, err := a.openArchive(ctx, keepArchive, k.lock)
			if st != nil {
				k.mu.Lock()
				k.reopened = append(k.reopened, st)
				k.mu.Unlock()
			}
			if err != nil || st == nil {
				return nil, cmp.Or(err, archive.ErrOff)
			}
			return a.watchSink(to, svc, jobID, st, k), nil
		}
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "firewatch: not archiving: %s\n", a.secrets.Redact(err.Error()))
		return nil, nil
	}
	if st == nil {
		return nil, nil // off
	}
	return a.watchSink(to, svc, jobID, st, k), nil
}

// watchSink is the sink of a live watch's run in st (k's).
func (a *app) watchSink(to sinkTo, svc service, jobID string, st archive.Store, k *keptArchive) *archiving.Sink {
	s := archiving.NewSink(st, a.secrets, svc.baseURL, jobID, archive.TeamOf(svc.key))
	s.SetSay(func(msg string) { fmt.Fprintf(to.stderr, "firewatch: %s\n", msg) })
	// A wait for another writer's lock is said where the sink says things
	// (the footer once the screen is up), once.
	k.lock.sink.Store(s)
	if k.seed != nil {
		s.Put(k.seed)
	}
	to.debug.Printf("archive: %s", s.Where())
	if to.tui != nil {
		attachNotes(s, to.tui)
	}
	return s
}

// attachNotes makes a failure show in the terminal UI's footer (once the
// screen is up, stderr is not seen); the line also reaches stderr at the end.
func attachNotes(s *archiving.Sink, w *watchSession) {
	if w.Output != OutputTUI {
		return
	}
	if w.Notes == nil {
		w.Notes = make(chan string, 1)
	}
	notes := w.Notes
	s.SetSay(func(msg string) {
		select {
		case notes <- msg:
		default:
		}
	})
}

// closeArchive ends archiving of the watch: it writes what is left (the
// store is closed by its opener after); a failure that the footer showed
// is also said on stderr now.
func closeArchive(s *archiving.Sink, w *watchSession) {
	if s == nil {
		return
	}
	whole, failed, lastErr := s.Close(&w.Run)
	switch {
	case failed && whole:
		// A passing failure (a lock, a restart): the writes went through
		// later, which is what matters after "archiving failed".
		fmt.Fprintf(w.Stderr, "firewatch: the archive caught up: the run is archived in full (it was held up: %s)\n", lastErr)
	case failed && w.Output == OutputTUI:
		fmt.Fprintf(w.Stderr, "firewatch: archiving failed, the watch went on: %s\n", lastErr)
	}
}

// showArchived shows an archived run like a replay: read-only (no cancel),
// its snapshots from the archive. The exit code is the archived outcome's,
// 1 for a run archived while it was still processing.
func (a *app) showArchived(ctx context.Context, w *watchSession, st archive.Store, r *archive.Run, polls []archive.Poll) error {
	w.Replay = true
	w.JobID = r.ID
	w.Store.SetRunID(r.ID)
	w.Source = archiving.Archived(r, polls)
	w.resultOf = a.archivedResult(r)
	service, id := r.Service, r.ID
	w.ArchiveSnapshot = func(ctx context.Context, sid string) (string, error) {
		c, err := st.Snapshot(ctx, service, id, sid)
		if isArchiveNotFound(err) {
			return "", errors.New("this snapshot is not in the archive")
		}
		return c, err
	}
	ctx, stop := w.out.Context(ctx)
	defer stop(nil)
	return w.out.Finish(w.run(ctx))
}

// watchFromArchive is watch JOB_ID of a run the service has forgotten:
// when k's archive holds the run (for this service) and the service
// answers 404 for it, it is shown from the archive, and handled is true.
func (a *app) watchFromArchive(cmd *cobra.Command, o *watchOptions, svc service, jobID string, k *keptArchive) (handled bool, err error) {
	if k.st == nil {
		return false, nil // the watch says why it does not archive
	}
	ctx := cmd.Context()
	c, err := a.client(svc, nil, nil)
	if err != nil {
		return false, nil
	}
	r, polls, err := archiving.Forgotten(ctx, k.st, c, svc.baseURL, jobID, archive.TeamOf(svc.key))
	switch {
	case err != nil:
		return true, asUsage(err)
	case r == nil:
		return false, nil
	}
	fmt.Fprintf(a.stderr, "firewatch: the service no longer has run %s; showing it from the archive (%s, %s)\n", jobID, archivedState(r), k.st.Where())
	w, cleanup, err := a.newSession(cmd, o)
	if err != nil {
		return true, err
	}
	defer cleanup()
	return true, a.showArchived(ctx, w, k.st, r, polls)
}

// archiveSeed records a run firewatch started and does not watch (run
// --detach): its request, cap and lineage (seed), so that whoever reads it later knows
// what it was asked. A failure is said on stderr; the run goes on.
func (a *app) archiveSeed(ctx context.Context, service, id string, seed *archive.Run) {
	st, err := a.openArchive(ctx, readArchive, nil)
	if err == nil && st == nil {
		return // off
	}
	if err == nil {
		defer st.Close()
		ctx, cancel := context.WithTimeout(ctx, archiving.WriteTimeout)
		defer cancel()
		err = st.PutRun(ctx, archiving.WithID(seed, service, id))
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "firewatch: not archived (the run goes on): %s\n", a.secrets.Redact(err.Error()))
	}
}

// redactedErr is err said with the secrets redacted, its kind kept for
// errors.Is.
type redactedErr struct {
	err error
	sec *text.Secrets
}

func (e redactedErr) Error() string { return e.sec.Redact(e.err.Error()) }
func (e redactedErr) Unwrap() error { return e.err }

// isArchiveNotFound reports an archive's "not held".
func isArchiveNotFound(err error) bool { return errors.Is(err, archive.ErrNotFound) }

// archivedState says how the archive holds a run, for the line that says a
// run is shown from it.
func archivedState(r *archive.Run) string {
	if r == nil || !r.Complete {
		return "archived while it was still processing"
	}
	return "finished"
}

// archiveWhere names the archive for messages (a path, or the DSN with its
// password redacted).
func (a *app) archiveWhere() string {
	dsn, _ := a.archiveDSN()
	return archive.RedactDSN(dsn)
}
