package model

import (
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// EventType is the discriminator of a trace event. The set is open: a value
// the spec does not name is kept as it is and the event stays in the timeline.
type EventType string

// The 13 event types of the spec.
const (
	TypeRunStarted             EventType = "run.started"
	TypeRunCancelRequested     EventType = "run.cancel_requested"
	TypeRunFinished            EventType = "run.finished"
	TypeAgentStarted           EventType = "agent.started"
	TypeAgentFinished          EventType = "agent.finished"
	TypeBrowserSessionStarted  EventType = "browser.session.started"
	TypeBrowserSessionFinished EventType = "browser.session.finished"
	TypeProgressReported       EventType = "progress.reported"
	TypeReasoningSummary       EventType = "reasoning.summary"
	TypeToolCallStarted        EventType = "tool_call.started"
	TypeToolCallFinished       EventType = "tool_call.finished"
	TypeArtifactUpdated        EventType = "artifact.updated"
	TypeErrorOccurred          EventType = "error.occurred"

	// TypeUsageRecorded is internal to the service and never shown; if it
	// arrives anyway it is dropped.
	TypeUsageRecorded EventType = "usage.recorded"
)

// Known reports whether t is one of the 13 types of the spec.
func (t EventType) Known() bool {
	switch t {
	case TypeRunStarted, TypeRunCancelRequested, TypeRunFinished,
		TypeAgentStarted, TypeAgentFinished,
		TypeBrowserSessionStarted, TypeBrowserSessionFinished,
		TypeProgressReported, TypeReasoningSummary,
		TypeToolCallStarted, TypeToolCallFinished,
		TypeArtifactUpdated, TypeErrorOccurred:
		return true
	}
	return false
}

// Role of an agent: orchestrator, subagent, system, or anything else the
// service sends (the Python SDK already accepts "browser").
type Role string

const (
	RoleOrchestrator Role = "orchestrator"
	RoleSubagent     Role = "subagent"
	RoleSystem       Role = "system"
)

// Outcome of a run or an agent. Open: unknown values are kept.
type Outcome string

const (
	OutcomeSucceeded          Outcome = "succeeded"
	OutcomeFailed             Outcome = "failed"
	OutcomeCancelled          Outcome = "cancelled"
	OutcomeRefused            Outcome = "refused"
	OutcomeCreditLimitReached Outcome = "credit_limit_reached"
)

// Phase of the run as the orchestrator reports it. Open.
type Phase string

const (
	PhasePlanning   Phase = "planning"
	PhaseWorking    Phase = "working"
	PhaseFinalizing Phase = "finalizing"
)

// ArtifactKind is the kind of an artifact's content. Open.
type ArtifactKind string

const (
	KindJSON       ArtifactKind = "json"
	KindMarkdown   ArtifactKind = "markdown"
	KindHTML       ArtifactKind = "html"
	KindScreenshot ArtifactKind = "screenshot"
	KindText       ArtifactKind = "text"
)

// Change says how an artifact changed. Open.
type Change string

const (
	ChangeInit    Change = "init"
	ChangePartial Change = "partial"
	ChangeAppend  Change = "append"
	ChangeModify  Change = "modify"
	ChangeUpdate  Change = "update"
)

// ErrorCode of a trace error. Open.
type ErrorCode string

const (
	CodeCancelled          ErrorCode = "cancelled"
	CodeCreditLimitReached ErrorCode = "credit_limit_reached"
	CodeParentFinished     ErrorCode = "parent_finished"
	CodeRefused            ErrorCode = "refused"
	CodeInternal           ErrorCode = "internal"
)

// ErrorSource says where a trace error came from. Open.
type ErrorSource string

const (
	SourceAgent   ErrorSource = "agent"
	SourceTool    ErrorSource = "tool"
	SourceBilling ErrorSource = "billing"
	SourceSystem  ErrorSource = "system"
)

// AgentRef is the emitter of an event as the event names it.
type AgentRef struct {
	ID       string
	Role     Role
	Name     string
	ParentID string // "" when absent
}

// TraceError is the structured error of run.finished, agent.finished and
// error.occurred. All strings are sanitised.
type TraceError struct {
	Code      ErrorCode   `json:"code"`
	Source    ErrorSource `json:"source"`
	Retryable bool        `json:"retryable"`
	Message   string      `json:"message"`
}

// ArtifactRef is the artifact descriptor carried by artifact.updated. It
// references a snapshot; it never holds content.
type ArtifactRef struct {
	Kind             ArtifactKind
	ArtifactID       string
	Path             string // "" when absent
	SnapshotID       string
	Change           Change
	ChangedFields    []string
	ItemCount        int
	HasItemCount     bool
	SourceToolCallID string // "" when absent
}

// Event is one trace event: the envelope, the payload of its type and the
// exact bytes the server sent.
//
// Every string field is sanitised for a terminal (see text.Sanitize). Raw is the
// event object byte for byte as received, for JSON output and export; it must
// not be modified.
type Event struct {
	SchemaVersion    int
	ID               string
	RunID            string
	OccurredAt       time.Time // zero when the server's value did not parse
	ProducerSequence int64
	Agent            AgentRef
	Type             EventType

	// Payload holds the type's fields: one of the payload types below, or
	// Unknown for a type the spec does not name.
	Payload Payload

	Raw jsontext.Value

	// seq is the order in which the store first saw the event; pos is its
	// index in the timeline; tkey is its occurredAt as the timeline orders
	// it; store is the store that holds it (an event belongs to one store:
	// another store merging it takes a copy).
	seq   int
	pos   int
	tkey  int64
	store *Store
}

// Seq is the order in which the store first saw the event (0, 1, 2, ...).
func (e *Event) Seq() int { return e.seq }

// Pos is the event's current index in the store's timeline. Late events can
// move it; read it after a merge, not across merges.
func (e *Event) Pos() int { return e.pos }

// Payload is the part of an event that depends on its type.
type Payload interface{ payload() }

// The payloads, one per event type.
type (
	RunStarted         struct{}
	RunCancelRequested struct{ Reason string }
	RunFinished        struct {
		Outcome Outcome
		Error   *TraceError // nil when succeeded (null or absent)
	}
	AgentStarted  struct{}
	AgentFinished struct {
		Outcome    Outcome
		DurationMs int64
		// HasDuration is false when durationMs was absent or out of
		// range (see MaxDurationMs); DurationMs is then 0.
		HasDuration bool
		Error       *TraceError
	}
	BrowserSessionStarted  struct{ SessionID string }
	BrowserSessionFinished struct {
		SessionID   string
		DurationMs  int64
		HasDuration bool // as AgentFinished's
	}
	ProgressReported struct {
		Phase   Phase
		Message string
	}
	ReasoningSummary struct{ Text string }
	ToolCallStarted  struct {
		ToolCallID string
		ToolName   string
		Parameters jsontext.Value // raw JSON, any value; nil when absent
	}
	ToolCallFinished struct {
		ToolCallID string
		ToolName   string
		Result     jsontext.Value // raw JSON, any value; nil when absent
	}
	ArtifactUpdated struct{ Artifact ArtifactRef }
	ErrorOccurred   struct{ Error TraceError }
	// Unknown is the payload of an event whose type the spec does not name.
	// Its fields are in the event's Raw bytes.
	Unknown struct{}
)

func (RunStarted) payload()             {}
func (RunCancelRequested) payload()     {}
func (RunFinished) payload()            {}
func (AgentStarted) payload()           {}
func (AgentFinished) payload()          {}
func (BrowserSessionStarted) payload()  {}
func (BrowserSessionFinished) payload() {}
func (ProgressReported) payload()       {}
func (ReasoningSummary) payload()       {}
func (ToolCallStarted) payload()        {}
func (ToolCallFinished) payload()       {}
func (ArtifactUpdated) payload()        {}
func (ErrorOccurred) payload()          {}
func (Unknown) payload()                {}

// LiveSession is one entry of activeBrowserSessions (trace with liveView=true).
type LiveSession struct {
	ID             string
	LiveViewURL    string
	ViewportWidth  int
	ViewportHeight int
}
