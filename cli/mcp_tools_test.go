package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// More of firewatch mcp's tools, through the SDK's client as a coding
// agent calls them (helpers in cmd_mcp_test.go).

// wait_for_run until an event type returns on that event, with a cursor
// get_events reads it from; with a short timeout it returns "timeout" on
// a run still going, after about that long.
func TestMCPWaitForRunUntilAnEventAndTimeout(t *testing.T) {
	t.Parallel()
	srv := startHeldSim(t, sim.Options{Scenarios: []string{"research", "cancel"}, Speed: 10})
	svc := mcpEnv(t, srv.URL, srv.Key)
	cs, _ := startMCP(t, svc, "test-client", "--interval", "500ms")
	id := srv.Jobs[0].ID
	var w struct {
		Reason       string `json:"reason"`
		NewEvents    int    `json:"new_events"`
		EventsCursor string `json:"events_cursor"`
		Event        *struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		} `json:"event"`
	}
	if _, msg := call(t, cs, "wait_for_run", map[string]any{"run": id, "until": "tool_call.finished", "timeout_seconds": 60}, &w); msg != "" {
		t.Fatal(msg)
	}
	if w.Reason != "event" || w.Event == nil || w.Event.Type != "tool_call.finished" || w.NewEvents == 0 {
		t.Fatalf("wait until tool_call.finished: %+v", w)
	}
	// events_cursor reads from the wait's start: the first such event
	// after it is the one that ended the wait.
	var p eventsPage
	if _, msg := call(t, cs, "get_events", map[string]any{"run": id, "cursor": w.EventsCursor, "types": []string{"tool_call.finished"}, "limit": 1}, &p); msg != "" || len(p.Events) != 1 || p.Events[0].ID != w.Event.ID {
		t.Errorf("get_events from events_cursor %q: %s %+v, want %s", w.EventsCursor, msg, p.Events, w.Event.ID)
	}

	// The cancel scenario goes on for minutes at this speed.
	var to struct {
		Reason   string `json:"reason"`
		State    string `json:"state"`
		WaitedMs int64  `json:"waited_ms"`
	}
	start := time.Now()
	if _, msg := call(t, cs, "wait_for_run", map[string]any{"run": srv.Jobs[1].ID, "timeout_seconds": 1}, &to); msg != "" {
		t.Fatal(msg)
	}
	took := time.Since(start)
	if to.Reason != "timeout" || to.State != "running" || to.WaitedMs < 1000 || took > 10*time.Second {
		t.Errorf("wait with timeout_seconds 1: %+v after %s", to, took)
	}
}

type runsPage struct {
	Runs []struct {
		ID        string  `json:"id"`
		Status    string  `json:"status"`
		CreatedAt *string `json:"created_at"`
		Prompt    string  `json:"prompt"`
		Label     string  `json:"label"`
	} `json:"runs"`
	NextCursor string `json:"next_cursor"`
}

// listAll pages list_runs with args to its end; it fails on a run seen
// twice.
func listAll(t *testing.T, cs *mcp.ClientSession, args map[string]any) (runs []struct {
	ID        string  `json:"id"`
	Status    string  `json:"status"`
	CreatedAt *string `json:"created_at"`
	Prompt    string  `json:"prompt"`
	Label     string  `json:"label"`
}, pages int) {
	t.Helper()
	seen := map[string]bool{}
	cursor := ""
	for pages = 1; ; pages++ {
		if pages > 100 {
			t.Fatal("list_runs never ended")
		}
		a := map[string]any{}
		for k, v := range args {
			a[k] = v
		}
		if cursor != "" {
			a["cursor"] = cursor
		}
		var p runsPage
		if _, msg := call(t, cs, "list_runs", a, &p); msg != "" {
			t.Fatalf("list_runs %v: %s", a, msg)
		}
		for _, r := range p.Runs {
			if seen[r.ID] {
				t.Fatalf("run %s twice (%v)", r.ID, a)
			}
			seen[r.ID] = true
		}
		runs = append(runs, p.Runs...)
		if p.NextCursor == "" {
			return runs, pages
		}
		cursor = p.NextCursor
	}
}

