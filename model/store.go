package model

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Store is the run as the trace describes it so far: every distinct event,
// one timeline, and the state derived from them, kept up to date by each
// Merge. It is not safe for concurrent use: one goroutine merges and reads
// (the UI's update loop, or a printer).
type Store struct {
	dec *Decoder // for Ingest

	byID     map[string]*Event
	timeline timeline
	seen     int // events kept; the next one's seq

	agents     map[string]*Agent
	agentOrder []*Agent // tree order
	roots      []*Agent
	agentInfo  map[*Agent]*agentInfo

	toolCalls map[string]*ToolCall
	toolOrder []*ToolCall
	toolInfo  map[*ToolCall]*pairInfo

	sessions     map[string]*BrowserSession
	sessionOrder []*BrowserSession
	sessionInfo  map[*BrowserSession]*pairInfo

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
	dropped      int

	run  Run
	live []LiveSession
}

// agentInfo is what the store keeps about an agent beyond its public fields.
type agentInfo struct {
	lifecycle  []*Event // agent.started and agent.finished
	toolErrors []*ErrorEntry
}

// pairInfo holds the start and finish events of a tool call or session
// (normally one each; duplicates under one id are kept and the earliest
// used).
type pairInfo struct {
	starts, finishes []*Event
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{
		dec:             NewDecoder(),
		byID:            make(map[string]*Event),
		agents:          make(map[string]*Agent),
		agentInfo:       make(map[*Agent]*agentInfo),
		toolCalls:       make(map[string]*ToolCall),
		toolInfo:        make(map[*ToolCall]*pairInfo),
		sessions:        make(map[string]*BrowserSession),
		sessionInfo:     make(map[*BrowserSession]*pairInfo),
		artifacts:       make(map[string]*Artifact),
		artifactsByTool: make(map[string][]*Artifact),
		rejectedSeen:    make(map[string]bool),
		run:             Run{State: StateRunning},
	}
}

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

	TreeChanged  bool // agents added or moved in the tree
	RunChanged   bool // state, outcome, phase, cancel request
	Credits      bool // creditsUsed changed
	LiveSessions bool // the live sessions list was replaced
}

// Empty reports whether the merge changed nothing.
func (d *Delta) Empty() bool {
	return len(d.Events) == 0 && len(d.Rejected) == 0 && !d.Credits && !d.LiveSessions && !d.RunChanged
}

// Ingest decodes a trace response body with the store's own decoder and
// merges it: the one-goroutine way to use a store.
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
func (s *Store) Merge(p *Poll) Delta {
	d := Delta{From: len(s.timeline.events)}
	if p == nil {
		return d
	}
	ch := newChanges()

	if p.RunID != "" && s.run.ID == "" {
		s.run.ID = p.RunID
		d.RunChanged = true
	}
	if p.HasCredits && (!s.run.HasCredits || p.CreditsUsed > s.run.CreditsUsed) {
		s.run.CreditsUsed, s.run.HasCredits = p.CreditsUsed, true
		d.Credits = true
	}
	for _, r := range p.Rejected {
		k := string(r.Raw)
		if !s.rejectedSeen[k] {
			s.rejectedSeen[k] = true
			s.rejected = append(s.rejected, r)
			d.Rejected = append(d.Rejected, r)
		}
	}
	s.dropped += p.Dropped

	// Keep the new events and put each into its agent's order.
	type placed struct {
		a *Agent
		e *Event
	}
	var added []placed
	newAgents := false
	for _, e := range p.Events {
		if e == nil || e.ID == "" || s.byID[e.ID] != nil || e.Type == TypeUsageRecorded {
			continue
		}
		e.seq = s.seen
		e.pos = -1
		s.seen++
		s.byID[e.ID] = e
		a := s.agents[e.Agent.ID]
		if a == nil {
			a = &Agent{ID: e.Agent.ID, State: StateRunning}
			s.agents[a.ID] = a
			s.agentInfo[a] = &agentInfo{}
			newAgents = true
		}
		insertAgentEvent(a, e)
		added = append(added, placed{a, e})
		d.Events = append(d.Events, e)
		if s.run.ID == "" && e.RunID != "" {
			s.run.ID = e.RunID
		}
	}
	if len(added) == 0 {
		s.applyLive(p, &d)
		return d
	}

	// Find where the timeline must be merged again, then do it.
	tl := &s.timeline
	oldLen := len(tl.events)
	from := oldLen
	for _, pl := range added {
		i := slices.Index(pl.a.Events, pl.e) // new events are near the end
		if i > 0 && pl.a.Events[i-1].pos < 0 {
			continue // covered by the first of its run of new events
		}
		from = min(from, tl.restartPoint(pl.a, i))
	}
	affected := make([]*Agent, 0, len(s.agents))
	for _, a := range s.agents {
		affected = append(affected, a)
	}
	tl.remerge(from, affected, oldLen+len(added))
	d.From = from
	finished := s.run.State == StateFinished
	for _, pl := range added {
		if pl.e.pos < oldLen || finished {
			d.Late++
		}
	}
	moved := from < oldLen

	// Derive: each new event touches the entities it names.
	for _, pl := range added {
		s.derive(pl.a, pl.e, ch)
	}
	if newAgents || ch.identity {
		s.buildTree()
		d.TreeChanged = true
	}
	s.refresh(ch, moved, &d)
	s.applyLive(p, &d)
	return d
}

