package attention

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// Kind is what an item is about.
type Kind string

const (
	KindStall         Kind = "stall"
	KindSlowTool      Kind = "slow-tool"
	KindLoop          Kind = "loop"
	KindFailingStreak Kind = "failing-streak"
	KindBudget        Kind = "budget"
)

// Defaults and thresholds (see the package doc).
const (
	DefaultStall      = 60 * time.Second
	DefaultMaxCredits = 2500 // the service's default maxCredits

	stallMedianFactor = 5
	stallMinGaps      = 3
	slowFactor        = 3
	slowFloor         = 30 * time.Second
	slowAlone         = 120 * time.Second
	loopMin           = 3
	loopWindow        = 6
	lateSlack         = time.Second // an event this much older than the clock makes a start again
	streakMin         = 3
	budgetShare       = 0.8
	budgetWarmup      = 30 * time.Second
	typicalRun        = 5 * time.Minute
	burnWindow        = time.Minute
)

// Item is one thing that needs a look. Times are on the trace's clock.
type Item struct {
	Kind        Kind
	AgentID     string   // "" for the run as a whole
	ToolCallIDs []string // the calls concerned, in start order
	Message     string   // made of sanitised strings
	FirstAt     time.Time
	LastAt      time.Time
	Count       int // loop and failing-streak: the calls; 1 otherwise
	Cleared     bool
	// Reached: a budget item of a run that ended at its cap. What it
	// warned of happened: it is neither open nor cleared.
	Reached bool

	key   string
	since time.Time // stall: the last activity; slow-tool: the start
	tool  string
}

// State is the item's state in a word: "open", "cleared" or, for a budget
// the run reached, "reached".
func (it *Item) State() string {
	switch {
	case it.Reached:
		return "reached"
	case it.Cleared:
		return "cleared"
	}
	return "open"
}

// Change is an item raised, cleared or reached by an Update or a Tick.
// Message is the item's message at that moment.
type Change struct {
	Item    *Item
	Cleared bool
	Message string
}

// Options tune the detectors.
type Options struct {
	// Stall is the quiet time after which an agent (or the run) is
	// stalled; 0 means DefaultStall.
	Stall time.Duration
	// MaxCredits is the run's cap: maxCredits when firewatch started the
	// run, else --max-credits. 0 means DefaultMaxCredits, assumed.
	MaxCredits float64
	// MaxCreditsAssumed says the cap was not told but taken as the
	// service's default (set when MaxCredits is 0).
	MaxCreditsAssumed bool
	// Scale divides every fixed time of the detectors (Stall included):
	// the demo's simulator at --speed N runs the trace's clock N times
	// faster. 0 or 1: real time.
	Scale float64
}

// d is a fixed time of the detectors, scaled.
func (o Options) d(x time.Duration) time.Duration {
	if o.Scale > 1 {
		return time.Duration(float64(x) / o.Scale)
	}
	return x
}

func (o Options) withDefaults() Options {
	if o.Stall <= 0 {
		o.Stall = DefaultStall
	}
	o.Stall = o.d(o.Stall)
	if o.MaxCredits <= 0 {
		o.MaxCredits, o.MaxCreditsAssumed = DefaultMaxCredits, true
	}
	return o
}

// Tracker follows one store. Not safe for concurrent use: call it from the
// goroutine that merges.
type Tracker struct {
	o Options
	s *model.Store
	st

	// est caches Estimate by agent id for EstimateOf, valid while estKey
	// matches (the events and the figure have not changed). Readers fill
	// it: several screens reading one shared store at once (a follower's
	// read lock) do so under estMu.
	estMu  sync.Mutex
	est    map[string]float64
	estKey estimateKey
}

