package archiving

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// A FILE or JOB_ID argument (export, report, replay, compare, result) is
// read by one rule: an existing file, or -, is a file (a --record
// recording or a saved trace body); otherwise a UUID is a job id, read
// from the archive when it holds the run's polls, else from the service
// (FIRECRAWL_API_KEY); anything else is a file that cannot be opened.

// IsJob reports whether arg names a job rather than a file.
func IsJob(arg string) bool {
	if arg == "-" {
		return false
	}
	if _, err := os.Stat(arg); err == nil {
		return false
	}
	return poller.ValidateJobID(arg) == nil
}

// Reader reads runs by that rule. What it opens and asks is the command's
// (each failure is the command's error, as its own openings make them).
type Reader struct {
	Secrets *text.Secrets
	// Archive opens the archive for reading; a nil store: it is off.
	Archive func(ctx context.Context) (archive.Store, error)
	// Client is the service's client at apiURL with the key apiKey;
	// BaseURL is the service that apiURL names, as Client resolves it
	// (nil: poller.ResolveBaseURL). A JOB_ID's archived copy is looked up
	// under it.
	Client  func(apiURL, apiKey string) (*poller.Client, error)
	BaseURL func(apiURL string) string
	// File opens a recording or saved trace body ("-": stdin); name is
	// what messages call it.
	File func(arg string) (in io.Reader, name string, closeIn func(), err error)
	// JobsOnly: every argument is a job id, never a file, even one that
	// exists by that name (a hub's session names the hub's runs, not the
	// files of the hub's host).
	JobsOnly bool
}

// Input is an opened FILE or JOB_ID.
type Input struct {
	In   io.Reader
	Name string        // what messages call it
	Req  model.Request // what the run was asked (a JOB_ID's, from the archive or the service)
	// Rec is what is known of a JOB_ID besides its events: the archive's
	// record (Archived), else the service's status and list item; nil for
	// a file.
	Rec      *archive.Run
	Archived bool
	close    func()
}

// Close closes the file opened.
func (s *Input) Close() {
	if s != nil && s.close != nil {
		s.close()
	}
}

// Job is what the archive holds of the run id at service (the current
// service first): its record and polls, or archive.ErrNotFound (also when
// the archive is off).
func (r *Reader) Job(ctx context.Context, service, id string) (*archive.Run, []archive.Poll, error) {
	st, err := r.Archive(ctx)
	if err != nil {
		return nil, nil, err
	}
	if st == nil {
		return nil, nil, archive.ErrNotFound
	}
	defer st.Close()
	return Load(ctx, st, service, id)
}

// Open opens arg by the rule above. A JOB_ID is read from the archive (its
// record and its polls) when the archive holds its events, else from the
// service (its trace, status and list item, joined to what the archive
// holds of it: a run started with --detach is held with its request only);
// the service's answers, a refusal included, are the client's typed
// errors.
func (r *Reader) Open(ctx context.Context, arg, apiURL, apiKey string) (*Input, error) {
	if r.JobsOnly {
		if err := poller.ValidateJobID(arg); err != nil {
			return nil, err
		}
	} else if !IsJob(arg) {
		in, name, closeIn, err := r.File(arg)
		if err != nil {
			return nil, err
		}
		return &Input{In: in, Name: name, close: closeIn}, nil
	}
	resolve := poller.ResolveBaseURL
	if r.BaseURL != nil {
		resolve = r.BaseURL
	}
	service, id := resolve(apiURL), strings.ToLower(arg)
	held, polls, err := r.Job(ctx, service, id)
	switch {
	case err == nil && len(polls) > 0:
		return &Input{In: bytes.NewReader(RecordingOf(held, polls)), Name: "archived run " + id, Req: RequestOf(held), Rec: held, Archived: true}, nil
	case err != nil && !errors.Is(err, archive.ErrNotFound):
		return nil, err
	}
	c, err := r.Client(apiURL, apiKey)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	body, err := c.Trace(ctx, id, false)
	if err != nil {
		return nil, err
	}
	at := time.Now()
	rec := &archive.Run{}
	if held != nil {
		rec = held
	}
	if l, err := c.RunLookup(ctx, id); err == nil {
		rec = archive.Merge(rec, ServiceRecord(r.Secrets, service, id, l))
	}
	rec = WithID(rec, service, id)
	// The client redacts every answer but the trace, which the watch's
	// decoder redacts; this one is replayed, so it is redacted here.
	in := RecordingOf(rec, []archive.Poll{{ReceivedAt: at, Line: PollLine(r.Secrets, at, body)}})
	return &Input{In: bytes.NewReader(in), Name: "run " + id, Req: RequestOf(rec), Rec: rec}, nil
}