// changes collects what a merge touched, for refresh.
type changes struct {
	agents    map[*Agent]bool
	tools     map[*ToolCall]bool
	sessions  map[*BrowserSession]bool
	artifacts map[*Artifact]bool
	run       bool
	phase     bool
	errors    bool
	identity  bool
	newErrors []*ErrorEntry
}

func newChanges() *changes {
	return &changes{
		agents:    map[*Agent]bool{},
		tools:     map[*ToolCall]bool{},
		sessions:  map[*BrowserSession]bool{},
		artifacts: map[*Artifact]bool{},
	}
}

// derive records e in the entities it concerns.
func (s *Store) derive(a *Agent, e *Event, ch *changes) {
	ch.agents[a] = true
	if a.Events[0] == e {
		ch.identity = true
	}
	if !e.Type.Known() {
		s.unknown++
	}
	switch pl := e.Payload.(type) {
	case AgentStarted, AgentFinished:
		info := s.agentInfo[a]
		info.lifecycle = append(info.lifecycle, e)
		if f, ok := pl.(AgentFinished); ok && f.Outcome != OutcomeSucceeded {
			s.addError(e, f.Error, true, ch)
		}
	case RunStarted, RunCancelRequested:
		s.runEvents = append(s.runEvents, e)
		ch.run = true
	case RunFinished:
		s.runEvents = append(s.runEvents, e)
		ch.run = true
		if pl.Outcome != OutcomeSucceeded {
			s.addError(e, pl.Error, true, ch)
		}
	case ProgressReported:
		s.progress = append(s.progress, e)
		ch.phase = true
	case ReasoningSummary:
		s.reasoning = append(s.reasoning, e)
	case ToolCallStarted:
		t := s.toolCall(pl.ToolCallID, pl.ToolName, a)
		s.toolInfo[t].starts = append(s.toolInfo[t].starts, e)
		ch.tools[t] = true
	case ToolCallFinished:
		t := s.toolCall(pl.ToolCallID, pl.ToolName, a)
		s.toolInfo[t].finishes = append(s.toolInfo[t].finishes, e)
		ch.tools[t] = true
	case BrowserSessionStarted:
		b := s.session(pl.SessionID, a)
		s.sessionInfo[b].starts = append(s.sessionInfo[b].starts, e)
		ch.sessions[b] = true
	case BrowserSessionFinished:
		b := s.session(pl.SessionID, a)
		s.sessionInfo[b].finishes = append(s.sessionInfo[b].finishes, e)
		ch.sessions[b] = true
	case ArtifactUpdated:
		s.addArtifactVersion(e, ch)
	case ErrorOccurred:
		s.addError(e, &pl.Error, false, ch)
	}
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
		info := s.agentInfo[a]
		info.toolErrors = append(info.toolErrors, en)
	}
}

