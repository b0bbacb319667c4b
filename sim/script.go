package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// A run is a script: events with offsets in simulated time. at is when the
// event occurred, vis is when the trace starts showing it (usually at; later
// for events that land late). The builder emits events per agent with a
// local cursor; sequence numbers are assigned per agent in time order
// afterwards, and the withheld usage.recorded events take numbers too, which
// leaves the gaps the real service shows.

type kind uint8

const (
	kRunStarted kind = iota
	kRunCancelRequested
	kRunFinished
	kAgentStarted
	kAgentFinished
	kBrowserStarted
	kBrowserFinished
	kProgress
	kReasoning
	kToolStarted
	kToolFinished
	kArtifact
	kError
	kUsage // internal, never served; carries credits
)

var kindNames = [...]string{
	kRunStarted:         "run.started",
	kRunCancelRequested: "run.cancel_requested",
	kRunFinished:        "run.finished",
	kAgentStarted:       "agent.started",
	kAgentFinished:      "agent.finished",
	kBrowserStarted:     "browser.session.started",
	kBrowserFinished:    "browser.session.finished",
	kProgress:           "progress.reported",
	kReasoning:          "reasoning.summary",
	kToolStarted:        "tool_call.started",
	kToolFinished:       "tool_call.finished",
	kArtifact:           "artifact.updated",
	kError:              "error.occurred",
	kUsage:              "usage.recorded",
}

func (k kind) String() string { return kindNames[k] }

const (
	roleOrchestrator = "orchestrator"
	roleSubagent     = "subagent"
)

type agent struct {
	id       string
	name     string
	role     string
	parent   int32 // -1 for the orchestrator
	depth    int
	ident    []byte // the rendered agent identity object
	viewport [2]int
	lastSeq  int64
}

type event struct {
	at, vis time.Duration
	seq     int64
	agent   int32
	kind    kind
	credits int32  // usage.recorded only
	ref     string // sessionId, toolCallId or snapshotId
	eid     uuid.UUID
	frag    []byte     // the type's fields, each preceded by a comma
	art     *artChange // artifact.updated until resolved
	b       []byte     // the rendered event
}

// artChange is an artifact.updated before its snapshot is resolved. update
// is called in time order over all changes of the run; it mutates the
// scenario's document state and returns the snapshot content (a thunk, so
// that big contents are made only when fetched) and the itemCount (< 0: the
// field is left out).
type artChange struct {
	kind, id, path, change string
	fields                 []string
	source                 string
	update                 func() (content func() string, items int)
}

type snapshot struct {
	kind     string
	artifact string
	content  func() string
}

type builder struct {
	rng    *rand.Rand
	runID  string
	agents []*agent
	evs    []event
	snaps  map[string]*snapshot

	base    time.Time // occurredAt of offset 0
	speed   float64
	fileURL string // where screenshot files are served: <URL>/files/<jobId>
	arena   []byte
	cmul    int // multiplier on usage credits
}

func newRNG(seed int64, idx int, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed)^0x6a09e667f3bcc909, uint64(idx)*0x9e3779b97f4a7c15+stream*0xbf58476d1ce4e5b9+1))
}

// Random streams of a job; separate so that, e.g., chaos leaves the research
// script untouched.
const (
	streamScript uint64 = iota
	streamChaos
	streamCancel
	streamFaults
	streamIDs
)

func newBuilder(rng *rand.Rand, runID string, base time.Time, speed float64, fileURL string) *builder {
	return &builder{rng: rng, runID: runID, snaps: map[string]*snapshot{}, base: base, speed: speed, fileURL: fileURL, cmul: 1}
}