// st is everything derived from the store's timeline; a late event (one
// that lands before events already seen) makes it start again.
type st struct {
	done     int       // timeline events processed
	seqDone  int       // the events with a lower model.Event.Seq are processed
	clock    time.Time // the trace's clock: newest occurredAt processed
	start    time.Time // the run's first event
	localAt  time.Time // local time the newest event arrived
	runOver  bool
	agents   map[string]*agentState
	agentSeq []*agentState
	calls    map[callKey]*call // running
	running  []*call
	durs     map[string]*median // finished durations by tool name
	loops    map[string]*loopState
	streaks  map[callKey]*streakState // by agent and tool name (in id)
	items    []*Item
	open     []*Item
	byKey    map[string]*Item // open items
	changes  []Change
}

type agentState struct {
	id      string
	skey    string // its stall item's key
	idx     int
	lastOwn time.Time
	lastAct time.Time // own or a subagent's
	gaps    median    // between its own events
	over    bool
	recent  []string // the loop keys of its latest calls
	calls   int      // tool calls running
}

// callKey names a call (an agent's toolCallId) or, for a failing streak,
// an agent's tool: a map key made of the event's own strings, where a
// joined string cost an allocation at every call.
type callKey struct{ agent, id string }

type call struct {
	key             callKey
	id, name, agent string
	skey            string // its slow-tool item's key, made when first judged (slowKey)
	loopKey         string // agent, tool and a digest of the canonical parameters
	start, end      time.Time
	ended           bool
}

type loopState struct {
	ids    []string
	total  time.Duration
	open   []*call // not finished yet (a slice: mostly empty, and one a call)
	raised bool    // an item was raised for it: only then can one be open
}

type streakState struct {
	ids    []string
	raised bool // as in loopState
}

// New returns a tracker of s.
func New(s *model.Store, o Options) *Tracker {
	t := &Tracker{o: o.withDefaults(), s: s}
	t.reset()
	return t
}

func (t *Tracker) reset() {
	t.st = st{
		agents:  make(map[string]*agentState),
		calls:   make(map[callKey]*call),
		durs:    make(map[string]*median),
		loops:   make(map[string]*loopState),
		streaks: make(map[callKey]*streakState),
		byKey:   make(map[string]*Item),
	}
}

// Options are the options in use (defaults filled in).
func (t *Tracker) Options() Options { return t.o }

// Update takes in what the merge d of the tracker's store changed; now is
// the local time (it starts the quiet clock when events came). It returns
// the items raised and cleared, in order.
func (t *Tracker) Update(d model.Delta, now time.Time) []Change {
	t.changes = t.changes[:0]
	tl := t.s.Timeline()
	if d.From < t.done && t.late(d) {
		// Events landed well before those already seen: start again. Items
		// that are still the same keep their identity for the printers.
		old := t.st
		t.reset()
		t.process(tl, 0)
		t.changes = t.changes[:0]
		t.diff(old)
	} else if len(tl) > t.done {
		// New events at the end, or among the newest (the same time as
		// events already seen, or a moment before): taken in as they come.
		t.process(tl, min(d.From, t.done))
	}
	if len(d.Events) > 0 {
		t.localAt = now
	}
	t.budget()
	return slices.Clone(t.changes)
}

// Tick moves the trace's clock on by the local time since the newest event
// arrived, while the run is quiet, and returns the items that raises.
func (t *Tracker) Tick(now time.Time) []Change {
	t.changes = t.changes[:0]
	if t.runOver || t.clock.IsZero() || t.localAt.IsZero() || !now.After(t.localAt) {
		return nil
	}
	at := t.clock.Add(now.Sub(t.localAt))
	t.quiet(at)
	t.slow(at)
	return slices.Clone(t.changes)
}

// late reports whether the merge d brought an event more than lateSlack
// older than the trace's clock.
func (t *Tracker) late(d model.Delta) bool {
	limit := t.clock.Add(-t.o.d(lateSlack))
	for _, e := range d.Events {
		if !e.OccurredAt.IsZero() && e.OccurredAt.Before(limit) {
			return true
		}
	}
	return false
}

