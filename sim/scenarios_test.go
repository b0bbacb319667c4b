package sim

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Every scenario reaches its outcome, with the run's and the agents'
// errors as the spec describes them.
func TestScenarioOutcomes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		scenario, outcome, code, source, status string
	}{
		{ScenarioResearch, "succeeded", "", "", "completed"},
		{ScenarioFailure, "failed", "internal", "system", "failed"},
		{ScenarioRefused, "refused", "refused", "agent", "failed"},
		{ScenarioCreditLimit, "credit_limit_reached", "credit_limit_reached", "billing", "failed"},
		{ScenarioLarge, "succeeded", "", "", "completed"},
	}
	var names []string
	for _, c := range cases {
		names = append(names, c.scenario)
	}
	s := startSim(t, Options{Scenarios: names, Events: 3000})
	c := newClient(s)
	for i, tc := range cases {
		t.Run(tc.scenario, func(t *testing.T) {
			id := s.Jobs[i].ID
			tr := finalTrace(t, s, id)
			fin := findType(tr.events, "run.finished")
			if len(fin) != 1 {
				t.Fatalf("%d run.finished events", len(fin))
			}
			f := fin[0]
			if f.Outcome != tc.outcome {
				t.Fatalf("outcome %q, want %q", f.Outcome, tc.outcome)
			}
			if !bytes.Contains(f.raw, []byte(`"error":`)) {
				t.Errorf("run.finished has no error key: %s", f.raw)
			}
			if tc.code == "" {
				if f.Error != nil {
					t.Errorf("error on success: %+v", f.Error)
				}
			} else if f.Error == nil || f.Error.Code != tc.code || f.Error.Source != tc.source || f.Error.Retryable == nil || f.Error.Message == "" {
				t.Errorf("error %+v, want code %s source %s", f.Error, tc.code, tc.source)
			}
			// Every agent that started finished, with an error unless it succeeded.
			started := map[string]bool{}
			for _, e := range findType(tr.events, "agent.started") {
				started[e.Agent.ID] = true
			}
			for _, e := range findType(tr.events, "agent.finished") {
				delete(started, e.Agent.ID)
				if e.DurationMs == nil || *e.DurationMs < 0 {
					t.Errorf("agent.finished without durationMs: %s", e.raw)
				}
				if (e.Outcome == "succeeded") != (e.Error == nil) {
					t.Errorf("agent.finished outcome %s with error %+v", e.Outcome, e.Error)
				}
			}
			if len(started) > 0 {
				t.Errorf("%d agents never finished", len(started))
			}
			st := jsonBody(t, c.must(t, "GET", "/v2/agent/"+id).body)
			if st["status"] != tc.status {
				t.Errorf("status %v, want %s", st["status"], tc.status)
			}
			if st["creditsUsed"] != float64(*tr.CreditsUsed) {
				t.Errorf("status creditsUsed %v, trace %d", st["creditsUsed"], *tr.CreditsUsed)
			}
		})
	}
}

func TestCreditLimitCapsCredits(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Scenarios: []string{ScenarioCreditLimit}, MaxCredits: 90})
	id := s.Jobs[0].ID
	c := newClient(s)
	for !s.Finished(id) {
		tr := c.trace(t, id, false)
		if *tr.CreditsUsed > 90 {
			t.Fatalf("creditsUsed %d > maxCredits", *tr.CreditsUsed)
		}
	}
	tr := c.trace(t, id, false)
	if *tr.CreditsUsed != 90 {
		t.Errorf("final creditsUsed %d, want the cap 90", *tr.CreditsUsed)
	}
	reasons := map[string]int{}
	for _, e := range findType(tr.events, "agent.finished") {
		if e.Error != nil {
			reasons[e.Error.Code]++
		}
	}
	if reasons["credit_limit_reached"] == 0 || reasons["parent_finished"] == 0 {
		t.Errorf("agents stopped with %v, want credit_limit_reached and parent_finished", reasons)
	}
}

