package model

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/text"
)

// Poll is what one trace response brought that its Decoder had not seen.
type Poll struct {
	RunID string // the response's id ("" when absent)

	CreditsUsed float64
	HasCredits  bool // creditsUsed was present and a number

	// LiveSessions is activeBrowserSessions; HasLiveSessions says whether
	// the field was present at all (it is only with liveView=true).
	LiveSessions    []LiveSession
	HasLiveSessions bool

	Events   []*Event   // events new to the decoder, in body order
	Rejected []Rejected // events set aside, each reported once
	// Flaws are values out of range (see MaxCredits...), not used; those
	// of events are reported with the event, once.
	Flaws []Flaw
	// Duplicates are events whose eventId the decoder produced before,
	// with other bytes: the store tells a changed event from one written
	// differently. Each distinct value is reported once.
	Duplicates []*Event
	Dropped    int  // usage.recorded events dropped, each counted once
	Total      int  // events in the body, known ones included
	Finished   bool // a run.finished is among Events

	// Top is the body's top-level members as received, when the decoder
	// keeps them (KeepTop).
	Top TopMembers

	dec *Decoder // that produced the poll
}

// Changed reports whether the poll brought events or set-aside events the
// decoder had not reported before. Credits and live sessions are figures of
// every response and do not count: a poller's "nothing new" tail window
// goes by this.
func (p *Poll) Changed() bool { return len(p.Events) > 0 || len(p.Rejected) > 0 }

// TopMembers are a trace body's top-level success, id, creditsUsed and
// activeBrowserSessions members as received: copies of their JSON values,
// nil when absent (the last one when a name appears twice). A recording
// writes them as they came.
type TopMembers struct {
	Success, ID, CreditsUsed, LiveSessions []byte
}

// DecodeError says what was wrong with a trace body that could not be used
// at all: not JSON, not an object, no events array. Offset is the byte offset
// in the body where it went wrong; Field names the member (e.g. "events").
type DecodeError struct {
	Offset int64
	Field  string
	Msg    string
	// ServerError is the body's own "error" string (sanitised), when it had
	// one: a 200 answer with {"success":false,"error":"..."}.
	ServerError string
}

func (e *DecodeError) Error() string {
	var b bytes.Buffer
	b.WriteString("malformed trace response")
	if e.Field != "" {
		fmt.Fprintf(&b, ": %s", e.Field)
	}
	fmt.Fprintf(&b, ": %s (at byte %d)", e.Msg, e.Offset)
	if e.ServerError != "" {
		fmt.Fprintf(&b, "; server said: %q", e.ServerError)
	}
	return b.String()
}

// Decoder decodes successive trace responses of one run. The service
// returns the whole trace on every poll, so the decoder remembers the exact
// bytes of every event it has produced, in the order the last body listed
// them; an event found again with the same bytes is recognised by comparing
// memory and is not decoded again. Only new events are decoded.
//
// A Decoder is not safe for concurrent use. Its events may be handed to a
// Store on another goroutine: the decoder never touches them again.
type Decoder struct {
	secrets   *text.Secrets // redacted from every event (SetSecrets)
	seed      maphash.Seed
	known     map[uint64]*entry   // hash of raw bytes → entries with that hash (chained)
	unindexed []*entry            // entries not in known yet: indexed on the next look-up
	entries   int                 // entries in known and unindexed
	ids       map[string]struct{} // eventIds of the events produced
	layout    []*entry            // the last body's events, in its order
	layoutOff []int               // where each of them starts in that body
	spare     []*entry            // the layout before it, reused for the next
	spareOff  []int
	same      int  // of the body being decoded: see DecodeSame
	kept      bool // the body being decoded is the caller's to keep: see DecodeKept
	intern    map[string]string

	// The body being decoded. first: nothing was known before it, so its
	// values need no look-up (a first body is decoded without hashing).
	// arena holds the raw bytes of a first body's events (one copy of the
	// body instead of one per event). added and addedIDs are what it added:
	// a body that turns out to be unusable (truncated, trailing garbage...)
	// must leave the decoder as it was, or the events it held would never
	// be produced.
	first     bool
	arena     []byte
	arenaBase int
	added     []*entry
	addedIDs  []string
	cur       []byte // the raw bytes of the event being decoded

	// agentRefs caches decoded agent identities by their exact bytes: every
	// event of an agent carries the same object.
	agentRefs  map[string]agentRef
	recent     [8]recentAgent
	recentNext int

	// Events and entries are allocated in slabs: a first body holds tens
	// of thousands.
	eventSlab []Event
	entrySlab []entry
	strSlab   []byte // short strings; appended to, never changed

	runID   string // the watched run; "" accepts any runId (SetRunID)
	keepTop bool   // fill Poll.Top (KeepTop)
	flaws   []Flaw // of the value being decoded (see bounded)

	dec     jsontext.Decoder
	buf     bytes.Buffer // dec's input
	subs    []*subDecoder
	depth   int
	scratch []byte
}

type agentRef struct {
	ref    AgentRef
	reason string
}

// recentAgent looks the agent object v up among the last few seen: a trace
// has a handful of agents, and comparing bytes beats hashing them.
func (d *Decoder) recentAgent(v []byte) (agentRef, bool) {
	for i := range d.recent {
		if d.recent[i].raw == string(v) {
			return d.recent[i].agentRef, true
		}
	}
	return agentRef{}, false
}

func (d *Decoder) remember(v []byte, a agentRef) {
	for i := range d.recent {
		if d.recent[i].raw == string(v) {
			return
		}
	}
	d.recent[d.recentNext] = recentAgent{string(v), a}
	d.recentNext = (d.recentNext + 1) % len(d.recent)
}

type recentAgent struct {
	raw string
	agentRef
}

// subDecoder reads a nested value (members, items).
type subDecoder struct {
	dec jsontext.Decoder
	buf bytes.Buffer
}

