package model

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// agentIDs is the ids of agents in order.
func agentIDs(as []*Agent) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return out
}

func TestAgentTree(t *testing.T) {
	ghostChild := ag{"agent-x", "subagent", "Lost", "agent-ghost"}
	grandchild := ag{"agent-y", "subagent", "Under lost", "agent-x"}
	cycA := ag{"agent-ca", "subagent", "Cycle A", "agent-cb"}
	cycB := ag{"agent-cb", "subagent", "Cycle B", "agent-ca"}
	self := ag{"agent-self", "subagent", "Self", "agent-self"}
	sys := ag{"agent-sys", "system", "System", ""}
	deep := []ag{sub3}
	for i := 4; i <= 6; i++ {
		deep = append(deep, ag{"agent-d" + string(rune('0'+i)), "subagent", "Deeper", deep[len(deep)-1].id})
	}

	type node struct {
		id     string
		parent string
		depth  int
		orphan bool
	}
	tests := []struct {
		name  string
		polls [][]any
		want  []node // Agents() order
		roots []string
	}{
		{
			name: "nested at depth 2, one poll",
			polls: [][]any{{
				ev("o1", orch, 1, 0, "agent.started"),
				ev("s1", sub1, 1, 10, "agent.started"),
				ev("s3", sub3, 1, 20, "agent.started"),
				ev("s2", sub2, 1, 30, "agent.started"),
			}},
			want:  []node{{"agent-orch", "", 0, false}, {"agent-sub1", "agent-orch", 1, false}, {"agent-sub3", "agent-sub1", 2, false}, {"agent-sub2", "agent-orch", 1, false}},
			roots: []string{"agent-orch"},
		},
		{
			name: "children by start, not by arrival",
			polls: [][]any{
				{ev("s2", sub2, 1, 5, "agent.started"), ev("o1", orch, 1, 0, "agent.started")},
				{ev("s1", sub1, 1, 50, "agent.started")},
				{ev("s1-0", sub1, 0, 1, "reasoning.summary", "text", "earlier")},
			},
			// sub1 has no agent.started before its seq-0 event... its
			// agent.started is at 50ms, so it starts after sub2.
			want:  []node{{"agent-orch", "", 0, false}, {"agent-sub2", "agent-orch", 1, false}, {"agent-sub1", "agent-orch", 1, false}},
			roots: []string{"agent-orch"},
		},
		{
			name: "parent never seen hangs under the root, marked",
			polls: [][]any{{
				ev("o1", orch, 1, 0, "agent.started"),
				ev("x1", ghostChild, 1, 10, "agent.started"),
				ev("y1", grandchild, 1, 20, "agent.started"),
				ev("s1", sub1, 1, 30, "agent.started"),
			}},
			want:  []node{{"agent-orch", "", 0, false}, {"agent-sub1", "agent-orch", 1, false}, {"agent-x", "agent-orch", 1, true}, {"agent-y", "agent-x", 2, false}},
			roots: []string{"agent-orch"},
		},
		{
			name: "parent seen later",
			polls: [][]any{
				{ev("o1", orch, 1, 0, "agent.started"), ev("s3", sub3, 1, 20, "agent.started")},
				{ev("s1", sub1, 1, 10, "agent.started")},
			},
			want:  []node{{"agent-orch", "", 0, false}, {"agent-sub1", "agent-orch", 1, false}, {"agent-sub3", "agent-sub1", 2, false}},
			roots: []string{"agent-orch"},
		},
		{
			name: "orchestrator seen later",
			polls: [][]any{
				{ev("s1", sub1, 1, 10, "agent.started")},
				{ev("o1", orch, 1, 0, "agent.started")},
			},
			want:  []node{{"agent-orch", "", 0, false}, {"agent-sub1", "agent-orch", 1, false}},
			roots: []string{"agent-orch"},
		},
		{
			name:  "no orchestrator yet: the orphan is a root, marked",
			polls: [][]any{{ev("s1", sub1, 1, 10, "agent.started")}},
			want:  []node{{"agent-sub1", "", 0, true}},
			roots: []string{"agent-sub1"},
		},
		{
			name: "cycles terminate and list everyone once",
			polls: [][]any{{
				ev("o1", orch, 1, 0, "agent.started"),
				ev("ca", cycA, 1, 10, "agent.started"),
				ev("cb", cycB, 1, 20, "agent.started"),
				ev("self", self, 1, 30, "agent.started"),
			}},
			want: []node{{"agent-orch", "", 0, false}, {"agent-ca", "agent-orch", 1, true}, {"agent-cb", "agent-ca", 2, false},
				{"agent-self", "agent-orch", 1, true}},
			roots: []string{"agent-orch"},
		},
		{
			name: "another parentless agent is a root of its own",
			polls: [][]any{{
				ev("sys", sys, 1, 0, "agent.started"),
				ev("o1", orch, 1, 5, "agent.started"),
			}},
			want:  []node{{"agent-orch", "", 0, false}, {"agent-sys", "", 0, false}},
			roots: []string{"agent-orch", "agent-sys"},
		},
		{
			name: "deep chain",
			polls: [][]any{{
				ev("o1", orch, 1, 0, "agent.started"), ev("s1", sub1, 1, 1, "agent.started"),
				ev("d3", deep[0], 1, 2, "agent.started"), ev("d4", deep[1], 1, 3, "agent.started"),
				ev("d5", deep[2], 1, 4, "agent.started"), ev("d6", deep[3], 1, 5, "agent.started"),
			}},
			want: []node{{"agent-orch", "", 0, false}, {"agent-sub1", "agent-orch", 1, false}, {"agent-sub3", "agent-sub1", 2, false},
				{"agent-d4", "agent-sub3", 3, false}, {"agent-d5", "agent-d4", 4, false}, {"agent-d6", "agent-d5", 5, false}},
			roots: []string{"agent-orch"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var bodies [][]byte
			for _, p := range tt.polls {
				bodies = append(bodies, body(p...))
			}
			s := ingest(t, bodies...)
			var got []node
			for _, a := range s.Agents() {
				n := node{id: a.ID, depth: a.Depth, orphan: a.Orphan}
				if a.Parent != nil {
					n.parent = a.Parent.ID
					if !slices.Contains(a.Parent.Children, a) {
						t.Errorf("%s is not among its parent's children", a.ID)
					}
				}
				got = append(got, n)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tree\n got %+v\nwant %+v", got, tt.want)
			}
			if r := agentIDs(s.Roots()); !slices.Equal(r, tt.roots) {
				t.Errorf("roots %v, want %v", r, tt.roots)
			}
			if s.Root() == nil || s.Root().ID != tt.roots[0] {
				t.Errorf("Root() = %v", s.Root())
			}
		})
	}
}

