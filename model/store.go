package model

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/text"
)

// Store is the run as the trace describes it so far: every distinct event,
// one timeline, and the state derived from them, kept up to date by each
// Merge. It is not safe for concurrent use: one goroutine merges and reads
// (the UI's update loop, or a printer).
//
// Everything a Store derives depends only on the set of events merged (and,
// for credits, on the highest figure seen), never on how they were split
// into polls or the order the polls came in. The one exception is an event
// the server changes in place (same eventId, other content): the first
// version merged is kept.
type Store struct {
	dec *Decoder // for Ingest

	// byID indexes the events by eventId. It is built on first need: a
	// store fed only by Ingest needs no look-up to deduplicate, because its
	// decoder never produces an eventId twice.
	byID     map[string]*Event
	timeline timeline
	seen     int // events kept; the next one's seq
	minTime  time.Time
	maxTime  time.Time // the newest occurredAt merged (the trace's clock)

	credits []CreditPoint // each rise of creditsUsed, on the trace's clock

	agents     map[string]*Agent
	agentList  []*Agent // in the order first seen
	agentOrder []*Agent // tree order
	roots      []*Agent

	toolCalls map[string]*ToolCall // by pairKey
	toolOrder []*ToolCall

	sessions     map[string]*BrowserSession
	sessionOrder []*BrowserSession

	artifacts       map[string]*Artifact
	artifactOrder   []*Artifact
	artifactsByTool map[string][]*Artifact

	errors    []*ErrorEntry
	reasoning []*Event
	progress  []*Event
	runEvents []*Event // run.started, run.cancel_requested, run.finished

	rejected     []Rejected
	rejectedSeen map[string]bool
	unknown      int
	watchID      string  // SetRunID
	request      Request // SetRequest
	actors       Actors  // SetActors
	thread       Thread  // SetThread
	flaws        []Flaw
	flawSeen     map[string]bool

	run  Run
	live []LiveSession

	epoch int // of the merge in progress (see changes)
}

// agentInfo is what the store keeps about an agent beyond its public fields.
type agentInfo struct {
	lifecycle    []*Event // agent.started and agent.finished
	toolErrors   []*ErrorEntry
	open         []*ToolCall       // calls not finished when last touched (see refreshAgentActivity)
	openSessions []*BrowserSession // sessions likewise
	fresh        int               // events of the merge in progress
}

// pairInfo holds the start and finish events of a tool call or session
// (normally one each; duplicates under one id are kept and the earliest in
// the timeline used).
type pairInfo struct {
	starts, finishes []*Event
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{
		dec:             NewDecoder(),
		agents:          make(map[string]*Agent),
		toolCalls:       make(map[string]*ToolCall),
		sessions:        make(map[string]*BrowserSession),
		artifacts:       make(map[string]*Artifact),
		artifactsByTool: make(map[string][]*Artifact),
		rejectedSeen:    make(map[string]bool),
		run:             Run{State: StateRunning},
	}
}

// SetSecrets gives the store's decoder (Ingest) the secrets to redact.
func (s *Store) SetSecrets(secrets *text.Secrets) { s.dec.SetSecrets(secrets) }

// Delta is what one merge changed.
type Delta struct {
	// Events are the events new to the store, in the order first seen.
	Events []*Event
	// From is the first timeline index that changed: events before it kept
	// their place. It equals the previous length when the new events were
	// simply appended.
	From int
	// Late counts new events that did not land at the end: older than
	// events already placed, or after run.finished.
	Late int

	Agents    []*Agent // new or changed
	ToolCalls []*ToolCall
	Artifacts []*Artifact
	Sessions  []*BrowserSession
	Errors    []*ErrorEntry // new error entries
	Rejected  []Rejected    // newly set aside
	Flaws     []Flaw        // values out of range, new

	TreeChanged  bool // agents added or moved in the tree
	RunChanged   bool // state, outcome, phase, cancel request, start or finish
	Credits      bool // creditsUsed changed
	LiveSessions bool // the live sessions list was replaced
}

// Empty reports whether the merge changed nothing.
func (d Delta) Empty() bool {
	return len(d.Events) == 0 && len(d.Rejected) == 0 && len(d.Flaws) == 0 && !d.Credits && !d.LiveSessions && !d.RunChanged
}

// Ingest decodes a trace response body with the store's own decoder and
// merges it: the one-goroutine way to use a store. A body that cannot be
// used changes nothing.
func (s *Store) Ingest(body []byte) (Delta, error) {
	p, err := s.dec.Decode(body)
	if err != nil {
		return Delta{From: len(s.timeline.events)}, err
	}
	return s.Merge(p), nil
}