func TestFailureSubagentFailsFirst(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Scenarios: []string{ScenarioFailure}})
	evs, _ := s.Script(s.Jobs[0].ID)
	var subFail, runFail time.Duration = -1, -1
	for _, e := range evs {
		var ev tev
		if err := json.Unmarshal(e.JSON, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == "agent.finished" && ev.Outcome == "failed" && ev.Agent.Role == "subagent" {
			subFail = e.At
		}
		if ev.Type == "run.finished" {
			runFail = e.At
		}
	}
	if subFail < 0 || runFail < 0 || subFail >= runFail {
		t.Fatalf("subagent failure at %v, run failure at %v", subFail, runFail)
	}
}

// The research run reads like a real task and has everything the issue
// asks for.
func TestResearchShape(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{})
	id := s.Jobs[0].ID
	tr := finalTrace(t, s, id)
	evs := tr.events
	if n := len(evs); n < 100 || n > 300 {
		t.Errorf("%d events, want 100-300", n)
	}
	if c := *tr.CreditsUsed; c < 150 || c > 500 {
		t.Errorf("%d credits, want a few hundred", c)
	}
	// Agents: orchestrator, 3 children, one grandchild.
	agents := map[string]tev{}
	for _, e := range evs {
		agents[e.Agent.ID] = e
	}
	var orch string
	children := map[string][]string{}
	for aid, e := range agents {
		if e.Agent.Role == "orchestrator" {
			if e.Agent.Name != "orchestrator" || e.Agent.ParentID != "" {
				t.Errorf("orchestrator identity %+v", e.Agent)
			}
			orch = aid
		} else {
			children[e.Agent.ParentID] = append(children[e.Agent.ParentID], e.Agent.Name)
		}
	}
	slices.Sort(children[orch])
	if !slices.Equal(children[orch], []string{"docs-analyst", "pricing-researcher", "source-verifier"}) {
		t.Errorf("orchestrator's subagents %v", children[orch])
	}
	nested := 0
	for p, cs := range children {
		if p != orch {
			nested += len(cs)
		}
	}
	if nested != 1 {
		t.Errorf("%d nested subagents, want 1", nested)
	}
	// Progress: orchestrator only, planning → working → finalizing.
	var phases []string
	for _, e := range findType(sortByTime(evs), "progress.reported") {
		if e.Agent.ID != orch || e.Message == "" {
			t.Errorf("bad progress event %s", e.raw)
		}
		if len(phases) == 0 || phases[len(phases)-1] != e.Phase {
			phases = append(phases, e.Phase)
		}
	}
	if !slices.Equal(phases, []string{"planning", "working", "finalizing"}) {
		t.Errorf("phases %v", phases)
	}
	// Reasoning summaries are multi-sentence.
	for _, e := range findType(evs, "reasoning.summary") {
		if strings.Count(e.Text, ". ") < 1 {
			t.Errorf("one-sentence reasoning: %q", e.Text)
		}
	}
	// Tools: the real names, realistic parameters, some null results, every
	// call finished.
	tools := map[string]int{}
	open := map[string]tev{}
	nullResults := 0
	for _, e := range sortByTime(evs) {
		switch e.Type {
		case "tool_call.started":
			tools[e.ToolName]++
			open[e.ToolCallID] = e
			if !json.Valid(e.Parameters) || len(e.Parameters) == 0 {
				t.Errorf("parameters %s", e.Parameters)
			}
		case "tool_call.finished":
			st, ok := open[e.ToolCallID]
			if !ok || st.ToolName != e.ToolName || st.Agent.ID != e.Agent.ID {
				t.Errorf("tool_call.finished without its start: %s", e.raw)
			}
			delete(open, e.ToolCallID)
			if string(e.Result) == "null" {
				nullResults++
			}
		}
	}
	for _, name := range []string{"mcp__tools__search", "mcp__tools__scrape", "mcp__tools__extract", "mcp__tools__map", "mcp__tools__browser_navigate"} {
		if tools[name] == 0 {
			t.Errorf("no %s call", name)
		}
	}
	if len(open) != 0 || nullResults == 0 {
		t.Errorf("%d unfinished tool calls, %d null results", len(open), nullResults)
	}
	var scrape struct {
		URL             string   `json:"url"`
		Formats         []string `json:"formats"`
		OnlyMainContent bool     `json:"onlyMainContent"`
	}
	for _, e := range evs {
		if e.ToolName == "mcp__tools__scrape" && e.Type == "tool_call.started" {
			if err := json.Unmarshal(e.Parameters, &scrape); err != nil || !strings.HasPrefix(scrape.URL, "https://") || len(scrape.Formats) == 0 {
				t.Errorf("scrape parameters %s", e.Parameters)
			}
		}
	}
	// Exactly one error: retryable, from a tool, then a successful retry of
	// the same URL.
	errs := findType(evs, "error.occurred")
	if len(errs) != 1 || errs[0].Error.Code != "internal" || errs[0].Error.Source != "tool" || !*errs[0].Error.Retryable {
		t.Fatalf("errors %+v", errs)
	}
	url := errs[0].Error.Message[strings.Index(errs[0].Error.Message, "https://"):]
	retried := false
	for _, e := range evs {
		if e.Type == "tool_call.finished" && e.Agent.ID == errs[0].Agent.ID && bytes.Contains(e.Result, []byte(url)) {
			retried = true
		}
	}
	if !retried {
		t.Errorf("no successful retry of %s", url)
	}
	// Browser sessions open and close with a duration.
	bs := map[string]bool{}
	for _, e := range findType(evs, "browser.session.started") {
		bs[e.SessionID] = true
	}
	for _, e := range findType(evs, "browser.session.finished") {
		if !bs[e.SessionID] || e.DurationMs == nil || *e.DurationMs <= 0 {
			t.Errorf("browser.session.finished %s", e.raw)
		}
		delete(bs, e.SessionID)
	}
	if len(findType(evs, "browser.session.started")) < 2 || len(bs) != 0 {
		t.Errorf("browser sessions: %d started, %d left open", len(findType(evs, "browser.session.started")), len(bs))
	}
	// The result artifact: init, then growing item counts, pointing at the
	// tool calls that produced them; and a markdown answer.
	var counts []int
	calls := map[string]bool{}
	for _, e := range findType(evs, "tool_call.started") {
		calls[e.ToolCallID] = true
	}
	kinds := map[string]bool{}
	for _, e := range findType(sortByTime(evs), "artifact.updated") {
		a := e.Artifact
		kinds[a.Kind] = true
		if a.SourceToolCallID != "" && !calls[a.SourceToolCallID] {
			t.Errorf("artifact source %s is not a tool call", a.SourceToolCallID)
		}
		if a.ArtifactID == "result" {
			if a.Kind != "json" || a.Path != "/workspace/result.json" || a.ItemCount == nil {
				t.Errorf("result artifact %+v", a)
			}
			if len(counts) == 0 && a.Change != "init" {
				t.Errorf("first result change %q", a.Change)
			}
			counts = append(counts, *a.ItemCount)
		}
	}
	if len(counts) < 5 || !slices.IsSorted(counts) || counts[len(counts)-1] != 5 {
		t.Errorf("result item counts %v", counts)
	}
	for _, k := range []string{"json", "markdown", "html", "text", "screenshot"} {
		if !kinds[k] {
			t.Errorf("no %s artifact", k)
		}
	}
}

