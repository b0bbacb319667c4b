package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/poller"
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

// openArchive opens the archive for a command that only uses it: a newer
// or unreadable one is a usage error (exit 2); "off" is (nil, nil).
func (a *app) openArchive(ctx context.Context) (archive.Store, error) {
	dsn, err := a.archiveDSN()
	if err != nil {
		return nil, asUsage(err)
	}
	s, err := archive.OpenWith(ctx, dsn, a.archiveOptions())
	if errors.Is(err, archive.ErrOff) {
		return nil, nil
	}
	if err != nil {
		return nil, archiveErr(redactedErr{err, a.secrets})
	}
	return s, nil
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
		return &outputError{name: "the archive", err: err}
	}
	return asUsage(err)
}

// requireArchive is openArchive for commands that have nothing to do
// without one.
func (a *app) requireArchive(ctx context.Context) (archive.Store, error) {
	s, err := a.openArchive(ctx)
	if err == nil && s == nil {
		return nil, badUsage("the archive is off (--archive off or %s=off)", archive.EnvDSN)
	}
	return s, err
}

// archiveWatch sets up archiving of a live watch: the sink to tee beside
// --record, or nil when archiving is off or the archive cannot be had (said
// once on stderr; the watch goes on).
func (a *app) archiveWatch(ctx context.Context, w *watchSession, svc service, jobID string) *archiving.Sink {
	if a.noArchive {
		return nil
	}
	baseURL := svc.baseURL
	dsn, err := a.archiveDSN()
	if err != nil {
		fmt.Fprintf(a.stderr, "firewatch: not archiving: %v\n", err)
		return nil
	}
	st := a.openStore
	a.openStore = nil
	if st == nil {
		octx, cancel := context.WithTimeout(ctx, archiving.WriteTimeout)
		defer cancel()
		st, err = archive.OpenWith(octx, dsn, a.archiveOptions())
	}
	if errors.Is(err, archive.ErrOff) {
		return nil
	}
	if err == nil && archive.ReadOnly(st) {
		st.Close()
		err = fmt.Errorf("archive %s: %w (it is still read by history, compare, cost and report)", st.Where(), archive.ErrReadOnly)
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "firewatch: not archiving: %s\n", a.secrets.Redact(err.Error()))
		return nil
	}
	s := archiving.NewSink(st, a.secrets, baseURL, jobID, archive.TeamOf(svc.key))
	s.SetSay(func(msg string) { fmt.Fprintf(w.Stderr, "firewatch: %s\n", msg) })
	// A wait for another writer's lock is said where the sink says things
	// (the footer once the screen is up), once.
	a.lockSay.Store(&lockSayer{func() {
		s.Say("the archive is locked by another program: waiting for it (the watch goes on)")
	}})
	if a.archiveSeed != nil {
		s.Put(a.archiveSeed)
	}
	w.Debug.Printf("archive: %s", s.Where())
	return s
}

// lockSayer says that a write waits for another program's lock on the
// archive.
type lockSayer struct{ say func() }

// archiveOptions are the options every command opens the archive with: a
// write that has to wait for another program's lock says so once, on
// stderr, or where a watch's sink says things (archiveWatch).
func (a *app) archiveOptions() archive.Options {
	return archive.Options{Waiting: func() {
		if ls := a.lockSay.Load(); ls != nil {
			ls.say()
			return
		}
		fmt.Fprintf(a.stderr, "firewatch: the archive is locked by another program: waiting for it (up to %s)\n", text.Duration(archive.DefaultLockWait))
	}}
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

// closeArchive ends archiving of the watch: it writes what is left and
// closes the store; a failure that the footer showed is also said on
// stderr now.
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
func (a *app) showArchived(ctx context.Context, w *watchSession, st archive.Store, r *archive.Run, rec []byte) error {
	w.Replay = true
	w.JobID = r.ID
	w.Store.SetRunID(r.ID)
	w.Source = follow.SourceFunc(func(ctx context.Context, sink func(poller.Update)) error {
		return poller.Replay(ctx, bytes.NewReader(rec), poller.ReplayOptions{Instant: true}, sink)
	})
	w.resultOf = a.archivedResult(r)
	service, id := r.Service, r.ID
	w.ArchiveSnapshot = func(ctx context.Context, sid string) (string, error) {
		c, err := st.Snapshot(ctx, service, id, sid)
		if isArchiveNotFound(err) {
			return "", errors.New("this snapshot is not in the archive")
		}
		return c, err
	}
	ctx, stop := a.out.context(ctx)
	defer stop(nil)
	return a.out.finish(w, w.run(ctx))
}

// watchFromArchive is watch JOB_ID of a run the service has forgotten:
// when the archive holds the run (for this service) and the service answers
// 404 for it, it is shown from the archive, and handled is true.
func (a *app) watchFromArchive(cmd *cobra.Command, o *watchOptions, svc service, jobID string) (handled bool, err error) {
	ctx := cmd.Context()
	baseURL := svc.baseURL
	dsn, err := a.archiveDSN()
	if err != nil || dsn == archive.Off {
		return false, nil
	}
	octx, cancel := context.WithTimeout(ctx, archiving.WriteTimeout)
	st, err := archive.OpenWith(octx, dsn, a.archiveOptions())
	cancel()
	if err != nil {
		return false, nil // the watch says why it does not archive
	}
	r, err := st.Get(ctx, baseURL, jobID)
	if err != nil || r.Service != baseURL || r.Polls == 0 {
		a.openStore = st // the watch archives into it
		return false, nil
	}
	defer st.Close()
	c, err := a.client(svc, nil, nil)
	if err != nil {
		return false, nil
	}
	_, err = c.Status(ctx, jobID)
	var pe *poller.Error
	if !errors.As(err, &pe) || pe.Kind != poller.KindNotFound {
		return false, nil
	}
	if r.Team == archive.TeamOf(svc.key) {
		// Only the team that owns the run can say it is gone: another
		// key's 404 says nothing of it.
		_ = st.MarkExpired(ctx, baseURL, jobID)
	}
	r, polls, err := archiving.Load(ctx, st, baseURL, jobID)
	if err != nil {
		return true, asUsage(err)
	}
	rec := archiving.RecordingOf(r, polls)
	fmt.Fprintf(a.stderr, "firewatch: the service no longer has run %s; showing it from the archive (%s, %s)\n", jobID, archivedState(r), st.Where())
	w, cleanup, err := a.newSession(cmd, o)
	if err != nil {
		return true, err
	}
	defer cleanup()
	return true, a.showArchived(ctx, w, st, r, rec)
}

// archiveStarted records a run firewatch started and does not watch (run
// --detach): its request and cap, so that whoever reads it later knows
// what it was asked. A failure is said on stderr; the run goes on.
func (a *app) archiveStarted(ctx context.Context, service, id string, req *poller.AgentRequest) {
	if a.noArchive {
		return
	}
	st, err := a.openArchive(ctx)
	if err == nil && st == nil {
		return // off
	}
	if err == nil {
		defer st.Close()
		ctx, cancel := context.WithTimeout(ctx, archiving.WriteTimeout)
		defer cancel()
		err = st.PutRun(ctx, archiving.WithID(archiving.SeedOf(req), service, id))
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