// entry is one distinct event value (byte sequence) the decoder has seen.
type entry struct {
	raw  []byte
	next *entry // the next entry with the same hash
	idx  int    // index in the last layout, -1 when not in it
	kind entryKind
	// indexed: in known; dead: added by a Decode that failed.
	indexed, dead bool
}

type entryKind uint8

const (
	entryEvent     entryKind = iota // produced as a new event
	entryDuplicate                  // same eventId as an earlier event, other bytes
	entryRejected
	entryDropped
)

// slabSize is the number of events or entries to allocate at once: a few
// for a short trace or a poll that brings a few, up to 128 for a long one.
func (d *Decoder) slabSize() int { return min(128, max(8, d.entries/4)) }

// NewDecoder returns a decoder that has seen nothing yet.
func NewDecoder() *Decoder {
	return &Decoder{
		seed:   maphash.MakeSeed(),
		known:  make(map[uint64]*entry),
		ids:    make(map[string]struct{}),
		intern: make(map[string]string),
	}
}

// SetRunID names the run being watched: an event whose runId is another
// run's is set aside (a Rejected) instead of being produced. An event
// without a runId is used. Call it before the first Decode.
func (d *Decoder) SetRunID(id string) { d.runID = id }

// KeepTop makes every Decode fill Poll.Top: a recorder gets the top-level
// members as received (the secrets redacted) from the pass that decodes the body, instead of
// reading the whole body a second time. Call it before the first Decode.
func (d *Decoder) KeepTop() { d.keepTop = true }

// keep stores a copy of v, redacted, in *dst when the decoder keeps the top-level
// members and the member's name, as received, is want.
func (d *Decoder) keep(dst *[]byte, name, want string, v jsontext.Value) {
	if d.keepTop && name == want {
		*dst, _ = d.secrets.RedactJSON(bytes.Clone(v))
	}
}

// SetSecrets gives the decoder the secrets (the API key) to redact from
// every event it produces, in whatever form the server echoed them. Call
// it before the first Decode.
func (d *Decoder) SetSecrets(s *text.Secrets) { d.secrets = s }

// DecodeTrace decodes one trace response body on its own.
func DecodeTrace(body []byte) (*Poll, error) { return NewDecoder().Decode(body) }

var decodeOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// Decode reads one trace response body. It returns a *DecodeError when the
// body cannot be used; a bad event only sets that event aside.
func (d *Decoder) Decode(body []byte) (*Poll, error) { return d.DecodeSame(body, 0) }

// DecodeKept is Decode for a body that nobody changes or reuses after the
// call (a saved trace read from a file for a replay): a first body's events
// then keep their bytes in body itself instead of in a copy of it.
func (d *Decoder) DecodeKept(body []byte) (*Poll, error) {
	d.kept = true
	defer func() { d.kept = false }()
	return d.DecodeSame(body, 0)
}

// DecodeSame is Decode told that the first same bytes of body are those of
// the body of the last Decode that succeeded (0: nothing is known). An
// event of that body that lies wholly within them, at the same place, is
// taken without comparing its bytes again: the caller compared them as it
// read the body (the poller does, while reading into the buffer it keeps).
// Any other event is compared or looked up as Decode does.
func (d *Decoder) DecodeSame(body []byte, same int) (*Poll, error) {
	d.first = d.entries == 0
	d.same = min(max(same, 0), len(body))
	p, layout, offs, err := d.decode(body)
	if err != nil {
		d.undo()
	} else {
		// Commit the new layout; the old one's storage is the next's.
		for _, e := range d.layout {
			e.idx = -1
		}
		for i, e := range layout {
			e.idx = i
		}
		clear(d.layout)
		d.spare, d.spareOff = d.layout[:0], d.layoutOff[:0]
		d.layout, d.layoutOff = layout, offs
	}
	clear(d.added)
	d.added, d.addedIDs, d.arena, d.cur = d.added[:0], d.addedIDs[:0], nil, nil
	if err != nil {
		return nil, err
	}
	return p, nil
}

// undo forgets what a failed Decode added.
func (d *Decoder) undo() {
	for _, e := range d.added {
		e.dead = true
		if !e.indexed {
			continue
		}
		h := maphash.Bytes(d.seed, e.raw)
		if d.known[h] == e {
			if e.next == nil {
				delete(d.known, h)
			} else {
				d.known[h] = e.next
			}
			continue
		}
		for pp := d.known[h]; pp != nil; pp = pp.next {
			if pp.next == e {
				pp.next = e.next
				break
			}
		}
	}
	d.unindexed = slices.DeleteFunc(d.unindexed, func(e *entry) bool { return e.dead })
	d.entries -= len(d.added)
	for _, id := range d.addedIDs {
		delete(d.ids, id)
	}
}

// index puts the entries not yet indexed into known.
func (d *Decoder) index() {
	if len(d.unindexed) == 0 {
		return
	}
	if len(d.known) == 0 && len(d.unindexed) > 64 {
		d.known = make(map[uint64]*entry, len(d.unindexed)+len(d.unindexed)/4)
	}
	for _, e := range d.unindexed {
		h := maphash.Bytes(d.seed, e.raw)
		e.next, e.indexed = d.known[h], true
		d.known[h] = e
	}
	clear(d.unindexed)
	d.unindexed = d.unindexed[:0]
}

func (d *Decoder) newEntry(raw []byte) *entry {
	if len(d.entrySlab) == 0 {
		d.entrySlab = make([]entry, d.slabSize())
	}
	e := &d.entrySlab[0]
	d.entrySlab = d.entrySlab[1:]
	e.raw, e.idx = raw, -1
	return e
}

func (d *Decoder) newEvent() *Event {
	if len(d.eventSlab) == 0 {
		d.eventSlab = make([]Event, d.slabSize())
	}
	e := &d.eventSlab[0]
	d.eventSlab = d.eventSlab[1:]
	return e
}