// process runs the detectors over the events of the timeline from index
// from on that it has not seen yet.
func (t *Tracker) process(tl []*model.Event, from int) {
	for _, e := range tl[from:] {
		if e.Seq() < t.seqDone {
			continue
		}
		at := e.OccurredAt
		if at.IsZero() || at.Before(t.clock) {
			at = t.clock
		}
		moved := at.After(t.clock) && !t.clock.IsZero()
		if moved {
			t.quiet(at)
			t.clearQuiet(at)
			t.slow(at)
		}
		if at.After(t.clock) {
			t.clock = at
		}
		t.apply(e, at)
		if moved {
			// After the event: its own agent (and those above it) moved.
			t.stalls(at)
		}
	}
	t.done, t.seqDone = len(tl), len(tl)
}

func (t *Tracker) agent(id string) *agentState {
	a := t.agents[id]
	if a == nil {
		a = &agentState{id: id, idx: len(t.agentSeq), skey: stallKey(id)}
		t.agents[id] = a
		t.agentSeq = append(t.agentSeq, a)
	}
	return a
}

// apply takes one event in.
func (t *Tracker) apply(e *model.Event, at time.Time) {
	if t.start.IsZero() {
		t.start = at
	}
	a := t.agent(e.Agent.ID)
	if !a.lastOwn.IsZero() {
		gap := at.Sub(a.lastOwn)
		a.gaps.Add(gap)
	}
	a.lastOwn = at
	// Activity moves the agent and every agent above it.
	seen := 0
	for id := e.Agent.ID; id != "" && seen < 64; seen++ {
		x := t.agent(id)
		if at.After(x.lastAct) {
			x.lastAct = at
		}
		if it := t.byKey[x.skey]; it != nil {
			it.Message = "no event for " + text.Elapsed(at.Sub(it.since))
			t.clear(it, at)
		}
		id = ""
		if m := t.s.Agent(x.id); m != nil && m.Parent != nil {
			id = m.Parent.ID
		}
	}
	switch p := e.Payload.(type) {
	case model.ToolCallStarted:
		t.callStarted(a, p, at)
	case model.ToolCallFinished:
		t.callFinished(a, p, at)
	case model.AgentFinished:
		t.agentOver(a, at)
	case model.RunFinished:
		t.runOver = true
		for _, x := range t.agentSeq {
			t.agentOver(x, at)
		}
		// The budget is settled after the merge, with the run's final
		// credits (settleBudget).
		for _, it := range slices.Clone(t.open) {
			if it.Kind != KindBudget {
				t.clear(it, at)
			}
		}
	}
}

func (t *Tracker) agentOver(a *agentState, at time.Time) {
	if a.over {
		return
	}
	a.over = true
	for _, c := range slices.Clone(t.running) {
		if c.agent == a.id {
			c.end, c.ended = at, true
			t.dropRunning(c)
		}
	}
	for _, it := range slices.Clone(t.open) {
		if it.AgentID == a.id && it.Kind != KindBudget {
			t.clear(it, at)
		}
	}
}

func (t *Tracker) dropRunning(c *call) {
	delete(t.calls, c.key)
	if a := t.agents[c.agent]; a != nil && a.calls > 0 {
		a.calls--
	}
	if i := slices.Index(t.running, c); i >= 0 {
		t.running = slices.Delete(t.running, i, i+1)
	}
	if c.skey != "" { // judged slow or not while it ran
		if it := t.byKey[c.skey]; it != nil {
			t.clear(it, c.end)
		}
	}
	if l := t.loops[c.loopKey]; l != nil {
		if i := slices.Index(l.open, c); i >= 0 {
			l.open = slices.Delete(l.open, i, i+1)
			l.total += c.end.Sub(c.start)
		}
	}
}

