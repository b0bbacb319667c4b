package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// The archive as the commands use it: opened only by commands that use it
// (--archive / FIREWATCH_ARCHIVE / the default file), written poll by poll
// by every live watch, read by watch of a forgotten run, replay, export,
// report, compare, history and cost.

// archiveWriteTimeout bounds one write: a watch never waits longer on a
// stuck archive than this per poll.
const archiveWriteTimeout = 10 * time.Second

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

// archiveSink writes one watch's recording lines into the archive as they
// come: the recorder's header line names the run, every later line is one
// poll, written in its own short transaction. The writes happen on the
// sink's own goroutine (writer): a watch hands a poll over and goes on, so
// that an archive waiting for a lock or a slow server never delays what
// the screen or the printers show. A failed write is said once; its polls
// are kept and written with the next one, so a passing failure (a locked
// or restarting database) loses nothing.
type archiveSink struct {
	store   archive.Store
	secrets *text.Secrets // the app's: a failure's message is redacted with it
	service string
	jobID   string
	team    string // archive.TeamOf the watch's key: the run's owner
	started time.Time

	mu           sync.Mutex
	part         *archive.Encoder // a long line coming in parts
	partAt       time.Time        // its receive time
	puts         []*archive.Run   // what is known of the run, written before the polls
	pending      []archive.Poll
	pendingBytes int
	failed       bool   // said once
	lost         bool   // something was left out for good (a snapshot, a poll too large)
	gaveUp       bool   // too much pending: archiving of this watch stopped
	lastErr      string // the failure, for the end of the watch
	say          func(string)

	kick     chan struct{} // the writer has work (one is enough)
	stop     chan struct{} // closed by finish: the writer writes what is left and ends
	stopped  chan struct{} // closed by the writer when it ends
	drained  *sync.Cond    // on mu: broadcast after each drain
	drains   int           // drains done
	draining bool          // a drain is under way
	owned    bool          // the run's team was written (the writer's alone)

	// snapshots stores the run's artifact snapshots (keepSnapshots).
	snapshots *snapshotKeeper
}

// newArchiveSink makes the sink of one watch of jobID and starts its
// writer.
func newArchiveSink(st archive.Store, sec *text.Secrets, service, jobID, team string) *archiveSink {
	s := &archiveSink{store: st, secrets: sec, service: service, jobID: jobID, team: team, started: time.Now(),
		kick: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	s.drained = sync.NewCond(&s.mu)
	go s.writer()
	return s
}

// writer writes what the watch hands over, until finish.
func (s *archiveSink) writer() {
	defer close(s.stopped)
	for {
		select {
		case <-s.kick:
			s.drain()
		case <-s.stop:
			s.drain()
			return
		}
	}
}

// wake tells the writer there is work.
func (s *archiveSink) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// drain writes what is queued: the run's fields, then the polls. What
// fails stays queued for the next try; only the writer takes from the
// front of the queues.
func (s *archiveSink) drain() {
	s.mu.Lock()
	s.draining = true
	puts := s.puts[:len(s.puts):len(s.puts)]
	polls := s.pending[:len(s.pending):len(s.pending)]
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), archiveWriteTimeout)
	defer cancel()
	var err error
	done := 0
	for _, r := range puts {
		if err = s.store.PutRun(ctx, r); errors.Is(err, archive.ErrTooLarge) {
			s.mu.Lock()
			s.fail(err) // said, and left out: the rest is written
			s.lost = true
			s.mu.Unlock()
			err = nil
		}
		if err != nil {
			break
		}
		done++
	}
	if err == nil && len(polls) > 0 && !s.owned && s.team != "" {
		// The run's owner, with its first poll (never a row for a run
		// that sent none).
		if err = s.store.PutRun(ctx, &archive.Run{Service: s.service, ID: s.jobID, Team: s.team}); err == nil {
			s.owned = true
		}
	}
	written := 0
	if err == nil && len(polls) > 0 {
		err = s.store.AppendPolls(ctx, s.service, s.jobID, s.started, polls)
		switch {
		case err == nil:
			written = len(polls)
		case errors.Is(err, archive.ErrTooLarge):
			written, err = s.appendEach(ctx, polls)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.puts = s.puts[done:]
	for _, p := range polls[:written] {
		s.pendingBytes -= pollSize(p)
	}
	s.pending = s.pending[written:]
	if err != nil {
		s.fail(err)
		if s.pendingBytes > maxPending {
			s.gaveUp, s.pending, s.pendingBytes, s.puts = true, nil, 0, nil
		}
	}
	s.draining = false
	s.drains++
	s.drained.Broadcast()
}

// appendEach writes polls one by one, leaving out (and saying) those too
// large for the archive, so that the watch's later polls are still
// archived; it returns how many of polls it is done with.
func (s *archiveSink) appendEach(ctx context.Context, polls []archive.Poll) (int, error) {
	for i, p := range polls {
		err := s.store.AppendPolls(ctx, s.service, s.jobID, s.started, []archive.Poll{p})
		if errors.Is(err, archive.ErrTooLarge) {
			s.mu.Lock()
			s.fail(err)
			s.lost = true
			s.mu.Unlock()
			continue
		}
		if err != nil {
			return i, err
		}
	}
	return len(polls), nil
}

// pollSize is what a queued poll holds in memory.
func pollSize(p archive.Poll) int {
	if p.Encoded != nil {
		return p.Encoded.Size()
	}
	return len(p.Line)
}

// sync waits until the writer has tried once to write everything queued
// now (the end of a watch, tests): a drain that starts after this call.
func (s *archiveSink) sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 && len(s.puts) == 0 && !s.draining {
		return
	}
	want := s.drains + 1
	if s.draining {
		want++
	}
	s.wake()
	for s.drains < want {
		select {
		case <-s.stopped:
			return
		default:
		}
		s.drained.Wait()
	}
}