func (d *Decoder) decode(body []byte) (*Poll, []*entry, []int, error) {
	p := &Poll{dec: d}
	var layout []*entry
	var offs []int
	top := jsontext.NewDecoder(bytes.NewBuffer(body), decodeOpts...)
	tok, err := top.ReadToken()
	if err == io.EOF {
		return nil, nil, nil, &DecodeError{Offset: int64(len(body)), Msg: "the body is empty"}
	}
	if err != nil {
		return nil, nil, nil, syntaxErrAt(top, 0, "", err)
	}
	if tok.Kind() != '{' {
		return nil, nil, nil, &DecodeError{Offset: int64(skipSpace(body, 0)), Msg: fmt.Sprintf("the body is %s, not an object", kindName(tok.Kind()))}
	}
	var serverErr string
	sawEvents := false
	readMembers := func(dec *jsontext.Decoder, base int64) error {
		for dec.PeekKind() == '"' {
			name, err := dec.ReadToken()
			if err != nil {
				return syntaxErrAt(dec, base, "", err)
			}
			raw := name.String()
			field := fieldName(raw)
			switch field {
			case "events":
				if sawEvents {
					if err := dec.SkipValue(); err != nil {
						return syntaxErrAt(dec, base, field, err)
					}
					continue
				}
				sawEvents = true
				if k := dec.PeekKind(); k != '[' {
					if k == 0 {
						_, err := dec.ReadValue()
						return syntaxErrAt(dec, base, field, err)
					}
					return &DecodeError{Offset: int64(valueStart(body, int(base+dec.InputOffset()))), Field: field, Msg: fmt.Sprintf("events is %s, not an array", kindName(k))}
				}
				if base != 0 {
					// Only the first decoder reads straight from the body.
					return &DecodeError{Offset: base + dec.InputOffset(), Field: field, Msg: "events appears twice"}
				}
				l, o, end, err := d.decodeEvents(body, int(dec.InputOffset()), p)
				if err != nil {
					return err
				}
				layout, offs = l, o
				return errRestart{end}
			case "id":
				v, err := dec.ReadValue()
				if err != nil {
					return syntaxErrAt(dec, base, field, err)
				}
				d.keep(&p.Top.ID, raw, "id", v)
				if v.Kind() == '"' {
					p.RunID = d.str(v)
				}
			case "creditsUsed":
				v, err := dec.ReadValue()
				if err != nil {
					return syntaxErrAt(dec, base, field, err)
				}
				d.keep(&p.Top.CreditsUsed, raw, "creditsUsed", v)
				if f, ok := d.bounded(v, "creditsUsed", MaxCredits); ok {
					p.CreditsUsed, p.HasCredits = f, true
				}
				d.takeFlaws(p, "")
			case "activeBrowserSessions":
				v, err := dec.ReadValue()
				if err != nil {
					return syntaxErrAt(dec, base, field, err)
				}
				d.keep(&p.Top.LiveSessions, raw, "activeBrowserSessions", v)
				p.LiveSessions, p.HasLiveSessions = d.liveSessions(v)
				d.takeFlaws(p, "")
			case "error":
				v, err := dec.ReadValue()
				if err != nil {
					return syntaxErrAt(dec, base, field, err)
				}
				if v.Kind() == '"' {
					serverErr = d.str(v)
				}
			default:
				if d.keepTop && raw == "success" {
					v, err := dec.ReadValue()
					if err != nil {
						return syntaxErrAt(dec, base, field, err)
					}
					d.keep(&p.Top.Success, raw, "success", v)
					continue
				}
				if err := dec.SkipValue(); err != nil {
					return syntaxErrAt(dec, base, field, err)
				}
			}
		}
		tok, err := dec.ReadToken()
		if err != nil {
			return syntaxErrAt(dec, base, "", err)
		}
		if tok.Kind() != '}' {
			return &DecodeError{Offset: base + dec.InputOffset(), Msg: "unexpected " + kindName(tok.Kind())}
		}
		end := base + dec.InputOffset()
		if _, err := dec.ReadToken(); err != io.EOF {
			if err == nil {
				return &DecodeError{Offset: int64(skipSpace(body, int(end))), Msg: "unexpected data after the top-level object"}
			}
			return syntaxErrAt(dec, base, "", err)
		}
		return nil
	}

	err = readMembers(top, 0)
	var restart errRestart
	if errors.As(err, &restart) {
		// The events array was matched by hand; the members after it are
		// read by a second decoder over the rest of the body.
		const prefix = `{"":0`
		rest := append([]byte(prefix), body[restart.end:]...)
		dec := jsontext.NewDecoder(bytes.NewBuffer(rest), decodeOpts...)
		dec.ReadToken()
		dec.ReadToken()
		dec.ReadToken()
		err = readMembers(dec, int64(restart.end)-int64(len(prefix)))
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if !sawEvents {
		msg := "the response has no events array"
		if serverErr != "" {
			msg = "the server answered with an error instead of a trace"
		}
		return nil, nil, nil, &DecodeError{Offset: 0, Field: "events", Msg: msg, ServerError: serverErr}
	}
	return p, layout, offs, nil
}

// fieldName makes a member name from the body fit for an error message.
func fieldName(s string) string {
	s = text.Sanitize(s)
	if len(s) > 64 {
		s = strings.ToValidUTF8(s[:64], "") + "…"
	}
	return s
}

type errRestart struct{ end int }

func (errRestart) Error() string { return "restart" }

// decodeEvents walks the events array that starts at body[start:] (at or
// before its '['), compares each value with the event expected there from
// the last body, and decodes only values it has not seen. It returns the
// offset just past the array's ']', with the body's layout (the entry of
// each element, in order) for Decode to commit.
func (d *Decoder) decodeEvents(body []byte, start int, p *Poll) ([]*entry, []int, int, error) {
	o := skipSpace(body, start)
	if o < len(body) && body[o] == ':' {
		o = skipSpace(body, o+1)
	}
	if o >= len(body) || body[o] != '[' {
		return nil, nil, 0, &DecodeError{Offset: int64(o), Field: "events", Msg: "expected an array"}
	}
	o = skipSpace(body, o+1)
	old := d.layout
	if d.first && len(d.ids) == 0 {
		// Size for a first body (events average a few hundred bytes).
		d.ids = make(map[string]struct{}, len(body)/512)
		p.Events = make([]*Event, 0, len(body)/512)
	}
	oldOff := d.layoutOff
	next, offs := d.spare[:0], d.spareOff[:0]
	if cap(next) < len(old)+16 {
		next, offs = make([]*entry, 0, len(old)+len(old)/4+16), make([]int, 0, len(old)+len(old)/4+16)
	}
	k := 0 // index in old of the event expected next
	index := 0
	if o < len(body) && body[o] == ']' {
		o++
	} else {
		for {
			if o >= len(body) {
				return nil, nil, 0, &DecodeError{Offset: int64(o), Field: fmt.Sprintf("events[%d]", index), Msg: msgTruncated}
			}
			// In the part of the body the caller knows is the last body's
			// (d.same bytes), the events of the last body stand where they
			// stood, with the same separators: every one that, with the
			// separator after it, lies wholly within that part is taken
			// at once, without touching its bytes.
			if k < len(old) && o == oldOff[k] {
				if j := sort.SearchInts(oldOff, d.same+1) - 1; j > k {
					next = append(next, old[k:j]...)
					offs = append(offs, oldOff[k:j]...)
					index += j - k
					k, o = j, oldOff[j]
					continue
				}
			}
			var e *entry
			// The expected event's bytes, found in place, are that event:
			// a JSON object, array or string ends where its bytes end. (A
			// number does not: 1 is a prefix of 12.)
			at := o
			if k < len(old) && old[k].raw[0] != '-' && (old[k].raw[0] < '0' || old[k].raw[0] > '9') && bytes.HasPrefix(body[o:], old[k].raw) {
				e = old[k]
				o += len(e.raw)
				k++
			} else {
				var n int
				var err error
				if d.first {
					// Nothing to look up: decode the value straight from
					// the arena, which tells where it ends.
					e, n, err = d.addFirst(body, o, index, p)
				} else {
					// Measure the value, look it up by its bytes, and
					// decode it only when it is new. valueEnd only
					// matches brackets; decodeEvent validates what it
					// decodes, and a known value was validated when it
					// was first seen.
					var ok bool
					if n, ok = valueEnd(body[o:]); !ok {
						msg := msgTruncated
						if o+n < len(body) {
							msg = fmt.Sprintf("invalid character %q at the start of a value", body[o])
						}
						return nil, nil, 0, &DecodeError{Offset: int64(o + n), Field: fmt.Sprintf("events[%d]", index), Msg: msg}
					}
					if e = d.lookup(body[o : o+n]); e == nil {
						e, err = d.add(bytes.Clone(body[o:o+n]), index, p)
					} else if e.idx >= 0 {
						k = e.idx + 1
					}
				}
				if err != nil {
					off, msg := syntaxDetail(err)
					return nil, nil, 0, &DecodeError{Offset: int64(o) + off, Field: fmt.Sprintf("events[%d]", index), Msg: msg}
				}
				o += n
			}
			next = append(next, e)
			offs = append(offs, at)
			index++
			o = skipSpace(body, o)
			if o < len(body) && body[o] == ',' {
				o = skipSpace(body, o+1)
				continue
			}
			if o < len(body) && body[o] == ']' {
				o++
				break
			}
			if o >= len(body) {
				return nil, nil, 0, &DecodeError{Offset: int64(o), Field: "events", Msg: msgTruncated}
			}
			return nil, nil, 0, &DecodeError{Offset: int64(o), Field: "events", Msg: fmt.Sprintf("expected ',' or ']' after events[%d], found %q", index-1, body[o])}
		}
	}
	p.Total = index
	return next, offs, o, nil
}

// valueEnd returns the length of the JSON value at the start of b by matching
// brackets outside strings, without validating it. ok is false when b ends
// first or holds no value there; n is then where it went wrong.
func valueEnd(b []byte) (n int, ok bool) {
	if len(b) == 0 {
		return 0, false
	}
	switch b[0] {
	case '{', '[':
		depth := 0
		for i := 0; i < len(b); i++ {
			switch b[i] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			case '"':
				j, ok := stringEnd(b, i+1)
				if !ok {
					return len(b), false
				}
				i = j - 1
			}
		}
		return len(b), false
	case '"':
		return stringEnd(b, 1)
	}
	i := 0
	for i < len(b) && (b[i] >= 'a' && b[i] <= 'z' || b[i] >= 'A' && b[i] <= 'Z' || b[i] >= '0' && b[i] <= '9' || b[i] == '-' || b[i] == '+' || b[i] == '.') {
		i++
	}
	return i, i > 0
}

