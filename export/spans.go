package export

import (
	"crypto/sha256"
	"encoding/binary"
	"hash/fnv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// Attribute keys beyond semconv's gen_ai.*: the ones Phoenix and Langfuse
// read to type a span, and firewatch's own.
const (
	keyOpenInferenceKind = attribute.Key("openinference.span.kind")
	keyLangfuseType      = attribute.Key("langfuse.observation.type")
	keyInputValue        = attribute.Key("input.value")
	keyOutputValue       = attribute.Key("output.value")

	keyRunID         = attribute.Key("firecrawl.run.id")
	keyOutcome       = attribute.Key("firecrawl.outcome")
	keyCredits       = attribute.Key("firecrawl.credits_used")
	keyTokens        = attribute.Key("firecrawl.tokens_used")
	keyCancel        = attribute.Key("firecrawl.cancel_requested")
	keyCancelReason  = attribute.Key("firecrawl.cancel_reason")
	keyPhase         = attribute.Key("firecrawl.phase")
	keyMessage       = attribute.Key("firecrawl.message")
	keyUnfinished    = attribute.Key("firecrawl.unfinished")
	keyRole          = attribute.Key("firecrawl.agent.role")
	keyDurationMs    = attribute.Key("firecrawl.duration_ms")
	keyOrphan        = attribute.Key("firecrawl.agent.orphan")
	keyToolState     = attribute.Key("firecrawl.tool.state")
	keySessionID     = attribute.Key("firecrawl.browser.session_id")
	keyErrSource     = attribute.Key("firecrawl.error.source")
	keyErrCode       = attribute.Key("firecrawl.error.code")
	keyErrRetryable  = attribute.Key("firecrawl.error.retryable")
	keyErrMessage    = attribute.Key("firecrawl.error.message")
	keyReasoning     = attribute.Key("firecrawl.reasoning.text")
	keyArtifactID    = attribute.Key("firecrawl.artifact.id")
	keyArtifactKind  = attribute.Key("firecrawl.artifact.kind")
	keyArtifactPath  = attribute.Key("firecrawl.artifact.path")
	keySnapshotID    = attribute.Key("firecrawl.artifact.snapshot_id")
	keyChange        = attribute.Key("firecrawl.artifact.change")
	keyItemCount     = attribute.Key("firecrawl.artifact.item_count")
	keySourceTool    = attribute.Key("firecrawl.artifact.source_tool_call_id")
	keyEventID       = attribute.Key("firecrawl.event.id")
	keyEventsDropped = attribute.Key("firecrawl.events_dropped")
	keyEffort        = attribute.Key("firecrawl.request.effort")
	keyURLs          = attribute.Key("firecrawl.request.urls")
	keyMaxCredits    = attribute.Key("firecrawl.request.max_credits")
	keyBilled        = attribute.Key("firecrawl.billed_credits")
	keyBilling       = attribute.Key("firecrawl.billing")
	keyAttention     = attribute.Key("firecrawl.attention_items")
	keyByAgent       = attribute.Key("firecrawl.credits_by_agent")
)

// maxPromptAttr bounds the prompt exported (bytes): a backend shows it, it
// need not hold a 10 000-character prompt whole.
const maxPromptAttr = 2000

// maxEvents bounds the span events of one span (a long-running agent can
// report thousands of reasoning summaries); the rest are counted in
// firecrawl.events_dropped.
const maxEvents = 1000

// provider is gen_ai.provider.name.
const provider = "firecrawl"

// spanData is one span as firewatch derives it from the store: plain data,
// turned into an SDK span by Exporter.emit.
type spanData struct {
	ID, Parent trace.SpanID // Parent is zero for the run span
	Name       string
	Kind       trace.SpanKind
	Start, End time.Time
	Attrs      []attribute.KeyValue
	Events     []spanEvent
	Status     codes.Code
	StatusMsg  string
}

type spanEvent struct {
	Name  string
	At    time.Time
	Attrs []attribute.KeyValue
}

// builder derives the spans of one store.
type builder struct {
	s       *model.Store
	jobID   string
	traceID trace.TraceID
	content bool
	secrets *text.Secrets
	last    time.Time     // the last event's time: where open spans end
	req     model.Request // what the run was asked to do
	facts   *Facts        // the record's figures, for the run span; nil when not given
}

func newBuilder(s *model.Store, jobID string, content bool, secrets *text.Secrets, req model.Request) *builder {
	if jobID == "" {
		jobID = s.Run().ID
	}
	b := &builder{s: s, jobID: jobID, traceID: TraceID(jobID), content: content, secrets: secrets}
	b.req = s.Request().Merge(req.Clean())
	b.last = lastTime(s)
	return b
}

// isError reports whether an outcome is an error for OpenTelemetry: only
// a failure. A cancel, an agent its parent's end cut short, a refusal and
// the credit cap are outcomes (firecrawl.outcome), their status Unset.
func isError(o model.Outcome, te *model.TraceError) bool {
	return o == model.OutcomeFailed && !model.Stopped(o, te)
}

// runName is the run span's name: the operation, the run's short id and
// the model, so runs tell apart in a backend's list; with content, the
// start of the prompt too.
func (b *builder) runName() string {
	name := semconv.GenAIOperationNameInvokeAgent.Value.AsString() + " run " + b.clean(describe.ShortID(b.jobID))
	if b.req.Model != "" {
		name += " " + b.clean(b.req.Model)
	}
	if b.content && b.req.Prompt != "" {
		name += ": " + truncate(b.clean(b.req.Prompt), 48)
	}
	return name
}

// truncate keeps at most n runes of s on one line, with an ellipsis when
// cut.
func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// requestAttrs are the run span's attributes of the request: the model,
// effort and cap always; the prompt and urls only with content.
func (b *builder) requestAttrs(attrs []attribute.KeyValue) []attribute.KeyValue {
	q := b.req
	if q.Model != "" {
		attrs = append(attrs, b.str(semconv.GenAIRequestModelKey, q.Model))
	}
	if q.Effort != "" {
		attrs = append(attrs, b.str(keyEffort, q.Effort))
	}
	if q.MaxCredits > 0 {
		attrs = append(attrs, keyMaxCredits.Float64(q.MaxCredits))
	}
	if !b.content {
		return attrs
	}
	if q.Prompt != "" {
		p := b.clean(q.Prompt)
		if len(p) > maxPromptAttr {
			p = strings.ToValidUTF8(p[:maxPromptAttr], "") + "…"
		}
		msg, _ := json.Marshal([]map[string]any{{"role": "user", "parts": []map[string]string{{"type": "text", "content": p}}}}, json.Deterministic(true))
		attrs = append(attrs, semconv.GenAIInputMessagesKey.String(string(msg)), keyInputValue.String(p))
	}
	if len(q.URLs) > 0 {
		urls := make([]string, len(q.URLs))
		for i, u := range q.URLs {
			urls[i] = b.clean(u)
		}
		attrs = append(attrs, keyURLs.StringSlice(urls))
	}
	return attrs
}

// factAttrs are the run span's attributes from the record's figures: the
// bill by the one rule (firecrawl.billing: billed, not billed or unknown;
// firecrawl.billed_credits when known), the number of attention items and
// each agent's estimated credits (a JSON object by agent id).
func (b *builder) factAttrs(attrs []attribute.KeyValue) []attribute.KeyValue {
	f := b.facts
	if f == nil {
		return attrs
	}
	switch {
	case !f.Bill.Known:
		attrs = append(attrs, keyBilling.String("unknown"))
	case f.Bill.Billed:
		attrs = append(attrs, keyBilling.String("billed"), keyBilled.Float64(f.Bill.Credits))
	default:
		attrs = append(attrs, keyBilling.String("not billed"), keyBilled.Float64(0))
	}
	attrs = append(attrs, keyAttention.Int(len(f.Attention)))
	if len(f.CreditsByAgent) > 0 {
		j, _ := json.Marshal(f.CreditsByAgent, json.Deterministic(true)) // keys in order
		attrs = append(attrs, keyByAgent.String(string(j)))
	}
	return attrs
}

// TraceID is the trace id of the run with this job id: the first 16 bytes
// of SHA-256("firewatch trace " + jobID).
func TraceID(jobID string) trace.TraceID {
	sum := sha256.Sum256([]byte("firewatch trace " + jobID))
	var id trace.TraceID
	copy(id[:], sum[:16])
	if !id.IsValid() {
		id[15] = 1
	}
	return id
}

// SpanID is the span id of one thing of a run: kind is "run", "agent",
// "tool" or "session", id the agent's, tool call's or session's id ("" for
// the run).
func SpanID(jobID, kind, id string) trace.SpanID {
	sum := sha256.Sum256([]byte("firewatch span " + jobID + "\x00" + kind + "\x00" + id))
	var sid trace.SpanID
	copy(sid[:], sum[:8])
	if !sid.IsValid() {
		sid[7] = 1
	}
	return sid
}

// lastTime is the latest known occurredAt of the store (the timeline is in
// time order, unknown times first), or the run's start.
func lastTime(s *model.Store) time.Time {
	tl := s.Timeline()
	for i := len(tl) - 1; i >= 0; i-- {
		if t := tl[i].OccurredAt; !t.IsZero() {
			return t
		}
	}
	return s.Run().StartedAt
}

// clean scrubs the API key from a string (belt and braces: the bodies
// were scrubbed when received).
func (b *builder) clean(v string) string {
	v = b.secrets.Redact(v)
	return v
}

func (b *builder) str(k attribute.Key, v string) attribute.KeyValue { return k.String(b.clean(v)) }

// times picks a span's start and end: unknown starts fall back to the
// run's start, an open span ends at the last event's time (unfinished).
func (b *builder) times(start, end time.Time, open bool) (time.Time, time.Time) {
	if start.IsZero() {
		start = b.s.Run().StartedAt
	}
	if start.IsZero() {
		start = b.last
	}
	if start.IsZero() {
		start = time.Unix(0, 0)
	}
	if open || end.IsZero() {
		end = b.last
	}
	if end.Before(start) {
		end = start
	}
	return start.UTC(), end.UTC()
}

func (b *builder) runID() trace.SpanID { return SpanID(b.jobID, "run", "") }

func (b *builder) agentID(a *model.Agent) trace.SpanID { return SpanID(b.jobID, "agent", a.ID) }

func toolKey(t *model.ToolCall) string {
	if t.ID != "" {
		return t.ID
	}
	if t.Started != nil {
		return "\x00" + t.Started.ID
	}
	if t.Finished != nil {
		return "\x00" + t.Finished.ID
	}
	return ""
}

func (b *builder) errorAttrs(te *model.TraceError, attrs []attribute.KeyValue) []attribute.KeyValue {
	if te == nil {
		return attrs
	}
	return append(attrs,
		b.str(semconv.ErrorTypeKey, string(te.Code)),
		b.str(keyErrSource, string(te.Source)),
		keyErrRetryable.Bool(te.Retryable),
		b.str(keyErrMessage, te.Message))
}

// reasonAttrs say why a run or agent ended that did not fail (a cancel, a
// refusal, the cap): the firecrawl.error.* details without error.type, which
// marks a failure.
func (b *builder) reasonAttrs(te *model.TraceError, attrs []attribute.KeyValue) []attribute.KeyValue {
	return append(attrs,
		b.str(keyErrCode, string(te.Code)),
		b.str(keyErrSource, string(te.Source)),
		b.str(keyErrMessage, te.Message))
}

// run is the run span. Open while the run has not finished.
func (b *builder) run(final bool) (spanData, bool) {
	r := b.s.Run()
	open := r.State != model.StateFinished
	if open && !final {
		return spanData{}, false
	}
	// The run span is the run, not its orchestrator: the orchestrator's
	// gen_ai.agent.* are on its own span below.
	sd := spanData{ID: b.runID(), Name: b.runName(), Kind: trace.SpanKindClient}
	sd.Start, sd.End = b.times(r.StartedAt, r.FinishedAt, open)
	sd.Attrs = []attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent,
		semconv.GenAIProviderNameKey.String(provider),
		b.str(semconv.GenAIConversationIDKey, b.jobID),
		b.str(keyRunID, r.ID),
		keyOpenInferenceKind.String("AGENT"),
		keyLangfuseType.String("agent"),
		keyCredits.Float64(r.CreditsUsed),
		keyTokens.Float64(r.TokensUsed()),
	}
	sd.Attrs = b.requestAttrs(sd.Attrs)
	sd.Attrs = b.factAttrs(sd.Attrs)
	if r.CancelRequested {
		sd.Attrs = append(sd.Attrs, keyCancel.Bool(true), b.str(keyCancelReason, r.CancelReason))
	}
	if r.Phase != "" {
		sd.Attrs = append(sd.Attrs, b.str(keyPhase, string(r.Phase)))
	}
	if open {
		sd.Attrs = append(sd.Attrs, keyUnfinished.Bool(true))
	} else {
		sd.Attrs = append(sd.Attrs, b.str(keyOutcome, string(r.Outcome)))
		if d, ok := r.Duration(); ok {
			sd.Attrs = append(sd.Attrs, keyDurationMs.Int64(d.Milliseconds()))
		}
		if isError(r.Outcome, r.Error) {
			sd.Status, sd.StatusMsg = codes.Error, string(r.Outcome)
			if r.Error != nil {
				sd.StatusMsg = b.clean(r.Error.Message)
				sd.Attrs = b.errorAttrs(r.Error, sd.Attrs)
			} else {
				sd.Attrs = append(sd.Attrs, b.str(semconv.ErrorTypeKey, string(r.Outcome)))
			}
		} else if r.Error != nil {
			sd.Attrs = b.reasonAttrs(r.Error, sd.Attrs)
		}
	}
	for _, e := range b.s.Timeline() {
		switch p := e.Payload.(type) {
		case model.RunStarted:
			sd.Events = append(sd.Events, spanEvent{Name: "run.started", At: e.OccurredAt, Attrs: []attribute.KeyValue{b.str(keyEventID, e.ID)}})
		case model.RunCancelRequested:
			sd.Events = append(sd.Events, spanEvent{Name: "run.cancel_requested", At: e.OccurredAt, Attrs: []attribute.KeyValue{b.str(keyEventID, e.ID), b.str(keyCancelReason, p.Reason)}})
		case model.RunFinished:
			attrs := []attribute.KeyValue{b.str(keyEventID, e.ID), b.str(keyOutcome, string(p.Outcome))}
			sd.Events = append(sd.Events, spanEvent{Name: "run.finished", At: e.OccurredAt, Attrs: b.errorAttrs(p.Error, attrs)})
		}
	}
	b.fixEvents(&sd)
	return sd, true
}