func sortByTime(evs []tev) []tev {
	out := slices.Clone(evs)
	slices.SortStableFunc(out, func(a, b tev) int { return strings.Compare(a.OccurredAt, b.OccurredAt) })
	return out
}

var occurredAtRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// Every event has the envelope in the spec's order and exactly its type's
// fields.
func TestEventWireFormat(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Scenarios: []string{ScenarioResearch, ScenarioFailure, ScenarioCreditLimit, ScenarioRefused}})
	fields := map[string][]string{
		"run.started":              nil,
		"run.cancel_requested":     {"reason"},
		"run.finished":             {"outcome", "error"},
		"agent.started":            nil,
		"agent.finished":           {"outcome", "durationMs", "error"},
		"browser.session.started":  {"sessionId"},
		"browser.session.finished": {"sessionId", "durationMs"},
		"progress.reported":        {"phase", "message"},
		"reasoning.summary":        {"text"},
		"tool_call.started":        {"toolCallId", "toolName", "parameters"},
		"tool_call.finished":       {"toolCallId", "toolName", "result"},
		"artifact.updated":         {"artifact"},
		"error.occurred":           {"error"},
	}
	envelope := []string{"schemaVersion", "eventId", "runId", "occurredAt", "producerSequence", "agent", "type"}
	seen := map[string]bool{}
	ids := map[string]bool{}
	for _, j := range s.Jobs {
		tr := finalTrace(t, s, j.ID)
		if tr.ID != j.ID || !tr.Success || tr.ActiveBrowserSessions != nil {
			t.Errorf("trace frame: id %s success %v sessions %v", tr.ID, tr.Success, tr.ActiveBrowserSessions)
		}
		for _, e := range tr.events {
			seen[e.Type] = true
			want, ok := fields[e.Type]
			if !ok {
				t.Fatalf("unexpected type %s", e.Type)
			}
			if got := keyOrder(t, e.raw); !slices.Equal(got, append(slices.Clone(envelope), want...)) {
				t.Errorf("%s keys %v", e.Type, got)
			}
			if e.SchemaVersion != 1 || e.RunID != j.ID || !occurredAtRE.MatchString(e.OccurredAt) || e.ProducerSequence < 1 {
				t.Errorf("envelope %s", e.raw)
			}
			if _, err := uuid.Parse(e.EventID); err != nil || ids[e.EventID] {
				t.Errorf("eventId %q bad or repeated", e.EventID)
			}
			ids[e.EventID] = true
			ak := keyOrder(t, mustField(t, e.raw, "agent"))
			wantAK := []string{"id", "role", "name"}
			if e.Agent.Role == "subagent" {
				wantAK = append(wantAK, "parentId")
			}
			if !slices.Equal(ak, wantAK) {
				t.Errorf("agent keys %v", ak)
			}
			if e.Type == "artifact.updated" {
				ak := keyOrder(t, mustField(t, e.raw, "artifact"))
				if ak[0] != "kind" || ak[1] != "artifactId" || !slices.Contains(ak, "snapshotId") || !slices.Contains(ak, "change") {
					t.Errorf("artifact keys %v", ak)
				}
			}
			if e.Error != nil {
				if ek := keyOrder(t, mustField(t, e.raw, "error")); !slices.Equal(ek, []string{"code", "source", "retryable", "message"}) {
					t.Errorf("error keys %v", ek)
				}
			}
		}
	}
	for typ := range fields {
		if !seen[typ] && typ != "run.cancel_requested" { // cancel has its own test
			t.Errorf("no %s event in any scenario", typ)
		}
	}
}