// stringEnd returns the index just past the closing quote of the string whose
// content starts at b[i].
func stringEnd(b []byte, i int) (int, bool) {
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b), false
		}
		j += i
		k := j
		for b[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			return j + 1, true
		}
		i = j + 1
	}
}

func (d *Decoder) lookup(raw []byte) *entry {
	d.index()
	for e := d.known[maphash.Bytes(d.seed, raw)]; e != nil; e = e.next {
		if bytes.Equal(e.raw, raw) {
			return e
		}
	}
	return nil
}

// addFirst decodes the value at body[o:] of a first body, straight from the
// arena (a copy of the body from the first event on), and records it. It
// returns the value's length. An error means the value is not JSON: the body
// cannot be used.
func (d *Decoder) addFirst(body []byte, o, index int, p *Poll) (*entry, int, error) {
	if d.arena == nil {
		d.arena, d.arenaBase = body[o:len(body):len(body)], o
		if !d.kept {
			d.arena = bytes.Clone(d.arena)
		}
	}
	rest := d.arena[o-d.arenaBase:]
	ev, reason, n, err := d.decodeEvent(rest)
	if err != nil {
		if n, ok := valueEnd(rest); ok && tooDeep(rest[:n]) {
			return d.record(rest[:n:n], d.deepEvent(rest[:n:n]), ReasonTooDeep, index, p), n, nil
		}
		return nil, n, err
	}
	raw := rest[:n:n]
	ev.Raw = raw
	ev, reason = d.redact(ev, reason)
	if reason != "" || ev.Type == TypeUsageRecorded {
		// A first body's values are not looked up, but a value set aside
		// or dropped is reported once: did the body have it already?
		if e := d.lookup(raw); e != nil {
			return e, n, nil
		}
	}
	return d.record(raw, ev, reason, index, p), n, nil
}