func TestAgentState(t *testing.T) {
	s := ingest(t, body(
		ev("o1", orch, 1, 0, "agent.started"),
		ev("s1", sub1, 1, 100, "agent.started"),
		ev("s2", sub1, 3, 200, "tool_call.started", "toolCallId", "tc-1", "toolName", "mcp__tools__scrape", "parameters", map[string]any{"url": "u"}),
	))
	a := s.Agent("agent-sub1")
	if a.State != StateRunning || a.Outcome != "" || a.HasDuration || a.Error != nil || a.EventCount() != 2 || a.Role != RoleSubagent || a.Name != "Researcher" {
		t.Errorf("running agent: %+v", a)
	}
	if !a.StartedAt.Equal(t0.Add(100*time.Millisecond)) || !a.FinishedAt.IsZero() {
		t.Errorf("times %v %v", a.StartedAt, a.FinishedAt)
	}
	if a.RunningTools != 1 || a.CurrentTool == nil || a.CurrentTool.ID != "tc-1" || a.Activity() != "calling mcp__tools__scrape" {
		t.Errorf("activity %q running %d", a.Activity(), a.RunningTools)
	}
	if a.LastEvent.ID != "s2" {
		t.Errorf("LastEvent %s", a.LastEvent.ID)
	}

	s.Ingest(body(
		ev("s3", sub1, 4, 300, "tool_call.finished", "toolCallId", "tc-1", "toolName", "mcp__tools__scrape", "result", "ok"),
		ev("s4", sub1, 6, 400, "browser.session.started", "sessionId", "bs-1"),
	))
	if a.Activity() != "browsing" || a.OpenSessions != 1 || a.RunningTools != 0 || a.CurrentSession == nil {
		t.Errorf("activity %q", a.Activity())
	}
	s.Ingest(body(ev("s5", sub1, 7, 500, "reasoning.summary", "text", "hm"),
		ev("s4b", sub1, 8, 450, "browser.session.finished", "sessionId", "bs-1", "durationMs", 50)))
	if a.Activity() != "done browsing" {
		t.Errorf("activity %q", a.Activity())
	}
	s.Ingest(body(ev("s6", sub1, 9, 5000, "agent.finished", "outcome", "failed", "durationMs", 4900,
		"error", terr("internal", "agent", true, "gave up"))))
	checkInvariants(t, s)
	wantErr := &TraceError{Code: CodeInternal, Source: SourceAgent, Retryable: true, Message: "gave up"}
	if a.State != StateFinished || a.Outcome != OutcomeFailed || !a.HasDuration || a.DurationMs != 4900 || !reflect.DeepEqual(a.Error, wantErr) ||
		a.EventCount() != 7 || !a.FinishedAt.Equal(t0.Add(5*time.Second)) || a.Activity() != "" || a.Errors != 1 {
		t.Errorf("finished agent: %+v", a)
	}
	// An agent whose agent.started is not (yet) seen starts with its first
	// event, and takes its identity from it.
	s = ingest(t, body(ev("x", sub2, 5, 700, "reasoning.summary", "text", "t")))
	if b := s.Agent("agent-sub2"); !b.StartedAt.Equal(t0.Add(700*time.Millisecond)) || b.Name != "Writer" || b.Activity() != "thinking" {
		t.Errorf("%+v %q", b, b.Activity())
	}
	// A succeeded agent with a null error has no error entry.
	s = ingest(t, body(ev("f", sub2, 5, 700, "agent.finished", "outcome", "succeeded", "durationMs", 5, "error", rawJSON("null"))))
	if len(s.Errors()) != 0 || s.Agent("agent-sub2").Error != nil {
		t.Errorf("errors %+v", s.Errors())
	}
}