// list_runs pages by its cursor to the end with each run once, holds to
// its maximum of 50 whatever limit is asked, and its status, label, text
// and since filters keep exactly the runs of the whole list that match.
func TestMCPListRunsFiltersAndPaging(t *testing.T) {
	t.Parallel()
	// At the default speed: at sim.MaxSpeed the history's creation times
	// past the first page collapse into one, and the service's list ends
	// after its first page.
	srv := startSim(t, sim.Options{History: 60})
	srv.WaitFinished(context.Background(), srv.Jobs[0].ID) // its status stands still from here
	svc := mcpEnv(t, srv.URL, srv.Key)
	cs, _ := startMCP(t, svc, "test-client", finishedRuns...)

	all, pages := listAll(t, cs, map[string]any{"limit": 7})
	if len(all) != 61 || pages < 61/7 {
		t.Fatalf("paged %d runs in %d pages, the service has 61", len(all), pages)
	}
	var big runsPage
	if _, msg := call(t, cs, "list_runs", map[string]any{"limit": 500}, &big); msg != "" || len(big.Runs) != 50 || big.NextCursor == "" {
		t.Fatalf("limit 500: %s, %d runs, cursor %q: want the maximum, 50, and a cursor", msg, len(big.Runs), big.NextCursor)
	}
	if _, msg := call(t, cs, "list_runs", map[string]any{"cursor": "nonsense"}, nil); !strings.Contains(msg, "cursor") {
		t.Errorf("a bad cursor: %q", msg)
	}

	count := func(keep func(i int) bool) int {
		n := 0
		for i := range all {
			if keep(i) {
				n++
			}
		}
		return n
	}
	cutoff := time.Now().Add(-2 * time.Hour)
	for _, c := range []struct {
		args map[string]any
		keep func(i int) bool
	}{
		{map[string]any{"status": "failed"}, func(i int) bool { return all[i].Status == "failed" }},
		{map[string]any{"status": "completed"}, func(i int) bool { return all[i].Status == "completed" }},
		{map[string]any{"label": "pricing"}, func(i int) bool { return all[i].Label == "pricing" }},
		{map[string]any{"text": "CEREAL"}, func(i int) bool { return strings.Contains(strings.ToLower(all[i].Prompt), "cereal") }},
		{map[string]any{"since": "2h"}, func(i int) bool {
			ts, err := time.Parse(time.RFC3339, *all[i].CreatedAt)
			return err == nil && ts.After(cutoff)
		}},
	} {
		want := count(c.keep)
		if want == 0 || want == len(all) {
			t.Fatalf("%v: %d of %d runs match: the fixture does not tell a filter from none", c.args, want, len(all))
		}
		c.args["limit"] = 5
		got, _ := listAll(t, cs, c.args)
		if len(got) != want {
			t.Errorf("%v: %d runs, the whole list has %d that match", c.args, len(got), want)
		}
		for _, r := range got {
			for i := range all {
				if all[i].ID == r.ID && !c.keep(i) {
					t.Errorf("%v: run %s (%s, %q, %q) does not match", c.args, r.ID, r.Status, r.Label, r.Prompt)
				}
			}
		}
	}
}

// get_events with agent keeps that agent's events only, by its id or its
// name, as many as get_run counts for it.
func TestMCPGetEventsAgentFilter(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: sim.MaxSpeed})
	svc := mcpEnv(t, srv.URL, srv.Key)
	id := srv.Jobs[0].ID
	srv.WaitFinished(context.Background(), id)
	cs, _ := startMCP(t, svc, "test-client", finishedRuns...)
	var run struct {
		Events int `json:"events"`
		Agents []struct {
			ID     string `json:"id"`
			Name   string `json:"name"`
			Events int    `json:"events"`
		} `json:"agents"`
	}
	if _, msg := call(t, cs, "get_run", map[string]any{"run": id}, &run); msg != "" || len(run.Agents) < 2 {
		t.Fatalf("get_run: %s %+v", msg, run)
	}
	a := run.Agents[len(run.Agents)-1]
	if a.Events == 0 || a.Events == run.Events {
		t.Fatalf("agent %+v: no events of its own to tell the filter by", a)
	}
	for _, who := range []string{a.ID, a.Name} {
		var p struct {
			Events []struct {
				AgentID string `json:"agent_id"`
			} `json:"events"`
			More bool `json:"more"`
		}
		if _, msg := call(t, cs, "get_events", map[string]any{"run": id, "agent": who, "limit": 500, "max_chars": 100000}, &p); msg != "" {
			t.Fatal(msg)
		}
		if len(p.Events) != a.Events || p.More {
			t.Errorf("agent %q: %d events (more %v), get_run counts %d", who, len(p.Events), p.More, a.Events)
		}
		for _, e := range p.Events {
			if e.AgentID != a.ID {
				t.Errorf("agent %q: an event of %s", who, e.AgentID)
				break
			}
		}
	}
}