// add decodes raw, a value not known and the decoder's own copy, and records
// it. An error means the value is not JSON: the body cannot be used.
func (d *Decoder) add(raw []byte, index int, p *Poll) (*entry, error) {
	ev, reason, n, err := d.decodeEvent(raw)
	if err != nil && tooDeep(raw) {
		return d.record(raw, d.deepEvent(raw), ReasonTooDeep, index, p), nil
	}
	if err == nil && n != len(raw) {
		err = &jsontext.SyntacticError{ByteOffset: int64(n), Err: errors.New("unexpected data after a value")}
	}
	if err != nil {
		return nil, err
	}
	ev, reason = d.redact(ev, reason)
	return d.record(raw, ev, reason, index, p), nil
}

// redact returns ev decoded again from a copy of its bytes in which every
// string that holds the API key in any form (see text.Secrets.RedactJSON) is
// redacted, when there is one: everything that leaves the model, the
// event's Raw bytes (--output json, recordings, exports, copies) and the
// strings decoded from them, is then free of it. The entry keeps the bytes
// as they came, so the next poll's copy of the event is still recognised.
func (d *Decoder) redact(ev *Event, reason string) (*Event, string) {
	red, changed := d.secrets.RedactJSON(ev.Raw)
	if !changed {
		return ev, reason
	}
	ev2, reason2, _, err := d.decodeEvent(red)
	if err != nil {
		ev.Raw = red
		return ev, reason
	}
	return ev2, reason2
}

// record keeps a new value's entry and reports its event.
func (d *Decoder) record(raw []byte, ev *Event, reason string, index int, p *Poll) *entry {
	e := d.newEntry(raw)
	d.unindexed = append(d.unindexed, e)
	d.entries++
	d.added = append(d.added, e)
	_, dup := d.ids[ev.ID]
	switch {
	case reason != "":
		e.kind = entryRejected
		out := raw
		if ev.Raw != nil {
			out = ev.Raw // redacted (see redact)
		}
		p.Rejected = append(p.Rejected, Rejected{Index: index, EventID: ev.ID, Reason: reason, Raw: out})
	case ev.Type == TypeUsageRecorded:
		e.kind = entryDropped
		p.Dropped++
	case dup:
		e.kind = entryDuplicate
		p.Duplicates = append(p.Duplicates, ev)
	default:
		e.kind = entryEvent
		d.takeFlaws(p, ev.ID)
		d.ids[ev.ID] = struct{}{}
		d.addedIDs = append(d.addedIDs, ev.ID)
		p.Events = append(p.Events, ev)
		if ev.Type == TypeRunFinished {
			p.Finished = true
		}
	}
	return e
}

// fields collects an event's members in any order; the payload is built once
// the type is known.
type fields struct {
	hasID, hasAgentID, hasType, hasSeq bool

	reason, outcome, sessionID, phase, message, text string
	toolCallID, toolName                             string
	durationMs                                       int64
	hasDuration                                      bool
	err                                              *TraceError
	params, result                                   jsontext.Value
	artifact                                         *ArtifactRef
}

