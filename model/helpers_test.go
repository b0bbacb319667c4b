package model

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Hand-written events for table tests.

const testRun = "8f1d2c3b-0000-4000-8000-000000000001"

var t0 = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

// at is t0 plus ms milliseconds, as the service writes it.
func at(ms int) string { return t0.Add(time.Duration(ms) * time.Millisecond).Format(time.RFC3339Nano) }

type ag struct{ id, role, name, parent string }

var (
	orch = ag{"agent-orch", "orchestrator", "Orchestrator", ""}
	sub1 = ag{"agent-sub1", "subagent", "Researcher", "agent-orch"}
	sub2 = ag{"agent-sub2", "subagent", "Writer", "agent-orch"}
	sub3 = ag{"agent-sub3", "subagent", "Deep", "agent-sub1"} // depth 2
)

func (a ag) obj() map[string]any {
	m := map[string]any{"id": a.id, "role": a.role, "name": a.name}
	if a.parent != "" {
		m["parentId"] = a.parent
	}
	return m
}

// E is one event as a JSON object (encoding/json writes its keys sorted).
type E map[string]any

// ev builds an event with the envelope filled in; kv adds or replaces
// fields (a nil value deletes the field).
func ev(id string, a ag, seq int64, ms int, typ string, kv ...any) E {
	e := E{
		"schemaVersion":    1,
		"eventId":          id,
		"runId":            testRun,
		"occurredAt":       at(ms),
		"producerSequence": seq,
		"agent":            a.obj(),
		"type":             typ,
	}
	return e.with(kv...)
}

func (e E) with(kv ...any) E {
	c := make(E, len(e)+len(kv)/2)
	for k, v := range e {
		c[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(c, kv[i].(string))
		} else {
			c[kv[i].(string)] = kv[i+1]
		}
	}
	return c
}

// rawJSON is a field value written as it is.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

func terr(code, source string, retryable bool, msg string) map[string]any {
	return map[string]any{"code": code, "source": source, "retryable": retryable, "message": msg}
}

// body is a trace response holding events (E values or raw JSON strings).
func body(events ...any) []byte { return bodyWith(map[string]any{"creditsUsed": 12}, events...) }

