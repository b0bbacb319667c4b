package model

import "time"

// Summary is the machine-readable summary of a run (--summary). Its JSON
// field names and shapes are a contract: scripts read them.
type Summary struct {
	RunID           string      `json:"runId"`
	State           State       `json:"state"`
	Outcome         *Outcome    `json:"outcome"`
	Error           *TraceError `json:"error"`
	CancelRequested bool        `json:"cancelRequested"`
	// StartedBy and CancelledBy name who started or cancelled the run
	// through a hub (null when nobody did there, or firewatch did not see
	// it: a run cancelled by the service or another client).
	StartedBy   *string `json:"startedBy"`
	CancelledBy *string `json:"cancelledBy"`
	// StartedVia and CancelledVia name the hub it was done through
	// (firewatch hub --name; null when not known).
	StartedVia      *string           `json:"startedVia"`
	CancelledVia    *string           `json:"cancelledVia"`
	CreditsUsed     float64           `json:"creditsUsed"`
	TokensUsed      float64           `json:"tokensUsed"`
	StartedAt       *time.Time        `json:"startedAt"`
	FinishedAt      *time.Time        `json:"finishedAt"`
	DurationMs      *int64            `json:"durationMs"`
	EventCount      int               `json:"eventCount"`
	UnknownEvents   int               `json:"unknownEvents"`
	Timeline        []string          `json:"timeline"`
	Agents          []SummaryAgent    `json:"agents"`
	ToolCalls       []SummaryToolCall `json:"toolCalls"`
	Artifacts       []SummaryArtifact `json:"artifacts"`
	BrowserSessions []SummarySession  `json:"browserSessions"`
	Errors          []SummaryError    `json:"errors"`
	// SetAside is every event not used (malformed, another run's, a
	// changed duplicate, nested too deep), with why; BadValues every
	// number out of range that was not used (see MaxCredits).
	SetAside  []SummarySetAside `json:"setAside"`
	BadValues []Flaw            `json:"badValues"`
}

// SummarySetAside is one event set aside.
type SummarySetAside struct {
	EventID *string `json:"eventId"` // null when it could not be read
	Reason  string  `json:"reason"`
}

// SummaryAgent is one agent of the summary.
type SummaryAgent struct {
	ID         string   `json:"id"`
	Role       Role     `json:"role"`
	Name       string   `json:"name"`
	ParentID   *string  `json:"parentId"`
	State      State    `json:"state"`
	Outcome    *Outcome `json:"outcome"`
	DurationMs *int64   `json:"durationMs"`
	Events     []string `json:"events"`
}

// SummaryToolCall is one tool call of the summary.
type SummaryToolCall struct {
	ToolCallID      string  `json:"toolCallId"`
	ToolName        string  `json:"toolName"`
	AgentID         string  `json:"agentId"`
	State           State   `json:"state"`
	StartedEventID  *string `json:"startedEventId"`
	FinishedEventID *string `json:"finishedEventId"`
	DurationMs      *int64  `json:"durationMs"`
}

// SummaryArtifact is one artifact of the summary.
type SummaryArtifact struct {
	ArtifactID       string       `json:"artifactId"`
	Kind             ArtifactKind `json:"kind"`
	Path             *string      `json:"path"`
	LatestSnapshotID string       `json:"latestSnapshotId"`
	Updates          int          `json:"updates"`
	Snapshots        []string     `json:"snapshots"`
}

// SummarySession is one browser session of the summary.
type SummarySession struct {
	SessionID  string `json:"sessionId"`
	AgentID    string `json:"agentId"`
	State      State  `json:"state"`
	DurationMs *int64 `json:"durationMs"`
}

// SummaryError is one error of the summary.
type SummaryError struct {
	EventID   string      `json:"eventId"`
	AgentID   string      `json:"agentId"`
	Code      ErrorCode   `json:"code"`
	Source    ErrorSource `json:"source"`
	Retryable bool        `json:"retryable"`
	Message   string      `json:"message"`
	Fatal     bool        `json:"fatal"`
}