// keepSnapshots makes the watch store the run's artifact snapshots: those
// of its artifact events, fetched with c, and those the screen fetched.
func (s *archiveSink) keepSnapshots(w *watchSession, c *poller.Client) {
	if s == nil || c == nil {
		return
	}
	jobID := s.jobID
	s.snapshots = newSnapshotKeeper(s, w.Debug, func(ctx context.Context, sid string) (string, error) {
		snap, err := c.Snapshot(ctx, jobID, sid)
		if err != nil {
			return "", err
		}
		return snap.Content, nil
	})
	w.Source = s.snapshots.wrap(w.Source)
	w.keepSnapshot = s.snapshots.keep
}

// held is what the archive holds of the run before the watch writes
// anything (nil when nothing): a run started with --detach or from the runs
// screen is held with its request, which the watch then knows too.
func (s *archiveSink) held(ctx context.Context) *archive.Run {
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, archiveWriteTimeout)
	defer cancel()
	r, err := s.store.Get(ctx, s.service, s.jobID)
	if err != nil || r.Service != s.service {
		return nil
	}
	return r
}

// keepLookup records what the service said of the run when the watch
// started (its status and list item: the request, createdAt, the label).
// Nothing is recorded for a run the service does not have.
func (s *archiveSink) keepLookup(r *archive.Run) {
	if s == nil || r == nil {
		return
	}
	s.put(r)
}

// keepStatus stores the run's status once the watch saw it finish: its
// result, its expiry and the service's own figures, which the trace does
// not carry. One request (none when st is given: the watch asked it for
// --result); a watch that was left early asks nothing.
func (s *archiveSink) keepStatus(ctx context.Context, w *watchSession, c *poller.Client, st *poller.Status) {
	if s == nil || c == nil || ctx.Err() != nil || w.Store.Run().Outcome == "" {
		return
	}
	if st == nil {
		ctx, cancel := context.WithTimeout(ctx, archiveWriteTimeout)
		defer cancel()
		var err error
		if st, err = c.Status(ctx, s.jobID); err != nil {
			w.Debug.Printf("archive: the run's status: %v", err)
			return
		}
	}
	r := &archive.Run{}
	applyStatus(s.secrets, r, st)
	s.put(r)
}

// keepCancel records that the service accepted a cancel of the run; the
// outcome follows from its trace (this watch's, or the next read of it).
func (s *archiveSink) keepCancel() { s.put(&archive.Run{CancelRequested: true}) }

// maxPending is how much a failing archive may hold back in memory.
const maxPending = 64 << 20