func randUUID(r *rand.Rand) uuid.UUID {
	var u uuid.UUID
	a, c := r.Uint64(), r.Uint64()
	for i := range 8 {
		u[i] = byte(a >> (8 * i))
		u[8+i] = byte(c >> (8 * i))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}

// uuidV7 is u made a UUIDv7 of time t: its first 48 bits are t in Unix
// milliseconds, its version 7.
func uuidV7(u uuid.UUID, t time.Time) uuid.UUID {
	ms := uint64(t.UnixMilli())
	for i := range 6 {
		u[i] = byte(ms >> (8 * (5 - i)))
	}
	u[6] = u[6]&0x0f | 0x70
	return u
}

func (b *builder) uuid() string { return randUUID(b.rng).String() }

// appendUUID appends u in its canonical 36-character form.
func appendUUID(b []byte, u uuid.UUID) []byte {
	const hexd = "0123456789abcdef"
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexd[c>>4], hexd[c&0xf])
	}
	return b
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// toolCallID looks like the ids Anthropic models give tool calls.
func (b *builder) toolCallID() string {
	var buf [30]byte
	copy(buf[:], "toolu_01")
	for i := 8; i < len(buf); i++ {
		buf[i] = base62[b.rng.IntN(len(base62))]
	}
	return string(buf[:])
}

// between returns a random duration in [lo, hi].
func (b *builder) between(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(b.rng.Int64N(int64(hi-lo)+1))
}

func (b *builder) intn(lo, hi int) int { return lo + b.rng.IntN(hi-lo+1) }

func pick[T any](b *builder, xs []T) T { return xs[b.rng.IntN(len(xs))] }

// ms converts a simulated duration to wall-clock milliseconds at the run's
// speed: every time on the wire (occurredAt, durationMs) is wall-clock time.
func (b *builder) ms(d time.Duration) int64 {
	return int64(float64(d)/b.speed) / int64(time.Millisecond)
}

func (b *builder) newAgent(name, role string, parent int32) int32 {
	a := &agent{id: b.uuid(), name: name, role: role, parent: parent, viewport: [2]int{1280, 800}}
	if b.rng.IntN(3) == 0 {
		a.viewport = [2]int{1440, 900}
	}
	ident := obj{"id", a.id, "role", role, "name", name}
	if parent >= 0 {
		a.depth = b.agents[parent].depth + 1
		ident = append(ident, "parentId", b.agents[parent].id)
	}
	a.ident = jsonOf(ident)
	b.agents = append(b.agents, a)
	return int32(len(b.agents) - 1)
}

func (b *builder) add(a int32, at time.Duration, k kind, frag []byte) int {
	b.evs = append(b.evs, event{at: at, vis: at, agent: a, kind: k, frag: frag, eid: randUUID(b.rng)})
	return len(b.evs) - 1
}

func errObj(code, source string, retryable bool, msg string) obj {
	return obj{"code", code, "source", source, "retryable", retryable, "message", msg}
}

// actor emits the events of one agent with a local clock.
type actor struct {
	b       *builder
	a       int32
	t       time.Duration
	started time.Duration
	open    map[string]time.Duration // browser sessions: id → start
}

func (b *builder) actor(a int32, t time.Duration) *actor {
	return &actor{b: b, a: a, t: t, started: t, open: map[string]time.Duration{}}
}

func (x *actor) wait(d time.Duration) *actor { x.t += d; return x }

func (x *actor) waitUntil(t time.Duration) *actor {
	if t > x.t {
		x.t = t
	}
	return x
}

func (x *actor) emit(k kind, frag []byte) int {
	i := x.b.add(x.a, x.t, k, frag)
	x.t += x.b.between(3*time.Millisecond, 40*time.Millisecond)
	return i
}

func (x *actor) start() {
	x.started = x.t
	x.emit(kAgentStarted, nil)
}

func (x *actor) finish(outcome string, err obj) int {
	f := appendField(nil, "outcome", outcome)
	f = appendField(f, "durationMs", x.b.ms(x.t-x.started))
	var e any
	if err != nil {
		e = err
	}
	f = appendField(f, "error", e)
	return x.emit(kAgentFinished, f)
}