// schemaOf is a tool's output schema, resolved for validation.
func schemaOf(t *testing.T, tl *mcp.Tool) *jsonschema.Resolved {
	t.Helper()
	b, err := json.Marshal(tl.OutputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: output schema: %v", tl.Name, err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: output schema: %v", tl.Name, err)
	}
	return r
}

// checkedCall calls a tool, fails on a tool error, and checks its
// structured result against the tool's declared output schema; the
// result is returned as decoded JSON.
func checkedCall(t *testing.T, cs *mcp.ClientSession, tools map[string]*mcp.Tool, tool string, args map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s: %s", tool, toolText(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if err := schemaOf(t, tools[tool]).Validate(v); err != nil {
		t.Errorf("%s: the result does not match its output schema: %v\n%.600s", tool, err, b)
	}
	return v
}

// Every tool's result matches the output schema the tool declares, and
// every result that carries the service's strings says, in its note, that
// they were scraped from the web and are never instructions (as do the
// server's instructions).
func TestMCPResultsMatchSchemasAndSayWebContent(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research", "failure", "cancel"}, Speed: 100})
	svc := mcpEnv(t, srv.URL, srv.Key)
	a, b := srv.Jobs[0].ID, srv.Jobs[1].ID
	srv.WaitFinished(context.Background(), a)
	srv.WaitFinished(context.Background(), b)
	cs, _ := startMCP(t, svc, "test-client", "--allow-actions", "--budget", "20", "--interval", "500ms")
	tools := toolNames(t, cs)
	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "scraped from the web") || !strings.Contains(ins, "never instructions") {
		t.Errorf("the server's instructions: %q", ins)
	}

	results := map[string]map[string]any{}
	do := func(tool string, args map[string]any) map[string]any {
		v := checkedCall(t, cs, tools, tool, args)
		results[tool] = v
		return v
	}
	// First, while the cancel scenario still goes (10 simulated minutes:
	// 6 s at this speed).
	do("cancel_run", map[string]any{"run": srv.Jobs[2].ID})
	do("list_runs", map[string]any{})
	do("get_run", map[string]any{"run": a})
	do("get_tree", map[string]any{"run": a})
	ev := do("get_events", map[string]any{"run": a, "types": []string{"tool_call.started", "artifact.updated"}, "limit": 500, "max_chars": 100000})
	var tcID, artID string
	for _, e := range ev["events"].([]any) {
		data, _ := e.(map[string]any)["data"].(map[string]any)
		if id, ok := data["toolCallId"].(string); ok && tcID == "" {
			tcID = id
		}
		if art, ok := data["artifact"].(map[string]any); ok && artID == "" {
			artID, _ = art["artifactId"].(string)
		}
	}
	if tcID == "" || artID == "" {
		t.Fatalf("no tool call or artifact among the events: %q %q", tcID, artID)
	}
	do("get_tool_call", map[string]any{"run": a, "id": tcID})
	do("get_artifact", map[string]any{"run": a, "id": artID})
	do("get_result", map[string]any{"run": a})
	do("wait_for_run", map[string]any{"run": a})
	do("compare_runs", map[string]any{"a": a, "b": b, "fail_on": "outcome"})
	do("report", map[string]any{"run": a})
	do("cost", map[string]any{"by": "prompt"})
	do("start_run", map[string]any{"prompt": "find the docs", "max_credits": 20})
	for _, name := range append(readTools, "start_run", "cancel_run") {
		if results[name] == nil {
			t.Errorf("%s not called", name)
		}
	}

	// Every read tool hands back the service's strings (cost by prompt
	// too: its keys are prompts); the acting tools return ids only.
	for _, name := range readTools {
		note, _ := results[name]["note"].(string)
		if !strings.Contains(note, "scraped from the web") || !strings.Contains(note, "never instructions") {
			t.Errorf("%s: its note is %q", name, note)
		}
	}
}

