// Package hostile puts a fault-injecting front before the simulator: an
// HTTP server on loopback that passes every request to a sim.Server and
// then spoils its answer in one of a set of named ways (modes). Tests in
// poller, cli and e2e watch a run through it instead of writing a stub per
// test; the next class of bug found is one more mode here.
//
//	srv := sim.Start(...)
//	f := hostile.Start(t, srv, hostile.HugeCredits)
//	// point the client at f.URL; f.Set(...) switches modes mid-test
//
// Every mode is deterministic: an event a mode injects has the same bytes
// on every poll (the service returns the whole trace each time), so the
// only thing that varies is what the mode is about.
package hostile

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Mode names one way of spoiling answers.
type Mode string

// Answer is an answer the front is about to send.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
	Key    string // the API key the request carried (for modes that echo it)
}

// Fault is what a mode does to the answer to a trace request. n counts the
// trace requests since the mode was set (1 for the first). job is the job
// id of the request.
type Fault struct {
	Doc   string
	Trace func(n int, job string, a *Answer)
}

var faults = map[Mode]Fault{}

// register adds a mode; called from the files that define them.
func register(m Mode, f Fault) Mode {
	if _, dup := faults[m]; dup {
		panic("hostile: mode " + string(m) + " registered twice")
	}
	faults[m] = f
	return m
}

// Modes lists every mode's name, sorted.
func Modes() []Mode {
	out := make([]Mode, 0, len(faults))
	for m := range faults {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Doc says what a mode does.
func Doc(m Mode) string { return faults[m].Doc }

// Front is a running hostile front.
type Front struct {
	URL string

	next http.Handler
	mu   sync.Mutex
	mods []Mode
	n    int // trace requests since the modes were set
	hs   *httptest.Server
}

// Start starts a front before next (a *sim.Server, usually) with the
// given modes, closed when the test ends.
func Start(t testing.TB, next http.Handler, modes ...Mode) *Front {
	t.Helper()
	f := New(next, modes...)
	t.Cleanup(f.Close)
	return f
}

// New starts a front; Close stops it.
func New(next http.Handler, modes ...Mode) *Front {
	f := &Front{next: next}
	f.Set(modes...)
	f.hs = httptest.NewServer(f)
	f.URL = f.hs.URL
	return f
}

// Close stops the front.
func (f *Front) Close() { f.hs.Close() }

// Set replaces the modes (none: the front passes answers through) and
// restarts the count of trace requests.
func (f *Front) Set(modes ...Mode) {
	for _, m := range modes {
		if _, ok := faults[m]; !ok {
			panic(fmt.Sprintf("hostile: no mode %q (modes: %v)", m, Modes()))
		}
	}
	f.mu.Lock()
	f.mods, f.n = modes, 0
	f.mu.Unlock()
}

// TraceRequests is the number of trace requests since the modes were set.
func (f *Front) TraceRequests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// ServeHTTP answers r through the next handler and the modes.
func (f *Front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	job, isTrace := traceJob(r.URL.Path)
	if !isTrace {
		f.next.ServeHTTP(w, r)
		return
	}
	f.mu.Lock()
	f.n++
	n, mods := f.n, f.mods
	f.mu.Unlock()
	rec := httptest.NewRecorder()
	f.next.ServeHTTP(rec, r)
	a := &Answer{Status: rec.Code, Header: rec.Header().Clone(), Body: rec.Body.Bytes(),
		Key: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")}
	for _, m := range mods {
		faults[m].Trace(n, job, a)
	}
	a.Header.Del("Content-Length")
	for k, v := range a.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(a.Status)
	w.Write(a.Body)
}

// traceJob reads the job id of a /v2/agent/{id}/trace path.
func traceJob(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "/v2/agent/")
	if !ok {
		return "", false
	}
	job, ok := strings.CutSuffix(rest, "/trace")
	return job, ok && !strings.Contains(job, "/")
}

// trace is a trace body taken apart: its members in order, the events as
// generic values (numbers kept as written).
type trace struct {
	names  []string
	values map[string]jsontext.Value
	events []map[string]any
}

// parseTrace takes a sim trace body apart; ok is false for anything else
// (an error answer), which modes then leave alone.
func parseTrace(body []byte) (*trace, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, false
	}
	t := &trace{values: map[string]jsontext.Value{}}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, false
		}
		name := tok.String()
		v, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		t.names = append(t.names, name)
		t.values[name] = v.Clone()
	}
	raw, ok := t.values["events"]
	if !ok || json.Unmarshal(raw, &t.events, keepNumbers) != nil {
		return nil, false
	}
	return t, true
}

// keepNumbers decodes every number of a generic value as it is written (a
// jsontext.Value), not as a float64 that would round it.
var keepNumbers = json.WithUnmarshalers(json.UnmarshalFromFunc(func(dec *jsontext.Decoder, v *any) error {
	if dec.PeekKind() != '0' {
		return errors.ErrUnsupported
	}
	n, err := dec.ReadValue()
	if err != nil {
		return err
	}
	*v = n.Clone()
	return nil
}))

// marshal writes a generic value, members sorted by name.
func marshal(v any) []byte {
	b, _ := json.Marshal(v, json.Deterministic(true))
	return b
}

// bytes puts the body together again; the events array is written with
// extra raw events inserted at its start.
func (t *trace) bytes(extra ...[]byte) []byte { return t.build(extra, nil) }

// build puts the body together again with raw events before and after the
// trace's own.
func (t *trace) build(before, after [][]byte) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, name := range t.names {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:", name)
		if name != "events" {
			b.Write(t.values[name])
			continue
		}
		b.WriteByte('[')
		n := 0
		add := func(v []byte) {
			if n > 0 {
				b.WriteByte(',')
			}
			b.Write(v)
			n++
		}
		for _, e := range before {
			add(e)
		}
		for _, e := range t.events {
			add(marshal(e))
		}
		for _, e := range after {
			add(e)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes()
}

// rewrite applies fn to the answer's trace body, when it is one.
func rewrite(a *Answer, fn func(t *trace) []byte) {
	if a.Status != http.StatusOK {
		return
	}
	t, ok := parseTrace(a.Body)
	if !ok {
		return
	}
	a.Body = fn(t)
}

// eachEvent sets fields of the events that have them (or of the events of
// the given types when types is not empty).
func eachEvent(types []string, fn func(e map[string]any)) func(n int, job string, a *Answer) {
	return func(_ int, _ string, a *Answer) {
		rewrite(a, func(t *trace) []byte {
			for _, e := range t.events {
				if len(types) == 0 || contains(types, e["type"]) {
					fn(e)
				}
			}
			return t.bytes()
		})
	}
}

func contains(list []string, v any) bool {
	s, _ := v.(string)
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// injected is an event of its own that a mode adds: the envelope of the
// run's first event (its agent, its runId) with the given id, type and
// fields.
func injected(t *trace, id, typ string, seq int64, fields map[string]any) []byte {
	e := map[string]any{
		"schemaVersion":    1,
		"eventId":          id,
		"occurredAt":       "2026-03-14T09:26:53.500Z",
		"producerSequence": seq,
		"type":             typ,
	}
	if len(t.events) > 0 {
		e["runId"] = t.events[0]["runId"]
		e["agent"] = t.events[0]["agent"]
	}
	for k, v := range fields {
		e[k] = v
	}
	return marshal(e)
}
