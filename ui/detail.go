package ui

import (
	"bytes"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
)

// newDetail is what enter opens for the selected row. This is the seam for
// issue 7: it builds a minimal, plain view of the selection's fields (so
// enter is useful now); the detail views of the next issue (syntax-
// highlighted JSON, artifact content, version diffs) replace the body of
// this function and return their own overlays.
func newDetail(e *env, sel Selection) overlay {
	d := &detailBuilder{env: e}
	switch {
	case sel.Event != nil:
		d.event(sel.Event)
	case sel.ToolCall != nil:
		d.toolCall(sel.ToolCall)
	case sel.Agent != nil:
		d.agent(sel.Agent)
	case sel.Artifact != nil:
		d.artifact(sel.Artifact)
	case sel.Session != nil:
		d.session(sel.Session)
	}
	return &textView{name: d.name, lines: d.lines, ascii: e.ascii}
}

type detailBuilder struct {
	env   *env
	name  string
	lines []textLine
}

func (d *detailBuilder) field(label, value string) {
	if value == "" {
		return
	}
	d.lines = append(d.lines, textLine{st: d.env.st.Text, text: padRight(label, 14) + " " + value, hang: 15})
}

func (d *detailBuilder) heading(s string) {
	d.lines = append(d.lines, textLine{}, textLine{st: d.env.st.Bold, text: s})
}

func (d *detailBuilder) text(s string) {
	for _, l := range strings.Split(model.Sanitize(s), "\n") {
		d.lines = append(d.lines, textLine{st: d.env.st.Text, text: "  " + l})
	}
}

// maxJSONLines bounds a value shown in the minimal detail view.
const maxJSONLines = 400

// json shows a raw JSON value indented, sanitised (it is server bytes).
func (d *detailBuilder) json(v jsontext.Value) {
	if len(v) == 0 {
		d.text("(absent)")
		return
	}
	out := bytes.Clone(v)
	val := jsontext.Value(out)
	if err := val.Indent(jsontext.WithIndent("  ")); err != nil {
		val = v
	}
	lines := strings.Split(string(val), "\n")
	if len(lines) > maxJSONLines {
		lines = append(lines[:maxJSONLines], "… "+describe.Count(len(lines)-maxJSONLines, "more line"))
	}
	for _, l := range lines {
		d.lines = append(d.lines, textLine{st: d.env.st.Text, text: "  " + model.Sanitize(l)})
	}
}

// when is a time in local time and relative to the run's start.
func (d *detailBuilder) when(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	s := t.In(d.env.loc).Format("2006-01-02 15:04:05.000 MST")
	if start := d.env.store.Run().StartedAt; !start.IsZero() {
		rel := t.Sub(start)
		sign := "+"
		if rel < 0 {
			sign, rel = "-", -rel
		}
		s += "  (" + sign + describe.Duration(rel) + " into the run)"
	}
	return s
}

func (d *detailBuilder) agentName(id string) string {
	if a := d.env.store.Agent(id); a != nil && a.Name != "" {
		return a.Name + " (" + id + ")"
	}
	return id
}

func (d *detailBuilder) event(e *model.Event) {
	l := describe.Event(e, d.env.store)
	d.name = "Event " + string(e.Type)
	d.field("type", string(e.Type))
	if _, ok := e.Payload.(model.ReasoningSummary); !ok {
		d.field("summary", d.env.text(l.Kind+" "+l.Detail))
	}
	d.field("event id", e.ID)
	d.field("occurred at", d.when(e.OccurredAt))
	d.field("agent", d.agentName(e.Agent.ID))
	d.field("role", string(e.Agent.Role))
	if e.Agent.ParentID != "" {
		d.field("parent", d.agentName(e.Agent.ParentID))
	}
	d.field("sequence", itoa(int(e.ProducerSequence)))
	switch p := e.Payload.(type) {
	case model.ReasoningSummary:
		d.heading("Reasoning")
		d.text(p.Text)
	case model.ProgressReported:
		d.field("phase", string(p.Phase))
		d.heading("Message")
		d.text(p.Message)
	case model.ToolCallStarted:
		d.field("tool", p.ToolName)
		d.field("tool call id", p.ToolCallID)
		d.heading("Parameters")
		d.json(p.Parameters)
	case model.ToolCallFinished:
		d.field("tool", p.ToolName)
		d.field("tool call id", p.ToolCallID)
		d.heading("Result")
		d.json(p.Result)
	case model.ErrorOccurred:
		d.traceError(&p.Error)
	case model.RunFinished:
		d.field("outcome", string(p.Outcome))
		d.traceError(p.Error)
	case model.AgentFinished:
		d.field("outcome", string(p.Outcome))
		d.field("duration", describe.Duration(time.Duration(p.DurationMs)*time.Millisecond))
		d.traceError(p.Error)
	case model.ArtifactUpdated:
		a := p.Artifact
		d.field("artifact", a.ArtifactID)
		d.field("kind", string(a.Kind))
		d.field("path", a.Path)
		d.field("change", string(a.Change))
		d.field("fields", strings.Join(a.ChangedFields, ", "))
		if a.HasItemCount {
			d.field("items", itoa(a.ItemCount))
		}
		d.field("snapshot id", a.SnapshotID)
		d.field("tool call", a.SourceToolCallID)
	case model.BrowserSessionStarted:
		d.field("session id", p.SessionID)
	case model.BrowserSessionFinished:
		d.field("session id", p.SessionID)
		d.field("duration", describe.Duration(time.Duration(p.DurationMs)*time.Millisecond))
	case model.RunCancelRequested:
		d.field("reason", p.Reason)
	}
	d.heading("Raw event")
	d.json(e.Raw)
}