// Merge adds one poll's events. Events already in the store (by eventId) are
// ignored, so merging the same poll twice changes nothing, and the result
// does not depend on the order polls are merged in.
//
// The store keeps the poll's *Event values (they must not be changed
// afterwards); an event another store already holds is copied.
func (s *Store) Merge(p *Poll) Delta {
	d := Delta{From: len(s.timeline.events)}
	if p == nil {
		return d
	}
	ch := s.newChanges()

	if p.RunID != "" && s.run.ID == "" {
		s.run.ID = p.RunID
		d.RunChanged = true
	}
	if p.HasCredits && (!s.run.HasCredits || p.CreditsUsed > s.run.CreditsUsed) {
		s.run.CreditsUsed, s.run.HasCredits = p.CreditsUsed, true
		d.Credits = true
		defer s.creditPoint()
	}
	for _, r := range p.Rejected {
		s.reject(r, &d)
	}

	// Keep the new events and put each into its agent's order.
	own := p.dec != nil && p.dec == s.dec
	if !own {
		s.index()
	}
	var touched []*Agent
	newAgents := false
	for _, e := range p.Events {
		if e == nil || e.ID == "" || e.Agent.ID == "" || e.store == s || e.Type == TypeUsageRecorded {
			continue
		}
		if s.byID != nil && s.byID[e.ID] != nil {
			continue
		}
		if s.foreign(e) {
			s.reject(Rejected{Index: -1, EventID: e.ID, Reason: foreignReason(e.RunID, s.watchID), Raw: e.Raw}, &d)
			continue
		}
		if e.store != nil && e.store != s {
			c := *e
			e = &c
		}
		e.store, e.seq, e.pos, e.tkey = s, s.seen, -1, timeKey(e.OccurredAt)
		s.seen++
		if s.byID != nil {
			s.byID[e.ID] = e
		}
		if t := e.OccurredAt; !t.IsZero() && (s.minTime.IsZero() || t.Before(s.minTime)) {
			s.minTime = t
		}
		if t := e.OccurredAt; t.After(s.maxTime) {
			s.maxTime = t
		}
		a := s.agents[e.Agent.ID]
		if a == nil {
			a = &Agent{ID: e.Agent.ID, State: StateRunning}
			s.agents[a.ID] = a
			s.agentList = append(s.agentList, a)
			newAgents = true
		}
		insertAgentEvent(a, e)
		if info := &a.info; info.fresh == 0 {
			touched = append(touched, a)
			info.fresh = 1
		} else {
			info.fresh++
		}
		d.Events = append(d.Events, e)
		if s.run.ID == "" && e.RunID != "" {
			s.run.ID = e.RunID
		}
	}
	if len(d.Events) == 0 {
		s.applyLive(p, &d)
		s.mergeExtras(p, &d)
		return d
	}

	// Find where the timeline must be merged again, then do it. Only each
	// agent's first new event can move the restart point.
	tl := &s.timeline
	oldLen := len(tl.events)
	from := oldLen
	for _, a := range touched {
		info := &a.info
		i := len(a.Events)
		for n := info.fresh; n > 0; {
			i--
			if a.Events[i].pos < 0 {
				n--
			}
		}
		info.fresh = 0
		from = min(from, tl.restartPoint(a, i))
		ch.agent(a)
	}
	tl.remerge(from, s.agentList, oldLen+len(d.Events))
	d.From = from
	finished := s.run.State == StateFinished
	for _, e := range d.Events {
		if e.pos < oldLen || finished {
			d.Late++
		}
	}
	moved := from < oldLen

	// Derive, in timeline order: each new event touches the entities it
	// names. Lists kept in timeline order then only grow at their end
	// unless events already placed moved.
	firstNew := s.seen - len(d.Events)
	for _, e := range tl.events[from:] {
		if e.seq >= firstNew {
			s.derive(s.agents[e.Agent.ID], e, ch)
		}
	}
	s.refresh(ch, from, moved, newAgents, &d)
	s.applyLive(p, &d)
	s.mergeExtras(p, &d)
	return d
}

// changes collects what a merge touched, for refresh. Each entity is listed
// once: its mark is set to the merge's epoch when it is added.
type changes struct {
	epoch     int
	agents    []*Agent
	tools     []*ToolCall
	sessions  []*BrowserSession
	artifacts []*Artifact
	run       bool
	phase     bool
	errors    bool
	reasoning bool
	newErrors []*ErrorEntry
}

func (s *Store) newChanges() *changes {
	s.epoch++
	return &changes{epoch: s.epoch}
}

func (ch *changes) agent(a *Agent) {
	if a.mark != ch.epoch {
		a.mark = ch.epoch
		ch.agents = append(ch.agents, a)
	}
}

func (ch *changes) tool(t *ToolCall) {
	if t.mark != ch.epoch {
		t.mark = ch.epoch
		ch.tools = append(ch.tools, t)
	}
}

func (ch *changes) session(b *BrowserSession) {
	if b.mark != ch.epoch {
		b.mark = ch.epoch
		ch.sessions = append(ch.sessions, b)
	}
}

func (ch *changes) artifact(a *Artifact) {
	if a.mark != ch.epoch {
		a.mark = ch.epoch
		ch.artifacts = append(ch.artifacts, a)
	}
}

