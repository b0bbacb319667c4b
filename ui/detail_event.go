package ui

import (
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

func newEventDetail(e *env, ev *model.Event) overlay {
	d := newDetailView(e, "Event "+string(ev.Type))
	l := describe.Event(ev, e.store)
	d.setHead([]textLine{{st: e.st.Bold, text: e.text(l.Kind + "  " + flat(l.Detail))}})
	f := &fields{env: e}
	f.field("type", string(ev.Type))
	f.field("event id", ev.ID)
	f.field("run id", ev.RunID)
	f.field("schema", itoa(ev.SchemaVersion))
	f.field("occurred at", f.when(ev.OccurredAt))
	f.field("agent", e.agentName(ev.Agent.ID))
	f.field("role", string(ev.Agent.Role))
	if ev.Agent.ParentID != "" {
		f.field("parent", e.agentName(ev.Agent.ParentID))
	}
	f.field("sequence", itoa(int(ev.ProducerSequence))+" (producerSequence)")
	var payload jsontext.Value
	payloadName := ""
	switch p := ev.Payload.(type) {
	case model.ReasoningSummary:
		f.heading("Reasoning")
		f.text(p.Text)
	case model.ProgressReported:
		f.field("phase", string(p.Phase))
		f.field("message", p.Message)
	case model.ToolCallStarted:
		f.field("tool", p.ToolName)
		f.field("tool call id", p.ToolCallID)
		f.field("parameters", describe.JSON(p.Parameters, 200))
		payload, payloadName = p.Parameters, "Parameters"
	case model.ToolCallFinished:
		f.field("tool", p.ToolName)
		f.field("tool call id", p.ToolCallID)
		if t := e.store.ToolCall(p.ToolCallID); t != nil {
			if dur, ok := t.Duration(); ok {
				f.field("duration", text.Duration(dur))
			}
		}
		f.field("result", describe.JSON(p.Result, 200))
		payload, payloadName = p.Result, "Result"
	case model.ErrorOccurred:
		f.traceError(&p.Error)
	case model.RunFinished:
		f.field("outcome", string(p.Outcome))
		f.traceError(p.Error)
	case model.AgentFinished:
		f.field("outcome", string(p.Outcome))
		if p.HasDuration {
			f.field("duration", text.Duration(time.Duration(p.DurationMs)*time.Millisecond))
		}
		f.traceError(p.Error)
	case model.ArtifactUpdated:
		a := p.Artifact
		f.field("artifact", a.ArtifactID)
		f.field("kind", string(a.Kind))
		f.field("path", a.Path)
		f.field("change", string(a.Change))
		f.field("fields", strings.Join(a.ChangedFields, ", "))
		if a.HasItemCount {
			f.field("items", itoa(a.ItemCount))
		}
		f.field("snapshot id", a.SnapshotID)
		f.field("tool call", a.SourceToolCallID)
	case model.BrowserSessionStarted:
		f.field("session id", p.SessionID)
	case model.BrowserSessionFinished:
		f.field("session id", p.SessionID)
		if p.HasDuration {
			f.field("duration", text.Duration(time.Duration(p.DurationMs)*time.Millisecond))
		}
	case model.RunCancelRequested:
		f.field("reason", p.Reason)
	}
	f.lines = append(f.lines, textLine{})
	f.muted(" tab shows the raw event · y copies it")
	d.addTab("Fields", newTextBody(e, f.lines))
	if payloadName != "" {
		d.addTab(payloadName, newJSONBody(e, payload, strings.ToLower(payloadName)))
	}
	d.addTab("Raw event", newJSONBody(e, ev.Raw, "raw event"))
	d.copy = func() (string, string) { return string(ev.Raw), "the raw event JSON" }
	if s := sessionOf(e, ev); s != nil {
		d.link = func() (string, string) { return liveLink(s), "live-view link" }
	}
	return d
}

// sessionOf is the browser session a browser.session.* event is about.
func sessionOf(e *env, ev *model.Event) *model.BrowserSession {
	switch p := ev.Payload.(type) {
	case model.BrowserSessionStarted:
		return e.store.Session(p.SessionID)
	case model.BrowserSessionFinished:
		return e.store.Session(p.SessionID)
	}
	return nil
}

// liveLink is a session's live-view link, "" when the poll did not ask
// for it or the session is not open.
func liveLink(b *model.BrowserSession) string {
	if b == nil || b.Live == nil {
		return ""
	}
	return b.Live.LiveViewURL
}