// agent is one agent's span, under its parent's (the run's for a root).
func (b *builder) agent(a *model.Agent, final bool) (spanData, bool) {
	open := a.State != model.StateFinished
	if open && !final {
		return spanData{}, false
	}
	sd := spanData{ID: b.agentID(a), Parent: b.runID(), Name: "invoke_agent " + b.clean(a.Name), Kind: trace.SpanKindInternal}
	if a.Parent != nil {
		sd.Parent = b.agentID(a.Parent)
	}
	sd.Start, sd.End = b.times(a.StartedAt, a.FinishedAt, open)
	sd.Attrs = []attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent,
		semconv.GenAIProviderNameKey.String(provider),
		b.str(semconv.GenAIConversationIDKey, b.jobID),
		b.str(semconv.GenAIAgentIDKey, a.ID),
		b.str(semconv.GenAIAgentNameKey, a.Name),
		b.str(keyRole, string(a.Role)),
		keyOpenInferenceKind.String("AGENT"),
		keyLangfuseType.String("agent"),
	}
	if a.Orphan {
		sd.Attrs = append(sd.Attrs, keyOrphan.Bool(true))
	}
	if open {
		sd.Attrs = append(sd.Attrs, keyUnfinished.Bool(true))
	} else {
		sd.Attrs = append(sd.Attrs, b.str(keyOutcome, string(a.Outcome)))
		if a.HasDuration {
			sd.Attrs = append(sd.Attrs, keyDurationMs.Int64(a.DurationMs))
		}
		if isError(a.Outcome, a.Error) {
			sd.Status, sd.StatusMsg = codes.Error, string(a.Outcome)
			if a.Error != nil {
				sd.StatusMsg = b.clean(a.Error.Message)
				sd.Attrs = b.errorAttrs(a.Error, sd.Attrs)
			} else {
				sd.Attrs = append(sd.Attrs, b.str(semconv.ErrorTypeKey, string(a.Outcome)))
			}
		} else if a.Error != nil {
			sd.Attrs = b.reasonAttrs(a.Error, sd.Attrs)
		}
	}
	for _, e := range a.Events {
		ev := spanEvent{Name: string(e.Type), At: e.OccurredAt, Attrs: []attribute.KeyValue{b.str(keyEventID, e.ID)}}
		switch p := e.Payload.(type) {
		case model.ReasoningSummary:
			ev.Attrs = append(ev.Attrs, b.str(keyReasoning, p.Text))
		case model.ProgressReported:
			ev.Attrs = append(ev.Attrs, b.str(keyPhase, string(p.Phase)), b.str(keyMessage, p.Message))
		case model.ArtifactUpdated:
			ar := p.Artifact
			ev.Attrs = append(ev.Attrs, b.str(keyArtifactID, ar.ArtifactID), b.str(keyArtifactKind, string(ar.Kind)),
				b.str(keySnapshotID, ar.SnapshotID), b.str(keyChange, string(ar.Change)))
			if ar.Path != "" {
				ev.Attrs = append(ev.Attrs, b.str(keyArtifactPath, ar.Path))
			}
			if ar.HasItemCount {
				ev.Attrs = append(ev.Attrs, keyItemCount.Int(ar.ItemCount))
			}
			if ar.SourceToolCallID != "" {
				ev.Attrs = append(ev.Attrs, b.str(keySourceTool, ar.SourceToolCallID))
			}
		case model.ErrorOccurred:
			ev.Attrs = b.errorAttrs(&p.Error, ev.Attrs)
		case model.Unknown:
		default:
			// Lifecycle, tool and session events are spans of their own.
			continue
		}
		sd.Events = append(sd.Events, ev)
	}
	b.fixEvents(&sd)
	return sd, true
}