// derive records e in the entities it concerns.
func (s *Store) derive(a *Agent, e *Event, ch *changes) {
	if !e.Type.Known() {
		s.unknown++
	}
	switch pl := e.Payload.(type) {
	case AgentStarted, AgentFinished:
		a.info.lifecycle = append(a.info.lifecycle, e)
		if f, ok := pl.(AgentFinished); ok && failed(f.Outcome, f.Error) {
			s.addError(e, f.Error, true, ch)
		}
	case RunStarted, RunCancelRequested:
		s.runEvents = append(s.runEvents, e)
		ch.run = true
	case RunFinished:
		s.runEvents = append(s.runEvents, e)
		ch.run = true
		if failed(pl.Outcome, pl.Error) {
			s.addError(e, pl.Error, true, ch)
		}
	case ProgressReported:
		s.progress = append(s.progress, e)
		ch.phase = true
	case ReasoningSummary:
		s.reasoning = append(s.reasoning, e)
		ch.reasoning = true
	case ToolCallStarted:
		t := s.toolCall(pl.ToolCallID, pl.ToolName, a, e)
		t.pair.starts = append(t.pair.starts, e)
		ch.tool(t)
	case ToolCallFinished:
		t := s.toolCall(pl.ToolCallID, pl.ToolName, a, e)
		t.pair.finishes = append(t.pair.finishes, e)
		ch.tool(t)
	case BrowserSessionStarted:
		b := s.session(pl.SessionID, a, e)
		b.pair.starts = append(b.pair.starts, e)
		ch.session(b)
	case BrowserSessionFinished:
		b := s.session(pl.SessionID, a, e)
		b.pair.finishes = append(b.pair.finishes, e)
		ch.session(b)
	case ArtifactUpdated:
		s.addArtifactVersion(e, pl.Artifact, ch)
	case ErrorOccurred:
		s.addError(e, &pl.Error, false, ch)
	}
}

// failed reports whether a run or agent outcome is a failure worth an error
// entry: not "succeeded", and either a documented failure or carrying an
// error. (A missing or unknown outcome without an error says nothing.) A
// cancel is not an error: the user asked for it, and the agents it cut
// short (parent_finished) did nothing wrong.
func failed(o Outcome, err *TraceError) bool {
	if Stopped(o, err) {
		return false
	}
	switch o {
	case OutcomeSucceeded:
		return false
	case OutcomeFailed, OutcomeRefused, OutcomeCreditLimitReached:
		return true
	}
	return err != nil
}

// Stopped reports whether an outcome is a stop, not a failure: a cancel,
// or an agent ended because its parent did.
func Stopped(o Outcome, err *TraceError) bool {
	if o == OutcomeCancelled {
		return true
	}
	return err != nil && (err.Code == CodeCancelled || err.Code == CodeParentFinished)
}

func (s *Store) addError(e *Event, te *TraceError, fatal bool, ch *changes) {
	en := &ErrorEntry{Event: e, AgentID: e.Agent.ID, Fatal: fatal}
	if te != nil {
		en.Error = *te
	}
	s.errors = append(s.errors, en)
	ch.errors = true
	ch.newErrors = append(ch.newErrors, en)
	a := s.agents[e.Agent.ID]
	a.Errors++
	if !fatal && en.Error.Source == SourceTool {
		a.info.toolErrors = append(a.info.toolErrors, en)
	}
}

// pairKey is the map key of a tool call or session id. An event without an
// id cannot be paired with anything: it gets an entity of its own.
func pairKey(id string, e *Event) string {
	if id == "" {
		return "\x00" + e.ID
	}
	return id
}

func (s *Store) toolCall(id, name string, a *Agent, e *Event) *ToolCall {
	k := pairKey(id, e)
	t := s.toolCalls[k]
	if t == nil {
		t = &ToolCall{ID: id, Name: name, AgentID: a.ID, Agent: a, State: StateRunning}
		s.toolCalls[k] = t
		s.toolOrder = append(s.toolOrder, t)
		a.ToolCalls = append(a.ToolCalls, t)
	}
	return t
}

func (s *Store) session(id string, a *Agent, e *Event) *BrowserSession {
	k := pairKey(id, e)
	b := s.sessions[k]
	if b == nil {
		b = &BrowserSession{ID: id, AgentID: a.ID, Agent: a, State: StateRunning}
		s.sessions[k] = b
		s.sessionOrder = append(s.sessionOrder, b)
		a.Sessions = append(a.Sessions, b)
	}
	return b
}

func (s *Store) addArtifactVersion(e *Event, ref ArtifactRef, ch *changes) {
	k := pairKey(ref.ArtifactID, e)
	art := s.artifacts[k]
	if art == nil {
		art = &Artifact{ID: ref.ArtifactID}
		s.artifacts[k] = art
		s.artifactOrder = append(s.artifactOrder, art)
	}
	art.Versions = append(art.Versions, &ArtifactVersion{Event: e, Ref: ref})
	ch.artifact(art)
	if id := ref.SourceToolCallID; id != "" {
		if !slices.Contains(s.artifactsByTool[id], art) {
			s.artifactsByTool[id] = append(s.artifactsByTool[id], art)
		}
		if t := s.toolCalls[id]; t != nil {
			ch.tool(t) // its Artifacts changed
		}
	}
}

// byPos orders events by timeline position.
func byPos(a, b *Event) int { return a.pos - b.pos }