// Write takes one recording line, or a part of a long one (the recorder
// writes a line per call, but for a long one, whose last part ends with the
// newline). It never fails: the recording beside it must go on.
func (s *archiveSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gaveUp || len(p) == 0 {
		return len(p), nil
	}
	ends := bytes.HasSuffix(p, []byte("\n"))
	if s.part != nil || !ends {
		s.writePart(p, ends)
		return len(p), nil
	}
	line := bytes.TrimRight(p, "\n")
	if len(line) == 0 {
		return len(p), nil
	}
	if bytes.HasPrefix(line, []byte(`{"firewatch":"recording"`)) {
		var h struct {
			StartedAt time.Time `json:"startedAt"`
		}
		if json.Unmarshal(line, &h) == nil {
			s.started = h.StartedAt
		}
		return len(p), nil
	}
	// Copied: the recorder reuses its buffer, and the writer writes the
	// line later.
	s.queue(archive.Poll{ReceivedAt: receivedAt(line), Line: bytes.Clone(line)})
	return len(p), nil
}

// queue hands a poll to the writer; s.mu is held.
func (s *archiveSink) queue(p archive.Poll) {
	s.pending = append(s.pending, p)
	s.pendingBytes += pollSize(p)
	if s.pendingBytes > maxPending && len(s.pending) > 1 && (s.failed || s.draining) {
		// The archive does not keep up (it fails, or waits for a lock):
		// archiving of this watch stops rather than hold more.
		s.gaveUp, s.pending, s.pendingBytes, s.puts = true, nil, 0, nil
		s.fail(errors.New("the archive does not keep up: archiving of this run stopped"))
		return
	}
	s.wake()
}

// writePart takes a part of a long line: it is deflated as it comes, and
// the line is written when its last part (ends) has come. s.mu is held.
func (s *archiveSink) writePart(p []byte, ends bool) {
	if s.part == nil {
		s.part, s.partAt = archive.NewEncoder(), receivedAt(p)
	}
	_, _ = s.part.Write(bytes.TrimSuffix(p, []byte("\n")))
	if !ends {
		return
	}
	e, err := s.part.Done()
	s.part = nil
	if err != nil {
		s.fail(err)
		return
	}
	s.queue(archive.Poll{ReceivedAt: s.partAt, Encoded: e})
}

// receivedAt is a recording line's receive time. The recorder writes it
// first, `{"receivedAt":"<RFC 3339>",...`, which is read in place: the line
// may be a whole trace of megabytes. Any other line is decoded; without a
// time, now.
func receivedAt(line []byte) time.Time {
	const prefix = `{"receivedAt":"`
	if rest, ok := bytes.CutPrefix(line, []byte(prefix)); ok {
		if i := bytes.IndexByte(rest[:min(len(rest), 64)], '"'); i > 0 {
			if t, err := time.Parse(time.RFC3339Nano, string(rest[:i])); err == nil {
				return t
			}
		}
	}
	var pl struct {
		ReceivedAt time.Time `json:"receivedAt"`
	}
	_ = json.Unmarshal(line, &pl, json.RejectUnknownMembers(false))
	if pl.ReceivedAt.IsZero() {
		return time.Now()
	}
	return pl.ReceivedAt
}

// fail says a write failed, once; s.mu is held.
func (s *archiveSink) fail(err error) {
	s.lastErr = s.secrets.Redact(err.Error())
	if !s.failed {
		s.failed = true
		if s.say != nil {
			s.say("archiving failed, the watch goes on: " + s.lastErr)
		}
	}
}

// failing reports whether a write has failed (said once).
func (s *archiveSink) failing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// put records what is known of the run (written by the writer, before the
// polls queued with it); a failure is said like a poll's.
func (s *archiveSink) put(r *archive.Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gaveUp {
		return
	}
	r.Service, r.ID, r.Team = s.service, s.jobID, s.team
	s.puts = append(s.puts, r)
	s.wake()
}

// putSnapshot stores one snapshot's content (on the snapshot keeper's
// goroutine: the watch's does not wait for it); a failure is said like a
// poll's. It reports whether it was stored.
func (s *archiveSink) putSnapshot(snapshotID, content string) bool {
	s.mu.Lock()
	gaveUp := s.gaveUp
	s.mu.Unlock()
	if gaveUp {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), archiveWriteTimeout)
	defer cancel()
	if err := s.store.PutSnapshot(ctx, s.service, s.jobID, snapshotID, content); err != nil {
		s.mu.Lock()
		s.fail(err)
		s.lost = true
		s.mu.Unlock()
		return false
	}
	return true
}