func mustField(t testing.TB, b []byte, name string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m[name]
}

// producerSequence: per agent strictly increasing in time order, with gaps;
// the trace is sorted by it globally, which interleaves agents.
func TestProducerSequence(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Scenarios: []string{ScenarioResearch, ScenarioLarge}, Events: 2000})
	for _, j := range s.Jobs {
		tr := finalTrace(t, s, j.ID)
		per := map[string][]tev{}
		var prev int64
		for i, e := range tr.events {
			if e.ProducerSequence < prev {
				t.Fatalf("%s: event %d has sequence %d after %d", j.Scenario, i, e.ProducerSequence, prev)
			}
			prev = e.ProducerSequence
			per[e.Agent.ID] = append(per[e.Agent.ID], e)
		}
		gaps := 0
		for _, evs := range per {
			for i := 1; i < len(evs); i++ {
				a, b := evs[i-1], evs[i]
				if b.ProducerSequence <= a.ProducerSequence {
					t.Errorf("%s: agent %s sequence %d then %d", j.Scenario, a.Agent.Name, a.ProducerSequence, b.ProducerSequence)
				}
				if b.OccurredAt < a.OccurredAt {
					t.Errorf("%s: agent %s: sequence order is not time order", j.Scenario, a.Agent.Name)
				}
				if b.ProducerSequence > a.ProducerSequence+1 {
					gaps++
				}
			}
		}
		if gaps == 0 {
			t.Errorf("%s: no gaps in producerSequence", j.Scenario)
		}
		// Global sequence order is not time order: agents interleave.
		if slices.IsSortedFunc(tr.events, func(a, b tev) int { return strings.Compare(a.OccurredAt, b.OccurredAt) }) {
			t.Errorf("%s: trace is in time order; the service orders by producerSequence", j.Scenario)
		}
	}
}