func bodyWith(extra map[string]any, events ...any) []byte {
	var b bytes.Buffer
	b.WriteString(`{"success":true,"id":"` + testRun + `"`)
	for k, v := range extra {
		fmt.Fprintf(&b, ",%q:%s", k, mustJSON(v))
	}
	b.WriteString(`,"events":[`)
	for i, e := range events {
		if i > 0 {
			b.WriteByte(',')
		}
		switch e := e.(type) {
		case string:
			b.WriteString(e)
		case []byte:
			b.Write(e)
		default:
			b.Write(mustJSON(e))
		}
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// ingest decodes and merges bodies into a new store, failing on errors.
func ingest(t testing.TB, bodies ...[]byte) *Store {
	t.Helper()
	s := NewStore()
	for _, b := range bodies {
		if _, err := s.Ingest(b); err != nil {
			t.Fatalf("Ingest: %v\nbody: %s", err, b)
		}
	}
	checkInvariants(t, s)
	return s
}

// ids is the eventIds of events.
func ids(es []*Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

// referenceTimeline is the timeline of a set of events computed from scratch,
// the slow obvious way: group by agent, order each group by
// (producerSequence, eventId), then repeatedly take, among the groups' next
// events, the one with the smallest (occurredAt, agent id, producerSequence,
// eventId); an unknown occurredAt is smaller than any.
func referenceTimeline(events []*Event) []string {
	groups := map[string][]*Event{}
	for _, e := range events {
		groups[e.Agent.ID] = append(groups[e.Agent.ID], e)
	}
	var heads [][]*Event
	for _, g := range groups {
		slices.SortFunc(g, func(a, b *Event) int {
			return cmp.Or(cmp.Compare(a.ProducerSequence, b.ProducerSequence), strings.Compare(a.ID, b.ID))
		})
		heads = append(heads, g)
	}
	less := func(a, b *Event) bool {
		az, bz := a.OccurredAt.IsZero(), b.OccurredAt.IsZero()
		switch {
		case az && !bz:
			return true
		case bz && !az:
			return false
		case !az:
			if c := a.OccurredAt.Compare(b.OccurredAt); c != 0 {
				return c < 0
			}
		}
		if a.Agent.ID != b.Agent.ID {
			return a.Agent.ID < b.Agent.ID
		}
		if a.ProducerSequence != b.ProducerSequence {
			return a.ProducerSequence < b.ProducerSequence
		}
		return a.ID < b.ID
	}
	var out []string
	for {
		best := -1
		for i, h := range heads {
			if len(h) > 0 && (best < 0 || less(h[0], heads[best][0])) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, heads[best][0].ID)
		heads[best] = heads[best][1:]
	}
}

// checkInvariants checks what must hold after every merge, whatever came in.
func checkInvariants(t testing.TB, s *Store) {
	t.Helper()
	tl := s.Timeline()
	if len(tl) != s.seen || s.Len() != len(tl) {
		t.Fatalf("timeline has %d events, store kept %d", len(tl), s.seen)
	}
	seen := map[string]bool{}
	for i, e := range tl {
		if seen[e.ID] {
			t.Fatalf("event %s twice in the timeline", e.ID)
		}
		seen[e.ID] = true
		if e.Pos() != i {
			t.Fatalf("event %s at %d says Pos %d", e.ID, i, e.Pos())
		}
		// (Only when the index is built: looking an event up builds it,
		// and the store would then take the other path.)
		if s.byID != nil && s.byID[e.ID] != e {
			t.Fatalf("Event(%s) is not the timeline's event", e.ID)
		}
	}
	// Each agent's events are in (producerSequence, eventId) order, in the
	// agent's list and in the timeline; they add up to the timeline.
	n := 0
	inTree := map[*Agent]int{}
	for _, a := range s.Agents() {
		inTree[a]++
	}
	if len(inTree) != len(s.agents) || len(s.Agents()) != len(s.agents) {
		t.Fatalf("Agents() lists %d agents (%d distinct), store has %d", len(s.Agents()), len(inTree), len(s.agents))
	}
	for _, a := range s.Agents() {
		n += len(a.Events)
		for i := 1; i < len(a.Events); i++ {
			p, e := a.Events[i-1], a.Events[i]
			if cmpAgentOrder(p, e) >= 0 {
				t.Fatalf("agent %s: %s (seq %d) before %s (seq %d)", a.ID, p.ID, p.ProducerSequence, e.ID, e.ProducerSequence)
			}
			if p.Pos() >= e.Pos() {
				t.Fatalf("agent %s: timeline breaks its order at %s (seq %d, pos %d) / %s (seq %d, pos %d)",
					a.ID, p.ID, p.ProducerSequence, p.Pos(), e.ID, e.ProducerSequence, e.Pos())
			}
		}
		if a.EventCount() != len(a.Events) {
			t.Fatal("EventCount")
		}
	}
	if n != len(tl) {
		t.Fatalf("agents hold %d events, timeline %d", n, len(tl))
	}
	if got, want := ids(tl), referenceTimeline(tl); !slices.Equal(got, want) {
		t.Fatalf("incremental timeline differs from a merge from scratch\n got %v\nwant %v", got, want)
	}
	if _, err := json.Marshal(s.Summary()); err != nil {
		t.Fatalf("Summary does not marshal: %v", err)
	}
}

// A generated trace: a realistic run with several agents (nested), every
// event kind, gaps in producerSequence, clocks that disagree across and
// within agents (when skew is set), and events after run.finished.

type genEvent struct {
	id    string
	agent int
	seq   int64
	at    time.Time
	gen   int // generation order
	raw   []byte
}

type genAgent struct {
	id, role, name, parent string
	depth                  int
	seq                    int64
	skew                   time.Duration
	started, finished      bool
	tool                   string // open tool call id
	toolName               string
	session                string
	ident                  []byte
}

type genOpts struct {
	events   int
	seed     uint64
	skew     bool // clocks disagree
	hostile  bool // unknown types and enum values, odd but valid fields
	maxAgent int
}

type trace struct {
	events []genEvent
	agents []*genAgent
}

var toolNames = []string{"mcp__tools__scrape", "mcp__tools__search", "mcp__tools__map", "mcp__tools__extract"}

// uuidish makes a deterministic UUID-shaped id.
func uuidish(r *rand.Rand) string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, r.Uint32()&0xfff, r.Uint64()&0xffffffffffff)
}

func genTrace(o genOpts) *trace {
	r := rand.New(rand.NewPCG(o.seed, 0x5eed))
	if o.maxAgent == 0 {
		o.maxAgent = 6
	}
	tr := &trace{}
	now := t0
	var w jsonWriter
	runID := uuidish(r)
	newAgent := func(role, name string, parent *genAgent) *genAgent {
		a := &genAgent{id: uuidish(r), role: role, name: name}
		if parent != nil {
			a.parent, a.depth = parent.id, parent.depth+1
		}
		if o.skew {
			a.skew = time.Duration(r.IntN(8000)-4000) * time.Millisecond
		}
		var b jsonWriter
		b.raw("{")
		b.key("id", true).str(a.id)
		b.key("role", false).str(a.role)
		b.key("name", false).str(a.name)
		if a.parent != "" {
			b.key("parentId", false).str(a.parent)
		}
		b.raw("}")
		a.ident = b.buf
		tr.agents = append(tr.agents, a)
		return a
	}
	emit := func(a *genAgent, typ string, fields func(w *jsonWriter)) {
		a.seq += 1 + int64(r.IntN(3)) // withheld usage.recorded events leave gaps
		t := now.Add(a.skew)
		if o.skew && r.IntN(20) == 0 {
			t = t.Add(-time.Duration(r.IntN(3000)) * time.Millisecond) // this agent's clock jumps back
		}
		id := uuidish(r)
		w.buf = w.buf[:0]
		w.raw("{")
		w.key("schemaVersion", true).raw("1")
		w.key("eventId", false).str(id)
		w.key("runId", false).str(runID)
		w.key("occurredAt", false).str(t.Format(time.RFC3339Nano))
		w.key("producerSequence", false).raw(strconv.FormatInt(a.seq, 10))
		w.key("agent", false).raw(string(a.ident))
		w.key("type", false).str(typ)
		if fields != nil {
			fields(&w)
		}
		w.raw("}")
		idx := slices.Index(tr.agents, a)
		tr.events = append(tr.events, genEvent{id: id, agent: idx, seq: a.seq, at: t, gen: len(tr.events), raw: bytes.Clone(w.buf)})
		now = now.Add(time.Duration(50+r.IntN(1500)) * time.Millisecond)
	}
	errObj := func(w *jsonWriter, code, source string, retryable bool, msg string) {
		w.raw("{")
		w.key("code", true).str(code)
		w.key("source", false).str(source)
		w.key("retryable", false).raw(strconv.FormatBool(retryable))
		w.key("message", false).str(msg)
		w.raw("}")
	}
	artifacts := 0
	finishAgent := func(a *genAgent, outcome string) {
		emit(a, "agent.finished", func(w *jsonWriter) {
			w.key("outcome", false).str(outcome)
			w.key("durationMs", false).raw(strconv.Itoa(1000 + r.IntN(90000)))
			w.key("error", false)
			if outcome == "succeeded" {
				w.raw("null")
			} else {
				errObj(w, "internal", "agent", false, "the agent gave up: "+outcome)
			}
		})
		a.finished = true
	}

	orch := newAgent("orchestrator", "Orchestrator", nil)
	emit(orch, "run.started", nil)
	emit(orch, "agent.started", nil)
	orch.started = true
	phases := []string{"planning", "working", "finalizing"}
	phase := 0
	emit(orch, "progress.reported", func(w *jsonWriter) {
		w.key("phase", false).str("planning")
		w.key("message", false).str("Reading the prompt and planning the work")
	})
	target := max(o.events-6, 8)
	for len(tr.events) < target {
		var live []*genAgent
		for _, a := range tr.agents {
			if a.started && !a.finished {
				live = append(live, a)
			}
		}
		a := live[r.IntN(len(live))]
		switch k := r.IntN(100); {
		case a.tool != "":
			id, name := a.tool, a.toolName
			a.tool = ""
			emit(a, "tool_call.finished", func(w *jsonWriter) {
				w.key("toolCallId", false).str(id)
				w.key("toolName", false).str(name)
				w.key("result", false)
				switch {
				case o.hostile && r.IntN(10) == 0:
					w.raw("null")
				case r.IntN(12) == 0:
					w.raw(`{"error":"upstream returned 503","isError":true}`)
				default:
					w.raw(`{"content":[{"type":"text","text":`)
					w.str(markdown(r))
					w.raw(`}]}`)
				}
			})
			if r.IntN(3) == 0 {
				artifacts++
				emit(a, "artifact.updated", func(w *jsonWriter) {
					w.key("artifact", false).raw("{")
					w.key("kind", true).str([]string{"json", "markdown", "text", "html", "screenshot"}[r.IntN(5)])
					w.key("artifactId", false).str([]string{"result", "notes", "sources"}[r.IntN(3)])
					if r.IntN(4) > 0 {
						w.key("path", false).str("/workspace/out/" + strconv.Itoa(r.IntN(4)) + ".md")
					}
					w.key("snapshotId", false).str(uuidish(r))
					w.key("change", false).str([]string{"init", "partial", "append", "modify", "update"}[r.IntN(5)])
					w.key("changedFields", false).raw(`["items","summary"]`)
					w.key("itemCount", false).raw(strconv.Itoa(r.IntN(50)))
					w.key("sourceToolCallId", false).str(id)
					w.raw("}")
				})
			}
			if r.IntN(10) == 0 {
				emit(a, "error.occurred", func(w *jsonWriter) {
					w.key("error", false)
					errObj(w, "internal", "tool", true, "the tool call failed; retrying")
				})
			}
		case k < 30:
			a.tool, a.toolName = uuidish(r), toolNames[r.IntN(len(toolNames))]
			id, name := a.tool, a.toolName
			emit(a, "tool_call.started", func(w *jsonWriter) {
				w.key("toolCallId", false).str(id)
				w.key("toolName", false).str(name)
				w.key("parameters", false)
				if o.hostile && r.IntN(10) == 0 {
					w.raw("null")
				} else {
					w.raw(`{"url":"https://example.com/catalog/page-` + strconv.Itoa(r.IntN(1000)) + `","formats":["markdown"],"onlyMainContent":true}`)
				}
			})
		case k < 50:
			emit(a, "reasoning.summary", func(w *jsonWriter) {
				w.key("text", false).str("I compared the listings on the first pages and the prices differ by region, so I will check the regional pages next before writing the table.")
			})
		case k < 58 && a == orch:
			if r.IntN(3) == 0 && phase < 2 {
				phase++
			}
			emit(a, "progress.reported", func(w *jsonWriter) {
				w.key("phase", false).str(phases[phase])
				w.key("message", false).str(fmt.Sprintf("Working on step %d of the plan", len(tr.events)))
			})
		case k < 66:
			if a.session == "" {
				a.session = "bs_" + uuidish(r)[:8]
				id := a.session
				emit(a, "browser.session.started", func(w *jsonWriter) { w.key("sessionId", false).str(id) })
			} else {
				id := a.session
				a.session = ""
				emit(a, "browser.session.finished", func(w *jsonWriter) {
					w.key("sessionId", false).str(id)
					w.key("durationMs", false).raw(strconv.Itoa(500 + r.IntN(20000)))
				})
			}
		case k < 72 && len(tr.agents) < o.maxAgent && a.depth < 3:
			c := newAgent("subagent", fmt.Sprintf("Researcher %d", len(tr.agents)), a)
			emit(c, "agent.started", nil)
			c.started = true
		case k < 76 && a != orch && a.session == "":
			outcome := "succeeded"
			if r.IntN(4) == 0 {
				outcome = "failed"
			}
			finishAgent(a, outcome)
		case k < 78:
			emit(a, "error.occurred", func(w *jsonWriter) {
				w.key("error", false)
				errObj(w, "refused", "system", false, "a page refused the request")
			})
		case o.hostile && k < 82:
			emit(a, "custom.thing", func(w *jsonWriter) { w.key("detail", false).raw(`{"x":[1,2,3]}`) })
		case o.hostile && k < 84:
			emit(a, "progress.reported", func(w *jsonWriter) {
				w.key("phase", false).str("reflecting")
				w.key("message", false).str("an unknown phase\u202e with \x1b[31mcolour\x1b[0m")
			})
		default:
			emit(a, "reasoning.summary", func(w *jsonWriter) {
				w.key("text", false).str("Next I will open the second result.")
			})
		}
	}
	// The end: subagents finish (or are left running: their calls end
	// unfinished), the orchestrator and the run finish, and a few events
	// land after run.finished.
	for _, a := range tr.agents[1:] {
		if !a.finished && r.IntN(3) > 0 {
			finishAgent(a, "succeeded")
		}
	}
	emit(orch, "progress.reported", func(w *jsonWriter) {
		w.key("phase", false).str("finalizing")
		w.key("message", false).str("Writing the result")
	})
	finishAgent(orch, "succeeded")
	emit(orch, "run.finished", func(w *jsonWriter) {
		w.key("outcome", false).str("succeeded")
		w.key("error", false).raw("null")
	})
	for _, a := range tr.agents[1:] {
		if a.tool != "" && r.IntN(2) == 0 {
			id, name := a.tool, a.toolName
			a.tool = ""
			emit(a, "tool_call.finished", func(w *jsonWriter) {
				w.key("toolCallId", false).str(id)
				w.key("toolName", false).str(name)
				w.key("result", false).raw(`{"content":[]}`)
			})
		}
	}
	return tr
}

// markdown is a tool result's text: a page turned into markdown.
func markdown(r *rand.Rand) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Catalogue page %d\n\n", r.IntN(1000))
	for i := range 2 + r.IntN(5) {
		fmt.Fprintf(&b, "- **Item %d**: [Espresso machine](https://example.com/p/%d) — €%d.%02d, in stock\n", i, r.IntN(100000), 100+r.IntN(900), r.IntN(100))
	}
	b.WriteString("\n| Region | Price |\n|---|---|\n| EU | €499 |\n| US | $529 |\n")
	return b.String()
}