func (d *detailBuilder) traceError(te *model.TraceError) {
	if te == nil {
		return
	}
	d.field("error code", string(te.Code))
	d.field("source", string(te.Source))
	d.field("retryable", retryable(te.Retryable))
	d.heading("Error message")
	d.text(te.Message)
}

func (d *detailBuilder) toolCall(t *model.ToolCall) {
	d.name = "Tool call " + t.Name
	d.field("tool", t.Name)
	d.field("tool call id", t.ID)
	d.field("agent", d.agentName(t.AgentID))
	d.field("state", string(t.State))
	if t.Failed() {
		d.field("failed", "yes")
	}
	d.field("started", d.when(t.StartedAt()))
	if t.Finished != nil {
		d.field("finished", d.when(t.FinishedAt()))
	}
	if dur, ok := t.Duration(); ok {
		d.field("duration", describe.Duration(dur))
	}
	for _, en := range t.Errors {
		d.heading("Error")
		d.text(describe.Error(&en.Error))
	}
	for _, a := range t.Artifacts {
		d.field("artifact", a.ID+" "+a.Path)
	}
	d.heading("Parameters")
	d.json(t.Parameters)
	if t.Finished != nil {
		d.heading("Result")
		d.json(t.Result)
	}
}

func (d *detailBuilder) agent(a *model.Agent) {
	d.name = "Agent " + a.Name
	d.field("name", a.Name)
	d.field("agent id", a.ID)
	d.field("role", string(a.Role))
	if a.ParentID != "" {
		d.field("parent", d.agentName(a.ParentID))
	}
	if a.Orphan {
		d.field("note", "its parent was never seen; shown under the root")
	}
	d.field("state", string(a.State))
	d.field("outcome", string(a.Outcome))
	d.field("started", d.when(a.StartedAt))
	if a.HasDuration {
		d.field("duration", describe.Duration(time.Duration(a.DurationMs)*time.Millisecond))
	}
	d.field("events", itoa(len(a.Events)))
	d.field("tool calls", itoa(len(a.ToolCalls))+" ("+itoa(a.RunningTools)+" running)")
	d.field("sessions", itoa(len(a.Sessions))+" ("+itoa(a.OpenSessions)+" open)")
	d.field("errors", itoa(a.Errors))
	if a.Error != nil {
		d.traceError(a.Error)
	}
}

func (d *detailBuilder) artifact(a *model.Artifact) {
	d.name = "Artifact " + a.ID
	d.field("artifact id", a.ID)
	d.field("kind", string(a.Kind))
	d.field("path", a.Path)
	d.field("versions", itoa(len(a.Versions)))
	d.heading("Versions, newest first")
	for i := len(a.Versions) - 1; i >= 0 && i >= len(a.Versions)-maxJSONLines; i-- {
		v := a.Versions[i]
		s := d.env.clockTime(v.Event.OccurredAt) + "  " + string(v.Ref.Change)
		if v.Ref.HasItemCount {
			s += "  " + describe.Count(v.Ref.ItemCount, "item")
		}
		if len(v.Ref.ChangedFields) > 0 {
			s += "  [" + strings.Join(v.Ref.ChangedFields, ", ") + "]"
		}
		if t := v.SourceToolCall; t != nil {
			s += "  " + d.env.sym.Arrow + " " + t.Name + " " + t.ID
		} else if id := v.Ref.SourceToolCallID; id != "" {
			s += "  " + d.env.sym.Arrow + " " + id
		}
		s += "  snapshot " + v.Ref.SnapshotID
		d.text(s)
	}
}

func (d *detailBuilder) session(b *model.BrowserSession) {
	d.name = "Browser session " + describe.ShortID(b.ID)
	d.field("session id", b.ID)
	d.field("agent", d.agentName(b.AgentID))
	d.field("state", string(b.State))
	if b.Started != nil {
		d.field("opened", d.when(b.Started.OccurredAt))
	}
	if b.Finished != nil {
		d.field("closed", d.when(b.Finished.OccurredAt))
	}
	if b.HasDuration {
		d.field("duration", describe.Duration(time.Duration(b.DurationMs)*time.Millisecond))
	}
	if b.Live != nil {
		d.field("live view", b.Live.LiveViewURL)
		if b.Live.ViewportWidth > 0 {
			d.field("viewport", itoa(b.Live.ViewportWidth)+"x"+itoa(b.Live.ViewportHeight))
		}
	}
}
