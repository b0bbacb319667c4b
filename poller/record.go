package poller

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// RecordingVersion is the version written in a recording's header line.
// Version 2 adds the header's request (what the run was asked to do);
// version 1 recordings still replay, without it.
const RecordingVersion = 2

// oldestRecording is the oldest recording version Replay reads.
const oldestRecording = 1

// recorder writes the recording of one watch.
type recorder struct {
	w       io.Writer // nil: no file (a Recorder's lines go to PollTo's alone)
	secrets *text.Secrets
	err     error // the first write error; nothing is written after it

	id, credits, live jsontext.Value // as last written
	buf               []byte

	to PollLines // the poll being written goes here too (PollTo)
	at time.Time // its receive time
}

func (r *recorder) write(line []byte) {
	if r.err != nil && r.to == nil {
		return
	}
	// Belt and braces: the decoder redacted what it kept, in every form.
	part, ends := bytes.CutSuffix(line, []byte("\n"))
	if red, changed := r.secrets.RedactJSON(part); changed {
		part, line = red, red
		if ends {
			line = append(red[:len(red):len(red)], '\n')
		}
	}
	if r.to != nil {
		r.to.PollLine(r.at, part, ends)
	}
	if r.w == nil || r.err != nil {
		return
	}
	if _, err := r.w.Write(line); err != nil {
		r.err = fmt.Errorf("writing the recording: %w", err)
	}
}

func (r *recorder) header(jobID, baseURL string, started time.Time, req model.Request) {
	r.write(appendHeader(nil, jobID, r.secrets.Redact(baseURL), started, req))
}

// RecordingHeader is a recording's header line (with its newline): what
// a recording of the run jobID at baseURL, started at started, asked req,
// begins with.
func RecordingHeader(jobID, baseURL string, started time.Time, req model.Request) []byte {
	return appendHeader(nil, jobID, baseURL, started, req)
}

// Header is a recording's first line, as --record writes it and an
// import reads it:
//
//	{"firewatch":"recording","version":2,"jobId":"…","baseUrl":"…","startedAt":"<RFC 3339>","request":{…}}
type Header struct {
	Firewatch string         `json:"firewatch"` // "recording"
	Version   int            `json:"version"`
	JobID     string         `json:"jobId"`
	BaseURL   string         `json:"baseUrl"`
	StartedAt time.Time      `json:"startedAt"`
	Request   *HeaderRequest `json:"request,omitempty"` // version 2: what the run was asked
}

// HeaderRequest is a header's request; empty fields are left out.
type HeaderRequest struct {
	Prompt     string   `json:"prompt,omitempty"`
	Model      string   `json:"model,omitempty"`
	Effort     string   `json:"effort,omitempty"`
	URLs       []string `json:"urls,omitempty"`
	MaxCredits float64  `json:"maxCredits,omitzero"`
}

// UnmarshalJSON reads a request of the wrong shape as none, so that a
// header is read whatever its request holds (Replay reads it field by
// field, readRequest).
func (r *HeaderRequest) UnmarshalJSON(b []byte) error {
	type plain HeaderRequest
	var p plain
	if json.Unmarshal(b, &p) != nil {
		p = plain{}
	}
	*r = HeaderRequest(p)
	return nil
}

// IsRecording reports whether h is a recording's header.
func (h *Header) IsRecording() bool { return h.Firewatch == "recording" }

func appendHeader(b []byte, jobID, baseURL string, started time.Time, req model.Request) []byte {
	h := Header{Firewatch: "recording", Version: RecordingVersion, JobID: jobID, BaseURL: baseURL, StartedAt: started}
	if !req.IsZero() {
		h.Request = &HeaderRequest{Prompt: req.Prompt, Model: req.Model, Effort: req.Effort, URLs: req.URLs, MaxCredits: req.MaxCredits}
	}
	// A string that is not UTF-8 is written with U+FFFD, as jsontext
	// quotes it, rather than failing the recording.
	line, err := json.Marshal(&h, jsontext.AllowInvalidUTF8(true))
	if err != nil { // a number JSON has not (NaN): the header without the request
		h.Request = nil
		line, _ = json.Marshal(&h, jsontext.AllowInvalidUTF8(true))
	}
	b = append(b, line...)
	return append(b, '\n')
}