// tool is one tool call's span, under its agent's.
func (b *builder) tool(t *model.ToolCall, final bool) (spanData, bool) {
	open := t.State == model.StateRunning
	if open && !final {
		return spanData{}, false
	}
	name := b.clean(t.Name)
	sd := spanData{ID: SpanID(b.jobID, "tool", toolKey(t)), Parent: b.runID(), Name: "execute_tool " + name, Kind: trace.SpanKindInternal}
	if t.Agent != nil {
		sd.Parent = b.agentID(t.Agent)
	}
	end, unfinished := closing(t.State, t.FinishedAt(), t.Agent)
	sd.Start, sd.End = b.times(t.StartedAt(), end, false)
	sd.Attrs = []attribute.KeyValue{
		semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIProviderNameKey.String(provider),
		b.str(semconv.GenAIToolNameKey, t.Name),
		b.str(semconv.GenAIToolCallIDKey, t.ID),
		b.str(semconv.GenAIConversationIDKey, b.jobID),
		b.str(keyToolState, string(t.State)),
		keyOpenInferenceKind.String("TOOL"),
		keyLangfuseType.String("tool"),
	}
	if t.Agent != nil {
		sd.Attrs = append(sd.Attrs, b.str(semconv.GenAIAgentIDKey, t.Agent.ID), b.str(semconv.GenAIAgentNameKey, t.Agent.Name))
	}
	if d, ok := t.Duration(); ok {
		sd.Attrs = append(sd.Attrs, keyDurationMs.Int64(d.Milliseconds()))
	}
	if unfinished {
		sd.Attrs = append(sd.Attrs, keyUnfinished.Bool(true))
	}
	if b.content {
		if t.Parameters != nil {
			v := string(t.Parameters)
			sd.Attrs = append(sd.Attrs, b.str(semconv.GenAIToolCallArgumentsKey, v), b.str(keyInputValue, v))
		}
		if t.Result != nil {
			v := string(t.Result)
			sd.Attrs = append(sd.Attrs, b.str(semconv.GenAIToolCallResultKey, v), b.str(keyOutputValue, v))
		}
	}
	if t.Failed() {
		sd.Status, sd.StatusMsg = codes.Error, "tool call failed"
		if len(t.Errors) > 0 {
			te := t.Errors[0].Error
			sd.StatusMsg = b.clean(te.Message)
			sd.Attrs = b.errorAttrs(&te, sd.Attrs)
		} else {
			sd.Attrs = append(sd.Attrs, semconv.ErrorTypeKey.String("tool_error"))
		}
	}
	for _, en := range t.Errors {
		ev := spanEvent{Name: "error.occurred", At: en.Event.OccurredAt, Attrs: []attribute.KeyValue{b.str(keyEventID, en.Event.ID)}}
		te := en.Error
		ev.Attrs = b.errorAttrs(&te, ev.Attrs)
		sd.Events = append(sd.Events, ev)
	}
	b.fixEvents(&sd)
	return sd, true
}