func (x *actor) usage(credits int) {
	i := x.b.add(x.a, x.t, kUsage, nil)
	x.b.evs[i].credits = int32(credits * x.b.cmul)
	x.t += time.Millisecond
}

func (x *actor) think(d time.Duration, credits int, text string) {
	x.t += d
	x.emit(kReasoning, appendField(nil, "text", text))
	x.usage(credits)
}

func (x *actor) progress(phase, msg string) {
	f := appendField(nil, "phase", phase)
	x.emit(kProgress, appendField(f, "message", msg))
}

func (x *actor) toolStart(name string, params any) string {
	id := x.b.toolCallID()
	f := appendField(nil, "toolCallId", id)
	f = appendField(f, "toolName", name)
	i := x.emit(kToolStarted, appendField(f, "parameters", params))
	x.b.evs[i].ref = id
	return id
}

func (x *actor) toolEnd(id, name string, result any) {
	f := appendField(nil, "toolCallId", id)
	f = appendField(f, "toolName", name)
	i := x.emit(kToolFinished, appendField(f, "result", result))
	x.b.evs[i].ref = id
}

// tool runs a whole tool call taking d and costing credits.
func (x *actor) tool(name string, params, result any, d time.Duration, credits int) string {
	id := x.toolStart(name, params)
	x.t += d
	x.toolEnd(id, name, result)
	if credits > 0 {
		x.usage(credits)
	}
	return id
}

func (x *actor) errorEv(code, source string, retryable bool, msg string) {
	x.emit(kError, appendField(nil, "error", errObj(code, source, retryable, msg)))
}

func (x *actor) sessionStart() string {
	id := x.b.uuid()
	i := x.emit(kBrowserStarted, appendField(nil, "sessionId", id))
	x.b.evs[i].ref = id
	x.open[id] = x.t
	return id
}

func (x *actor) sessionEnd(id string) {
	f := appendField(nil, "sessionId", id)
	f = appendField(f, "durationMs", x.b.ms(x.t-x.open[id]))
	i := x.emit(kBrowserFinished, f)
	x.b.evs[i].ref = id
	delete(x.open, id)
}

func (x *actor) artifact(c *artChange) {
	i := x.emit(kArtifact, nil)
	x.b.evs[i].art = c
	x.b.evs[i].ref = x.b.uuid()
}

// spawn starts a subagent: the parent's spawn tool call, then the child's
// agent.started. It returns the child's actor.
func (x *actor) spawn(name, task string) *actor {
	child := x.b.newAgent(name, roleSubagent, x.a)
	id := x.toolStart("spawn_subagent", obj{"name", name, "task", task})
	c := x.b.actor(child, x.t+x.b.between(80*time.Millisecond, 300*time.Millisecond))
	c.start()
	x.t += x.b.between(20*time.Millisecond, 60*time.Millisecond)
	x.toolEnd(id, "spawn_subagent", obj{"agentId", x.b.agents[child].id, "name", name, "status", "running"})
	x.usage(1)
	return c
}

// assignSeq gives every event without a sequence number the next numbers of
// its agent, in time order.
func (b *builder) assignSeq() {
	per := make([][]int, len(b.agents))
	for i := range b.evs {
		if b.evs[i].seq == 0 {
			a := b.evs[i].agent
			per[a] = append(per[a], i)
		}
	}
	for a, idx := range per {
		slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(b.evs[i].at, b.evs[j].at) })
		ag := b.agents[a]
		for _, i := range idx {
			ag.lastSeq++
			b.evs[i].seq = ag.lastSeq
		}
	}
}