func (t *Tracker) callStarted(a *agentState, p model.ToolCallStarted, at time.Time) {
	key := callKey{a.id, p.ToolCallID}
	if t.calls[key] != nil {
		return // a second start under one id: the first one counts
	}
	c := &call{key: key, id: p.ToolCallID, name: p.ToolName, agent: a.id, start: at}
	c.loopKey = a.id + "\x00" + p.ToolName + "\x00" + paramsDigest(p.Parameters)
	t.calls[key] = c
	t.running = append(t.running, c)
	a.calls++

	// loop: the same call 3 times among the agent's last loopWindow calls
	a.recent = append(a.recent, c.loopKey)
	if len(a.recent) > loopWindow {
		a.recent = a.recent[1:]
	}
	movedOn := func(it *Item) bool {
		return it.Kind == KindLoop && it.AgentID == a.id && it.key[len("loop\x00"):] != c.loopKey && countOf(a.recent, it.key[len("loop\x00"):]) < 2
	}
	if slices.ContainsFunc(t.open, movedOn) { // rarely: no copy of t.open at every call
		for _, it := range slices.Clone(t.open) {
			if movedOn(it) {
				t.clear(it, at) // it moved on
			}
		}
	}
	l := t.loops[c.loopKey]
	if l == nil {
		l = &loopState{}
		t.loops[c.loopKey] = l
	}
	l.ids = append(l.ids, p.ToolCallID)
	l.open = append(l.open, c)
	if countOf(a.recent, c.loopKey) >= loopMin {
		l.raised = true
		k := "loop\x00" + c.loopKey
		it := t.byKey[k]
		if it == nil {
			it = t.reopen(k)
		}
		if it == nil {
			it = &Item{Kind: KindLoop, AgentID: a.id, key: k, FirstAt: at, tool: p.ToolName}
		}
		it.ToolCallIDs = slices.Clone(l.ids)
		it.Count = len(l.ids)
		it.LastAt = at
		it.Message = t.loopMessage(it, l, at)
		t.raise(it, at)
	}
}

func countOf(l []string, k string) int {
	n := 0
	for _, x := range l {
		if x == k {
			n++
		}
	}
	return n
}

func (t *Tracker) loopMessage(it *Item, l *loopState, at time.Time) string {
	total := l.total
	for _, c := range l.open {
		total += at.Sub(c.start)
	}
	return fmt.Sprintf("%s called %d times with the same parameters (%s in all)", orTool(it.tool), len(l.ids), text.Duration(total))
}

func (t *Tracker) callFinished(a *agentState, p model.ToolCallFinished, at time.Time) {
	c := t.calls[callKey{a.id, p.ToolCallID}]
	name := p.ToolName
	if c != nil {
		c.end, c.ended = at, true
		if name == "" {
			name = c.name
		}
		d := at.Sub(c.start)
		ds := t.durs[name]
		if ds == nil {
			ds = new(median)
			t.durs[name] = ds
		}
		ds.Add(d)
		t.dropRunning(c)
		if l := t.loops[c.loopKey]; l != nil && l.raised {
			if it := t.byKey["loop\x00"+c.loopKey]; it != nil {
				it.Message = t.loopMessage(it, l, at)
				it.LastAt = at
			}
		}
	}
	// failing streak, in the order the calls finish
	sk := callKey{a.id, name}
	s := t.streaks[sk]
	if s == nil {
		s = &streakState{}
		t.streaks[sk] = s
	}
	if !model.ResultFailed(p.Result) {
		s.ids = s.ids[:0]
		if !s.raised {
			return
		}
		if it := t.byKey[streakKey(sk)]; it != nil {
			it.Message = fmt.Sprintf("%s works again after %d failures in a row", orTool(name), it.Count)
			t.clear(it, at)
		}
		return
	}
	s.ids = append(s.ids, p.ToolCallID)
	if len(s.ids) < streakMin {
		return
	}
	s.raised = true
	k := streakKey(sk)
	it := t.byKey[k]
	if it == nil {
		it = &Item{Kind: KindFailingStreak, AgentID: a.id, key: k, FirstAt: at}
	}
	it.ToolCallIDs, it.Count, it.LastAt = slices.Clone(s.ids), len(s.ids), at
	it.Message = fmt.Sprintf("%s failed %d times in a row", orTool(name), len(s.ids))
	t.raise(it, at)
}