// finish ends the writer once it has written what is queued, then writes
// what firewatch derived from the watch; whole reports that everything was
// written in the end.
func (s *archiveSink) finish(w *watchSession) (whole bool) {
	close(s.stop)
	<-s.stopped
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gaveUp || len(s.pending) > 0 || len(s.puts) > 0 {
		return false
	}
	r := derivedRun(w.Summary(), w.Store)
	r.Service, r.ID = s.service, s.jobID
	ctx, cancel := context.WithTimeout(context.Background(), archiveWriteTimeout)
	defer cancel()
	if err := s.store.SetDerived(ctx, r); err != nil {
		s.fail(err)
		return false
	}
	return !s.lost
}

// derivedRun is the archive's record of what firewatch derived: the
// outcome, the counts and the full summary.
func derivedRun(sum follow.Summary, st *model.Store) *archive.Run {
	r := &archive.Run{Events: sum.EventCount, ToolCalls: len(sum.ToolCalls), Errors: len(sum.Errors), Attention: len(sum.Attention),
		CreditsByAgent: sum.CreditsByAgent}
	// Written straight into the compressor: a long run's summary is
	// megabytes of JSON, which would otherwise be built whole first.
	if e, err := archive.Encode(func(w io.Writer) error { return sum.Write(w) }); err == nil {
		r.SummaryEncoded = e
	}
	if sum.Outcome != nil {
		r.Outcome = string(*sum.Outcome)
		r.Complete = true
		r.Status = archive.StatusOf(r.Outcome)
	}
	r.FinishedAt, r.DurationMs = sum.FinishedAt, sum.DurationMs
	if st.Run().HasCredits {
		c := sum.CreditsUsed
		r.CreditsUsed = &c
	}
	if sum.TokensUsed > 0 {
		t := sum.TokensUsed
		r.TokensUsed = &t
	}
	if sum.MaxCredits > 0 && !sum.MaxCreditsAssumed {
		m := sum.MaxCredits
		r.MaxCredits = &m
	}
	return r
}