func TestPhaseMessageAndReasoning(t *testing.T) {
	s := ingest(t,
		body(
			ev("p1", orch, 1, 0, "progress.reported", "phase", "planning", "message", "Planning"),
			ev("r1", orch, 2, 10, "reasoning.summary", "text", "first thought"),
			ev("p2", orch, 3, 20, "progress.reported", "phase", "working", "message", "Reading pages"),
		),
		body(
			ev("p4", orch, 6, 60, "progress.reported", "phase", "finalizing", "message", "Writing"),
			ev("r2", sub1, 1, 30, "reasoning.summary", "text", "second thought"),
		),
		// A late, older event does not become the current phase.
		body(ev("p3", orch, 4, 40, "progress.reported", "phase", "reflecting", "message", "Checking")),
	)
	r := s.Run()
	if r.Phase != PhaseFinalizing || r.Message != "Writing" || r.PhaseEvent.ID != "p4" {
		t.Errorf("phase %q %q", r.Phase, r.Message)
	}
	if !slices.Equal(r.PhasesSeen, []Phase{PhasePlanning, PhaseWorking, "reflecting", PhaseFinalizing}) {
		t.Errorf("PhasesSeen %v", r.PhasesSeen)
	}
	if got := ids(s.Reasoning()); !slices.Equal(got, []string{"r1", "r2"}) {
		t.Errorf("reasoning %v", got)
	}
	if s.Reasoning()[1].Payload.(ReasoningSummary).Text != "second thought" {
		t.Error("reasoning text")
	}
}

func TestToolCalls(t *testing.T) {
	tc := func(id string, a ag, seq int64, ms int, typ, call string, kv ...any) E {
		return ev(id, a, seq, ms, typ, append([]any{"toolCallId", call, "toolName", "mcp__tools__search"}, kv...)...)
	}
	s := ingest(t, body(
		ev("o0", orch, 1, 0, "run.started"),
		tc("a1", sub1, 1, 100, "tool_call.started", "tc-done", "parameters", map[string]any{"q": "espresso"}),
		tc("a2", sub1, 2, 1600, "tool_call.finished", "tc-done", "result", map[string]any{"hits": 3}),
		tc("a3", sub1, 3, 1700, "tool_call.started", "tc-run", "parameters", rawJSON("null")),
		tc("b1", sub2, 1, 1800, "tool_call.finished", "tc-orphan", "result", "late"),
		tc("b2", sub2, 2, 1900, "tool_call.started", "tc-fail"),
		ev("b3", sub2, 3, 2000, "error.occurred", "error", terr("internal", "tool", true, "503")),
		tc("b4", sub2, 4, 2100, "tool_call.finished", "tc-fail", "result", map[string]any{"error": "503", "isError": true}),
		tc("b5", sub2, 5, 2200, "tool_call.started", "tc-agent-ended"),
		ev("b6", sub2, 6, 2300, "agent.finished", "outcome", "succeeded", "durationMs", 600),
		ev("n1", sub2, 7, 2400, "tool_call.started", "toolName", "no-id-1"),
		ev("n2", sub2, 8, 2500, "tool_call.finished", "toolName", "no-id-2"),
	))
	done := s.ToolCall("tc-done")
	if d, ok := done.Duration(); done.State != StateFinished || !ok || d != 1500*time.Millisecond || string(done.Parameters) != `{"q":"espresso"}` ||
		string(done.Result) != `{"hits":3}` || done.Failed() || done.AgentID != "agent-sub1" || done.Name != "mcp__tools__search" {
		t.Errorf("finished call: %+v", done)
	}
	if run := s.ToolCall("tc-run"); run.State != StateRunning || run.Finished != nil || string(run.Parameters) != "null" || s.Agent("agent-sub1").RunningTools != 1 {
		t.Errorf("running call: %+v", run)
	}
	if o := s.ToolCall("tc-orphan"); o.State != StateFinished || o.Started != nil || o.Finished.ID != "b1" || o.Name != "mcp__tools__search" || o.AgentID != "agent-sub2" {
		t.Errorf("finish without start: %+v", o)
	} else if _, ok := o.Duration(); ok {
		t.Error("duration without a start")
	}
	if f := s.ToolCall("tc-fail"); !f.Failed() || len(f.Errors) != 1 || f.Errors[0].Event.ID != "b3" {
		t.Errorf("failed call: %+v", f)
	}
	if e := s.ToolCall("tc-agent-ended"); e.State != StateUnfinished {
		t.Errorf("call of a finished agent: %s", e.State)
	}
	if s.ToolCall("") != nil {
		t.Error("ToolCall(\"\") found something")
	}
	var noID []string
	for _, c := range s.ToolCalls() {
		if c.ID == "" {
			noID = append(noID, c.Name)
		}
	}
	if !slices.Equal(noID, []string{"no-id-1", "no-id-2"}) {
		t.Errorf("calls without an id are not paired: %v", noID)
	}
	var order []string
	for _, c := range s.ToolCalls() {
		order = append(order, c.first().ID)
	}
	if !slices.Equal(order, []string{"a1", "a3", "b1", "b2", "b5", "n1", "n2"}) {
		t.Errorf("ToolCalls order %v", order)
	}

	// The run ends: the running call is unfinished; its start arriving
	// late pairs the orphan finish.
	s.Ingest(body(ev("o9", orch, 9, 3000, "run.finished", "outcome", "succeeded", "error", rawJSON("null"))))
	if run := s.ToolCall("tc-run"); run.State != StateUnfinished {
		t.Errorf("after run.finished: %s", run.State)
	}
	s.Ingest(body(tc("b0", sub2, 0, 1000, "tool_call.started", "tc-orphan")))
	checkInvariants(t, s)
	if o := s.ToolCall("tc-orphan"); o.Started == nil || o.Started.ID != "b0" || o.State != StateFinished {
		t.Errorf("late start: %+v", o)
	} else if d, ok := o.Duration(); !ok || d != 800*time.Millisecond {
		t.Errorf("late start duration %v", d)
	}
	sum := s.Summary()
	for _, c := range sum.ToolCalls {
		if c.ToolCallID == "tc-done" && (c.State != StateFinished || *c.DurationMs != 1500 || *c.StartedEventID != "a1" || *c.FinishedEventID != "a2") {
			t.Errorf("summary %+v", c)
		}
		if c.ToolCallID == "tc-run" && (c.State != StateUnfinished || c.DurationMs != nil || c.FinishedEventID != nil) {
			t.Errorf("summary %+v", c)
		}
	}
}

