package model

import (
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// State of an agent, a tool call or a browser session.
type State string

const (
	StateRunning  State = "running"
	StateFinished State = "finished"
	// StateUnfinished: the run (or the owning agent) ended while this was
	// still running.
	StateUnfinished State = "unfinished"
)

// Agent is one node of the agent tree, kept up to date by each merge.
type Agent struct {
	ID       string
	Role     Role
	Name     string
	ParentID string // as the events say; "" for the root

	// Tree position. Parent is nil for a root. Orphan is set when the
	// parent named by ParentID was never seen (or the parent links form a
	// cycle): the agent then hangs under the primary root.
	Parent   *Agent
	Children []*Agent
	Depth    int
	Orphan   bool

	State       State // running or finished
	Outcome     Outcome
	DurationMs  int64 // from agent.finished
	HasDuration bool
	Error       *TraceError
	StartedAt   time.Time // agent.started, else its first event
	FinishedAt  time.Time // agent.finished

	// Events in producerSequence order.
	Events []*Event

	ToolCalls    []*ToolCall       // in start order
	Sessions     []*BrowserSession // in start order
	RunningTools int               // tool calls still running
	OpenSessions int               // browser sessions still open
	Errors       int               // error entries (fatal or not) of this agent
	LastEvent    *Event            // last in producerSequence order

	// CurrentTool is the latest-started tool call still running and
	// CurrentSession the latest-started browser session still open; nil
	// when there is none (always nil once the agent or the run is over).
	CurrentTool    *ToolCall
	CurrentSession *BrowserSession

	info agentInfo
	mark int
}

// EventCount is the number of the agent's events kept.
func (a *Agent) EventCount() int { return len(a.Events) }

// Activity says in a few words what the agent is doing now: the tool it is
// calling, else browsing, else what its last event was. It is "" once the
// agent has finished. The text is made of sanitised strings.
func (a *Agent) Activity() string {
	switch {
	case a.State == StateFinished:
		return ""
	case a.CurrentTool != nil:
		if a.CurrentTool.Name == "" {
			return "calling a tool"
		}
		return "calling " + a.CurrentTool.Name
	case a.CurrentSession != nil:
		return "browsing"
	case a.LastEvent == nil:
		return ""
	}
	switch p := a.LastEvent.Payload.(type) {
	case AgentStarted:
		return "starting"
	case ReasoningSummary:
		return "thinking"
	case ProgressReported:
		if p.Message != "" {
			return p.Message
		}
		return string(p.Phase)
	case ToolCallFinished:
		return "finished " + p.ToolName
	case ArtifactUpdated:
		return "writing " + p.Artifact.ArtifactID
	case ErrorOccurred:
		return "error: " + p.Error.Message
	case BrowserSessionFinished:
		return "done browsing"
	}
	return string(a.LastEvent.Type)
}

// ToolCall pairs tool_call.started and tool_call.finished by toolCallId.
type ToolCall struct {
	ID      string
	Name    string
	AgentID string
	Agent   *Agent

	Started  *Event // nil for a finish without a start
	Finished *Event // nil while running
	State    State  // running, finished or unfinished

	Parameters jsontext.Value // nil when not started or absent
	Result     jsontext.Value // nil when not finished or absent

	// Errors are tool errors (error.occurred with source "tool") the same
	// agent reported while or right after this call ran.
	Errors []*ErrorEntry
	// Artifacts updated with this call as sourceToolCallId.
	Artifacts []*Artifact

	// failed is resultHasError(Result): 0 not known yet, 1 no, 2 yes.
	// Readers fill it, and several may read one shared store at once.
	failed atomic.Int32
	pair   pairInfo
	mark   int
	openIn *Agent // the agent whose open list holds it
}

// StartedAt is the start event's time, zero when unknown.
func (t *ToolCall) StartedAt() time.Time {
	if t.Started == nil {
		return time.Time{}
	}
	return t.Started.OccurredAt
}

// FinishedAt is the finish event's time, zero when unknown.
func (t *ToolCall) FinishedAt() time.Time {
	if t.Finished == nil {
		return time.Time{}
	}
	return t.Finished.OccurredAt
}

// Duration is finish minus start; ok is false unless both are known and
// Span trusts them.
func (t *ToolCall) Duration() (d time.Duration, ok bool) {
	if t.Started == nil || t.Finished == nil {
		return 0, false
	}
	return Span(t.Started.OccurredAt, t.Finished.OccurredAt)
}

// Failed reports whether the call ended in error: a tool error was reported
// for it, or its result is an object that says so (a non-null "error",
// "isError": true or "success": false). The result is looked at on the
// first call only.
func (t *ToolCall) Failed() bool {
	if len(t.Errors) > 0 {
		return true
	}
	f := t.failed.Load()
	if f == 0 {
		f = 1
		if resultHasError(t.Result) {
			f = 2
		}
		t.failed.Store(f)
	}
	return f == 2
}

// Artifact is one output artifact with its snapshot history.
type Artifact struct {
	ID   string
	Kind ArtifactKind // of the latest version
	Path string       // of the latest version
	// Versions in timeline order; the last one is the latest.
	Versions []*ArtifactVersion

	mark int
}

// Latest is the newest version; never nil for an artifact in the store.
func (a *Artifact) Latest() *ArtifactVersion { return a.Versions[len(a.Versions)-1] }

// ArtifactVersion is one artifact.updated event.
type ArtifactVersion struct {
	Event *Event
	Ref   ArtifactRef // the event's descriptor
	// SourceToolCall is the call named by sourceToolCallId, nil when absent
	// or not (yet) seen.
	SourceToolCall *ToolCall
}

// BrowserSession pairs browser.session.started and .finished by sessionId.
type BrowserSession struct {
	ID      string
	AgentID string
	Agent   *Agent

	Started  *Event
	Finished *Event
	State    State // running (open), finished (closed) or unfinished

	DurationMs  int64 // from the finish event
	HasDuration bool

	// Live is the session's entry in the last response's
	// activeBrowserSessions, nil when it is not there.
	Live *LiveSession

	pair   pairInfo
	mark   int
	openIn *Agent // the agent whose open list holds it
}

// ErrorEntry is a non-fatal error.occurred, or a fatal error: a failed (not
// succeeded) agent.finished or run.finished.
type ErrorEntry struct {
	Event   *Event
	AgentID string
	Error   TraceError
	Fatal   bool

	call *ToolCall // the call it is linked to (a tool error), if any
}

// Run is the run as a whole.
type Run struct {
	ID    string
	State State // running or finished

	Outcome  Outcome     // "" while running
	Error    *TraceError // run.finished's error
	Finished *Event      // the run.finished event (the last one, if several)

	CancelRequested bool
	CancelReason    string

	StartedAt  time.Time // run.started (the first), else the earliest occurredAt
	FinishedAt time.Time // run.finished

	Phase      Phase  // from the latest progress.reported
	Message    string // its message
	PhaseEvent *Event
	PhasesSeen []Phase // distinct phases in the order first reached

	CreditsUsed float64 // the highest creditsUsed any response reported
	HasCredits  bool

	startSeen bool // a run.started with a known time gave StartedAt
}

// TokensPerCredit is the service's billing rate.
const TokensPerCredit = 15

// TokensUsed is CreditsUsed × 15.
func (r *Run) TokensUsed() float64 { return r.CreditsUsed * TokensPerCredit }

// Duration is finish minus start for a finished run; ok is false otherwise,
// and when Span does not trust the two times.
func (r *Run) Duration() (time.Duration, bool) {
	if r.State != StateFinished {
		return 0, false
	}
	return Span(r.StartedAt, r.FinishedAt)
}

// Span is end minus start, the one way a duration is derived from two
// occurredAt times. ok is false when either is unknown, when end comes
// before start (a run.started stamped in the future) or when they lie more
// than MaxDurationMs apart: a time that cannot be trusted is shown as
// unknown, never as a negative or absurd figure.
func Span(start, end time.Time) (time.Duration, bool) {
	if start.IsZero() || end.IsZero() {
		return 0, false
	}
	d := end.Sub(start)
	if d < 0 || d > MaxDurationMs*time.Millisecond {
		return 0, false
	}
	return d, true
}

// Rejected is an event set aside because it lacks a required envelope field
// (eventId, agent.id, type, producerSequence) or has a wrong type there.
type Rejected struct {
	Index   int    // position in the response's events array
	EventID string // when it could be read
	Reason  string
	Raw     jsontext.Value
}
