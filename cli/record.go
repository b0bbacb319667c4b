package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/export"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// One truth about a run. Whatever firewatch learns of a run (a start, a
// recording's header, the service's list item or status, what a watch or a
// replay derived from the trace, a cancel) becomes an archive.Run and joins
// the run's record by archive.Merge; every reader (history, cost, compare,
// report, export, replay, result, watch of a forgotten run, the runs
// screen, the summary) takes its figures from a record through figuresOf.
// A run read from a file or the service alone has a record too, made the
// same way, that is simply not stored.

// runFigures are what every reader says about a run.
type runFigures struct {
	ID, Service           string
	Prompt, Model, Effort string
	URLs                  []string
	Schema                []byte
	MaxCredits            *float64 // the cap; nil when not known (then 2,500 is assumed where one is needed)
	CreatedAt             *time.Time
	FinishedAt            *time.Time
	DurationMs            *int64
	Status                string // the service's word, "cancelled" when the trace says so; "" when not known
	Outcome               string // from the trace; "" when not known
	// Complete: the run was read to its end. A run known only in part (a
	// watch left early, its trace expired since) is incomplete: its
	// figures are what was read, not final ones.
	Complete bool
	// Read: some of the run's events were read (the attention count and
	// the credits by agent mean something).
	Read            bool
	Expired         bool // the service no longer has it
	CancelRequested bool // firewatch asked the service to cancel it
	CreditsUsed     *float64
	Bill            model.Bill              // model.BillOf: the one billing rule
	Attention       int                     // attention items raised
	Items           []attention.SummaryItem // the items, when the record's summary is at hand (single-run readers)
	CreditsByAgent  map[string]float64
	Result          []byte // the status endpoint's data once completed; nil when not known
}

// figuresOf is the one function every reader takes a run's figures from.
func figuresOf(r *archive.Run, now time.Time) runFigures {
	f := runFigures{ID: r.ID, Service: r.Service, Prompt: r.Prompt, Model: r.Model, Effort: r.Effort, URLs: r.URLs, Schema: r.Schema,
		MaxCredits: r.MaxCredits, CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt, DurationMs: r.DurationMs, Status: r.Status,
		Outcome: r.Outcome, Complete: r.Complete && r.Outcome != "", Expired: expiredAt(r, now), CancelRequested: r.CancelRequested,
		CreditsUsed: r.CreditsUsed, Attention: r.Attention, CreditsByAgent: r.CreditsByAgent, Result: r.Result}
	f.Read = r.Events > 0 || r.Outcome != "" || r.CreditsByAgent != nil
	credits := 0.0
	if r.CreditsUsed != nil {
		credits = *r.CreditsUsed
	}
	if f.Complete {
		f.Bill = model.BillOf(model.Outcome(r.Outcome), credits)
	}
	if r.Summary != nil {
		var sum struct {
			Attention []attention.SummaryItem `json:"attention"`
		}
		if json.Unmarshal(r.Summary, &sum, json.RejectUnknownMembers(false)) == nil {
			f.Items = sum.Attention
		}
	}
	return f
}

// facts are the figures the report and the OTLP export show.
func (f *runFigures) facts() *export.Facts {
	return &export.Facts{Bill: f.Bill, Complete: f.Complete, Attention: f.Items, CreditsByAgent: f.CreditsByAgent, Result: f.Result}
}

// Request is what the run was asked, as the model holds it.
func (f *runFigures) Request() model.Request {
	req := model.Request{Prompt: f.Prompt, Model: f.Model, Effort: f.Effort, URLs: f.URLs}
	if f.MaxCredits != nil {
		req.MaxCredits = *f.MaxCredits
	}
	return req.Clean()
}

// requestOfRun is the request a record holds.
func requestOfRun(r *archive.Run) model.Request {
	f := runFigures{Prompt: r.Prompt, Model: r.Model, Effort: r.Effort, URLs: r.URLs, MaxCredits: r.MaxCredits}
	return f.Request()
}

// runOfRequest is a request as a record's fields, for Merge.
func runOfRequest(req model.Request) *archive.Run {
	r := &archive.Run{Prompt: req.Prompt, Model: req.Model, Effort: req.Effort, URLs: req.URLs}
	if req.MaxCredits > 0 {
		mc := req.MaxCredits
		r.MaxCredits = &mc
	}
	return r
}