func TestArtifacts(t *testing.T) {
	art := func(id string, seq int64, ms int, snap, change string, kv ...any) E {
		a := map[string]any{"kind": "json", "artifactId": "result", "snapshotId": snap, "change": change}
		for i := 0; i+1 < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return ev(id, sub1, seq, ms, "artifact.updated", "artifact", a)
	}
	s := ingest(t,
		// The second version arrives first, the tool call that made it
		// later.
		body(art("v2", 5, 500, "snap-2", "append", "path", "/workspace/result.json", "changedFields", []any{"items"}, "itemCount", 4, "sourceToolCallId", "tc-2")),
		body(art("v1", 2, 200, "snap-1", "init", "path", "/workspace/result.json", "itemCount", 1, "sourceToolCallId", "tc-1"),
			ev("t1", sub1, 1, 100, "tool_call.started", "toolCallId", "tc-1", "toolName", "mcp__tools__extract")),
		body(ev("t2", sub1, 4, 400, "tool_call.started", "toolCallId", "tc-2", "toolName", "mcp__tools__extract"),
			art("v3", 7, 700, "snap-3", "modify", "kind", "markdown", "path", nil),
			ev("n1", sub2, 1, 800, "artifact.updated", "artifact", map[string]any{"kind": "text", "artifactId": "notes", "snapshotId": "snap-n", "change": "weird"})),
	)
	a := s.Artifact("result")
	var snaps []string
	for _, v := range a.Versions {
		snaps = append(snaps, v.Ref.SnapshotID)
	}
	if !slices.Equal(snaps, []string{"snap-1", "snap-2", "snap-3"}) || a.Latest().Ref.SnapshotID != "snap-3" {
		t.Fatalf("history %v", snaps)
	}
	// Kind of the latest version; the path of the latest that has one.
	if a.Kind != KindMarkdown || a.Path != "/workspace/result.json" {
		t.Errorf("kind %q path %q", a.Kind, a.Path)
	}
	v2 := a.Versions[1]
	if v2.Ref.Change != ChangeAppend || !slices.Equal(v2.Ref.ChangedFields, []string{"items"}) || v2.Ref.ItemCount != 4 || !v2.Ref.HasItemCount {
		t.Errorf("v2 %+v", v2.Ref)
	}
	if a.Versions[0].SourceToolCall == nil || a.Versions[0].SourceToolCall.ID != "tc-1" || v2.SourceToolCall == nil || v2.SourceToolCall.ID != "tc-2" || a.Versions[2].SourceToolCall != nil {
		t.Errorf("producing calls: %v %v %v", a.Versions[0].SourceToolCall, v2.SourceToolCall, a.Versions[2].SourceToolCall)
	}
	if tc := s.ToolCall("tc-2"); len(tc.Artifacts) != 1 || tc.Artifacts[0] != a {
		t.Errorf("tc-2 artifacts %v", tc.Artifacts)
	}
	if got := []string{s.Artifacts()[0].ID, s.Artifacts()[1].ID}; !slices.Equal(got, []string{"result", "notes"}) {
		t.Errorf("order %v", got)
	}
	sum := s.Summary()
	want := []SummaryArtifact{
		{ArtifactID: "result", Kind: KindMarkdown, Path: ptr("/workspace/result.json"), LatestSnapshotID: "snap-3", Updates: 3, Snapshots: []string{"snap-1", "snap-2", "snap-3"}},
		{ArtifactID: "notes", Kind: KindText, LatestSnapshotID: "snap-n", Updates: 1, Snapshots: []string{"snap-n"}},
	}
	if !reflect.DeepEqual(sum.Artifacts, want) {
		t.Errorf("summary\n got %+v\nwant %+v", sum.Artifacts, want)
	}
	if n := s.Artifact("notes"); n.Latest().Ref.Change != "weird" {
		t.Error("unknown change value not kept")
	}
}