// readRequest reads a header's request object; what is missing or of the
// wrong type stays empty.
func readRequest(o object) model.Request {
	var req model.Request
	req.Prompt, _ = o.str("prompt")
	req.Model, _ = o.str("model")
	req.Effort, _ = o.str("effort")
	for _, u := range o.array("urls") {
		var s string
		if json.Unmarshal(u, &s) == nil {
			req.URLs = append(req.URLs, s)
		}
	}
	if f, ok := o.numIn("maxCredits", 0, model.MaxCredits); ok {
		req.MaxCredits = f
	}
	return req.Clean()
}

// poll writes one line when the poll changed something: new (or set aside)
// events, or a different id, creditsUsed or activeBrowserSessions.
func (r *recorder) poll(received time.Time, top traceTop, p *model.Poll) {
	if r.err != nil && r.to == nil {
		return
	}
	if len(p.Events) == 0 && len(p.Rejected) == 0 && len(p.Duplicates) == 0 &&
		bytes.Equal(top.id, r.id) && bytes.Equal(top.credits, r.credits) && bytes.Equal(top.live, r.live) {
		return
	}
	r.id, r.credits, r.live = top.id, top.credits, top.live
	b := r.buf[:0]
	// A line longer than recordChunk (a first poll's, the whole trace:
	// megabytes) goes out in several writes, cut between events, so that
	// it is never held whole; the write that ends it ends with the
	// newline. An event holds no ',', '{' or '}' of the key's, so the key
	// check of each write sees every place the key could be.
	event := func(raw []byte) {
		if len(b) >= recordChunk {
			r.write(b)
			b = b[:0]
		}
		b = append(b, compactJSON(raw)...)
	}
	b = append(b, `{"receivedAt":`...)
	b, _ = jsontext.AppendQuote(b, received.Format(time.RFC3339Nano))
	b = append(b, `,"trace":{`...)
	sep := false
	member := func(name string, v jsontext.Value) {
		if v == nil {
			return
		}
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
		b = append(b, compactJSON(v)...)
	}
	member("success", top.success)
	member("id", top.id)
	member("creditsUsed", top.credits)
	member("activeBrowserSessions", top.live)
	if sep {
		b = append(b, ',')
	}
	b = append(b, `"events":[`...)
	n := 0
	for _, e := range p.Events {
		if n > 0 {
			b = append(b, ',')
		}
		event(e.Raw)
		n++
	}
	// A duplicate eventId with other bytes comes after its first version
	// (in an earlier line or among Events), as it did live.
	for _, e := range p.Duplicates {
		if n > 0 {
			b = append(b, ',')
		}
		event(e.Raw)
		n++
	}
	for _, e := range p.Rejected {
		if e.Reason == model.ReasonTooDeep {
			// Replay's JSON reader could not read the line back; the
			// event is set aside anyway.
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		event(e.Raw)
		n++
	}
	b = append(b, "]}}\n"...)
	r.write(b)
	if cap(b) <= 1<<20 {
		r.buf = b
	}
}

// recordChunk is the size past which a recording line is written in parts.
const recordChunk = 256 << 10

// ReplayOptions configure Replay.
type ReplayOptions struct {
	Speed   float64 // pace multiplier; 0 means 1 (the original pace); 2 is twice as fast
	Instant bool    // no waits at all
}

// Replay plays back a recording written by a Watcher (see WatchOptions.Record)
// or a saved trace body (`curl .../trace > run.json`: one JSON object,
// pretty-printed or not; several concatenated bodies are played as
// successive polls). It decodes with a fresh model.Decoder and calls sink
// like Watcher.Run does: one Update per recorded poll, at the recorded pace
// divided by Speed (or all at once with Instant), then a last Update with
// Done set. Merging every Update.Poll into a model.Store gives the same
// Summary as the live watch did.
//
// It returns ctx.Err() when ctx ends, and an error naming the line when
// the input is not a recording or trace body it can read (the updates of
// the lines before it have been delivered).
func Replay(ctx context.Context, r io.Reader, o ReplayOptions, sink func(Update)) error {
	return replay(ctx, r, o, sink, realClock{})
}

func replay(ctx context.Context, r io.Reader, o ReplayOptions, sink func(Update), clk clock) error {
	if sink == nil {
		sink = func(Update) {}
	}
	speed := o.Speed
	if speed <= 0 || speed != speed {
		speed = 1
	}
	// The bytes of the first value are kept while it is read: when the
	// JSON reader cannot read it (an event nested past its depth limit),
	// the input may still be one trace body the model can use.
	head0 := &firstValue{}
	// A file is read whole into one buffer of its size and walked in
	// place: a saved 60 MB trace then costs 60 MB, not the reader's
	// growing buffer plus a copy of the first value, a clone of it and the
	// decoder's own copy. The values read alias data, which nothing
	// changes, so they are kept as they are (no clones, DecodeKept).
	data, inPlace, err := readWhole(r)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	var in *jsontext.Decoder
	if inPlace {
		in = jsontext.NewDecoder(bytes.NewBuffer(data), scanOpts...)
	} else {
		in = jsontext.NewDecoder(io.TeeReader(r, head0), scanOpts...)
	}
	keep := func(v []byte) []byte {
		if inPlace {
			return v
		}
		return bytes.Clone(v)
	}
	dec := model.NewDecoder()
	h := Health{Replay: true, Speed: speed}

	// where names the input's part: "value 2" of saved bodies, "line 7"
	// of a recording.
	deliver := func(body []byte, where string) error {
		if _, err := scanTrace(body); err != nil {
			// The model's own decoder says what is wrong; a body it can
			// use (an event too deep for the scan is set aside) is used.
			if _, derr := model.DecodeTrace(body); derr != nil {
				return fmt.Errorf("replay: %s: %w", where, derr)
			}
		}
		decode := dec.Decode
		if inPlace {
			decode = dec.DecodeKept
		}
		p, err := decode(body)
		if err != nil {
			return fmt.Errorf("replay: %s: %w", where, err)
		}
		h.Polls++
		h.LastGood = clk.Now()
		if p.Finished {
			h.Tail = true
		}
		sink(Update{Poll: p, Health: h})
		return nil
	}
	done := func() error {
		h.Done = true
		h.NextTry = time.Time{}
		sink(Update{Health: h, Done: true})
		return nil
	}

	first, err := in.ReadValue()
	if err == io.EOF {
		return errors.New("replay: the input is empty")
	}
	if err != nil {
		// One saved body the reader cannot walk but the model can use.
		body, ok := head0.whole(r)
		if inPlace {
			body, ok = data, len(data) <= maxTraceBody
		}
		if ok {
			if _, derr := model.DecodeTrace(body); derr == nil {
				if top, terr := scanTop(body); terr == nil {
					var id string
					if json.Unmarshal(top.id, &id) == nil && ValidateJobID(id) == nil {
						dec.SetRunID(id)
					}
				}
				if err := deliver(body, "value 1"); err != nil {
					return err
				}
				return done()
			}
		}
		return fmt.Errorf("replay: not a recording or a trace body: %w", describeJSON(err))
	}
	head0.stop()
	first = keep(first)
	head, ok := viewObject(first) // first is not changed: kept or in place
	if !ok {
		return errors.New("replay: not a recording or a trace body: the input is not a JSON object")
	}
	if kind, _ := head.str("firewatch"); kind != "recording" {
		// Saved trace bodies: the first one's id names the run; another
		// run's events are set aside.
		if id, ok := head.str("id"); ok && ValidateJobID(id) == nil {
			dec.SetRunID(id)
		}
		for n := 1; ; n++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := deliver(first, "value "+strconv.Itoa(n)); err != nil {
				return err
			}
			next, err := in.ReadValue()
			if err == io.EOF {
				return done()
			}
			if err != nil {
				return fmt.Errorf("replay: value %d: %w", n+1, describeJSON(err))
			}
			first = keep(next)
		}
	}
	if v, ok := head.num("version"); !ok || v < oldestRecording || v > RecordingVersion || v != float64(int(v)) {
		return fmt.Errorf("replay: recording version %s is not supported (this firewatch reads versions %d to %d)", text.Sanitize(string(head.raw("version"))), oldestRecording, RecordingVersion)
	}
	if id, ok := head.str("jobId"); ok && ValidateJobID(id) == nil {
		dec.SetRunID(id) // as the live watch did
	}
	if ro, ok := head.obj("request"); ok {
		if req := readRequest(ro); !req.IsZero() {
			sink(Update{Request: &req, Health: h})
		}
	}

	var last time.Time
	for line := 2; ; line++ {
		v, err := in.ReadValue()
		if err == io.EOF {
			return done()
		}
		if err != nil {
			return fmt.Errorf("replay: line %d: %w", line, describeJSON(err))
		}
		rec, ok := viewObject(v) // v stays as it is until the next read
		if !ok {
			return fmt.Errorf("replay: line %d: not a JSON object", line)
		}
		trace := rec.raw("trace")
		if trace == nil {
			continue // a kind of line this version does not know
		}
		at, hasAt := rec.time("receivedAt")
		if hasAt && !last.IsZero() && !o.Instant {
			if wait := time.Duration(float64(at.Sub(last)) / speed); wait > 0 {
				h.NextTry = clk.Now().Add(wait)
				c, stop := clk.After(wait)
				select {
				case <-ctx.Done():
					stop()
					return ctx.Err()
				case <-c:
				}
				stop()
			}
		}
		if hasAt {
			last, h.Recorded = at, at
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := deliver(trace, "line "+strconv.Itoa(line)); err != nil {
			return err
		}
	}
}

// maxReplayFile is the largest file a replay reads whole (see readWhole).
const maxReplayFile = 1 << 30

// readWhole reads r whole when it is a regular file of at most
// maxReplayFile bytes, into one buffer of the file's size; inPlace is false
// (and nothing read) for any other reader, which is then streamed.
func readWhole(r io.Reader) (data []byte, inPlace bool, err error) {
	f, ok := r.(*os.File)
	if !ok {
		return nil, false, nil
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxReplayFile {
		return nil, false, nil
	}
	data = make([]byte, st.Size()+1) // one more: a file that grew is seen
	n, err := io.ReadFull(f, data)
	switch err {
	case io.ErrUnexpectedEOF, io.EOF:
		return data[:n:n], true, nil // as large as it said, or smaller
	case nil:
		rest, err := io.ReadAll(f) // it grew since: take the rest too
		if err != nil {
			return nil, false, err
		}
		return append(data, rest...), true, nil
	}
	return nil, false, err
}

// describeJSON makes a reading error of the input say what it is.
func describeJSON(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the input ends in the middle of a value (cut short?)")
	}
	return err
}

// firstValue keeps the bytes read from a replay's input until stop, at most
// a trace body's limit.
type firstValue struct {
	b       []byte
	stopped bool
	over    bool
}

func (f *firstValue) Write(p []byte) (int, error) {
	if !f.stopped {
		if len(f.b)+len(p) > maxTraceBody {
			f.stopped, f.over, f.b = true, true, nil
		} else {
			f.b = append(f.b, p...)
		}
	}
	return len(p), nil
}

func (f *firstValue) stop() { f.stopped, f.b = true, nil }

// whole is the input from its start: what was kept, then the rest of r.
func (f *firstValue) whole(r io.Reader) ([]byte, bool) {
	if f.over || f.stopped {
		return nil, false
	}
	b := f.b
	f.stop()
	rest, err := io.ReadAll(io.LimitReader(r, maxTraceBody+1))
	if err != nil || len(b)+len(rest) > maxTraceBody {
		return nil, false
	}
	return append(b, rest...), true
}