func TestDeterminism(t *testing.T) {
	t.Parallel()
	script := func(seed int64, sc string) ([]ScriptEvent, int, string) {
		s := startSim(t, Options{Seed: seed, Scenarios: []string{sc}, Events: 1000, Speed: 1})
		evs, credits := s.Script(s.Jobs[0].ID)
		return evs, credits, s.Jobs[0].ID
	}
	for _, sc := range []string{ScenarioResearch, ScenarioFailure, ScenarioCreditLimit, ScenarioCancel, ScenarioLarge, ScenarioChaos} {
		a, ca, ida := script(7, sc)
		b, cb, idb := script(7, sc)
		if ida != idb || ca != cb || len(a) != len(b) {
			t.Fatalf("%s: same seed, different runs (%s/%s, %d/%d credits, %d/%d events)", sc, ida, idb, ca, cb, len(a), len(b))
		}
		for i := range a {
			if !bytes.Equal(a[i].JSON, b[i].JSON) || a[i].At != b[i].At || a[i].Visible != b[i].Visible {
				t.Fatalf("%s: event %d differs:\n%s\n%s", sc, i, a[i].JSON, b[i].JSON)
			}
		}
		c, _, idc := script(8, sc)
		if idc == ida || bytes.Equal(c[len(c)/2].JSON, a[len(a)/2].JSON) {
			t.Errorf("%s: different seeds gave the same run", sc)
		}
	}
}

// The wall clock only moves occurredAt; everything else stays put.
func TestDeterminismAcrossClocks(t *testing.T) {
	t.Parallel()
	a := startSim(t, Options{Seed: 3})
	b := startSim(t, Options{Seed: 3, Now: func() time.Time { return fixedNow().Add(time.Hour) }})
	ea, _ := a.Script(a.Jobs[0].ID)
	eb, _ := b.Script(b.Jobs[0].ID)
	strip := regexp.MustCompile(`"occurredAt":"[^"]*"`)
	for i := range ea {
		if !bytes.Equal(strip.ReplaceAll(ea[i].JSON, nil), strip.ReplaceAll(eb[i].JSON, nil)) {
			t.Fatalf("event %d differs beyond occurredAt", i)
		}
	}
}

func TestLarge(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Scenarios: []string{ScenarioLarge}, Events: 5000})
	tr := finalTrace(t, s, s.Jobs[0].ID)
	if len(tr.events) != 5000 {
		t.Errorf("%d events, want 5000", len(tr.events))
	}
	agents := map[string]bool{}
	for _, e := range tr.events {
		agents[e.Agent.ID] = true
	}
	if len(agents) != 12 {
		t.Errorf("%d agents, want 12", len(agents))
	}
	if f := findType(tr.events, "run.finished"); len(f) != 1 || f[0].Outcome != "succeeded" {
		t.Errorf("run.finished %v", f)
	}
}

func TestLargeScriptSpansAMinute(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Scenarios: []string{ScenarioLarge}, Events: 20000})
	evs, _ := s.Script(s.Jobs[0].ID)
	last := evs[0].At
	for _, e := range evs {
		last = max(last, e.At)
	}
	if len(evs) != 20000 || last < 50*time.Second || last > 70*time.Second {
		t.Errorf("%d events over %v", len(evs), last)
	}
}