func TestBrowserSessions(t *testing.T) {
	live := func(ids ...string) map[string]any {
		var l []any
		for _, id := range ids {
			l = append(l, map[string]any{"id": id, "liveViewUrl": "https://live.example/" + id, "viewport": map[string]any{"width": 1024, "height": 768}})
		}
		if l == nil {
			l = []any{}
		}
		return map[string]any{"activeBrowserSessions": l, "creditsUsed": 1}
	}
	s := NewStore()
	d, err := s.Ingest(bodyWith(live("bs-1", "bs-2"),
		ev("a", sub1, 1, 100, "browser.session.started", "sessionId", "bs-1"),
		ev("b", sub2, 1, 200, "browser.session.started", "sessionId", "bs-2"),
		ev("c", sub1, 2, 1300, "browser.session.finished", "sessionId", "bs-1", "durationMs", 1200),
		ev("d", sub2, 2, 1400, "browser.session.started", "sessionId", "bs-3"),
	))
	if err != nil || !d.LiveSessions {
		t.Fatal(err, d.LiveSessions)
	}
	b1, b2, b3 := s.Session("bs-1"), s.Session("bs-2"), s.Session("bs-3")
	if b1.State != StateFinished || !b1.HasDuration || b1.DurationMs != 1200 || b1.AgentID != "agent-sub1" || b1.Live == nil {
		t.Errorf("bs-1 %+v", b1)
	}
	if b2.State != StateRunning || b2.HasDuration || b2.Live == nil || b2.Live.LiveViewURL != "https://live.example/bs-2" || b2.Live.ViewportWidth != 1024 {
		t.Errorf("bs-2 %+v", b2)
	}
	if b3.Live != nil || len(s.Agent("agent-sub2").Sessions) != 2 || s.Agent("agent-sub2").OpenSessions != 2 {
		t.Errorf("bs-3 %+v", b3)
	}
	// A response without the field keeps the last list; a later session
	// named there is linked when it appears.
	d, _ = s.Ingest(body(ev("e", sub1, 3, 1500, "browser.session.started", "sessionId", "bs-4")))
	if d.LiveSessions || len(s.LiveSessions()) != 2 || b2.Live == nil {
		t.Errorf("without activeBrowserSessions: %v %v", d.LiveSessions, s.LiveSessions())
	}
	d, _ = s.Ingest(bodyWith(live("bs-3", "bs-4")))
	if !d.LiveSessions || b2.Live != nil || b3.Live == nil || s.Session("bs-4").Live == nil || s.Session("bs-4").Live.ID != "bs-4" {
		t.Errorf("replaced: %+v", s.LiveSessions())
	}
	d, _ = s.Ingest(bodyWith(live("bs-3", "bs-4")))
	if d.LiveSessions || !d.Empty() {
		t.Errorf("same list again: %+v", d)
	}
	s.Ingest(bodyWith(live()))
	if len(s.LiveSessions()) != 0 || b3.Live != nil {
		t.Errorf("emptied: %+v", s.LiveSessions())
	}
	// The run ends: open sessions are unfinished.
	s.Ingest(body(ev("z", orch, 9, 9000, "run.finished", "outcome", "succeeded")))
	checkInvariants(t, s)
	if b2.State != StateUnfinished || b1.State != StateFinished {
		t.Errorf("after the run: %s %s", b2.State, b1.State)
	}
	sum := s.Summary()
	want := []SummarySession{
		{SessionID: "bs-1", AgentID: "agent-sub1", State: StateFinished, DurationMs: ptr(int64(1200))},
		{SessionID: "bs-2", AgentID: "agent-sub2", State: StateUnfinished},
		{SessionID: "bs-3", AgentID: "agent-sub2", State: StateUnfinished},
		{SessionID: "bs-4", AgentID: "agent-sub1", State: StateUnfinished},
	}
	if !reflect.DeepEqual(sum.BrowserSessions, want) {
		t.Errorf("summary\n got %+v\nwant %+v", sum.BrowserSessions, want)
	}
}