// session is one browser session's span, under its agent's. Its live-view
// URL is a credential and never exported.
func (b *builder) session(s *model.BrowserSession, final bool) (spanData, bool) {
	open := s.State == model.StateRunning
	if open && !final {
		return spanData{}, false
	}
	sd := spanData{ID: SpanID(b.jobID, "session", s.ID), Parent: b.runID(), Name: "browser_session", Kind: trace.SpanKindInternal}
	if s.Agent != nil {
		sd.Parent = b.agentID(s.Agent)
	}
	var start, finish time.Time
	if s.Started != nil {
		start = s.Started.OccurredAt
	}
	if s.Finished != nil {
		finish = s.Finished.OccurredAt
	}
	end, unfinished := closing(s.State, finish, s.Agent)
	sd.Start, sd.End = b.times(start, end, false)
	sd.Attrs = []attribute.KeyValue{
		semconv.GenAIProviderNameKey.String(provider),
		b.str(keySessionID, s.ID),
		b.str(semconv.GenAIConversationIDKey, b.jobID),
		keyOpenInferenceKind.String("TOOL"),
		keyLangfuseType.String("tool"),
	}
	if s.Agent != nil {
		sd.Attrs = append(sd.Attrs, b.str(semconv.GenAIAgentIDKey, s.Agent.ID), b.str(semconv.GenAIAgentNameKey, s.Agent.Name))
	}
	if s.HasDuration {
		sd.Attrs = append(sd.Attrs, keyDurationMs.Int64(s.DurationMs))
	}
	if unfinished {
		sd.Attrs = append(sd.Attrs, keyUnfinished.Bool(true))
	}
	return sd, true
}

