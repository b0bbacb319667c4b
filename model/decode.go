package model

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/go-json-experiment/json/jsontext"
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
	Dropped  int        // usage.recorded events dropped, each counted once
	Total    int        // events in the body, known ones included
	Finished bool       // a run.finished is among Events
}

// Changed reports whether the poll brought anything a store would merge:
// events, set-aside events, or a new credits or live-session figure.
func (p *Poll) Changed() bool { return len(p.Events) > 0 || len(p.Rejected) > 0 }

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
	seed   maphash.Seed
	known  map[uint64][]*entry // hash of raw bytes → entries with that hash
	ids    map[string]*entry   // eventId → the entry emitted under it
	layout []*entry            // the last body's events, in its order
	intern map[string]string

	dec     jsontext.Decoder
	subs    []*jsontext.Decoder
	depth   int
	scratch []byte
	lastRun string
}

// entry is one distinct event value (byte sequence) the decoder has seen.
type entry struct {
	raw  []byte
	kind entryKind
	idx  int // index in the last layout, -1 when not in it
}

type entryKind uint8

const (
	entryEvent     entryKind = iota // produced as a new event
	entryDuplicate                  // same eventId as an earlier event, other bytes
	entryRejected
	entryDropped
)

// NewDecoder returns a decoder that has seen nothing yet.
func NewDecoder() *Decoder {
	return &Decoder{
		seed:   maphash.MakeSeed(),
		known:  make(map[uint64][]*entry),
		ids:    make(map[string]*entry),
		intern: make(map[string]string),
	}
}

// DecodeTrace decodes one trace response body on its own.
func DecodeTrace(body []byte) (*Poll, error) { return NewDecoder().Decode(body) }

var decodeOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// Decode reads one trace response body. It returns a *DecodeError when the
// body cannot be used; a bad event only sets that event aside.
func (d *Decoder) Decode(body []byte) (*Poll, error) {
	p := &Poll{}
	top := jsontext.NewDecoder(bytes.NewBuffer(body), decodeOpts...)
	tok, err := top.ReadToken()
	if err != nil {
		return nil, syntaxErr(body, top, "", err)
	}
	if tok.Kind() != '{' {
		return nil, &DecodeError{Offset: top.InputOffset() - 1, Msg: fmt.Sprintf("the body is %s, not an object", kindName(tok.Kind()))}
	}
	var serverErr string
	sawEvents := false
	readMembers := func(dec *jsontext.Decoder, base int64) error {
		for dec.PeekKind() == '"' {
			name, err := dec.ReadToken()
			if err != nil {
				return syntaxErr(body, dec, "", err)
			}
			field := name.String()
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
					return &DecodeError{Offset: base + dec.InputOffset(), Field: field, Msg: fmt.Sprintf("events is %s, not an array", kindName(k))}
				}
				if base != 0 {
					// Only the first decoder reads straight from the body.
					return &DecodeError{Offset: base + dec.InputOffset(), Field: field, Msg: "events appears twice"}
				}
				end, err := d.decodeEvents(body, int(dec.InputOffset()), p)
				if err != nil {
					return err
				}
				return errRestart{end}
			case "id":
				v, err := dec.ReadValue()
				if err != nil {
					return syntaxErrAt(dec, base, field, err)
				}
				if v.Kind() == '"' {
					p.RunID = d.str(v)
				}
			case "creditsUsed":
				v, err := dec.ReadValue()
				if err != nil {
					return syntaxErrAt(dec, base, field, err)
				}
				if f, ok := number(v); ok {
					p.CreditsUsed, p.HasCredits = f, true
				}
			case "activeBrowserSessions":
				v, err := dec.ReadValue()
				if err != nil {
					return syntaxErrAt(dec, base, field, err)
				}
				p.LiveSessions, p.HasLiveSessions = d.liveSessions(v)
			case "error":
				v, err := dec.ReadValue()
				if err != nil {
					return syntaxErrAt(dec, base, field, err)
				}
				if v.Kind() == '"' {
					serverErr = d.str(v)
				}
			default:
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
		if _, err := dec.ReadToken(); err != io.EOF {
			if err == nil {
				err = errors.New("unexpected data after the top-level object")
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
		return nil, err
	}
	if !sawEvents {
		e := &DecodeError{Offset: 0, Field: "events", Msg: "the response has no events array", ServerError: serverErr}
		return nil, e
	}
	if p.RunID != "" {
		d.lastRun = p.RunID
	}
	return p, nil
}

type errRestart struct{ end int }

func (errRestart) Error() string { return "restart" }

// decodeEvents walks the events array that starts at body[start:] (at or
// before its '['), compares each value with the event expected there from
// the last body, and decodes only values it has not seen. It returns the
// offset just past the array's ']'.
func (d *Decoder) decodeEvents(body []byte, start int, p *Poll) (int, error) {
	o := skipSpace(body, start)
	if o < len(body) && body[o] == ':' {
		o = skipSpace(body, o+1)
	}
	if o >= len(body) || body[o] != '[' {
		return 0, &DecodeError{Offset: int64(o), Field: "events", Msg: "expected an array"}
	}
	o = skipSpace(body, o+1)
	old := d.layout
	next := make([]*entry, 0, len(old)+16)
	k := 0 // index in old of the event expected next
	index := 0
	if o < len(body) && body[o] == ']' {
		o++
	} else {
		for {
			if o >= len(body) {
				return 0, &DecodeError{Offset: int64(o), Field: fmt.Sprintf("events[%d]", index), Msg: "the body ends inside the events array"}
			}
			var e *entry
			if k < len(old) && bytes.HasPrefix(body[o:], old[k].raw) {
				e = old[k]
				o += len(e.raw)
				k++
			} else {
				n, err := d.valueLen(body[o:])
				if err != nil {
					return 0, &DecodeError{Offset: int64(o) + n, Field: fmt.Sprintf("events[%d]", index), Msg: describeSyntax(err)}
				}
				raw := body[o : o+int(n)]
				e = d.lookup(raw)
				if e == nil {
					e = d.add(raw, index, p)
				} else if e.idx >= 0 {
					k = e.idx + 1
				}
				o += int(n)
			}
			next = append(next, e)
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
				return 0, &DecodeError{Offset: int64(o), Field: "events", Msg: "the body ends inside the events array"}
			}
			return 0, &DecodeError{Offset: int64(o), Field: "events", Msg: fmt.Sprintf("expected ',' or ']' after events[%d], found %q", index-1, body[o])}
		}
	}
	for _, e := range old {
		e.idx = -1
	}
	for i, e := range next {
		e.idx = i
	}
	d.layout = next
	p.Total = index
	return o, nil
}

// valueLen returns the length of the JSON value at the start of b.
func (d *Decoder) valueLen(b []byte) (int64, error) {
	d.dec.Reset(bytes.NewBuffer(b), decodeOpts...)
	if _, err := d.dec.ReadValue(); err != nil {
		var se *jsontext.SyntacticError
		if errors.As(err, &se) {
			return se.ByteOffset, err
		}
		return d.dec.InputOffset(), err
	}
	return d.dec.InputOffset(), nil
}

func (d *Decoder) lookup(raw []byte) *entry {
	for _, e := range d.known[maphash.Bytes(d.seed, raw)] {
		if bytes.Equal(e.raw, raw) {
			return e
		}
	}
	return nil
}

// add decodes a value never seen before and records it.
func (d *Decoder) add(body []byte, index int, p *Poll) *entry {
	raw := bytes.Clone(body)
	e := &entry{raw: raw, idx: -1}
	h := maphash.Bytes(d.seed, raw)
	d.known[h] = append(d.known[h], e)

	ev, reason := d.decodeEvent(raw)
	switch {
	case reason != "":
		e.kind = entryRejected
		id := ""
		if ev != nil {
			id = ev.ID
		}
		p.Rejected = append(p.Rejected, Rejected{Index: index, EventID: id, Reason: reason, Raw: raw})
	case ev.Type == TypeUsageRecorded:
		e.kind = entryDropped
		p.Dropped++
	case d.ids[ev.ID] != nil:
		e.kind = entryDuplicate
	default:
		e.kind = entryEvent
		d.ids[ev.ID] = e
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
	err                                              *TraceError
	params, result                                   jsontext.Value
	artifact                                         *ArtifactRef
}

// decodeEvent decodes one event object from raw, which it keeps (raw must
// not change afterwards). It returns a non-empty reason when the event must
// be set aside; ev may then still carry the eventId.
func (d *Decoder) decodeEvent(raw []byte) (ev *Event, reason string) {
	ev = &Event{Raw: raw}
	var f fields
	dec := &d.dec
	dec.Reset(bytes.NewBuffer(raw), decodeOpts...)
	tok, err := dec.ReadToken()
	if err != nil || tok.Kind() != '{' {
		return nil, "the event is not an object"
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadValue()
		if err != nil {
			return ev, "unreadable event: " + describeSyntax(err)
		}
		name = trimValue(name)
		var key []byte
		if bytes.IndexByte(name, '\\') < 0 {
			key = name[1 : len(name)-1]
		} else {
			key, _ = jsontext.AppendUnquote(nil, name)
		}
		start := dec.InputOffset()
		v, err := dec.ReadValue()
		if err != nil {
			return ev, "unreadable event: " + describeSyntax(err)
		}
		end := dec.InputOffset()
		// Values are sliced from raw itself so that Parameters, Result and
		// Raw share one allocation.
		v = trimValue(raw[start:end])
		k := v.Kind()
		switch string(key) {
		case "schemaVersion":
			if x, ok := integer(v); ok {
				ev.SchemaVersion = int(x)
			}
		case "eventId":
			if k != '"' {
				return ev, "eventId is " + kindName(k) + ", not a string"
			}
			ev.ID, f.hasID = d.str(v), true
		case "runId":
			if k == '"' {
				ev.RunID = d.internStr(v)
			}
		case "occurredAt":
			if k == '"' {
				ev.OccurredAt = parseTime(d.unquote(v))
			}
		case "producerSequence":
			x, ok := integer(v)
			if !ok {
				if k == '0' {
					return ev, "producerSequence is not a whole number"
				}
				return ev, "producerSequence is " + kindName(k) + ", not a number"
			}
			ev.ProducerSequence, f.hasSeq = x, true
		case "agent":
			if k != '{' {
				return ev, "agent is " + kindName(k) + ", not an object"
			}
			if r := d.agentRef(v, &ev.Agent); r != "" {
				return ev, r
			}
			f.hasAgentID = true
		case "type":
			if k != '"' {
				return ev, "type is " + kindName(k) + ", not a string"
			}
			ev.Type, f.hasType = EventType(d.internStr(v)), true
		case "reason":
			f.reason = d.strOf(v)
		case "outcome":
			f.outcome = d.internStrOf(v)
		case "error":
			f.err = d.traceError(v)
		case "durationMs":
			if x, ok := number(v); ok {
				f.durationMs = int64(math.Round(x))
			}
		case "sessionId":
			f.sessionID = d.strOf(v)
		case "phase":
			f.phase = d.internStrOf(v)
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
		return ev, "unreadable event: " + describeSyntax(err)
	}
	switch {
	case !f.hasID:
		return ev, "missing eventId"
	case ev.ID == "":
		return ev, "eventId is empty"
	case !f.hasAgentID:
		return ev, "missing agent.id"
	case !f.hasType:
		return ev, "missing type"
	case !f.hasSeq:
		return ev, "missing producerSequence"
	}
	ev.Payload = f.payload(ev.Type)
	return ev, ""
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
		return AgentFinished{Outcome: Outcome(f.outcome), DurationMs: f.durationMs, Error: f.err}
	case TypeBrowserSessionStarted:
		return BrowserSessionStarted{SessionID: f.sessionID}
	case TypeBrowserSessionFinished:
		return BrowserSessionFinished{SessionID: f.sessionID, DurationMs: f.durationMs}
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
	dec := d.sub()
	defer d.release()
	dec.Reset(bytes.NewBuffer(v), decodeOpts...)
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

// sub hands out a decoder for a nested value; release gives it back.
func (d *Decoder) sub() *jsontext.Decoder {
	if d.depth == len(d.subs) {
		d.subs = append(d.subs, new(jsontext.Decoder))
	}
	d.depth++
	return d.subs[d.depth-1]
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
			a.Role = Role(d.internStrOf(v))
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
				e.Code = ErrorCode(d.internStrOf(v))
			case "source":
				e.Source = ErrorSource(d.internStrOf(v))
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
			a.Kind = ArtifactKind(d.internStrOf(v))
		case "artifactId":
			a.ArtifactID = d.internStrOf(v)
		case "path":
			a.Path = d.internStrOf(v)
		case "snapshotId":
			a.SnapshotID = d.strOf(v)
		case "change":
			a.Change = Change(d.internStrOf(v))
		case "changedFields":
			if v.Kind() == '[' {
				d.items(v, func(item jsontext.Value) {
					if item.Kind() == '"' {
						a.ChangedFields = append(a.ChangedFields, d.internStr(item))
					}
				})
			}
		case "itemCount":
			if x, ok := integer(v); ok {
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
						x, _ := number(v)
						switch name {
						case "width":
							s.ViewportWidth = int(x)
						case "height":
							s.ViewportHeight = int(x)
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
	dec := d.sub()
	defer d.release()
	dec.Reset(bytes.NewBuffer(v), decodeOpts...)
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
	b, err := jsontext.AppendUnquote(d.scratch[:0], v)
	if err != nil {
		// Invalid UTF-8 is allowed in; keep what could be read.
		b = bytes.Trim(v, `"`)
	}
	d.scratch = b
	return b
}

// str returns the sanitised content of a JSON string value.
func (d *Decoder) str(v jsontext.Value) string { return sanitizeBytes(d.unquote(v)) }

// strOf is str for a value that should be a string: other kinds give "".
func (d *Decoder) strOf(v jsontext.Value) string {
	if v.Kind() != '"' {
		return ""
	}
	return d.str(v)
}

// internStr is str for values that repeat across events (ids of runs and
// agents, names, enums): each distinct value is stored once.
func (d *Decoder) internStr(v jsontext.Value) string {
	b := d.unquote(v)
	if s, ok := d.intern[string(b)]; ok {
		return s
	}
	s := sanitizeBytes(b)
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

func skipSpace(b []byte, o int) int {
	for o < len(b) && isSpace(b[o]) {
		o++
	}
	return o
}

// number reads a JSON number value.
func number(v jsontext.Value) (float64, bool) {
	if v.Kind() != '0' {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
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
	if err != nil || f != math.Trunc(f) || f > math.MaxInt64 || f < math.MinInt64 {
		return 0, false
	}
	return int64(f), true
}

func parseTime(b []byte) time.Time {
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return time.Time{}
	}
	return t
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
		return "the body ends too early (truncated?)"
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && se.Err != nil {
		if errors.Is(se.Err, io.ErrUnexpectedEOF) {
			return "the body ends too early (truncated?)"
		}
		return se.Err.Error()
	}
	return err.Error()
}

func syntaxErr(body []byte, dec *jsontext.Decoder, field string, err error) error {
	return syntaxErrAt(dec, 0, field, err)
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