func (s *Store) toolCall(id, name string, a *Agent) *ToolCall {
	t := s.toolCalls[id]
	if t == nil {
		t = &ToolCall{ID: id, Name: name, AgentID: a.ID, Agent: a, State: StateRunning}
		s.toolCalls[id] = t
		s.toolInfo[t] = &pairInfo{}
		s.toolOrder = append(s.toolOrder, t)
		a.ToolCalls = append(a.ToolCalls, t)
	}
	return t
}

func (s *Store) session(id string, a *Agent) *BrowserSession {
	b := s.sessions[id]
	if b == nil {
		b = &BrowserSession{ID: id, AgentID: a.ID, Agent: a, State: StateRunning}
		s.sessions[id] = b
		s.sessionInfo[b] = &pairInfo{}
		s.sessionOrder = append(s.sessionOrder, b)
		a.Sessions = append(a.Sessions, b)
	}
	return b
}

func (s *Store) addArtifactVersion(e *Event, ch *changes) {
	ref := e.Payload.(ArtifactUpdated).Artifact
	art := s.artifacts[ref.ArtifactID]
	if art == nil {
		art = &Artifact{ID: ref.ArtifactID}
		s.artifacts[art.ID] = art
		s.artifactOrder = append(s.artifactOrder, art)
	}
	art.Versions = append(art.Versions, &ArtifactVersion{Event: e, Ref: ref})
	ch.artifacts[art] = true
	if id := ref.SourceToolCallID; id != "" && !slices.Contains(s.artifactsByTool[id], art) {
		s.artifactsByTool[id] = append(s.artifactsByTool[id], art)
	}
}

// byPos sorts events by timeline position.
func byPos(a, b *Event) int { return a.pos - b.pos }