func byFirstVersion(a, b *Artifact) int { return byPos(a.Versions[0].Event, b.Versions[0].Event) }
func byFirstCall(a, b *ToolCall) int    { return byPos(a.first(), b.first()) }
func byFirstSession(a, b *BrowserSession) int {
	return byPos(a.first(), b.first())
}
func byErrorEvent(a, b *ErrorEntry) int { return byPos(a.Event, b.Event) }

// sortByPos sorts a list kept in timeline order, when it is not.
func sortByPos[T any](l []T, cmp func(a, b T) int) {
	if !slices.IsSortedFunc(l, cmp) {
		slices.SortStableFunc(l, cmp)
	}
}

// sortAfter puts back in order a list kept in order of pos (a timeline
// position) after a merge that placed events again from timeline index
// from on. Events before from kept their places, so the elements whose
// pos is before from still lead the list, in order; only the rest (those
// that moved and those the merge added, at the end) is looked at: a long
// run's lists are not walked at every poll. It needs every element's pos
// to have stayed on its side of from (see refresh's full).
func sortAfter[T any](l []T, from int, pos func(T) int) {
	i := sort.Search(len(l), func(i int) bool { return pos(l[i]) >= from })
	sortByPos(l[i:], func(a, b T) int { return pos(a) - pos(b) })
}

// firstMoved is the from to give sortAfter for the lists kept in order of
// a call's or session's first event: all of them when full (see refresh).
func firstMoved(from int, full bool) int {
	if full {
		return 0
	}
	return from
}

func errorPos(en *ErrorEntry) int      { return en.Event.pos }
func eventPos(e *Event) int            { return e.pos }
func callPos(t *ToolCall) int          { return t.first().pos }
func sessionPos(b *BrowserSession) int { return b.first().pos }
func artifactPos(a *Artifact) int      { return a.Versions[0].Event.pos }

// touch marks what an event already derived belongs to as changed: its
// place in the timeline moved.
func (s *Store) touch(e *Event, ch *changes) {
	ch.agent(s.agents[e.Agent.ID])
	switch pl := e.Payload.(type) {
	case AgentFinished:
		ch.errors = ch.errors || failed(pl.Outcome, pl.Error)
	case RunStarted, RunCancelRequested:
		ch.run = true
	case RunFinished:
		ch.run = true
		ch.errors = ch.errors || failed(pl.Outcome, pl.Error)
	case ProgressReported:
		ch.phase = true
	case ReasoningSummary:
		ch.reasoning = true
	case ToolCallStarted:
		ch.tool(s.toolCalls[pairKey(pl.ToolCallID, e)])
	case ToolCallFinished:
		ch.tool(s.toolCalls[pairKey(pl.ToolCallID, e)])
	case BrowserSessionStarted:
		ch.session(s.sessions[pairKey(pl.SessionID, e)])
	case BrowserSessionFinished:
		ch.session(s.sessions[pairKey(pl.SessionID, e)])
	case ArtifactUpdated:
		ch.artifact(s.artifacts[pairKey(pl.Artifact.ArtifactID, e)])
	case ErrorOccurred:
		ch.errors = true
	}
}

// replaced says whether a call or session just refreshed must have its
// lists sorted whole (see refresh's full): it changed hands, from had to
// now (had's activity is then refreshed too), or its first event was
// before from (was) and is now after it (first).
func (ch *changes) replaced(had, now *Agent, was, first *Event, from int) bool {
	if had != now {
		ch.agent(had)
		return true
	}
	return was != nil && was.pos < from && first.pos >= from
}