// decodeEvent decodes the event at the start of buf, whose bytes it keeps
// (they must not change afterwards), and returns its length n. A non-empty
// reason means the event is set aside (ev then carries what could be read,
// the eventId perhaps). An error means buf does not start with a JSON value:
// the whole value is read, bad events included, so that a body is either
// JSON or an error.
func (d *Decoder) decodeEvent(buf []byte) (ev *Event, reason string, n int, err error) {
	ev = d.newEvent()
	d.flaws = d.flaws[:0]
	d.cur = buf
	defer func() { d.cur = nil }()
	raw := buf
	dec := &d.dec
	d.buf = *bytes.NewBuffer(buf)
	dec.Reset(&d.buf, decodeOpts...)
	if buf[0] != '{' {
		v, err := dec.ReadValue()
		if err != nil {
			return nil, "", 0, err
		}
		ev.Raw = buf[:len(v):len(v)]
		return ev, "the event is " + kindName(v.Kind()) + ", not an object", int(dec.InputOffset()), nil
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, "", 0, err
	}
	var f fields
	bad := func(r string) {
		if reason == "" {
			reason = r
		}
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadValue()
		if err != nil {
			return nil, "", 0, err
		}
		name = trimValue(name)
		var key []byte
		if bytes.IndexByte(name, '\\') < 0 {
			key = name[1 : len(name)-1]
		} else {
			key, _ = jsontext.AppendUnquote(nil, name)
		}
		start := dec.InputOffset()
		if _, err := dec.ReadValue(); err != nil {
			return nil, "", 0, err
		}
		// Values are sliced from raw itself so that Parameters, Result and
		// Raw share one allocation.
		v := trimValue(raw[start:dec.InputOffset()])
		k := v.Kind()
		switch string(key) {
		case "schemaVersion":
			if x, ok := integer(v); ok {
				ev.SchemaVersion = int(x)
			}
		case "eventId":
			if k != '"' {
				bad("eventId is " + kindName(k) + ", not a string")
				continue
			}
			ev.ID, f.hasID = d.str(v), true
		case "runId":
			if k == '"' {
				ev.RunID = d.internStr(v)
			}
		case "occurredAt":
			if k == '"' {
				ev.OccurredAt = d.boundedTime(v, parseTime(d.unquote(v)))
			}
		case "producerSequence":
			x, ok := integer(v)
			switch {
			case ok:
				ev.ProducerSequence, f.hasSeq = x, true
			case k == '0':
				bad("producerSequence is not a whole number within ±2⁶³")
			default:
				bad("producerSequence is " + kindName(k) + ", not a number")
			}
		case "agent":
			if k != '{' {
				bad("agent is " + kindName(k) + ", not an object")
				continue
			}
			a, ok := d.recentAgent(v)
			if !ok {
				a, ok = d.agentRefs[string(v)]
			}
			if !ok {
				a.reason = d.agentRef(v, &a.ref)
				if len(d.agentRefs) < 1<<12 {
					if d.agentRefs == nil {
						d.agentRefs = make(map[string]agentRef)
					}
					d.agentRefs[string(v)] = a
				}
			}
			d.remember(v, a)
			if a.reason != "" {
				bad(a.reason)
				continue
			}
			ev.Agent, f.hasAgentID = a.ref, true
		case "type":
			if k != '"' {
				bad("type is " + kindName(k) + ", not a string")
				continue
			}
			ev.Type, f.hasType = EventType(d.enum(v, typeNames)), true
		case "reason":
			f.reason = d.strOf(v)
		case "outcome":
			f.outcome = d.enumOf(v, outcomeNames)
		case "error":
			f.err = d.traceError(v)
		case "durationMs":
			if x, ok := d.bounded(v, "durationMs", MaxDurationMs); ok {
				f.durationMs, f.hasDuration = int64(math.Round(x)), true
			}
		case "sessionId":
			f.sessionID = d.strOf(v)
		case "phase":
			f.phase = d.enumOf(v, phaseNames)
		case "message":
			f.message = d.strOf(v)
		case "text":
			f.text = d.strOf(v)
		case "toolCallId":
			f.toolCallID = d.strOf(v)
		case "toolName":
			f.toolName = d.internStrOf(v)
		case "parameters":
			f.params = v
		case "result":
			f.result = v
		case "artifact":
			if k == '{' {
				f.artifact = d.artifactRef(v)
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, "", 0, err
	}
	n = int(dec.InputOffset())
	ev.Raw = buf[:n:n]
	switch {
	case reason != "":
	case !f.hasID:
		reason = "missing eventId"
	case ev.ID == "":
		reason = "eventId is empty"
	case !f.hasAgentID:
		reason = "missing agent.id"
	case !f.hasType:
		reason = "missing type"
	case !f.hasSeq:
		reason = "missing producerSequence"
	case d.runID != "" && ev.RunID != "" && !strings.EqualFold(ev.RunID, d.runID):
		reason = foreignReason(ev.RunID, d.runID)
	default:
		ev.Payload = f.payload(ev.Type)
	}
	return ev, reason, n, nil
}

// syntaxDetail is where a syntax error from decodeEvent is, in its value,
// and what it says.
func syntaxDetail(err error) (int64, string) {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return se.ByteOffset, describeSyntax(err)
	}
	return 0, describeSyntax(err)
}

// The documented values of the open enums: a value among them is the
// constant itself, no map look-up, no copy.
var (
	typeNames = []string{
		string(TypeRunStarted), string(TypeRunCancelRequested), string(TypeRunFinished),
		string(TypeAgentStarted), string(TypeAgentFinished),
		string(TypeBrowserSessionStarted), string(TypeBrowserSessionFinished),
		string(TypeProgressReported), string(TypeReasoningSummary),
		string(TypeToolCallStarted), string(TypeToolCallFinished),
		string(TypeArtifactUpdated), string(TypeErrorOccurred), string(TypeUsageRecorded),
	}
	roleNames    = []string{string(RoleOrchestrator), string(RoleSubagent), string(RoleSystem)}
	outcomeNames = []string{string(OutcomeSucceeded), string(OutcomeFailed), string(OutcomeCancelled), string(OutcomeRefused), string(OutcomeCreditLimitReached)}
	phaseNames   = []string{string(PhasePlanning), string(PhaseWorking), string(PhaseFinalizing)}
	kindNames    = []string{string(KindJSON), string(KindMarkdown), string(KindHTML), string(KindScreenshot), string(KindText)}
	changeNames  = []string{string(ChangeInit), string(ChangePartial), string(ChangeAppend), string(ChangeModify), string(ChangeUpdate)}
	codeNames    = []string{string(CodeCancelled), string(CodeCreditLimitReached), string(CodeParentFinished), string(CodeRefused), string(CodeInternal)}
	sourceNames  = []string{string(SourceAgent), string(SourceTool), string(SourceBilling), string(SourceSystem)}
)

// enum is internStr for a value of an open enum.
func (d *Decoder) enum(v jsontext.Value, known []string) string {
	b := d.unquote(v)
	for _, k := range known {
		if string(b) == k {
			return k
		}
	}
	return d.internBytes(b)
}

func (d *Decoder) enumOf(v jsontext.Value, known []string) string {
	if v.Kind() != '"' {
		return ""
	}
	return d.enum(v, known)
}

func (f *fields) payload(t EventType) Payload {
	switch t {
	case TypeRunStarted:
		return RunStarted{}
	case TypeRunCancelRequested:
		return RunCancelRequested{Reason: f.reason}
	case TypeRunFinished:
		return RunFinished{Outcome: Outcome(f.outcome), Error: f.err}
	case TypeAgentStarted:
		return AgentStarted{}
	case TypeAgentFinished:
		return AgentFinished{Outcome: Outcome(f.outcome), DurationMs: f.durationMs, HasDuration: f.hasDuration, Error: f.err}
	case TypeBrowserSessionStarted:
		return BrowserSessionStarted{SessionID: f.sessionID}
	case TypeBrowserSessionFinished:
		return BrowserSessionFinished{SessionID: f.sessionID, DurationMs: f.durationMs, HasDuration: f.hasDuration}
	case TypeProgressReported:
		return ProgressReported{Phase: Phase(f.phase), Message: f.message}
	case TypeReasoningSummary:
		return ReasoningSummary{Text: f.text}
	case TypeToolCallStarted:
		return ToolCallStarted{ToolCallID: f.toolCallID, ToolName: f.toolName, Parameters: f.params}
	case TypeToolCallFinished:
		return ToolCallFinished{ToolCallID: f.toolCallID, ToolName: f.toolName, Result: f.result}
	case TypeArtifactUpdated:
		var a ArtifactRef
		if f.artifact != nil {
			a = *f.artifact
		}
		return ArtifactUpdated{Artifact: a}
	case TypeErrorOccurred:
		var e TraceError
		if f.err != nil {
			e = *f.err
		}
		return ErrorOccurred{Error: e}
	}
	return Unknown{}
}

// members calls fn for each member of the object v, with its value. v must be
// a valid object (it was read by ReadValue).
func (d *Decoder) members(v jsontext.Value, fn func(name string, v jsontext.Value)) {
	dec := d.sub(v)
	defer d.release()
	if _, err := dec.ReadToken(); err != nil {
		return
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return
		}
		key := name.String() // before the next read voids the token
		val, err := dec.ReadValue()
		if err != nil {
			return
		}
		fn(key, val)
	}
}