// ServiceRecord is what the service's look-up says of a run, as a record.
func ServiceRecord(sec *text.Secrets, service, id string, l poller.Lookup) *archive.Run {
	r := WithID(RunOfRequest(l.Request), service, id)
	if l.Item != nil {
		r = archive.Merge(r, RunFromInfo(sec, service, l.Item))
	}
	if l.Status != nil {
		ApplyStatus(sec, r, l.Status)
	}
	return r
}

// RunRead is a run as a reader of a FILE or JOB_ID has it: its record
// (Figures), the run its events were replayed into, and where it came
// from.
type RunRead struct {
	Src     *Input
	Rec     *archive.Run
	Figures Figures
	Run     *follow.Run
}

// Store is the replayed run.
func (r *RunRead) Store() *model.Store { return r.Run.Store }

// UnreadableError is a file or body firewatch cannot replay.
type UnreadableError struct {
	Name string
	Err  error
}

func (e *UnreadableError) Error() string { return fmt.Sprintf("%s: %v", e.Name, e.Err) }
func (e *UnreadableError) Unwrap() error { return e.Err }

// ReadRun opens arg (Open), replays it and makes its record: the
// archive's, with a derivation of the events where the archive has none of
// the finished run; else what the service or the file says. maxCredits
// (report's --max-credits; 0: none) is the run's cap to derive the figures
// with. A body that cannot be replayed is an *UnreadableError.
func (r *Reader) ReadRun(ctx context.Context, arg, apiURL, apiKey string, maxCredits float64) (*RunRead, error) {
	src, err := r.Open(ctx, arg, apiURL, apiKey)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if maxCredits > 0 {
		src.Req.MaxCredits = maxCredits
		if src.Rec != nil {
			src.Rec = archive.Merge(src.Rec, &archive.Run{MaxCredits: &maxCredits})
			src.Archived = false // derived again, with this cap
		}
	}
	run, err := Replay(ctx, src.In, r.Secrets, src.Req)
	if err != nil {
		return nil, &UnreadableError{src.Name, err}
	}
	rec := src.record(run)
	return &RunRead{Src: src, Run: run, Rec: rec, Figures: FiguresOf(rec, time.Now())}, nil
}

// record is the record of the run src opened, once its events were
// replayed into run: the archive's holds a derivation of the finished run
// (made by the watch or the pass that completed it) which every reader
// shares; otherwise the replay's joins what is known.
func (src *Input) record(run *follow.Run) *archive.Run {
	rec := src.Rec
	if rec == nil {
		rec = &archive.Run{ID: run.Store.Run().ID}
	}
	if src.Archived && rec.Complete && rec.HasDerived() {
		return rec
	}
	m := archive.Merge(rec, RecordOf(run))
	if m.ID == "" {
		m.ID = run.Store.Run().ID
	}
	return m
}

// Forgotten is what the archive holds of the run id at service once the
// service has forgotten it: when st holds its polls and the service
// answers 404 for it, its record and its polls (the run is marked
// expired when team, the asking key's, owns it: another key's 404 says
// nothing of it). nil when the archive does not hold the run's polls, or
// the service still has it or cannot say.
func Forgotten(ctx context.Context, st archive.Store, c *poller.Client, service, id, team string) (*archive.Run, []archive.Poll, error) {
	r, err := st.Get(ctx, service, id)
	if err != nil || r.Service != service || r.Polls == 0 {
		return nil, nil, nil
	}
	_, err = c.Status(ctx, id)
	var pe *poller.Error
	if !errors.As(err, &pe) || pe.Kind != poller.KindNotFound {
		return nil, nil, nil
	}
	if r.Team == team {
		_ = st.MarkExpired(ctx, service, id)
	}
	return Load(ctx, st, service, id)
}

// Archived is a run as the archive holds it, as a follow.Source: its
// polls, given at once and in order, after the recording's header (what
// the run was asked). A watch of a forgotten run reads it instead of the
// service's polls.
func Archived(r *archive.Run, polls []archive.Poll) follow.Source {
	return follow.Replay(bytes.NewReader(RecordingOf(r, polls)), poller.ReplayOptions{Instant: true})
}