// refresh recomputes the entities a merge touched. When the merge placed
// events already placed again (moved: from is before the old end), the
// entities of the events from from on are touched too: those before kept
// their places, and with them everything derived from their order.
func (s *Store) refresh(ch *changes, from int, moved, newAgents bool, d *Delta) {
	if moved {
		for _, e := range s.timeline.events[from:] {
			s.touch(e, ch)
		}
	}
	if ch.errors {
		sortAfter(s.errors, from, errorPos)
	}
	if ch.reasoning {
		sortAfter(s.reasoning, from, eventPos)
	}

	// The run, then the agents' lifecycles: the states that decide whether
	// a call or session still running is unfinished.
	runWasFinished := s.run.State == StateFinished
	if s.refreshRun(ch) {
		d.RunChanged = true
	}
	if runEnded := s.run.State == StateFinished; runEnded != runWasFinished {
		for _, t := range s.toolOrder {
			if t.Finished == nil {
				ch.tool(t)
			}
		}
		for _, b := range s.sessionOrder {
			if b.Finished == nil {
				ch.session(b)
			}
		}
	}
	treeDirty := newAgents
	for _, a := range ch.agents {
		identity, ended := s.refreshAgentLifecycle(a)
		treeDirty = treeDirty || identity
		if ended {
			for _, t := range a.ToolCalls {
				ch.tool(t)
			}
			for _, b := range a.Sessions {
				ch.session(b)
			}
		}
	}
	// full: a call or session whose first event was before from now has
	// its first event after it, or changed hands. The lists kept in order
	// of first event then cannot be put back in order from from on alone
	// (rare: a start that lands after its finish, two agents using one id).
	full := false
	for _, t := range ch.tools {
		was, had := t.first(), t.Agent
		s.refreshToolCall(t)
		full = ch.replaced(had, t.Agent, was, t.first(), from) || full
		if t.State != StateFinished && t.openIn != t.Agent {
			t.openIn = t.Agent
			t.Agent.info.open = append(t.Agent.info.open, t)
		}
		for _, art := range s.artifactsByTool[t.ID] {
			ch.artifact(art)
		}
	}
	for _, b := range ch.sessions {
		was, had := b.first(), b.Agent
		s.refreshSession(b)
		full = ch.replaced(had, b.Agent, was, b.first(), from) || full
		if b.State != StateFinished && b.openIn != b.Agent {
			b.openIn = b.Agent
			b.Agent.info.openSessions = append(b.Agent.info.openSessions, b)
		}
	}
	for _, art := range ch.artifacts {
		s.refreshArtifact(art)
	}
	// Calls and sessions may have changed hands; their agents' activity
	// follows.
	for _, t := range ch.tools {
		ch.agent(t.Agent)
	}
	for _, b := range ch.sessions {
		ch.agent(b.Agent)
	}
	for _, a := range ch.agents {
		s.refreshAgentActivity(a, from, full)
	}
	if treeDirty {
		s.buildTree()
		d.TreeChanged = true
	}
	if len(ch.tools) > 0 {
		sortAfter(s.toolOrder, firstMoved(from, full), callPos)
	}
	if len(ch.sessions) > 0 {
		sortAfter(s.sessionOrder, firstMoved(from, full), sessionPos)
	}
	if len(ch.artifacts) > 0 {
		sortAfter(s.artifactOrder, from, artifactPos)
	}

	// The delta, in a deterministic order: by first event.
	d.Agents, d.ToolCalls, d.Sessions, d.Artifacts = ch.agents, ch.tools, ch.sessions, ch.artifacts
	slices.SortFunc(d.Agents, func(a, b *Agent) int { return byPos(a.Events[0], b.Events[0]) })
	slices.SortFunc(d.ToolCalls, byFirstCall)
	slices.SortFunc(d.Sessions, byFirstSession)
	slices.SortFunc(d.Artifacts, byFirstVersion)
	d.Errors = ch.newErrors
	slices.SortFunc(d.Errors, byErrorEvent)
}

func (t *ToolCall) first() *Event {
	if t.Started != nil {
		return t.Started
	}
	return t.Finished
}

func (b *BrowserSession) first() *Event {
	if b.Started != nil {
		return b.Started
	}
	return b.Finished
}

// earliest is the event with the smallest timeline position.
func earliest(es []*Event) *Event {
	var m *Event
	for _, e := range es {
		if m == nil || e.pos < m.pos {
			m = e
		}
	}
	return m
}

// refreshRun recomputes the run's state; it reports whether anything
// changed.
func (s *Store) refreshRun(ch *changes) bool {
	r := &s.run
	before := runKey(r)
	if ch.run {
		var start, fin, cancel *Event
		for _, e := range s.runEvents {
			switch e.Payload.(type) {
			case RunStarted:
				if (start == nil || e.pos < start.pos) && !e.OccurredAt.IsZero() {
					start = e
				}
			case RunFinished:
				if fin == nil || e.pos > fin.pos {
					fin = e
				}
			case RunCancelRequested:
				if cancel == nil || e.pos < cancel.pos {
					cancel = e
				}
			}
		}
		r.StartedAt = time.Time{}
		if start != nil {
			r.StartedAt = start.OccurredAt
		}
		if fin != nil {
			f := fin.Payload.(RunFinished)
			r.State, r.Outcome, r.Error, r.Finished, r.FinishedAt = StateFinished, f.Outcome, f.Error, fin, fin.OccurredAt
		} else {
			r.State, r.Outcome, r.Error, r.Finished, r.FinishedAt = StateRunning, "", nil, nil, time.Time{}
		}
		r.CancelRequested, r.CancelReason = cancel != nil, ""
		if cancel != nil {
			r.CancelReason = cancel.Payload.(RunCancelRequested).Reason
		}
		r.startSeen = start != nil
	}
	if !r.startSeen {
		// Without a run.started, the run started with its earliest event.
		r.StartedAt = s.minTime
	}
	if ch.phase {
		sortByPos(s.progress, byPos)
		r.Phase, r.Message, r.PhaseEvent, r.PhasesSeen = "", "", nil, r.PhasesSeen[:0]
		for _, e := range s.progress {
			pr := e.Payload.(ProgressReported)
			r.Phase, r.Message, r.PhaseEvent = pr.Phase, pr.Message, e
			if pr.Phase != "" && !slices.Contains(r.PhasesSeen, pr.Phase) {
				r.PhasesSeen = append(r.PhasesSeen, pr.Phase)
			}
		}
	}
	return ch.run || ch.phase || runKey(r) != before
}

type runFields struct {
	state            State
	outcome          Outcome
	err              *TraceError
	cancel           bool
	start, finish    time.Time
	phase            Phase
	message          string
	finished, phased *Event
}

func runKey(r *Run) runFields {
	return runFields{r.State, r.Outcome, r.Error, r.CancelRequested, r.StartedAt, r.FinishedAt, r.Phase, r.Message, r.Finished, r.PhaseEvent}
}