// sub hands out a decoder reading the nested value v; release gives it back.
func (d *Decoder) sub(v []byte) *jsontext.Decoder {
	if d.depth == len(d.subs) {
		d.subs = append(d.subs, new(subDecoder))
	}
	sd := d.subs[d.depth]
	d.depth++
	sd.buf = *bytes.NewBuffer(v)
	sd.dec.Reset(&sd.buf, decodeOpts...)
	return &sd.dec
}

func (d *Decoder) release() { d.depth-- }

func (d *Decoder) agentRef(v jsontext.Value, a *AgentRef) (reason string) {
	hasID := false
	d.members(v, func(name string, v jsontext.Value) {
		switch name {
		case "id":
			if v.Kind() != '"' {
				reason = "agent.id is " + kindName(v.Kind()) + ", not a string"
				return
			}
			a.ID, hasID = d.internStr(v), true
		case "role":
			a.Role = Role(d.enumOf(v, roleNames))
		case "name":
			a.Name = d.internStrOf(v)
		case "parentId":
			a.ParentID = d.internStrOf(v)
		}
	})
	if reason != "" {
		return reason
	}
	if !hasID {
		return "missing agent.id"
	}
	if a.ID == "" {
		return "agent.id is empty"
	}
	return ""
}

func (d *Decoder) traceError(v jsontext.Value) *TraceError {
	switch v.Kind() {
	case '{':
		e := &TraceError{}
		d.members(v, func(name string, v jsontext.Value) {
			switch name {
			case "code":
				e.Code = ErrorCode(d.enumOf(v, codeNames))
			case "source":
				e.Source = ErrorSource(d.enumOf(v, sourceNames))
			case "retryable":
				e.Retryable = v.Kind() == 't'
			case "message":
				e.Message = d.strOf(v)
			}
		})
		return e
	case '"':
		// Not the documented shape, but keep what it says.
		return &TraceError{Message: d.str(v)}
	}
	return nil
}

func (d *Decoder) artifactRef(v jsontext.Value) *ArtifactRef {
	a := &ArtifactRef{}
	d.members(v, func(name string, v jsontext.Value) {
		switch name {
		case "kind":
			a.Kind = ArtifactKind(d.enumOf(v, kindNames))
		case "artifactId":
			a.ArtifactID = d.internStrOf(v)
		case "path":
			a.Path = d.internStrOf(v)
		case "snapshotId":
			a.SnapshotID = d.strOf(v)
		case "change":
			a.Change = Change(d.enumOf(v, changeNames))
		case "changedFields":
			if v.Kind() == '[' {
				d.items(v, func(item jsontext.Value) {
					if item.Kind() == '"' {
						a.ChangedFields = append(a.ChangedFields, d.internStr(item))
					}
				})
			}
		case "itemCount":
			if x, ok := d.bounded(v, "artifact.itemCount", MaxCount); ok && x == math.Trunc(x) {
				a.ItemCount, a.HasItemCount = int(x), true
			}
		case "sourceToolCallId":
			a.SourceToolCallID = d.strOf(v)
		}
	})
	return a
}

func (d *Decoder) liveSessions(v jsontext.Value) ([]LiveSession, bool) {
	switch v.Kind() {
	case 'n':
		return nil, true
	case '[':
	default:
		return nil, false
	}
	out := []LiveSession{}
	d.items(v, func(item jsontext.Value) {
		if item.Kind() != '{' {
			return
		}
		var s LiveSession
		d.members(item, func(name string, v jsontext.Value) {
			switch name {
			case "id":
				s.ID = d.strOf(v)
			case "liveViewUrl":
				s.LiveViewURL = d.strOf(v)
			case "viewport":
				if v.Kind() == '{' {
					d.members(v, func(name string, v jsontext.Value) {
						switch name {
						case "width", "height":
							x, _ := d.bounded(v, "activeBrowserSessions.viewport."+name, MaxViewport)
							if name == "width" {
								s.ViewportWidth = int(x)
							} else {
								s.ViewportHeight = int(x)
							}
						}
					})
				}
			}
		})
		out = append(out, s)
	})
	return out, true
}

// items calls fn for each element of the array v.
func (d *Decoder) items(v jsontext.Value, fn func(v jsontext.Value)) {
	dec := d.sub(v)
	defer d.release()
	if _, err := dec.ReadToken(); err != nil {
		return
	}
	for dec.PeekKind() != ']' && dec.PeekKind() != 0 {
		item, err := dec.ReadValue()
		if err != nil {
			return
		}
		fn(item)
	}
}

// unquote returns the content of a JSON string value as bytes (unescaped).
// The result may alias v or d.scratch; it is valid until the next call.
func (d *Decoder) unquote(v jsontext.Value) []byte {
	if len(v) >= 2 && bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1]
	}
	// v was read by the decoder, so the only error left is invalid UTF-8,
	// which AppendUnquote has already replaced with U+FFFD.
	b, _ := jsontext.AppendUnquote(d.scratch[:0], v)
	d.scratch = b
	return b
}