func BenchmarkGenerateLarge(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run("events="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bl := newBuilder(newRNG(1, 0, streamScript), "00000000-0000-4000-8000-000000000000", fixedNow(), 1, "")
				large(bl, n)
				bl.finalize()
				if v := bl.view(); len(v.order) != n {
					b.Fatalf("%d events", len(v.order))
				}
			}
		})
	}
}

func BenchmarkServeLargeTrace(b *testing.B) {
	s := startSim(b, Options{Scenarios: []string{ScenarioLarge}, Events: 100_000})
	waitFinished(b, s, s.Jobs[0].ID)
	c := newClient(s)
	b.ResetTimer()
	for b.Loop() {
		r := c.must(b, "GET", "/v2/agent/"+s.Jobs[0].ID+"/trace")
		b.SetBytes(int64(len(r.body)))
	}
}

// Like the real service's, every run that ends lands at least one event
// after run.finished (a client's tail window has something to catch):
// every scenario, for several seeds, and a cancel at any moment, the very
// start included.
func TestEveryEndingLandsAnEventAfterRunFinished(t *testing.T) {
	t.Parallel()
	lateAfterFinish := func(evs []ScriptEvent) int {
		var fin time.Duration = -1
		for _, e := range evs {
			if e.Type == "run.finished" {
				fin = e.Visible
			}
		}
		if fin < 0 {
			return -1
		}
		n := 0
		for _, e := range evs {
			if e.Visible > fin {
				n++
			}
		}
		return n
	}
	scs := []string{ScenarioResearch, ScenarioFailure, ScenarioRefused, ScenarioCreditLimit, ScenarioLarge, ScenarioChaos}
	for seed := int64(1); seed <= 6; seed++ {
		s := startSim(t, Options{Seed: seed, Scenarios: scs, Events: 500})
		for _, j := range s.Jobs {
			evs, _ := s.Script(j.ID)
			if n := lateAfterFinish(evs); n < 1 {
				t.Errorf("seed %d, %s: %d events after run.finished", seed, j.Scenario, n)
			}
		}
	}
	for _, at := range []time.Duration{0, 2 * time.Second, 20 * time.Second, 45 * time.Second} {
		for _, sc := range []string{ScenarioCancel, ScenarioResearch, ScenarioLarge} {
			var clk manualClock
			s := startSim(t, Options{Scenarios: []string{sc}, Speed: 1, Events: 500, elapsed: clk.elapsed})
			clk.advance(at, 1)
			if r := newClient(s).must(t, "DELETE", "/v2/agent/"+s.Jobs[0].ID); r.status != 200 {
				t.Fatalf("%s cancelled at %v: %d %s", sc, at, r.status, r.body)
			}
			evs, _ := s.Script(s.Jobs[0].ID)
			if n := lateAfterFinish(evs); n < 1 {
				t.Errorf("%s cancelled at %v: %d events after run.finished", sc, at, n)
			}
		}
	}
}

// The runs a team's list shows side by side are told apart by their
// prompts, and one process's runs by their ids.
func TestScenariosAskDifferentThings(t *testing.T) {
	t.Parallel()
	srv, err := Start(t.Context(), Options{Scenarios: []string{ScenarioResearch, ScenarioFailure, ScenarioChaos, ScenarioResearch}, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	prompts, ids := map[string]bool{}, map[string]bool{}
	for _, j := range srv.Jobs[:3] {
		prompts[srv.Request(j.ID).Prompt] = true
	}
	for _, j := range srv.Jobs {
		ids[j.ID] = true
	}
	if len(prompts) != 3 || prompts[""] {
		t.Errorf("research, failure and chaos prompts: %v", prompts)
	}
	if len(ids) != len(srv.Jobs) {
		t.Errorf("%d distinct ids for %d jobs", len(ids), len(srv.Jobs))
	}
}