// refreshAgentLifecycle recomputes identity, state and outcome. It reports
// whether the identity (role, name, parent, start: what places the agent in
// the tree) changed, and whether its finished state changed.
func (s *Store) refreshAgentLifecycle(a *Agent) (identity, ended bool) {
	var start, fin *Event
	for _, e := range a.info.lifecycle {
		switch e.Payload.(type) {
		case AgentStarted:
			if start == nil || cmpAgentOrder(e, start) < 0 {
				start = e
			}
		case AgentFinished:
			if fin == nil || cmpAgentOrder(e, fin) > 0 {
				fin = e
			}
		}
	}
	id := a.Events[0]
	if start != nil {
		id = start
	}
	startedAt := id.OccurredAt
	if startedAt.IsZero() {
		startedAt = a.Events[0].OccurredAt
	}
	identity = a.Role != id.Agent.Role || a.Name != id.Agent.Name || a.ParentID != id.Agent.ParentID || !a.StartedAt.Equal(startedAt)
	a.Role, a.Name, a.ParentID, a.StartedAt = id.Agent.Role, id.Agent.Name, id.Agent.ParentID, startedAt
	was := a.State
	a.State, a.Outcome, a.DurationMs, a.HasDuration, a.Error, a.FinishedAt = StateRunning, "", 0, false, nil, time.Time{}
	if fin != nil {
		f := fin.Payload.(AgentFinished)
		a.State, a.Outcome, a.DurationMs, a.HasDuration, a.Error, a.FinishedAt = StateFinished, f.Outcome, f.DurationMs, f.HasDuration, f.Error, fin.OccurredAt
	}
	a.LastEvent = a.Events[len(a.Events)-1]
	return identity, was != a.State
}

// stillOpen keeps of l (an agent's open calls or sessions) those still
// open in a, in order of first event, and says how many of them are running
// and which ran last. open gives an element's openIn and its state; one
// that left a has its openIn cleared.
func stillOpen[T any](l []T, a *Agent, open func(T) (**Agent, State), cmp func(T, T) int) (_ []T, running int, current T) {
	l = slices.DeleteFunc(l, func(x T) bool {
		in, st := open(x)
		gone := *in != a || st == StateFinished
		if gone && *in == a {
			*in = nil
		}
		return gone
	})
	slices.SortFunc(l, cmp)
	for _, x := range l {
		if _, st := open(x); st == StateRunning {
			running++
			current = x
		}
	}
	return l, running, current
}

// refreshAgentActivity puts the agent's lists back in order, recounts
// what it has running and links its tool errors to calls, looking only at
// what the merge can have changed (see refresh): the calls and sessions
// not finished (a few), and the tool errors from timeline index from on.
// full says that the lists must be sorted and linked whole.
func (s *Store) refreshAgentActivity(a *Agent, from int, full bool) {
	info := &a.info
	sortAfter(a.ToolCalls, firstMoved(from, full), callPos)
	sortAfter(a.Sessions, firstMoved(from, full), sessionPos)
	sortAfter(info.toolErrors, from, errorPos)

	// The calls and sessions still open (the lists hold those that were
	// open when last touched; some have finished or changed hands since).
	info.open, a.RunningTools, a.CurrentTool = stillOpen(info.open, a,
		func(t *ToolCall) (**Agent, State) { return &t.openIn, t.State }, byFirstCall)
	info.openSessions, a.OpenSessions, a.CurrentSession = stillOpen(info.openSessions, a,
		func(b *BrowserSession) (**Agent, State) { return &b.openIn, b.State }, byFirstSession)

	// A tool error belongs to the call the agent most recently started
	// before it (the agent's calls are in start order, which within one
	// agent is its own order). Errors before from keep their calls: the
	// calls that started before them did not move.
	errs := info.toolErrors
	if full {
		for _, t := range a.ToolCalls {
			t.Errors = nil
		}
		for _, en := range errs {
			en.call = nil
		}
	} else {
		errs = errs[sort.Search(len(errs), func(i int) bool { return errs[i].Event.pos >= from }):]
		for _, en := range errs {
			if t := en.call; t != nil {
				t.Errors = slices.DeleteFunc(t.Errors, func(x *ErrorEntry) bool { return x == en })
				en.call = nil
			}
		}
	}
	for _, en := range errs {
		i := sort.Search(len(a.ToolCalls), func(i int) bool { return a.ToolCalls[i].first().pos >= en.Event.pos })
		for i--; i >= 0; i-- {
			if t := a.ToolCalls[i]; t.Started != nil {
				t.Errors = append(t.Errors, en)
				en.call = t
				break
			}
		}
	}
}

// ended reports whether a call or session of agent a can no longer finish:
// the run or the agent is over.
func (s *Store) ended(a *Agent) bool {
	return s.run.State == StateFinished || a.State == StateFinished
}

// moveTo moves x from one agent's list to another's (the activity refresh
// of both puts the lists back in order).
func moveTo[T comparable](x T, from, to *Agent, list func(*Agent) *[]T) {
	if from == to {
		return
	}
	l := list(from)
	*l = slices.DeleteFunc(*l, func(y T) bool { return y == x })
	*list(to) = append(*list(to), x)
}

