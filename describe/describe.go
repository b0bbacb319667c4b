// Package describe turns trace events and the figures of a run into short
// single-line text for people: the lines of the plain output and the rows of
// the UI's timeline, durations, credits and token counts.
//
// Everything it returns is one line of printable text: no escape sequences,
// no control, bidi or zero-width characters, newlines and tabs collapsed to
// spaces. Callers add colour from a Line's Level and cut to their width.
package describe

import (
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// Level is how a line should stand out. Callers map it to a colour (or to
// nothing at all without colour).
type Level int

const (
	Info Level = iota // ordinary progress
	Good              // something succeeded
	Warn              // worth a look: a non-fatal error, a cancel request
	Bad               // something failed
	Dim               // background detail: reasoning, browser sessions
)

func (l Level) String() string {
	switch l {
	case Info:
		return "info"
	case Good:
		return "good"
	case Warn:
		return "warn"
	case Bad:
		return "bad"
	case Dim:
		return "dim"
	}
	return "level(" + strconv.Itoa(int(l)) + ")"
}

// Line is the one-line form of an event.
type Line struct {
	// Kind is a short label: one of the Kind constants, or for an event
	// type the spec does not name, the type as sent (sanitised, at most
	// MaxKindWidth cells).
	Kind string
	// Detail is the essential detail, one line, at most MaxDetailWidth
	// cells; callers cut it further to their width.
	Detail string
	Level  Level
}

// Kinds of lines. KindWidth cells hold every one of them.
const (
	KindRun        = "run"
	KindAgent      = "agent"
	KindPhase      = "phase"
	KindThink      = "think"
	KindTool       = "tool"   // a tool call started
	KindToolDone   = "tool ✓" // a tool call finished
	KindToolFailed = "tool ✗" // a tool call finished with an error result
	KindArtifact   = "artifact"
	KindSession    = "session"
	KindError      = "error"
	KindCancel     = "cancel"

	// KindWidth is the display width of the longest known kind.
	KindWidth = 8
	// MaxKindWidth bounds the kind of an unknown event type.
	MaxKindWidth = 24
	// MaxDetailWidth bounds every Detail.
	MaxDetailWidth = 400
)

// Widths used inside details.
const (
	paramsWidth  = 160 // a tool call's parameters
	resultWidth  = 100 // a tool call's result
	unknownWidth = 200 // the fields of an unknown event
	idWidth      = 8   // ids shown in short form
)

// Event describes one event. s may be nil; with the store a tool call's
// finish shows its duration from its start, and an agent's start names its
// parent.
func Event(e *model.Event, s *model.Store) Line {
	if e == nil {
		return Line{Kind: "?", Detail: "", Level: Dim}
	}
	l := event(e, s)
	l.Detail = OneLine(l.Detail, MaxDetailWidth)
	return l
}

func event(e *model.Event, s *model.Store) Line {
	switch p := e.Payload.(type) {
	case model.RunStarted:
		return Line{KindRun, "started", Info}
	case model.RunCancelRequested:
		d := "cancel requested"
		if p.Reason != "" {
			d += " (reason: " + p.Reason + ")"
		}
		return Line{KindCancel, d, Warn}
	case model.RunFinished:
		return Line{KindRun, finished(p.Outcome, p.Error, ""), Outcome(p.Outcome).Level}
	case model.AgentStarted:
		return Line{KindAgent, agentStarted(e, s), Info}
	case model.AgentFinished:
		in := "in " + text.Duration(ms(p.DurationMs))
		if !p.HasDuration {
			in = "" // absent or out of range (a bad value, not shown)
		}
		return Line{KindAgent, finished(p.Outcome, p.Error, in), Outcome(p.Outcome).Level}
	case model.BrowserSessionStarted:
		return Line{KindSession, "opened " + ShortID(p.SessionID), Dim}
	case model.BrowserSessionFinished:
		if !p.HasDuration {
			return Line{KindSession, "closed " + ShortID(p.SessionID), Dim}
		}
		return Line{KindSession, "closed " + ShortID(p.SessionID) + " after " + text.Duration(ms(p.DurationMs)), Dim}
	case model.ProgressReported:
		return Line{KindPhase, join(": ", orDash(string(p.Phase)), p.Message), Info}
	case model.ReasoningSummary:
		return Line{KindThink, firstLine(p.Text), Dim}
	case model.ToolCallStarted:
		return Line{KindTool, join(" ", ToolName(p.ToolName), JSON(p.Parameters, paramsWidth)), Info}
	case model.ToolCallFinished:
		return toolFinished(p, s)
	case model.ArtifactUpdated:
		return Line{KindArtifact, artifact(p.Artifact), Info}
	case model.ErrorOccurred:
		return Line{KindError, Error(&p.Error), Warn}
	}
	// A type the spec does not name: show it as sent, and what it carries.
	kind := OneLine(string(e.Type), MaxKindWidth)
	if kind == "" {
		kind = "?"
	}
	return Line{kind, JSON(unknownFields(e.Raw), unknownWidth), Info}
}

// finished is "succeeded in 4.2s" or "failed in 4.2s: internal (agent): msg".
func finished(o model.Outcome, te *model.TraceError, after string) string {
	d := join(" ", Outcome(o).Word, after)
	if o != model.OutcomeSucceeded && te != nil {
		d += ": " + Error(te)
	}
	return d
}

func agentStarted(e *model.Event, s *model.Store) string {
	d := "started"
	role := string(e.Agent.Role)
	var parent string
	if s != nil && e.Agent.ParentID != "" {
		if p := s.Agent(e.Agent.ParentID); p != nil && p.Name != "" {
			parent = p.Name
		}
	}
	switch {
	case role != "" && parent != "":
		d += " (" + role + " of " + parent + ")"
	case role != "":
		d += " (" + role + ")"
	case parent != "":
		d += " (under " + parent + ")"
	}
	return d
}

func toolFinished(p model.ToolCallFinished, s *model.Store) Line {
	l := Line{Kind: KindToolDone, Level: Good}
	var parts []string
	parts = append(parts, ToolName(p.ToolName))
	var t *model.ToolCall
	if s != nil && p.ToolCallID != "" {
		t = s.ToolCall(p.ToolCallID)
	}
	if t != nil {
		if d, ok := t.Duration(); ok {
			parts = append(parts, text.Duration(d))
		}
	}
	if t != nil && t.Failed() || t == nil && model.ResultFailed(p.Result) {
		l.Kind, l.Level = KindToolFailed, Bad
	}
	if r := JSON(p.Result, resultWidth); r != "" {
		parts = append(parts, "→ "+r)
	}
	l.Detail = strings.Join(parts, " ")
	return l
}

// ToolName is how firewatch names a tool: as the service sent it
// ("mcp__tools__search"), "-" when it sent none. The timeline, the plain
// output, the tool calls pane and the details all write it so.
func ToolName(name string) string { return orDash(name) }

// ShortToolName is a tool's name without its MCP namespace
// (mcp__tools__scrape is "scrape"), for a label too narrow for ToolName:
// an agent's running call, an artifact's producer, the waterfall's and
// compare's narrow columns.
func ShortToolName(name string) string {
	if strings.HasPrefix(name, "mcp__") {
		if i := strings.LastIndex(name, "__"); i > 3 && i+2 < len(name) {
			return name[i+2:]
		}
	}
	return orDash(name)
}

// artifact is "/workspace/result.json (json) update, 12 items [pricing, plans]".
func artifact(a model.ArtifactRef) string {
	name := a.Path
	if name == "" {
		name = a.ArtifactID
	}
	d := orDash(name)
	if a.Kind != "" {
		d += " (" + string(a.Kind) + ")"
	}
	if a.Change != "" {
		d += " " + string(a.Change)
	}
	if a.HasItemCount {
		d += ", " + Count(a.ItemCount, "item")
	}
	if len(a.ChangedFields) > 0 {
		d += " [" + OneLine(strings.Join(a.ChangedFields, ", "), 60) + "]"
	}
	return d
}

// Error is the one-line form of a trace error:
// "internal (tool, retryable): upstream timed out".
func Error(te *model.TraceError) string {
	if te == nil {
		return ""
	}
	head := orDash(string(te.Code))
	var tags []string
	if te.Source != "" {
		tags = append(tags, string(te.Source))
	}
	if te.Retryable {
		tags = append(tags, "retryable")
	}
	if len(tags) > 0 {
		head += " (" + strings.Join(tags, ", ") + ")"
	}
	if te.Message != "" {
		head += ": " + te.Message
	}
	return OneLine(head, MaxDetailWidth)
}

// ShortID is the first 8 characters of an id (a UUID's first group), the
// whole id when it is short. A UUIDv7 (the service's run ids) starts with
// its creation time, the same for every run started in the same minute:
// its short form is its last 8 characters, which are random.
func ShortID(id string) string {
	if isUUIDv7(id) {
		return id[28:]
	}
	id = OneLine(id, 64)
	if len(id) <= idWidth {
		return id
	}
	r := []rune(id)
	if len(r) <= idWidth {
		return id
	}
	return string(r[:idWidth])
}

// isUUIDv7 reports whether id is a UUID of version 7 in its canonical form.
func isUUIDv7(id string) bool {
	u, err := uuid.Parse(id)
	return err == nil && len(id) == 36 && u.Version() == 7
}

// Count is "1 item", "12 items", "1,204 items".
func Count(n int, noun string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + noun
	}
	return Tokens(float64(n)) + " " + noun + "s"
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

func join(sep string, parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