// stalls checks every running agent against the run's newest time at.
func (t *Tracker) stalls(at time.Time) {
	for _, a := range t.agentSeq {
		if a.over || a.lastAct.IsZero() {
			continue
		}
		k := a.skey
		if a.calls > 0 && t.byKey[k] == nil {
			continue // waiting on its own tool call: slow-tool judges that
		}
		quiet := at.Sub(a.lastAct)
		if it := t.byKey[k]; it != nil {
			it.LastAt = at
			it.Message = "no event for " + text.Elapsed(quiet)
			continue
		}
		thr := t.stallThreshold(a)
		if quiet <= thr {
			continue
		}
		it := &Item{Kind: KindStall, AgentID: a.id, key: k, FirstAt: a.lastAct.Add(thr), LastAt: at, Count: 1, since: a.lastAct}
		it.Message = "no event for " + text.Elapsed(quiet)
		t.raise(it, at)
	}
}

func (t *Tracker) stallThreshold(a *agentState) time.Duration {
	thr := t.o.Stall
	if a.gaps.Len() >= stallMinGaps {
		if m := stallMedianFactor * a.gaps.Median(); m > thr {
			thr = m
		}
	}
	return thr
}

func stallKey(agent string) string { return "stall\x00" + agent }

func streakKey(k callKey) string { return "streak\x00" + k.agent + "\x00" + k.id }

const quietKey = "stall\x00"

// quiet raises the run-wide stall when nothing happened for Options.Stall
// up to at.
func (t *Tracker) quiet(at time.Time) {
	if t.runOver || t.clock.IsZero() {
		return
	}
	q := at.Sub(t.clock)
	if it := t.byKey[quietKey]; it != nil {
		it.LastAt = at
		it.Message = "the whole run quiet for " + text.Elapsed(q)
		return
	}
	if q <= t.o.Stall {
		return
	}
	it := &Item{Kind: KindStall, key: quietKey, FirstAt: t.clock.Add(t.o.Stall), LastAt: at, Count: 1, since: t.clock}
	it.Message = "the whole run quiet for " + text.Elapsed(q)
	t.raise(it, at)
}

// clearQuiet ends the run-wide stall: an event came at at.
func (t *Tracker) clearQuiet(at time.Time) {
	if it := t.byKey[quietKey]; it != nil {
		it.Message = "the whole run quiet for " + text.Elapsed(at.Sub(it.since))
		t.clear(it, at)
	}
}

// slow checks every running call at the time at.
func (t *Tracker) slow(at time.Time) {
	for _, c := range t.running {
		k := slowKey(c)
		ran := at.Sub(c.start)
		if it := t.byKey[k]; it != nil {
			it.LastAt = at
			it.Message = t.slowMessage(c, ran)
			continue
		}
		thr, _ := t.slowThreshold(c.name)
		if ran <= thr {
			continue
		}
		it := &Item{Kind: KindSlowTool, AgentID: c.agent, ToolCallIDs: []string{c.id}, key: k, FirstAt: c.start.Add(thr), LastAt: at, Count: 1, since: c.start, tool: c.name}
		it.Message = t.slowMessage(c, ran)
		t.raise(it, at)
	}
}

func (t *Tracker) slowThreshold(tool string) (thr, med time.Duration) {
	ds := t.durs[tool]
	if ds == nil { // made at the tool's first finished call
		return t.o.d(slowAlone), 0
	}
	med = ds.Median()
	return max(slowFactor*med, t.o.d(slowFloor)), med
}

func (t *Tracker) slowMessage(c *call, ran time.Duration) string {
	_, median := t.slowThreshold(c.name)
	msg := orTool(c.name) + " running for " + text.Elapsed(ran)
	if median > 0 {
		return msg + " (usually " + text.Duration(median) + ")"
	}
	return msg
}

// slowKey is c's slow-tool item's key, made once: most calls end before
// they are ever judged, and a replay of 33 000 calls need not hold 33 000
// more strings.
func slowKey(c *call) string {
	if c.skey == "" {
		c.skey = "slow\x00" + c.key.agent + "\x00" + c.key.id
	}
	return c.skey
}