// resolveArtifacts runs the artifact updates in time order, registers their
// snapshots and renders their fields.
func (b *builder) resolveArtifacts() {
	var idx []int
	for i := range b.evs {
		if b.evs[i].art != nil && b.evs[i].frag == nil {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(b.evs[i].at, b.evs[j].at) })
	for _, i := range idx {
		e := &b.evs[i]
		c := e.art
		content, items := c.update()
		b.snaps[e.ref] = &snapshot{kind: c.kind, artifact: c.id, content: content}
		a := obj{"kind", c.kind, "artifactId", c.id}
		if c.path != "" {
			a = append(a, "path", c.path)
		}
		a = append(a, "snapshotId", e.ref, "change", c.change)
		if len(c.fields) > 0 {
			a = append(a, "changedFields", c.fields)
		}
		if items >= 0 {
			a = append(a, "itemCount", items)
		}
		if c.source != "" {
			a = append(a, "sourceToolCallId", c.source)
		}
		e.frag = appendField(nil, "artifact", a)
		e.art = nil
	}
}

const arenaChunk = 1 << 20

// render writes the wire bytes of every event not rendered yet. Bytes live
// in large shared chunks, so that a trace of 100 000 events is not 100 000
// allocations.
func (b *builder) render() {
	for i := range b.evs {
		e := &b.evs[i]
		if e.b != nil || e.kind == kUsage {
			continue
		}
		ag := b.agents[e.agent]
		need := 200 + len(b.runID) + len(ag.ident) + len(e.frag)
		if cap(b.arena)-len(b.arena) < need {
			b.arena = make([]byte, 0, max(arenaChunk, need))
		}
		start := len(b.arena)
		buf := b.arena
		buf = append(buf, `{"schemaVersion":1,"eventId":"`...)
		buf = appendUUID(buf, e.eid)
		buf = append(buf, `","runId":"`...)
		buf = append(buf, b.runID...)
		buf = append(buf, `","occurredAt":"`...)
		t := b.base.Add(time.Duration(float64(e.at) / b.speed))
		buf = t.UTC().AppendFormat(buf, "2006-01-02T15:04:05.000Z")
		buf = append(buf, `","producerSequence":`...)
		buf = strconv.AppendInt(buf, e.seq, 10)
		buf = append(buf, `,"agent":`...)
		buf = append(buf, ag.ident...)
		buf = append(buf, `,"type":"`...)
		buf = append(buf, kindNames[e.kind]...)
		buf = append(buf, '"')
		buf = append(buf, e.frag...)
		buf = append(buf, '}')
		b.arena = buf
		e.b = buf[start:len(buf):len(buf)]
		e.frag = nil
	}
}

// finish assigns sequence numbers, resolves artifacts and renders.
func (b *builder) finalize() {
	b.assignSeq()
	b.resolveArtifacts()
	b.render()
}

// view is an immutable picture of a run's events, shared by all requests
// until a cancel replaces it.
type view struct {
	events   []event
	order    []int32 // served events, by producerSequence (stable by time)
	usage    []int32
	browser  []int32
	snaps    map[string]int32 // snapshotId → event
	finished int32            // run.finished, -1 when the script has none
	last     time.Duration    // vis of the last event
}

func (b *builder) view() *view {
	evs := b.evs[:len(b.evs):len(b.evs)]
	v := &view{events: evs, finished: -1, snaps: map[string]int32{}}
	for i := range evs {
		e := &evs[i]
		v.last = max(v.last, e.vis)
		switch e.kind {
		case kUsage:
			v.usage = append(v.usage, int32(i))
			continue
		case kBrowserStarted, kBrowserFinished:
			v.browser = append(v.browser, int32(i))
		case kArtifact:
			v.snaps[e.ref] = int32(i)
		case kRunFinished:
			v.finished = int32(i)
		}
		v.order = append(v.order, int32(i))
	}
	slices.SortStableFunc(v.order, func(i, j int32) int {
		a, c := &evs[i], &evs[j]
		if a.seq != c.seq {
			return cmp.Compare(a.seq, c.seq)
		}
		return cmp.Compare(a.at, c.at)
	})
	return v
}