// closing is the end of a tool call or browser session: its own finish;
// its agent's end when it was cut short by it; zero (the last event's
// time) while it is open. unfinished says it did not finish by itself.
func closing(st model.State, finish time.Time, a *model.Agent) (end time.Time, unfinished bool) {
	switch {
	case st == model.StateFinished:
		return finish, false
	case st == model.StateUnfinished && a != nil && !a.FinishedAt.IsZero():
		return a.FinishedAt, true
	}
	return time.Time{}, true
}

// fixEvents gives events without a time the span's start, and bounds their
// number.
func (b *builder) fixEvents(sd *spanData) {
	for i := range sd.Events {
		if sd.Events[i].At.IsZero() {
			sd.Events[i].At = sd.Start
		}
		sd.Events[i].At = sd.Events[i].At.UTC()
	}
	if n := len(sd.Events); n > maxEvents {
		sd.Events = sd.Events[:maxEvents]
		sd.Attrs = append(sd.Attrs, keyEventsDropped.Int(n-maxEvents))
	}
}

// all is every span of the store: those that have ended, or every one with
// final (open ones ended at the last event's time).
func (b *builder) all(final bool) []spanData {
	var out []spanData
	if sd, ok := b.run(final); ok {
		out = append(out, sd)
	}
	for _, a := range b.s.Agents() {
		if sd, ok := b.agent(a, final); ok {
			out = append(out, sd)
		}
	}
	for _, t := range b.s.ToolCalls() {
		if sd, ok := b.tool(t, final); ok {
			out = append(out, sd)
		}
	}
	for _, s := range b.s.Sessions() {
		if sd, ok := b.session(s, final); ok {
			out = append(out, sd)
		}
	}
	return out
}

// digest identifies a span's content, to export a span again only when it
// changed (a late event).
func (sd *spanData) digest() uint64 {
	h := fnv.New64a()
	var buf [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
	putS := func(s string) {
		put(uint64(len(s)))
		h.Write([]byte(s))
	}
	attrs := func(kv []attribute.KeyValue) {
		put(uint64(len(kv)))
		for _, a := range kv {
			putS(string(a.Key))
			putS(a.Value.String())
			put(uint64(a.Value.Type()))
		}
	}
	h.Write(sd.Parent[:])
	putS(sd.Name)
	put(uint64(sd.Kind))
	put(uint64(sd.Start.UnixNano()))
	put(uint64(sd.End.UnixNano()))
	attrs(sd.Attrs)
	put(uint64(len(sd.Events)))
	for _, e := range sd.Events {
		putS(e.Name)
		put(uint64(e.At.UnixNano()))
		attrs(e.Attrs)
	}
	put(uint64(sd.Status))
	putS(sd.StatusMsg)
	return h.Sum64()
}