func orTool(name string) string {
	if name == "" {
		return "a tool"
	}
	return name
}

// raise makes it open (new, or back after it cleared).
func (t *Tracker) raise(it *Item, at time.Time) {
	if t.byKey[it.key] == it {
		return
	}
	if it.Count == 0 {
		it.Count = 1
	}
	if !slices.Contains(t.items, it) {
		t.items = append(t.items, it)
	}
	it.Cleared = false
	t.byKey[it.key] = it
	t.open = append(t.open, it)
	t.changes = append(t.changes, Change{Item: it, Message: it.Message})
}

// reopen finds the latest item under key that has cleared, for a loop
// that comes back.
func (t *Tracker) reopen(key string) *Item {
	for i := len(t.items) - 1; i >= 0; i-- {
		if t.items[i].key == key {
			return t.items[i]
		}
	}
	return nil
}

func (t *Tracker) clear(it *Item, at time.Time) {
	if t.byKey[it.key] != it {
		return
	}
	delete(t.byKey, it.key)
	if i := slices.Index(t.open, it); i >= 0 {
		t.open = slices.Delete(t.open, i, i+1)
	}
	it.Cleared = true
	if at.After(it.LastAt) {
		it.LastAt = at
	}
	if it.LastAt.Before(it.FirstAt) {
		it.LastAt = it.FirstAt
	}
	t.changes = append(t.changes, Change{Item: it, Cleared: true, Message: it.Message})
}

// diff turns a start-again into changes: items of old that are open and
// the same (kind, key, first time) carry over; the others clear or appear.
func (t *Tracker) diff(old st) {
	same := func(a, b *Item) bool { return a.key == b.key && a.FirstAt.Equal(b.FirstAt) }
	for _, o := range old.open {
		if o.Kind != KindBudget && !slices.ContainsFunc(t.open, func(n *Item) bool { return same(n, o) }) {
			t.changes = append(t.changes, Change{Item: o, Cleared: true, Message: o.Message})
		}
	}
	for _, n := range t.open {
		if !slices.ContainsFunc(old.open, func(o *Item) bool { return same(n, o) }) {
			t.changes = append(t.changes, Change{Item: n, Message: n.Message})
		}
	}
	t.localAt = old.localAt
	// The budget item is judged per merge, not from the timeline: keep it.
	for _, it := range old.items {
		if it.Kind != KindBudget {
			continue
		}
		i, _ := slices.BinarySearchFunc(t.items, it, func(a, b *Item) int { return a.FirstAt.Compare(b.FirstAt) })
		t.items = slices.Insert(t.items, i, it)
		if !it.Cleared && !it.Reached {
			t.byKey[it.key] = it
			t.open = append(t.open, it)
		}
	}
}

// Items is every item raised so far, cleared or not, in the order raised.
// The items are the tracker's own: read them, do not keep them across
// Updates.
func (t *Tracker) Items() []*Item { return t.items }

// Open is the items that need a look now (neither cleared nor reached), in
// the order raised.
func (t *Tracker) Open() []*Item { return t.open }

// Stalled reports whether the agent has an open stall.
func (t *Tracker) Stalled(agentID string) bool {
	a := t.agents[agentID]
	return a != nil && t.byKey[a.skey] != nil
}

// Looping reports whether the agent has an open loop.
func (t *Tracker) Looping(agentID string) bool {
	for _, it := range t.open {
		if it.Kind == KindLoop && it.AgentID == agentID {
			return true
		}
	}
	return false
}

// CallMark says what an open item says about a tool call: "slow",
// "repeated" (part of a loop), "failing" (part of a failing streak) or "".
func (t *Tracker) CallMark(toolCallID string) Kind {
	for _, it := range t.open {
		if it.Kind != KindStall && it.Kind != KindBudget && slices.Contains(it.ToolCallIDs, toolCallID) {
			return it.Kind
		}
	}
	return ""
}