func (s *Store) refreshToolCall(t *ToolCall) {
	t.Started, t.Finished = earliest(t.pair.starts), earliest(t.pair.finishes)
	t.Parameters, t.Result, t.Name = nil, nil, ""
	// The start says whose call it is and what it is called; without one,
	// the finish does.
	if owner := t.first(); owner.Agent.ID != t.AgentID {
		a := s.agents[owner.Agent.ID]
		moveTo(t, t.Agent, a, func(a *Agent) *[]*ToolCall { return &a.ToolCalls })
		t.Agent, t.AgentID = a, a.ID
	}
	if t.Started != nil {
		st := t.Started.Payload.(ToolCallStarted)
		t.Parameters, t.Name = st.Parameters, st.ToolName
	}
	if t.Finished != nil {
		f := t.Finished.Payload.(ToolCallFinished)
		t.Result = f.Result
		if t.Name == "" {
			t.Name = f.ToolName
		}
	}
	switch {
	case t.Finished != nil:
		t.State = StateFinished
	case s.ended(t.Agent):
		t.State = StateUnfinished
	default:
		t.State = StateRunning
	}
	t.failed.Store(0) // Failed looks at the result when asked
	if arts := s.artifactsByTool[t.ID]; t.ID != "" && len(arts) > 0 {
		sortByPos(arts, byFirstVersion)
		t.Artifacts = arts
	} else {
		t.Artifacts = nil
	}
}

func (s *Store) refreshSession(b *BrowserSession) {
	b.Started, b.Finished = earliest(b.pair.starts), earliest(b.pair.finishes)
	if owner := b.first(); owner.Agent.ID != b.AgentID {
		a := s.agents[owner.Agent.ID]
		moveTo(b, b.Agent, a, func(a *Agent) *[]*BrowserSession { return &a.Sessions })
		b.Agent, b.AgentID = a, a.ID
	}
	b.DurationMs, b.HasDuration = 0, false
	switch {
	case b.Finished != nil:
		b.State = StateFinished
		f := b.Finished.Payload.(BrowserSessionFinished)
		b.DurationMs, b.HasDuration = f.DurationMs, f.HasDuration
	case s.ended(b.Agent):
		b.State = StateUnfinished
	default:
		b.State = StateRunning
	}
	b.Live = nil
	for i := range s.live {
		if b.ID != "" && s.live[i].ID == b.ID {
			b.Live = &s.live[i]
			break
		}
	}
}

func (s *Store) refreshArtifact(art *Artifact) {
	sortByPos(art.Versions, func(a, b *ArtifactVersion) int { return byPos(a.Event, b.Event) })
	art.Kind, art.Path = "", ""
	for _, v := range art.Versions {
		v.SourceToolCall = nil
		if id := v.Ref.SourceToolCallID; id != "" {
			v.SourceToolCall = s.toolCalls[id]
		}
		// The latest version that says.
		if v.Ref.Kind != "" {
			art.Kind = v.Ref.Kind
		}
		if v.Ref.Path != "" {
			art.Path = v.Ref.Path
		}
	}
}