func TestErrors(t *testing.T) {
	s := ingest(t, body(
		ev("e1", sub1, 1, 100, "error.occurred", "error", terr("refused", "tool", false, "403")),
		ev("e2", sub1, 2, 200, "agent.finished", "outcome", "refused", "durationMs", 100, "error", terr("refused", "agent", false, "site refused")),
		ev("e3", sub2, 1, 150, "error.occurred", "error", terr("quota", "vendor", true, "unknown code and source")),
		ev("e4", orch, 5, 300, "run.finished", "outcome", "failed", "error", terr("internal", "system", true, "crashed")),
		ev("e5", sub2, 2, 160, "agent.finished", "outcome", "succeeded", "durationMs", 10, "error", rawJSON("null")),
	))
	got := s.Summary().Errors
	want := []SummaryError{
		{EventID: "e1", AgentID: "agent-sub1", Code: CodeRefused, Source: SourceTool, Message: "403"},
		{EventID: "e3", AgentID: "agent-sub2", Code: "quota", Source: "vendor", Retryable: true, Message: "unknown code and source"},
		{EventID: "e2", AgentID: "agent-sub1", Code: CodeRefused, Source: SourceAgent, Message: "site refused", Fatal: true},
		{EventID: "e4", AgentID: "agent-orch", Code: CodeInternal, Source: SourceSystem, Retryable: true, Message: "crashed", Fatal: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors\n got %+v\nwant %+v", got, want)
	}
	if len(s.Errors()) != 4 || s.Errors()[2].Event.ID != "e2" || !s.Errors()[2].Fatal {
		t.Errorf("Errors() %+v", s.Errors())
	}
	if s.Agent("agent-sub1").Errors != 2 {
		t.Errorf("agent error count %d", s.Agent("agent-sub1").Errors)
	}
	// A cancelled run is not an error, nor are the agents its cancel cut
	// short; a failure after the cancel still is.
	s = ingest(t, body(
		ev("p", sub2, 2, 290, "agent.finished", "outcome", "failed", "error", terr("parent_finished", "agent", false, "parent finished")),
		ev("q", sub1, 2, 295, "agent.finished", "outcome", "failed", "error", terr("internal", "agent", false, "crashed")),
		ev("c", orch, 5, 300, "run.finished", "outcome", "cancelled", "error", terr("cancelled", "agent", false, "cancelled by user"))))
	if e := s.Errors(); len(e) != 1 || e[0].Event.ID != "q" {
		t.Errorf("after a cancel: %+v", e)
	}
}

func TestCreditsAndRunState(t *testing.T) {
	s := NewStore()
	b := func(credits any, events ...any) []byte {
		if credits == nil {
			return bodyWith(map[string]any{}, events...)
		}
		return bodyWith(map[string]any{"creditsUsed": credits}, events...)
	}
	steps := []struct {
		body    []byte
		credits float64
		check   func(r *Run)
	}{
		{b(10, ev("r1", orch, 1, 0, "run.started"), ev("a1", orch, 2, 50, "agent.started")), 10, func(r *Run) {
			if r.State != StateRunning || r.CancelRequested || !r.StartedAt.Equal(t0) || r.Outcome != "" {
				t.Errorf("running: %+v", r)
			}
			if _, ok := r.Duration(); ok {
				t.Error("duration while running")
			}
		}},
		{b(30), 30, nil},
		{b(20), 30, nil}, // the highest figure stays
		{b(nil), 30, nil},
		{b("n/a"), 30, nil},
		{b(45.5, ev("c1", orch, 3, 1000, "run.cancel_requested", "reason", "user")), 45.5, func(r *Run) {
			if r.State != StateRunning || !r.CancelRequested || r.CancelReason != "user" {
				t.Errorf("cancel requested: %+v", r)
			}
		}},
		{b(46, ev("f1", orch, 5, 4000, "run.finished", "outcome", "cancelled", "error", terr("cancelled", "agent", false, "by user"))), 46, func(r *Run) {
			d, ok := r.Duration()
			if r.State != StateFinished || r.Outcome != OutcomeCancelled || r.Error == nil || r.Error.Message != "by user" ||
				!r.FinishedAt.Equal(t0.Add(4*time.Second)) || !ok || d != 4*time.Second || r.Finished.ID != "f1" {
				t.Errorf("finished: %+v", r)
			}
		}},
	}
	for i, st := range steps {
		if _, err := s.Ingest(st.body); err != nil {
			t.Fatal(err)
		}
		r := s.Run()
		if r.CreditsUsed != st.credits || r.TokensUsed() != st.credits*15 {
			t.Errorf("step %d: credits %v tokens %v, want %v", i, r.CreditsUsed, r.TokensUsed(), st.credits)
		}
		if st.check != nil {
			st.check(r)
		}
	}
	sum := s.Summary()
	if sum.State != StateFinished || *sum.Outcome != OutcomeCancelled || sum.Error.Code != CodeCancelled || !sum.CancelRequested ||
		sum.CreditsUsed != 46 || sum.TokensUsed != 690 || *sum.DurationMs != 4000 || !sum.StartedAt.Equal(t0) || sum.RunID != testRun {
		t.Errorf("summary %+v", sum)
	}

	// No run.started: the run starts with its earliest event, whichever
	// poll brings it.
	s = ingest(t, body(ev("x", sub1, 1, 500, "agent.started")), body(ev("y", sub2, 1, 200, "agent.started")))
	if !s.Run().StartedAt.Equal(t0.Add(200 * time.Millisecond)) {
		t.Errorf("start %v", s.Run().StartedAt)
	}
	if sum := s.Summary(); sum.Outcome != nil || sum.FinishedAt != nil || sum.DurationMs != nil || sum.Error != nil || sum.State != StateRunning {
		t.Errorf("running summary %+v", sum)
	}
}

// Late events (after run.finished, or older than events already placed) go
// to their place in the timeline.
func TestLateEvents(t *testing.T) {
	s := ingest(t, body(
		ev("o1", orch, 1, 0, "run.started"),
		ev("o2", orch, 2, 100, "agent.started"),
		ev("s2", sub1, 3, 300, "reasoning.summary", "text", "x"),
		ev("o5", orch, 5, 1000, "run.finished", "outcome", "succeeded"),
	))
	// After run.finished, but occurred before it.
	d, _ := s.Ingest(body(ev("s1", sub1, 1, 200, "agent.started"), ev("s9", sub1, 9, 1100, "agent.finished", "outcome", "succeeded", "durationMs", 900)))
	checkInvariants(t, s)
	if got := ids(s.Timeline()); !slices.Equal(got, []string{"o1", "o2", "s1", "s2", "o5", "s9"}) {
		t.Errorf("timeline %v", got)
	}
	if d.Late != 2 || d.From != 2 {
		t.Errorf("delta late %d from %d", d.Late, d.From)
	}
	// Older than everything.
	d, _ = s.Ingest(body(ev("o0", orch, 0, -100, "reasoning.summary", "text", "first")))
	checkInvariants(t, s)
	if s.Timeline()[0].ID != "o0" || d.From != 0 || d.Late != 1 {
		t.Errorf("timeline %v from %d", ids(s.Timeline()), d.From)
	}
	// Appended in order: not late while the run is going.
	s = ingest(t, body(ev("a", orch, 1, 0, "run.started")))
	d, _ = s.Ingest(body(ev("b", orch, 2, 10, "agent.started")))
	if d.Late != 0 || d.From != 1 {
		t.Errorf("in order: late %d from %d", d.Late, d.From)
	}
}

// Clocks that disagree, across agents and within one, never break an
// agent's own order.
func TestClockSkew(t *testing.T) {
	s := ingest(t, body(
		ev("a1", sub1, 1, 1000, "agent.started"),
		ev("a2", sub1, 2, 500, "reasoning.summary", "text", "clock went back"),
		ev("a3", sub1, 3, 1500, "reasoning.summary", "text", "x"),
		ev("b1", sub2, 1, 700, "agent.started"),
		ev("b2", sub2, 2, 800, "reasoning.summary", "text", "y"),
		ev("c1", orch, 1, 0, "run.started", "occurredAt", "not a time"),
		ev("c2", orch, 2, 900, "agent.started"),
	))
	want := []string{"c1", "b1", "b2", "c2", "a1", "a2", "a3"}
	if got := ids(s.Timeline()); !slices.Equal(got, want) {
		t.Errorf("timeline\n got %v\nwant %v", got, want)
	}
}

func TestUnknownEventsAndSummaryShape(t *testing.T) {
	s := ingest(t, body(
		ev("e1", orch, 1, 0, "run.started"),
		ev("e2", orch, 2, 10, "agent.paused"),
		ev("e3", sub1, 1, 20, "tool_call.progress", "toolCallId", "tc"),
		ev("u1", orch, 3, 30, "usage.recorded"),
	))
	if s.UnknownEvents() != 2 || s.Len() != 3 {
		t.Errorf("unknown %d len %d", s.UnknownEvents(), s.Len())
	}
	if got := ids(s.Timeline()); !slices.Equal(got, []string{"e1", "e2", "e3"}) {
		t.Errorf("timeline %v", got)
	}
	if _, ok := s.Event("e2").Payload.(Unknown); !ok {
		t.Errorf("payload %T", s.Event("e2").Payload)
	}
	b, err := json.Marshal(s.Summary())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	json.Unmarshal(b, &m)
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"agents", "artifacts", "badValues", "browserSessions", "cancelRequested", "cancelledBy", "cancelledVia", "creditsUsed", "durationMs", "error", "errors",
		"eventCount", "finishedAt", "outcome", "runId", "setAside", "startedAt", "startedBy", "startedVia", "state", "timeline", "tokensUsed", "toolCalls", "unknownEvents"}
	if !slices.Equal(keys, want) {
		t.Errorf("summary keys %v", keys)
	}
	for _, k := range []string{"artifacts", "browserSessions", "errors", "setAside", "badValues"} {
		if string(m[k]) != "[]" {
			t.Errorf("%s = %s, want []", k, m[k])
		}
	}
	if string(m["eventCount"]) != "3" || string(m["unknownEvents"]) != "2" || string(m["outcome"]) != "null" {
		t.Errorf("summary %s", b)
	}
	var agents []map[string]json.RawMessage
	json.Unmarshal(m["agents"], &agents)
	var akeys []string
	for k := range agents[0] {
		akeys = append(akeys, k)
	}
	slices.Sort(akeys)
	if !slices.Equal(akeys, []string{"durationMs", "events", "id", "name", "outcome", "parentId", "role", "state"}) {
		t.Errorf("agent keys %v", akeys)
	}
	if !strings.Contains(string(b), `"parentId":null`) || !strings.Contains(string(b), `"parentId":"agent-orch"`) {
		t.Errorf("parentId: %s", b)
	}
}

