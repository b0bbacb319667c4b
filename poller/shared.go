package poller

import (
	"errors"
	"io"
	"time"

	"github.com/firewatch/firewatch/model"
)

// What a watch needs whose polls are sometimes its own and sometimes
// another process's, read from a shared archive (archiving.Shared): one
// decoder for the whole run, whoever polls (handed to each Watcher it
// runs, WatchOptions.Decoder, and given the stored polls, DecodeLine), and
// a recording written from what that decoder brought, whichever way it
// came (Recorder).

// NewDecoder is a trace decoder for this client's runs, as the watch loop
// makes its own: the secrets redacted from every event, the top-level
// members kept for a recording.
func (c *Client) NewDecoder() *model.Decoder {
	d := c.newDecoder()
	d.KeepTop()
	return d
}

// DecodeLine decodes one poll as a recording line holds it
// ({"receivedAt":…,"trace":{…}}, the archive's polls too) with dec: what
// it brings that dec had not seen, and when it was received (zero when the
// line does not say). A line of another kind (a header) is no poll: p is
// nil and err nil.
func DecodeLine(dec *model.Decoder, line []byte) (p *model.Poll, received time.Time, err error) {
	rec, ok := viewObject(line)
	if !ok {
		return nil, time.Time{}, errors.New("a recording line that is not a JSON object")
	}
	trace := rec.raw("trace")
	if trace == nil {
		return nil, time.Time{}, nil
	}
	received, _ = rec.time("receivedAt")
	p, err = dec.Decode(trace)
	return p, received, err
}

// Recorder writes a recording outside a Watcher, as the watch loop writes
// it (WatchOptions.Record): its header, then one line per poll that
// changed something. A watch whose polls are sometimes another process's
// records what its decoder brought, whoever polled.
type Recorder struct{ r recorder }

// NewRecorder starts the recording of the run jobID of this client's
// service on w (nil: no file, the lines go to PollTo's alone), its header
// saying started and req.
func (c *Client) NewRecorder(w io.Writer, jobID string, started time.Time, req model.Request) *Recorder {
	r := &Recorder{r: recorder{w: w, secrets: c.secrets}}
	if w != nil {
		r.r.header(jobID, c.base, started, req)
	}
	return r
}

// Poll records p, received at received; p comes from a decoder that keeps
// the top-level members (NewDecoder's).
func (r *Recorder) Poll(received time.Time, p *model.Poll) { r.PollTo(received, p, nil) }

// PollLines is where a Recorder hands a poll's line besides its file (the
// archive): serialised and redacted once for both.
type PollLines interface {
	// PollLine takes a part of the line of the poll received at
	// received (its secrets redacted, no newline); end: its last part.
	// A line longer than a few hundred KiB comes in several parts, cut
	// between events. part is the recorder's buffer: copied if kept.
	PollLine(received time.Time, part []byte, end bool)
}

// PollTo records p as Poll does and hands the line it writes (when p
// changed something) to to as well (nil: the file alone). A file that
// failed does not stop to's lines.
func (r *Recorder) PollTo(received time.Time, p *model.Poll, to PollLines) {
	if p == nil {
		return
	}
	r.r.to, r.r.at = to, received
	r.r.poll(received, topOf(p), p)
	r.r.to = nil
}

// Err is the first write that failed (nothing is written after it).
func (r *Recorder) Err() error { return r.r.err }

// RecordError is Err as Health.RecordError says it ("" when none).
func (r *Recorder) RecordError(c *Client) string {
	if r.r.err == nil {
		return ""
	}
	return cleanMessage(r.r.err.Error(), c.secrets)
}