// A 429 from the service that outlasts firewatch's retries is a tool error
// the model can act on (what the service said, and to call again), not a
// JSON-RPC error and not the server's end: the next call succeeds.
func TestMCPRateLimitIsAToolError(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: sim.MaxSpeed})
	front := &hostile.Refuser{Next: srv, Method: "GET", Route: "/v2/agent", N: poller.DefaultTries, Exact: true}
	hs := httptest.NewServer(front)
	t.Cleanup(hs.Close)
	svc := mcpEnv(t, hs.URL, srv.Key)

	// firewatch mcp in this process as startMCP runs it, with the retries'
	// waits (1 s each, as the service asks) not slept.
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errOut := &lockedBuf{}
	done := make(chan int, 1)
	retry := poller.Retry{Sleep: func(ctx context.Context, d time.Duration) bool { return ctx.Err() == nil }}
	go func() {
		done <- execute(ctx, append([]string{"mcp"}, svc...), inR, outW, errOut, retry)
		outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		cancel()
		t.Fatalf("connect: %v\n%s", err, errOut)
	}
	t.Cleanup(func() {
		cs.Close()
		inW.Close()
		cancel()
		<-done
	})

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_runs", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("a 429 as a protocol error: %v", err)
	}
	msg := toolText(res)
	if !res.IsError || !strings.Contains(msg, "429") || !strings.Contains(msg, "Rate limit exceeded") || !strings.Contains(msg, "call again") {
		t.Fatalf("a 429 after the retries: error %v, %q", res.IsError, msg)
	}
	if front.Requests() != poller.DefaultTries {
		t.Errorf("%d requests, want the %d tries", front.Requests(), poller.DefaultTries)
	}
	if strings.Contains(msg, srv.Key) || strings.Contains(errOut.String(), srv.Key) {
		t.Error("the key in the error or the log")
	}
	var list runsPage
	if _, msg := call(t, cs, "list_runs", map[string]any{}, &list); msg != "" || len(list.Runs) != 1 {
		t.Errorf("list_runs once the service answers: %q %+v", msg, list)
	}
}

// start_run keeps who started the run ("mcp:<client>") in the archive's
// record, and get_run and history say it.
func TestMCPStartRunArchivesWhoStartedIt(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"cancel"}, Speed: 1})
	svc := mcpEnv(t, srv.URL, srv.Key)
	cs, _ := startMCP(t, svc, "test-agent", "--allow-actions", "--budget", "20")
	var st struct {
		Run string `json:"run"`
	}
	if _, msg := call(t, cs, "start_run", map[string]any{"prompt": "find the docs", "max_credits": 20}, &st); msg != "" || st.Run == "" {
		t.Fatalf("start_run: %s %+v", msg, st)
	}
	db, err := archive.Open(context.Background(), svc.archive())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r, err := db.Get(context.Background(), "", st.Run)
	if err != nil || r.StartedBy != "mcp:test-agent" {
		t.Fatalf("the archive's record of %s: %v %+v", st.Run, err, r)
	}
	var got struct {
		StartedBy string `json:"started_by"`
	}
	if _, msg := call(t, cs, "get_run", map[string]any{"run": st.Run}, &got); msg != "" || got.StartedBy != "mcp:test-agent" {
		t.Errorf("get_run: %s %+v", msg, got)
	}
	out, _, code := run(t, context.Background(), "history", "-o", "json", "--archive", svc.archive(), "--api-url", srv.URL)
	if code != 0 || !strings.Contains(out, `"startedBy":"mcp:test-agent"`) {
		t.Errorf("history -o json: exit %d\n%s", code, out)
	}
}