func TestDeltaAndIdempotence(t *testing.T) {
	s := NewStore()
	b1 := body(ev("o1", orch, 1, 0, "run.started"), ev("s1", sub1, 1, 10, "tool_call.started", "toolCallId", "t", "toolName", "x"))
	d, _ := s.Ingest(b1)
	if len(d.Events) != 2 || d.From != 0 || !d.TreeChanged || len(d.Agents) != 2 || len(d.ToolCalls) != 1 || !d.RunChanged || !d.Credits || d.Empty() {
		t.Errorf("first delta %+v", d)
	}
	before, _ := json.Marshal(s.Summary())
	d, _ = s.Ingest(b1)
	if !d.Empty() || d.From != 2 {
		t.Errorf("same body again: %+v", d)
	}
	p, _ := DecodeTrace(b1)
	s.Merge(p) // another decoder's events, same ids
	d = s.Merge(p)
	after, _ := json.Marshal(s.Summary())
	if !d.Empty() || string(before) != string(after) {
		t.Errorf("merging a poll again changed things: %+v\n%s\n%s", d, before, after)
	}
	// One poll merged into two stores: each keeps its own events.
	s1, s2 := NewStore(), NewStore()
	s1.Merge(p)
	s2.Merge(p)
	s2.Ingest(body(ev("o0", orch, 0, -5, "reasoning.summary", "text", "x")))
	checkInvariants(t, s1)
	checkInvariants(t, s2)
	if s1.Event("o1").Pos() != 0 || s2.Event("o1").Pos() != 1 {
		t.Errorf("positions %d %d", s1.Event("o1").Pos(), s2.Event("o1").Pos())
	}
	if s.Merge(nil).Events != nil {
		t.Error("nil poll")
	}
}