// buildTree places every agent in the tree: under its parent when that
// parent is known and no cycle results, else under the primary root marked
// Orphan. The primary root is the earliest orchestrator without a parent;
// other agents without a parent are roots too. Children are in start order.
func (s *Store) buildTree() {
	all := slices.Clone(s.agentList)
	slices.SortFunc(all, func(a, b *Agent) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	children := make(map[string][]*Agent, len(all))
	for _, a := range all {
		a.Parent, a.Children, a.Depth, a.Orphan = nil, nil, 0, false
		if a.ParentID != "" && a.ParentID != a.ID {
			children[a.ParentID] = append(children[a.ParentID], a)
		}
	}
	isRoot := func(a *Agent) bool { return a.ParentID == "" || (a.ParentID == a.ID && a.Role == RoleOrchestrator) }
	var primary *Agent
	for _, a := range all {
		if a.Role == RoleOrchestrator && isRoot(a) {
			primary = a
			break
		}
	}
	s.roots = s.roots[:0]
	placed := make(map[*Agent]bool, len(all))
	var place func(a, parent *Agent)
	place = func(a, parent *Agent) {
		placed[a] = true
		a.Parent = parent
		if parent != nil {
			a.Depth = parent.Depth + 1
			parent.Children = append(parent.Children, a)
		} else {
			s.roots = append(s.roots, a)
		}
		for _, c := range children[a.ID] {
			if !placed[c] {
				place(c, a)
			}
		}
	}
	if primary != nil {
		place(primary, nil)
	}
	for _, a := range all {
		if !placed[a] && isRoot(a) {
			place(a, nil)
		}
	}
	// What is left has a parent never seen (first), or sits on a cycle or
	// below one: it hangs under the primary root, marked.
	hang := func(a *Agent) {
		if primary != nil {
			place(a, primary)
		} else {
			place(a, nil)
		}
		a.Orphan = true
	}
	for _, a := range all {
		if !placed[a] && s.agents[a.ParentID] == nil {
			hang(a)
		}
	}
	for _, a := range all {
		if !placed[a] {
			hang(a)
		}
	}
	s.agentOrder = s.agentOrder[:0]
	var walk func(a *Agent)
	walk = func(a *Agent) {
		s.agentOrder = append(s.agentOrder, a)
		for _, c := range a.Children {
			walk(c)
		}
	}
	for _, r := range s.roots {
		walk(r)
	}
}

func (s *Store) applyLive(p *Poll, d *Delta) {
	if !p.HasLiveSessions {
		return
	}
	if !slices.Equal(s.live, p.LiveSessions) {
		d.LiveSessions = true
	}
	s.live = slices.Clone(p.LiveSessions)
	for _, b := range s.sessionOrder {
		b.Live = nil
	}
	for i := range s.live {
		if id := s.live[i].ID; id != "" {
			if b := s.sessions[id]; b != nil {
				b.Live = &s.live[i]
			}
		}
	}
}

// ResultFailed reports whether a tool result is an object that says it
// failed: a non-null "error", "isError": true or "success": false. White
// space around v is ignored. It is the rule ToolCall.Failed applies to a
// call's result, for callers that hold a result but no store.
func ResultFailed(v jsontext.Value) bool {
	return resultHasError(bytes.TrimSpace(v))
}

// resultHasError is ResultFailed for a value with no white space around it
// (the decoder trims every value it keeps).
func resultHasError(v jsontext.Value) bool {
	if len(v) == 0 || v[0] != '{' {
		return false
	}
	// Most results name none of the three members: say so without a
	// decoder. The names are letters, which an escape other than \uXXXX
	// cannot spell: only a result with a \u can hide them (text with \n
	// and \" cannot).
	if !bytes.Contains(v, []byte(`\u`)) && !bytes.Contains(v, []byte(`"error"`)) &&
		!bytes.Contains(v, []byte(`"isError"`)) && !bytes.Contains(v, []byte(`"success"`)) {
		return false
	}
	failed := false
	dec := jsontext.NewDecoder(bytes.NewBuffer(v), decodeOpts...)
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return false
		}
		key := name.String() // before the next read voids the token
		val, err := dec.ReadValue()
		if err != nil {
			return false
		}
		switch key {
		case "error":
			failed = failed || (val.Kind() != 'n' && val.Kind() != 'f' && string(val) != `""`)
		case "isError":
			failed = failed || val.Kind() == 't'
		case "success":
			failed = failed || val.Kind() == 'f'
		}
	}
	return failed
}

// Accessors. The slices and pointers they return belong to the store: read
// them, do not change them, and read them again after the next merge.

// Len is the number of events kept.
func (s *Store) Len() int { return len(s.timeline.events) }

// Timeline is every event in timeline order.
func (s *Store) Timeline() []*Event { return s.timeline.events }

// Event looks an event up by eventId.
func (s *Store) Event(id string) *Event {
	s.index()
	return s.byID[id]
}

// index builds byID if it is not there yet.
func (s *Store) index() {
	if s.byID != nil {
		return
	}
	s.byID = make(map[string]*Event, len(s.timeline.events))
	for _, e := range s.timeline.events {
		s.byID[e.ID] = e
	}
}

// Run is the run's state.
func (s *Store) Run() *Run { return &s.run }

// Root is the primary root of the agent tree (the orchestrator), nil until
// an agent has been seen.
func (s *Store) Root() *Agent {
	if len(s.roots) == 0 {
		return nil
	}
	return s.roots[0]
}

// Roots are the top of the agent tree: the orchestrator first, then any
// other agent without a parent.
func (s *Store) Roots() []*Agent { return s.roots }

// Agents is every agent in tree order (depth first, children by start).
func (s *Store) Agents() []*Agent { return s.agentOrder }

// Agent looks an agent up by id.
func (s *Store) Agent(id string) *Agent { return s.agents[id] }

// ToolCalls is every tool call, by the timeline position of its start (or
// of its finish when no start was seen).
func (s *Store) ToolCalls() []*ToolCall { return s.toolOrder }

// ToolCall looks a tool call up by toolCallId.
func (s *Store) ToolCall(id string) *ToolCall { return s.toolCalls[id] }

// Artifacts is every artifact, by its first version.
func (s *Store) Artifacts() []*Artifact { return s.artifactOrder }

// Artifact looks an artifact up by artifactId.
func (s *Store) Artifact(id string) *Artifact { return s.artifacts[id] }

// Sessions is every browser session, by start.
func (s *Store) Sessions() []*BrowserSession { return s.sessionOrder }

// Session looks a browser session up by sessionId.
func (s *Store) Session(id string) *BrowserSession { return s.sessions[id] }

// LiveSessions is activeBrowserSessions of the last response that had it.
func (s *Store) LiveSessions() []LiveSession { return s.live }

// Errors is every error entry in timeline order.
func (s *Store) Errors() []*ErrorEntry { return s.errors }

// Reasoning is every reasoning.summary event in timeline order.
func (s *Store) Reasoning() []*Event { return s.reasoning }

// Rejected is every event set aside, in the order first seen.
func (s *Store) Rejected() []Rejected { return s.rejected }

// UnknownEvents counts events whose type the spec does not name.
func (s *Store) UnknownEvents() int { return s.unknown }