// str returns the sanitised content of a JSON string value. A long one that
// is the bytes of the event being decoded as they are (no escapes, nothing
// to sanitise) shares them: they are kept for Raw anyway and never change.
// Short ones (ids) are copied into a slab, where the store finds them close
// together when it looks them up.
func (d *Decoder) str(v jsontext.Value) string {
	b := d.unquote(v)
	if len(b) == 0 {
		return ""
	}
	s := unsafe.String(unsafe.SliceData(b), len(b)) // valid while b is
	switch {
	case !text.IsSafe(s) || d.secrets.Holds(s):
		return d.secrets.Sanitize(s) // the key redacted (see redact)
	case len(b) <= 64:
		return d.short(b)
	case inside(b, d.cur):
		return s
	}
	return strings.Clone(s)
}

// short copies b into the string slab.
func (d *Decoder) short(b []byte) string {
	if len(d.strSlab)+len(b) > cap(d.strSlab) {
		d.strSlab = make([]byte, 0, min(8<<10, max(512, 16*d.entries)))
	}
	n := len(d.strSlab)
	d.strSlab = append(d.strSlab, b...)
	return unsafe.String(&d.strSlab[n], len(b))
}

// inside reports whether b lies within buf's memory.
func inside(b, buf []byte) bool {
	start := unsafe.SliceData(buf)
	if start == nil || len(b) == 0 {
		return false
	}
	p, base := uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(unsafe.Pointer(start))
	return p >= base && p+uintptr(len(b)) <= base+uintptr(len(buf))
}

// strOf is str for a value that should be a string: other kinds give "".
func (d *Decoder) strOf(v jsontext.Value) string {
	if v.Kind() != '"' {
		return ""
	}
	return d.str(v)
}

// internStr is str for values that repeat across events (ids of runs and
// agents, names, enums): each distinct value is stored once.
func (d *Decoder) internStr(v jsontext.Value) string { return d.internBytes(d.unquote(v)) }

func (d *Decoder) internBytes(b []byte) string {
	if s, ok := d.intern[string(b)]; ok {
		return s
	}
	s := text.SanitizeBytes(b)
	if len(d.intern) < 1<<16 {
		d.intern[string(b)] = s
	}
	return s
}

func (d *Decoder) internStrOf(v jsontext.Value) string {
	if v.Kind() != '"' {
		return ""
	}
	return d.internStr(v)
}

func trimValue(v []byte) jsontext.Value {
	// ReadValue's span starts after the name's ':' and may carry white
	// space on both sides; the value itself has none.
	i, j := 0, len(v)
	for i < j && (v[i] == ':' || isSpace(v[i])) {
		i++
	}
	for j > i && isSpace(v[j-1]) {
		j--
	}
	return jsontext.Value(v[i:j])
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

const msgTruncated = "the body ends too early (truncated?)"

// valueStart is the offset of the value of a member whose name ends at o.
func valueStart(b []byte, o int) int {
	o = skipSpace(b, o)
	if o < len(b) && b[o] == ':' {
		o = skipSpace(b, o+1)
	}
	return o
}

func skipSpace(b []byte, o int) int {
	for o < len(b) && isSpace(b[o]) {
		o++
	}
	return o
}

// integer reads a JSON number that is a whole number within int64.
func integer(v jsontext.Value) (int64, bool) {
	if v.Kind() != '0' {
		return 0, false
	}
	if x, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return x, true
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || f != math.Trunc(f) || f >= math.MaxInt64 || f < math.MinInt64 {
		return 0, false
	}
	return int64(f), true
}

func parseTime(b []byte) time.Time {
	if t, ok := parseUTC(b); ok {
		return t
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return time.Time{}
	}
	return t
}

// parseUTC parses the form the service writes, 2006-01-02T15:04:05Z with up
// to nine fractional digits, without time.Parse's generality.
func parseUTC(b []byte) (time.Time, bool) {
	if len(b) < 20 || b[len(b)-1] != 'Z' || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, false
	}
	num := func(b []byte) (int, bool) {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	year, ok1 := num(b[0:4])
	month, ok2 := num(b[5:7])
	day, ok3 := num(b[8:10])
	hour, ok4 := num(b[11:13])
	min, ok5 := num(b[14:16])
	sec, ok6 := num(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	switch frac := b[19 : len(b)-1]; {
	case len(frac) == 0:
	case frac[0] != '.' || len(frac) < 2 || len(frac) > 10:
		return time.Time{}, false
	default:
		n, ok := num(frac[1:])
		if !ok {
			return time.Time{}, false
		}
		for i := len(frac) - 1; i < 9; i++ {
			n *= 10
		}
		nsec = n
	}
	t := time.Date(year, time.Month(month), day, hour, min, sec, nsec, time.UTC)
	if t.Day() != day {
		return time.Time{}, false // 31 February and the like
	}
	return t, true
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '}', ']':
		return "'" + string(k) + "'"
	}
	return "nothing"
}

func describeSyntax(err error) string {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return msgTruncated
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && se.Err != nil {
		if errors.Is(se.Err, io.ErrUnexpectedEOF) {
			return msgTruncated
		}
		return text.Sanitize(se.Err.Error())
	}
	return text.Sanitize(err.Error())
}

func syntaxErrAt(dec *jsontext.Decoder, base int64, field string, err error) error {
	if de := (*DecodeError)(nil); errors.As(err, &de) {
		return err
	}
	off := dec.InputOffset()
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		off = se.ByteOffset
	}
	msg := describeSyntax(err)
	if off == 0 && base == 0 && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "not JSON: " + msg
	}
	if errors.Is(err, io.EOF) && off == 0 && base == 0 {
		msg = "the body is empty"
	}
	return &DecodeError{Offset: base + off, Field: field, Msg: msg}
}