// archiveWatch sets up archiving of a live watch: the sink to tee beside
// --record, or nil when archiving is off or the archive cannot be had (said
// once on stderr; the watch goes on).
func (a *app) archiveWatch(ctx context.Context, w *watchSession, svc service, jobID string) *archiveSink {
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
		octx, cancel := context.WithTimeout(ctx, archiveWriteTimeout)
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
	s := newArchiveSink(st, a.secrets, baseURL, jobID, archive.TeamOf(svc.key))
	s.say = func(msg string) { fmt.Fprintf(w.Stderr, "firewatch: %s\n", msg) }
	// A wait for another writer's lock is said where the sink says things
	// (the footer once the screen is up), once.
	a.lockSay.Store(&lockSayer{func() {
		s.mu.Lock()
		say := s.say
		s.mu.Unlock()
		if say != nil {
			say("the archive is locked by another program: waiting for it (the watch goes on)")
		}
	}})
	if a.archiveSeed != nil {
		s.put(a.archiveSeed)
	}
	w.Debug.Printf("archive: %s", st.Where())
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
func (s *archiveSink) attachNotes(w *watchSession) {
	if w.Output != OutputTUI {
		return
	}
	if w.Notes == nil {
		w.Notes = make(chan string, 1)
	}
	notes := w.Notes
	s.mu.Lock()
	s.say = func(msg string) {
		select {
		case notes <- msg:
		default:
		}
	}
	s.mu.Unlock()
}

// close ends archiving of the watch: it writes what is left and closes the
// store; a failure that the footer showed is also said on stderr now.
func (s *archiveSink) close(w *watchSession) {
	if s == nil {
		return
	}
	if s.snapshots != nil {
		s.snapshots.close(w.Store.Run().Finished != nil)
	}
	whole := s.finish(w)
	s.mu.Lock()
	failed, lastErr := s.failed, s.lastErr
	s.mu.Unlock()
	switch {
	case failed && whole:
		// A passing failure (a lock, a restart): the writes went through
		// later, which is what matters after "archiving failed".
		fmt.Fprintf(w.Stderr, "firewatch: the archive caught up: the run is archived in full (it was held up: %s)\n", lastErr)
	case failed && w.Output == OutputTUI:
		fmt.Fprintf(w.Stderr, "firewatch: archiving failed, the watch went on: %s\n", lastErr)
	}
	s.store.Close()
}

// teeRecord writes the recording to the --record file and the archive; the
// archive's writer never fails, so the file's errors are the recorder's.
func teeRecord(file io.Writer, s *archiveSink) io.Writer {
	if s == nil {
		return file
	}
	if file == nil {
		return s
	}
	return &tee{file: file, s: s}
}

type tee struct {
	file io.Writer
	s    *archiveSink
}

func (t *tee) Write(p []byte) (int, error) {
	t.s.Write(p)
	return t.file.Write(p)
}

// pollLine is a recording line holding a whole trace body fetched at at
// (its secrets redacted): an archived-afterwards run replays at once, in
// one poll.
func pollLine(sec *text.Secrets, at time.Time, body []byte) []byte {
	body, _ = sec.RedactJSON(body)
	v := jsontext.Value(bytes.Clone(body))
	if err := v.Compact(); err != nil {
		v = jsontext.Value(body)
	}
	var b []byte
	b = append(b, `{"receivedAt":`...)
	b, _ = jsontext.AppendQuote(b, at.UTC().Format(time.RFC3339Nano))
	b = append(b, `,"trace":`...)
	b = append(b, v...)
	b = append(b, '}')
	return b
}

// deriveFromRecording replays a recording at once into a store and returns
// what firewatch derives from it, and the store.
func deriveFromRecording(ctx context.Context, rec io.Reader) (*archive.Run, *model.Store, error) {
	w, err := replayRun(ctx, rec, nil, model.Request{})
	if err != nil {
		return nil, nil, err
	}
	// The recording's header says what the run was asked (its cap).
	return archive.Merge(runOfRequest(w.Store.Request()), derivedRun(w.Summary(), w.Store)), w.Store, nil
}

// jobFromArchive looks id up in the archive (the current service first):
// the run's record and its polls, or archive.ErrNotFound. A store that
// cannot be opened is the error; off is ErrNotFound.
func (a *app) jobFromArchive(ctx context.Context, service, id string) (*archive.Run, []archive.Poll, error) {
	st, err := a.openArchive(ctx)
	if err != nil {
		return nil, nil, err
	}
	if st == nil {
		return nil, nil, archive.ErrNotFound
	}
	defer st.Close()
	return jobFromStore(ctx, st, service, id)
}

// archiveSeedOf is what run knows of the run it started: its request, the
// cap (the service's default when none was sent) and its start.
func archiveSeedOf(req *poller.AgentRequest) *archive.Run {
	now := time.Now().UTC()
	mc := float64(req.MaxCredits)
	if mc == 0 {
		mc = poller.DefaultMaxCredits
	}
	r := &archive.Run{Prompt: req.Prompt, Model: req.Model, Effort: req.Effort, URLs: req.URLs, MaxCredits: &mc,
		CreatedAt: &now, CreatedAtLocal: true, Status: "processing"}
	if req.Schema != nil {
		r.Schema = bytes.Clone(req.Schema)
	}
	return r
}

// jobFromStore is jobFromArchive on an open store.
func jobFromStore(ctx context.Context, st archive.Store, service, id string) (*archive.Run, []archive.Poll, error) {
	r, err := st.Get(ctx, service, id)
	if err != nil {
		return nil, nil, err
	}
	polls, err := st.Polls(ctx, r.Service, r.ID)
	if err != nil {
		return nil, nil, err
	}
	return r, polls, nil
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
	octx, cancel := context.WithTimeout(ctx, archiveWriteTimeout)
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
	r, polls, err := jobFromStore(ctx, st, baseURL, jobID)
	if err != nil {
		return true, asUsage(err)
	}
	rec := recordingOf(r, polls)
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
		ctx, cancel := context.WithTimeout(ctx, archiveWriteTimeout)
		defer cancel()
		err = st.PutRun(ctx, withID(archiveSeedOf(req), service, id))
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