// Summary builds the machine-readable summary of the run as it stands.
func (s *Store) Summary() Summary {
	r := &s.run
	sum := Summary{
		RunID:           r.ID,
		State:           r.State,
		Error:           r.Error,
		CancelRequested: r.CancelRequested,
		CreditsUsed:     r.CreditsUsed,
		TokensUsed:      r.TokensUsed(),
		EventCount:      len(s.timeline.events),
		UnknownEvents:   s.unknown,
		Timeline:        make([]string, len(s.timeline.events)),
		Agents:          make([]SummaryAgent, 0, len(s.agentOrder)),
		ToolCalls:       make([]SummaryToolCall, 0, len(s.toolOrder)),
		Artifacts:       make([]SummaryArtifact, 0, len(s.artifactOrder)),
		BrowserSessions: make([]SummarySession, 0, len(s.sessionOrder)),
		Errors:          make([]SummaryError, 0, len(s.errors)),
		SetAside:        make([]SummarySetAside, 0, len(s.rejected)),
		BadValues:       append(make([]Flaw, 0, len(s.flaws)), s.flaws...),
	}
	for _, r := range s.rejected {
		sa := SummarySetAside{Reason: r.Reason}
		if r.EventID != "" {
			sa.EventID = ptr(r.EventID)
		}
		sum.SetAside = append(sum.SetAside, sa)
	}
	if r.State == StateFinished {
		sum.Outcome = ptr(r.Outcome)
	}
	sum.StartedBy, sum.StartedVia = ActorFields(s.actors.StartedBy)
	sum.CancelledBy, sum.CancelledVia = ActorFields(s.actors.CancelledBy)
	if !r.StartedAt.IsZero() {
		sum.StartedAt = ptr(r.StartedAt.UTC())
	}
	if !r.FinishedAt.IsZero() {
		sum.FinishedAt = ptr(r.FinishedAt.UTC())
	}
	if d, ok := r.Duration(); ok {
		sum.DurationMs = ptr(d.Milliseconds())
	}
	for i, e := range s.timeline.events {
		sum.Timeline[i] = e.ID
	}
	for _, a := range s.agentOrder {
		sa := SummaryAgent{ID: a.ID, Role: a.Role, Name: a.Name, State: a.State, Events: make([]string, len(a.Events))}
		if a.ParentID != "" {
			sa.ParentID = ptr(a.ParentID)
		}
		if a.State == StateFinished {
			sa.Outcome = ptr(a.Outcome)
		}
		if a.HasDuration {
			sa.DurationMs = ptr(a.DurationMs)
		}
		for i, e := range a.Events {
			sa.Events[i] = e.ID
		}
		sum.Agents = append(sum.Agents, sa)
	}
	for _, t := range s.toolOrder {
		st := SummaryToolCall{ToolCallID: t.ID, ToolName: t.Name, AgentID: t.AgentID, State: t.State}
		if t.Started != nil {
			st.StartedEventID = ptr(t.Started.ID)
		}
		if t.Finished != nil {
			st.FinishedEventID = ptr(t.Finished.ID)
		}
		if d, ok := t.Duration(); ok {
			st.DurationMs = ptr(d.Milliseconds())
		}
		sum.ToolCalls = append(sum.ToolCalls, st)
	}
	for _, art := range s.artifactOrder {
		sa := SummaryArtifact{ArtifactID: art.ID, Kind: art.Kind, LatestSnapshotID: art.Latest().Ref.SnapshotID, Updates: len(art.Versions), Snapshots: make([]string, len(art.Versions))}
		if art.Path != "" {
			sa.Path = ptr(art.Path)
		}
		for i, v := range art.Versions {
			sa.Snapshots[i] = v.Ref.SnapshotID
		}
		sum.Artifacts = append(sum.Artifacts, sa)
	}
	for _, b := range s.sessionOrder {
		ss := SummarySession{SessionID: b.ID, AgentID: b.AgentID, State: b.State}
		if b.HasDuration {
			ss.DurationMs = ptr(b.DurationMs)
		}
		sum.BrowserSessions = append(sum.BrowserSessions, ss)
	}
	for _, en := range s.errors {
		sum.Errors = append(sum.Errors, SummaryError{
			EventID: en.Event.ID, AgentID: en.AgentID, Code: en.Error.Code, Source: en.Error.Source,
			Retryable: en.Error.Retryable, Message: en.Error.Message, Fatal: en.Fatal,
		})
	}
	return sum
}

func ptr[T any](v T) *T { return &v }
