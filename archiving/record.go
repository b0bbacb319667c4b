package archiving

import (
	"bytes"
	"context"
	"io"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/export"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// DerivedRun is the archive's record of what firewatch derived: the
// outcome, the counts and the full summary.
func DerivedRun(sum follow.Summary, st *model.Store) *archive.Run {
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

// PollLine is a recording line holding a whole trace body fetched at at
// (its secrets redacted): an archived-afterwards run replays at once, in
// one poll.
func PollLine(sec *text.Secrets, at time.Time, body []byte) []byte {
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

// DeriveFromRecording replays a recording at once into a store and returns
// what firewatch derives from it, and the store.
func DeriveFromRecording(ctx context.Context, rec io.Reader) (*archive.Run, *model.Store, error) {
	w, err := Replay(ctx, rec, nil, model.Request{})
	if err != nil {
		return nil, nil, err
	}
	// The recording's header says what the run was asked (its cap).
	return archive.Merge(RunOfRequest(w.Store.Request()), DerivedRun(w.Summary(), w.Store)), w.Store, nil
}

// SeedOf is what run knows of the run it started: its request, the
// cap (the service's default when none was sent) and its start.
func SeedOf(req *poller.AgentRequest) *archive.Run {
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
	if b, err := req.Body(); err == nil {
		r.Request = b
	}
	return r
}

// Load is what the archive holds of the run id at service: its record and
// its polls, or archive.ErrNotFound.
func Load(ctx context.Context, st archive.Store, service, id string) (*archive.Run, []archive.Poll, error) {
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

// Figures are what every reader says about a run.
type Figures struct {
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
	// CancelledBy and StartedBy name who cancelled or started it through
	// a hub; "" when nobody did there.
	CancelledBy, StartedBy string
	// RerunOf, RerunChanged, ThreadID and ThreadTurn are the run's
	// lineage (archive.Run's).
	RerunOf        string
	RerunChanged   []string
	ThreadID       string
	ThreadTurn     int
	CreditsUsed    *float64
	Bill           model.Bill              // model.BillOf: the one billing rule
	Attention      int                     // attention items raised
	Items          []attention.SummaryItem // the items, when the record's summary is at hand (single-run readers)
	CreditsByAgent map[string]float64
	Result         []byte // the status endpoint's data once completed; nil when not known
}

// FiguresOf is the one function every reader takes a run's figures from.
func FiguresOf(r *archive.Run, now time.Time) Figures {
	f := Figures{ID: r.ID, Service: r.Service, Prompt: r.Prompt, Model: r.Model, Effort: r.Effort, URLs: r.URLs, Schema: r.Schema,
		MaxCredits: r.MaxCredits, CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt, DurationMs: r.DurationMs, Status: r.Status,
		Outcome: r.Outcome, Complete: r.Complete && r.Outcome != "", Expired: ExpiredAt(r, now), CancelRequested: r.CancelRequested,
		CreditsUsed: r.CreditsUsed, Attention: r.Attention, CreditsByAgent: r.CreditsByAgent, Result: r.Result,
		CancelledBy: r.CancelledBy, StartedBy: r.StartedBy,
		RerunOf: r.RerunOf, RerunChanged: r.RerunChanged, ThreadID: r.ThreadID, ThreadTurn: r.ThreadTurn}
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

// Facts are the figures the report and the OTLP export show.
func (f *Figures) Facts() *export.Facts {
	return &export.Facts{Bill: f.Bill, Complete: f.Complete, Attention: f.Items, CreditsByAgent: f.CreditsByAgent, Result: f.Result,
		StartedBy: f.StartedBy, CancelledBy: f.CancelledBy}
}

// Request is what the run was asked, as the model holds it.
func (f *Figures) Request() model.Request {
	req := model.Request{Prompt: f.Prompt, Model: f.Model, Effort: f.Effort, URLs: f.URLs}
	if f.MaxCredits != nil {
		req.MaxCredits = *f.MaxCredits
	}
	return req.Clean()
}

// RequestOf is the request a record holds.
func RequestOf(r *archive.Run) model.Request {
	f := Figures{Prompt: r.Prompt, Model: r.Model, Effort: r.Effort, URLs: r.URLs, MaxCredits: r.MaxCredits}
	return f.Request()
}

// ActorsOf is who started or cancelled the run through a hub, as its
// record keeps it (nil: nothing recorded).
func ActorsOf(r *archive.Run) model.Actors {
	if r == nil {
		return model.Actors{}
	}
	return model.Actors{StartedBy: r.StartedBy, CancelledBy: r.CancelledBy}
}

// RunOfRequest is a request as a record's fields, for Merge.
func RunOfRequest(req model.Request) *archive.Run {
	r := &archive.Run{Prompt: req.Prompt, Model: req.Model, Effort: req.Effort, URLs: req.URLs}
	if req.MaxCredits > 0 {
		mc := req.MaxCredits
		r.MaxCredits = &mc
	}
	return r
}

// WithID is r for the run id at service.
func WithID(r *archive.Run, service, id string) *archive.Run {
	r.Service, r.ID = service, id
	return r
}

// RecordOf is what a watch (live or replayed) knows of its run: its
// request and what it derived (DerivedRun), with the summary as JSON for
// the single-run readers (not for storing: the sink streams it).
func RecordOf(run *follow.Run) *archive.Run {
	sum := run.Summary()
	d := DerivedRun(sum, run.Store)
	d.SummaryEncoded = nil
	d.Summary, _ = sum.Marshal(false)
	return archive.Merge(RunOfRequest(run.Store.Request()), d)
}

// Replay replays a recording (or a saved trace body) at once into a new
// run, as the watch would have derived it: the store with the request
// (req, then the recording's header), the attention tracker fed merge by
// merge. sec (nil: none) redacts what the store decodes.
func Replay(ctx context.Context, in io.Reader, sec *text.Secrets, req model.Request) (*follow.Run, error) {
	r := follow.NewRun()
	w := &r
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

// RecordingOf rebuilds the recording of an archived run: the header line
// (with the record's request), then its polls as received.
func RecordingOf(r *archive.Run, polls []archive.Poll) []byte {
	started := r.ArchivedAt
	if r.StartedAt != nil {
		started = *r.StartedAt
	} else if len(polls) > 0 {
		started = polls[0].ReceivedAt
	}
	b := poller.RecordingHeader(r.ID, r.Service, started.UTC(), RequestOf(r))
	for _, p := range polls {
		b = append(b, p.Line...)
		b = append(b, '\n')
	}
	return b
}

// RunFromInfo is a list item as the archive holds it.
func RunFromInfo(sec *text.Secrets, service string, ri *poller.RunInfo) *archive.Run {
	r := &archive.Run{Service: service, ID: ri.ID, Prompt: ri.Prompt, Model: ri.Model, Effort: ri.Effort, URLs: ri.URLs,
		Label: ri.Label, Status: ri.Status, CreditsUsed: ri.CreditsUsed}
	if !ri.CreatedAt.IsZero() {
		t := ri.CreatedAt.UTC()
		r.CreatedAt = &t
	}
	if ri.Raw != nil {
		item, _ := sec.RedactJSON(ri.Raw)
		r.Item = bytes.Clone(item)
		var it struct {
			Options struct {
				Schema     jsontext.Value `json:"schema"`
				MaxCredits *float64       `json:"maxCredits"`
			} `json:"options"`
		}
		if json.Unmarshal(r.Item, &it) == nil {
			if it.Options.Schema.Kind() == '{' {
				r.Schema = bytes.Clone(it.Options.Schema)
			}
			r.MaxCredits = it.Options.MaxCredits
		}
	}
	return r
}

// ApplyStatus adds GET /v2/agent/{id}'s fields.
func ApplyStatus(sec *text.Secrets, r *archive.Run, s *poller.Status) {
	if s.Status != "" {
		r.Status = s.Status
	}
	if s.Model != "" {
		r.Model = s.Model
	}
	if s.Effort != "" {
		r.Effort = s.Effort
	}
	if s.CreditsUsed != nil {
		r.CreditsUsed = s.CreditsUsed
	}
	if s.ExpiresAt != nil {
		t := s.ExpiresAt.UTC()
		r.ExpiresAt = &t
	}
	if s.Data != nil {
		res, _ := sec.RedactJSON(s.Data)
		r.Result = bytes.Clone(res)
	}
	if s.ThreadID != "" {
		r.ThreadID, r.ThreadTurn = s.ThreadID, s.ThreadTurn
	}
}

// ExpiredAt reports whether the service no longer has r at now.
func ExpiredAt(r *archive.Run, now time.Time) bool {
	return r.Expired || r.ExpiresAt != nil && !now.Before(*r.ExpiresAt)
}