// withID is r for the run id at service.
func withID(r *archive.Run, service, id string) *archive.Run {
	r.Service, r.ID = service, id
	return r
}

// recordOfSession is what a watch (live or replayed) knows of its run: its
// request and what it derived (derivedRun), with the summary as JSON for
// the single-run readers (not for storing: the sink streams it).
func recordOfSession(w *watchSession) *archive.Run {
	sum := w.Summary()
	d := derivedRun(sum, w.Store)
	d.SummaryEncoded = nil
	d.Summary, _ = sum.Marshal(false)
	return archive.Merge(runOfRequest(w.Store.Request()), d)
}

// replayRun replays a recording (or a saved trace body) at once into a new
// session, as the watch would have derived it: the store with the request
// (req, then the recording's header), the attention tracker fed merge by
// merge. sec (nil: none) redacts what the store decodes.
func replayRun(ctx context.Context, in io.Reader, sec *text.Secrets, req model.Request) (*watchSession, error) {
	w := &watchSession{Opts: &watchOptions{}, Run: follow.NewRun()}
	if sec != nil {
		w.Store.SetSecrets(sec)
	}
	w.Store.SetRequest(req)
	err := poller.Replay(ctx, in, poller.ReplayOptions{Instant: true}, func(u poller.Update) {
		if d := w.Merge(u); u.Poll != nil {
			w.Tracker().Update(d, time.Now())
		}
	})
	return w, err
}

// runRead is a run as a reader of a FILE or JOB_ID has it: its record
// (Figures), the store and session its events were replayed into, and where
// it came from.
type runRead struct {
	Src     *runSource
	Rec     *archive.Run
	Figures runFigures
	W       *watchSession
}

// Store is the replayed run.
func (r *runRead) Store() *model.Store { return r.W.Store }

// readRun opens arg (a FILE or JOB_ID, source.go), replays it and makes its
// record: the archive's, with a derivation of the events where the archive
// has none of the finished run; else what the service or the file says.
func (a *app) readRun(ctx context.Context, arg, apiURL, apiKey string) (*runRead, error) {
	return a.readRunCapped(ctx, arg, apiURL, apiKey, 0)
}

// readRunCapped is readRun with the run's cap given (report's
// --max-credits; 0: none): the figures are then derived with it.
func (a *app) readRunCapped(ctx context.Context, arg, apiURL, apiKey string, maxCredits float64) (*runRead, error) {
	src, err := a.openSource(ctx, arg, apiURL, apiKey)
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
	w, err := replayRun(ctx, src.In, a.secrets, src.Req)
	if err != nil {
		return nil, asUsage(fmt.Errorf("%s: %w", src.Name, err))
	}
	rec := src.record(w)
	return &runRead{Src: src, W: w, Rec: rec, Figures: figuresOf(rec, time.Now())}, nil
}

// record is the record of the run src opened, once its events were
// replayed into w: the archive's holds a derivation of the finished run
// (made by the watch or the pass that completed it) which every reader
// shares; otherwise the replay's joins what is known.
func (src *runSource) record(w *watchSession) *archive.Run {
	rec := src.Rec
	if rec == nil {
		rec = &archive.Run{ID: w.Store.Run().ID}
	}
	if src.Archived && rec.Complete && rec.HasDerived() {
		return rec
	}
	m := archive.Merge(rec, recordOfSession(w))
	if m.ID == "" {
		m.ID = w.Store.Run().ID
	}
	return m
}

// recordingOf rebuilds the recording of an archived run: the header line
// (with the record's request), then its polls as received.
func recordingOf(r *archive.Run, polls []archive.Poll) []byte {
	started := r.ArchivedAt
	if r.StartedAt != nil {
		started = *r.StartedAt
	} else if len(polls) > 0 {
		started = polls[0].ReceivedAt
	}
	b := poller.RecordingHeader(r.ID, r.Service, started.UTC(), requestOfRun(r))
	for _, p := range polls {
		b = append(b, p.Line...)
		b = append(b, '\n')
	}
	return b
}

// pollRecording is the recording of one trace body fetched at at.
func (a *app) pollRecording(r *archive.Run, at time.Time, body []byte) []byte {
	return recordingOf(r, []archive.Poll{{ReceivedAt: at, Line: pollLine(a.secrets, at, body)}})
}