// refresh recomputes the entities a merge touched, and re-sorts the ordered
// lists when the merge moved events already placed.
func (s *Store) refresh(ch *changes, moved bool, d *Delta) {
	byEvent := func(a, b *ErrorEntry) int { return byPos(a.Event, b.Event) }
	if moved {
		slices.SortStableFunc(s.reasoning, byPos)
		for _, a := range s.agents {
			slices.SortStableFunc(s.agentInfo[a].toolErrors, byEvent)
			ch.agents[a] = true
		}
		for _, t := range s.toolOrder {
			ch.tools[t] = true
		}
		for _, b := range s.sessionOrder {
			ch.sessions[b] = true
		}
		for _, art := range s.artifactOrder {
			ch.artifacts[art] = true
		}
		ch.run, ch.phase = true, true
	}
	if moved || ch.errors {
		slices.SortStableFunc(s.errors, byEvent)
	}
	if ch.run || ch.phase {
		s.refreshRun()
		d.RunChanged = true
		// The run's end turns running calls and sessions into unfinished.
		for _, t := range s.toolOrder {
			if t.Finished == nil {
				ch.tools[t] = true
			}
		}
		for _, b := range s.sessionOrder {
			if b.Finished == nil {
				ch.sessions[b] = true
			}
		}
	}
	for a := range ch.agents {
		if s.refreshAgentLifecycle(a) {
			// The agent's end turns its running calls into unfinished.
			for _, t := range a.ToolCalls {
				ch.tools[t] = true
			}
			for _, b := range a.Sessions {
				ch.sessions[b] = true
			}
		}
	}
	for t := range ch.tools {
		s.refreshToolCall(t)
		ch.agents[t.Agent] = true
		for _, art := range s.artifactsByTool[t.ID] {
			ch.artifacts[art] = true
		}
	}
	for b := range ch.sessions {
		s.refreshSession(b)
		ch.agents[b.Agent] = true
	}
	for art := range ch.artifacts {
		s.refreshArtifact(art)
	}
	for a := range ch.agents {
		s.refreshAgentActivity(a, moved)
	}
	if moved || len(ch.tools) > 0 {
		slices.SortStableFunc(s.toolOrder, func(a, b *ToolCall) int { return byPos(a.first(), b.first()) })
	}
	if moved || len(ch.sessions) > 0 {
		slices.SortStableFunc(s.sessionOrder, func(a, b *BrowserSession) int { return byPos(a.first(), b.first()) })
	}
	if moved || len(ch.artifacts) > 0 {
		slices.SortStableFunc(s.artifactOrder, func(a, b *Artifact) int { return byPos(a.Versions[0].Event, b.Versions[0].Event) })
	}

	// The delta, in a deterministic order: by first event.
	for a := range ch.agents {
		d.Agents = append(d.Agents, a)
	}
	for t := range ch.tools {
		d.ToolCalls = append(d.ToolCalls, t)
	}
	for b := range ch.sessions {
		d.Sessions = append(d.Sessions, b)
	}
	for art := range ch.artifacts {
		d.Artifacts = append(d.Artifacts, art)
	}
	slices.SortFunc(d.Agents, func(a, b *Agent) int { return byPos(a.Events[0], b.Events[0]) })
	slices.SortFunc(d.ToolCalls, func(a, b *ToolCall) int { return byPos(a.first(), b.first()) })
	slices.SortFunc(d.Sessions, func(a, b *BrowserSession) int { return byPos(a.first(), b.first()) })
	slices.SortFunc(d.Artifacts, func(a, b *Artifact) int { return byPos(a.Versions[0].Event, b.Versions[0].Event) })
	d.Errors = ch.newErrors
	slices.SortFunc(d.Errors, byEvent)
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

// latest is the event with the greatest timeline position.
func latest(es []*Event) *Event {
	var m *Event
	for _, e := range es {
		if m == nil || e.pos > m.pos {
			m = e
		}
	}
	return m
}

func (s *Store) refreshRun() {
	r := &s.run
	var started, finished, cancel []*Event
	for _, e := range s.runEvents {
		switch e.Type {
		case TypeRunStarted:
			started = append(started, e)
		case TypeRunFinished:
			finished = append(finished, e)
		case TypeRunCancelRequested:
			cancel = append(cancel, e)
		}
	}
	if e := earliest(started); e != nil && !e.OccurredAt.IsZero() {
		r.StartedAt = e.OccurredAt
	} else {
		r.StartedAt = s.earliestTime()
	}
	if e := latest(finished); e != nil {
		f := e.Payload.(RunFinished)
		r.State, r.Outcome, r.Error, r.Finished, r.FinishedAt = StateFinished, f.Outcome, f.Error, e, e.OccurredAt
	} else {
		r.State, r.Outcome, r.Error, r.Finished, r.FinishedAt = StateRunning, "", nil, nil, time.Time{}
	}
	r.CancelRequested = len(cancel) > 0
	r.CancelReason = ""
	if e := earliest(cancel); e != nil {
		r.CancelReason = e.Payload.(RunCancelRequested).Reason
	}
	slices.SortStableFunc(s.progress, byPos)
	r.Phase, r.Message, r.PhaseEvent, r.PhasesSeen = "", "", nil, r.PhasesSeen[:0]
	for _, e := range s.progress {
		pr := e.Payload.(ProgressReported)
		r.Phase, r.Message, r.PhaseEvent = pr.Phase, pr.Message, e
		if pr.Phase != "" && !slices.Contains(r.PhasesSeen, pr.Phase) {
			r.PhasesSeen = append(r.PhasesSeen, pr.Phase)
		}
	}
}

// earliestTime is the earliest known occurredAt of any event.
func (s *Store) earliestTime() time.Time {
	var t time.Time
	for _, a := range s.agents {
		// Clocks may disagree inside an agent too; look at all its events
		// only when its first is unknown.
		for _, e := range a.Events {
			if !e.OccurredAt.IsZero() {
				if t.IsZero() || e.OccurredAt.Before(t) {
					t = e.OccurredAt
				}
				break
			}
		}
	}
	return t
}

// refreshAgentLifecycle recomputes identity, state and outcome; it reports
// whether the agent's finished state changed.
func (s *Store) refreshAgentLifecycle(a *Agent) bool {
	info := s.agentInfo[a]
	var start, fin *Event
	for _, e := range info.lifecycle {
		switch e.Type {
		case TypeAgentStarted:
			if start == nil || cmpAgentOrder(e, start) < 0 {
				start = e
			}
		case TypeAgentFinished:
			if fin == nil || cmpAgentOrder(e, fin) > 0 {
				fin = e
			}
		}
	}
	id := a.Events[0]
	if start != nil {
		id = start
	}
	a.Role, a.Name, a.ParentID = id.Agent.Role, id.Agent.Name, id.Agent.ParentID
	a.StartedAt = id.OccurredAt
	was := a.State
	a.State, a.Outcome, a.DurationMs, a.HasDuration, a.Error, a.FinishedAt = StateRunning, "", 0, false, nil, time.Time{}
	if fin != nil {
		f := fin.Payload.(AgentFinished)
		a.State, a.Outcome, a.DurationMs, a.HasDuration, a.Error, a.FinishedAt = StateFinished, f.Outcome, f.DurationMs, true, f.Error, fin.OccurredAt
	}
	a.LastEvent = a.Events[len(a.Events)-1]
	return was != a.State
}

// refreshAgentActivity recounts what the agent has running and links its
// tool errors to calls.
func (s *Store) refreshAgentActivity(a *Agent, moved bool) {
	if moved {
		slices.SortStableFunc(a.ToolCalls, func(x, y *ToolCall) int { return byPos(x.first(), y.first()) })
		slices.SortStableFunc(a.Sessions, func(x, y *BrowserSession) int { return byPos(x.first(), y.first()) })
	}
	a.RunningTools, a.OpenSessions = 0, 0
	for _, t := range a.ToolCalls {
		if t.State == StateRunning {
			a.RunningTools++
		}
		t.Errors = t.Errors[:0]
	}
	for _, b := range a.Sessions {
		if b.State == StateRunning {
			a.OpenSessions++
		}
	}
	// A tool error belongs to the call the agent most recently started
	// before it (the agent's calls are in start order, which within one
	// agent is its own order).
	for _, en := range s.agentInfo[a].toolErrors {
		i := sort.Search(len(a.ToolCalls), func(i int) bool { return a.ToolCalls[i].first().pos >= en.Event.pos })
		for i--; i >= 0; i-- {
			if t := a.ToolCalls[i]; t.Started != nil {
				t.Errors = append(t.Errors, en)
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

func (s *Store) refreshToolCall(t *ToolCall) {
	info := s.toolInfo[t]
	t.Started, t.Finished = earliest(info.starts), earliest(info.finishes)
	t.Parameters, t.Result = nil, nil
	if t.Started != nil {
		st := t.Started.Payload.(ToolCallStarted)
		t.Parameters, t.Name = st.Parameters, st.ToolName
		if a := s.agents[t.Started.Agent.ID]; a != t.Agent {
			// Finished by one agent, started by another: the start wins.
			t.Agent.ToolCalls = slices.DeleteFunc(t.Agent.ToolCalls, func(x *ToolCall) bool { return x == t })
			t.Agent, t.AgentID = a, a.ID
			a.ToolCalls = append(a.ToolCalls, t)
			slices.SortStableFunc(a.ToolCalls, func(x, y *ToolCall) int { return byPos(x.first(), y.first()) })
		}
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
	t.failed = resultHasError(t.Result)
	t.Artifacts = s.artifactsByTool[t.ID]
}

func (s *Store) refreshSession(b *BrowserSession) {
	info := s.sessionInfo[b]
	b.Started, b.Finished = earliest(info.starts), earliest(info.finishes)
	if b.Started != nil {
		if a := s.agents[b.Started.Agent.ID]; a != b.Agent {
			b.Agent.Sessions = slices.DeleteFunc(b.Agent.Sessions, func(x *BrowserSession) bool { return x == b })
			b.Agent, b.AgentID = a, a.ID
			a.Sessions = append(a.Sessions, b)
			slices.SortStableFunc(a.Sessions, func(x, y *BrowserSession) int { return byPos(x.first(), y.first()) })
		}
	}
	b.DurationMs, b.HasDuration = 0, false
	switch {
	case b.Finished != nil:
		b.State = StateFinished
		b.DurationMs, b.HasDuration = b.Finished.Payload.(BrowserSessionFinished).DurationMs, true
	case s.ended(b.Agent):
		b.State = StateUnfinished
	default:
		b.State = StateRunning
	}
}

func (s *Store) refreshArtifact(art *Artifact) {
	slices.SortStableFunc(art.Versions, func(a, b *ArtifactVersion) int { return byPos(a.Event, b.Event) })
	for _, v := range art.Versions {
		v.SourceToolCall = nil
		if id := v.Ref.SourceToolCallID; id != "" {
			v.SourceToolCall = s.toolCalls[id]
		}
	}
	l := art.Latest()
	art.Kind, art.Path = l.Ref.Kind, l.Ref.Path
}

// buildTree places every agent in the tree: under its parent when that
// parent is known and no cycle results, else under the primary root
// (marked Orphan). The primary root is the earliest orchestrator.
func (s *Store) buildTree() {
	all := make([]*Agent, 0, len(s.agents))
	for _, a := range s.agents {
		a.Parent, a.Children, a.Depth, a.Orphan = nil, a.Children[:0], 0, false
		all = append(all, a)
	}
	byStart := func(a, b *Agent) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	}
	slices.SortFunc(all, byStart)

	var primary *Agent
	for _, a := range all {
		if a.Role == RoleOrchestrator && (a.ParentID == "" || a.ParentID == a.ID) {
			primary = a
			break
		}
	}
	s.roots = s.roots[:0]
	placed := make(map[*Agent]bool, len(all))
	var place func(a *Agent, parent *Agent, depth int)
	place = func(a *Agent, parent *Agent, depth int) {
		placed[a] = true
		a.Parent, a.Depth = parent, depth
		if parent != nil {
			parent.Children = append(parent.Children, a)
		} else {
			s.roots = append(s.roots, a)
		}
		for _, c := range all {
			if !placed[c] && c.ParentID == a.ID && c != a {
				place(c, a, depth+1)
			}
		}
	}
	if primary != nil {
		place(primary, nil, 0)
	}
	for _, a := range all {
		if !placed[a] && (a.ParentID == "" || a.ParentID == a.ID) {
			place(a, nil, 0)
		}
	}
	// What is left has a parent never seen, or sits on a cycle.
	for {
		var next *Agent
		for _, a := range all {
			if !placed[a] && s.agents[a.ParentID] == nil {
				next = a
				break
			}
		}
		if next == nil {
			for _, a := range all {
				if !placed[a] {
					next = a
					break
				}
			}
		}
		if next == nil {
			break
		}
		if primary != nil {
			place(next, primary, 1)
		} else {
			place(next, nil, 0)
		}
		next.Orphan = true
		// place() visits descendants with the depth of where it hangs.
		fixDepth(next)
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

func fixDepth(a *Agent) {
	for _, c := range a.Children {
		c.Depth = a.Depth + 1
		fixDepth(c)
	}
}

func (s *Store) applyLive(p *Poll, d *Delta) {
	if !p.HasLiveSessions {
		return
	}
	if !slices.Equal(s.live, p.LiveSessions) || (s.live == nil) != (p.LiveSessions == nil) {
		d.LiveSessions = true
	}
	s.live = p.LiveSessions
	for _, b := range s.sessionOrder {
		b.Live = nil
	}
	for i := range s.live {
		if b := s.sessions[s.live[i].ID]; b != nil {
			b.Live = &s.live[i]
		}
	}
}

// resultHasError reports whether a tool result is an object that says it
// failed: a non-null "error", "isError": true or "success": false.
func resultHasError(v jsontext.Value) bool {
	if len(v) == 0 || v[0] != '{' {
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
func (s *Store) Event(id string) *Event { return s.byID[id] }

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