// Event looks events up whichever way they came in: through the store's own
// decoder (no index needed to deduplicate), from other decoders, or both.
func TestEventLookup(t *testing.T) {
	b1 := body(ev("a", orch, 1, 0, "run.started"), ev("b", sub1, 1, 5, "agent.started"))
	b2 := body(ev("a", orch, 1, 0, "run.started"), ev("c", sub1, 2, 6, "reasoning.summary", "text", "x"))
	for _, lookFirst := range []bool{false, true} {
		s := NewStore()
		s.Ingest(b1)
		if lookFirst && (s.Event("a") == nil || s.Event("zz") != nil) {
			t.Fatal("lookup after Ingest")
		}
		p, _ := DecodeTrace(b2) // another decoder: "a" again
		d := s.Merge(p)
		s.Ingest(b2) // the own decoder: "c" again
		checkInvariants(t, s)
		if len(d.Events) != 1 || s.Len() != 3 {
			t.Errorf("events %d, delta %v", s.Len(), ids(d.Events))
		}
		for _, id := range []string{"a", "b", "c"} {
			if e := s.Event(id); e == nil || e.ID != id {
				t.Errorf("Event(%s) = %v", id, e)
			}
		}
		s.Ingest(body(ev("d", sub1, 3, 7, "reasoning.summary", "text", "y")))
		if s.Event("d") == nil || s.Len() != 4 {
			t.Error("event after the index was built")
		}
	}
}

// Times outside what int64 nanoseconds hold still order sensibly.
func TestExtremeTimes(t *testing.T) {
	s := ingest(t, body(
		ev("late", sub1, 1, 0, "agent.started", "occurredAt", "9999-12-31T23:59:59Z"),
		ev("early", sub2, 1, 0, "agent.started", "occurredAt", "0001-01-01T00:00:01Z"),
		ev("now", orch, 1, 0, "agent.started"),
	))
	if got := ids(s.Timeline()); !slices.Equal(got, []string{"early", "now", "late"}) {
		t.Errorf("timeline %v", got)
	}
}

// ResultFailed is the rule ToolCall.Failed applies, for a bare result.
func TestResultFailed(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{``, false},
		{`null`, false},
		{`"error"`, false},
		{`[{"error":"x"}]`, false},
		{`{}`, false},
		{`{"hits":3}`, false},
		{`{"error":null}`, false},
		{`{"error":false}`, false},
		{`{"error":""}`, false},
		{`{"error":"timeout"}`, true},
		{`{"error":{"code":1}}`, true},
		{`{"isError":true}`, true},
		{`{"isError":false}`, false},
		{`{"success":false}`, true},
		{`{"success":true}`, false},
		{`{"success":true,"isError":true}`, true},
		{" \n\t{\"error\":\"x\"} \n", true},
		// names spelt with escapes, and the words only inside values
		{`{"\u0065rror":"x"}`, true},
		{`{"is\u0045rror":true}`, true},
		{`{"succes\u0073":false}`, true},
		{`{"note":"error success isError"}`, false},
		{`{"note":"\"error\": 1"}`, false},
		// other escapes cannot spell the names: text with them takes the
		// quick way and still finds a member that is there
		{`{"markdown":"# A\n\"b\"\\","success":false}`, true},
		{`{"markdown":"# A\n\"b\"\\"}`, false},
		{`{"markdown":"\\u0065rror","\u0065rror":true}`, true},
	} {
		if got := ResultFailed([]byte(c.in)); got != c.want {
			t.Errorf("ResultFailed(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