// ordering of a body's events.
type ordering int

const (
	globalSeq ordering = iota // by producerSequence across agents, as the service does
	perAgent                  // grouped by agent, each by producerSequence
	shuffled
)

// render writes a trace response holding events in the given order.
func render(events []genEvent, order ordering, r *rand.Rand, credits int) []byte {
	evs := slices.Clone(events)
	switch order {
	case globalSeq:
		slices.SortStableFunc(evs, func(a, b genEvent) int { return cmp.Or(cmp.Compare(a.seq, b.seq), cmp.Compare(a.agent, b.agent)) })
	case perAgent:
		slices.SortStableFunc(evs, func(a, b genEvent) int { return cmp.Or(cmp.Compare(a.agent, b.agent), cmp.Compare(a.seq, b.seq)) })
	case shuffled:
		r.Shuffle(len(evs), func(i, j int) { evs[i], evs[j] = evs[j], evs[i] })
	}
	n := 64
	for _, e := range evs {
		n += len(e.raw) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"success":true,"id":"run","events":[`...)
	for i, e := range evs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e.raw...)
	}
	b = append(b, `],"creditsUsed":`...)
	b = strconv.AppendInt(b, int64(credits), 10)
	b = append(b, '}')
	return b
}

// jsonWriter writes JSON with fields in the order given.
type jsonWriter struct{ buf []byte }

func (w *jsonWriter) raw(s string) *jsonWriter { w.buf = append(w.buf, s...); return w }
func (w *jsonWriter) str(s string) *jsonWriter {
	w.buf, _ = jsontext.AppendQuote(w.buf, s)
	return w
}
func (w *jsonWriter) key(k string, first bool) *jsonWriter {
	if !first {
		w.buf = append(w.buf, ',')
	}
	w.str(k)
	w.buf = append(w.buf, ':')
	return w
}
