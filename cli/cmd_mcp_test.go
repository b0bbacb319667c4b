package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/internal/sshtest"
	"github.com/firewatch/firewatch/sim"
)

// The tests of firewatch mcp run the command in this process, its stdin
// and stdout two in-memory pipes the SDK's client speaks over, against the
// simulator; each test has an archive of its own.

type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// mcpEnv points the commands at srv (or url, a front of it) with a fresh
// archive, as flags: the test runs beside others, and the environment is
// the process's.
func mcpEnv(t *testing.T, url, key string) mcpService {
	return mcpService{"--api-url", url, "--api-key", key, "--archive", filepath.Join(t.TempDir(), "archive.db")}
}

// finishedRuns are mcp's flags for runs that ended before it started: a
// follower's tail of late polls (poller.DefaultTail) at a short interval,
// so that report's settle of the run ends in about a second.
var finishedRuns = []string{"--interval", "500ms"}

// mcpService is the flags of mcpEnv, given after the command's name.
type mcpService []string

// archive is the archive's path.
func (s mcpService) archive() string { return s[len(s)-1] }

// startMCP runs firewatch mcp args in this process and connects a client
// named name to it; its stderr is returned.
func startMCP(t *testing.T, svc mcpService, name string, args ...string) (*mcp.ClientSession, *lockedBuf) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errOut := &lockedBuf{}
	done := make(chan int, 1)
	go func() {
		done <- Execute(ctx, append(append([]string{"mcp"}, svc...), args...), inR, outW, errOut)
		outW.Close()
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		cancel()
		t.Fatalf("connect: %v\n%s", err, errOut)
	}
	t.Cleanup(func() {
		cs.Close()
		inW.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Errorf("firewatch mcp did not end\n%s", errOut)
		}
	})
	return cs, errOut
}

// call calls a tool and decodes its structured result into out (nil: not
// decoded); the text of a tool error is returned as msg.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, out any) (size int, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		text := toolText(res)
		return len([]rune(text)), text
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v\n%s", tool, err, b)
		}
	}
	return len([]rune(string(b))), ""
}

// toolText is the text of a tool's result.
func toolText(res *mcp.CallToolResult) string {
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	return text
}

type eventsPage struct {
	Events []struct {
		Seq  int    `json:"seq"`
		ID   string `json:"id"`
		Type string `json:"type"`
	} `json:"events"`
	NextCursor string   `json:"next_cursor"`
	More       bool     `json:"more"`
	Total      int      `json:"total"`
	Cut        []string `json:"cut"`
}

// pageAll pages get_events to its end; it fails on an event seen twice.
func pageAll(t *testing.T, cs *mcp.ClientSession, run string, args map[string]any) (ids []string, largest, total int) {
	return pageSome(t, cs, run, args, 0)
}

// pageSome is pageAll that stops after n pages (n > 0) with more to come.
func pageSome(t *testing.T, cs *mcp.ClientSession, run string, args map[string]any, n int) (ids []string, largest, total int) {
	t.Helper()
	seen := map[int]bool{}
	cursor := ""
	for pages := 0; ; pages++ {
		if n > 0 && pages == n {
			return ids, largest, total
		}
		if pages > 5000 {
			t.Fatal("get_events never ended")
		}
		a := map[string]any{"run": run}
		for k, v := range args {
			a[k] = v
		}
		if cursor != "" {
			a["cursor"] = cursor
		}
		var p eventsPage
		size, msg := call(t, cs, "get_events", a, &p)
		if msg != "" {
			t.Fatalf("get_events: %s", msg)
		}
		largest = max(largest, size)
		for _, e := range p.Events {
			if seen[e.Seq] {
				t.Fatalf("event seq %d twice", e.Seq)
			}
			seen[e.Seq] = true
			ids = append(ids, e.ID)
		}
		total = p.Total
		if !p.More {
			return ids, largest, total
		}
		if len(p.Events) == 0 {
			t.Fatalf("a page with more and no events (cursor %q)", cursor)
		}
		cursor = p.NextCursor
	}
}

func toolNames(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		m[tl.Name] = tl
	}
	return m
}

var readTools = []string{"list_runs", "get_run", "get_tree", "get_events", "get_tool_call", "get_artifact", "get_result", "wait_for_run", "compare_runs", "cost", "report"}

// Every read tool is offered with its schemas and hints, the acting ones
// are not without --allow-actions, and each answers about a finished run.
func TestMCPReadTools(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research", "failure"}, Speed: sim.MaxSpeed})
	svc := mcpEnv(t, srv.URL, srv.Key)
	for _, j := range srv.Jobs {
		srv.WaitFinished(context.Background(), j.ID)
	}
	cs, errOut := startMCP(t, svc, "test-client", finishedRuns...)
	tools := toolNames(t, cs)
	for _, name := range readTools {
		tl := tools[name]
		if tl == nil {
			t.Fatalf("no tool %s", name)
		}
		if tl.InputSchema == nil || tl.OutputSchema == nil || tl.Description == "" {
			t.Errorf("%s: schemas or description missing", name)
		}
		if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint || tl.Annotations.DestructiveHint == nil || *tl.Annotations.DestructiveHint {
			t.Errorf("%s: not annotated read-only and not destructive", name)
		}
	}
	for _, name := range []string{"cancel_run", "start_run"} {
		if tools[name] != nil {
			t.Errorf("%s offered without --allow-actions", name)
		}
	}
	if len(tools) != len(readTools) {
		t.Errorf("tools %v", tools)
	}

	var list struct {
		Runs []struct{ ID, Status, Prompt string } `json:"runs"`
	}
	if _, msg := call(t, cs, "list_runs", map[string]any{}, &list); msg != "" || len(list.Runs) != 2 {
		t.Fatalf("list_runs: %s %+v", msg, list)
	}
	id := srv.Jobs[0].ID
	var run struct {
		State, Outcome string
		Agents         []struct{ ID string } `json:"agents"`
		Events         int                   `json:"events"`
	}
	if _, msg := call(t, cs, "get_run", map[string]any{"run": id}, &run); msg != "" || run.State != "finished" || run.Outcome != "succeeded" || len(run.Agents) == 0 {
		t.Fatalf("get_run: %s %+v", msg, run)
	}
	if _, msg := call(t, cs, "get_tree", map[string]any{"run": id}, nil); msg != "" {
		t.Fatalf("get_tree: %s", msg)
	}
	ids, _, total := pageAll(t, cs, id, map[string]any{"limit": 7})
	if len(ids) != total || total != run.Events {
		t.Errorf("get_events paged %d events, the run has %d (get_run: %d)", len(ids), total, run.Events)
	}
	var calls eventsPage
	call(t, cs, "get_events", map[string]any{"run": id, "types": []string{"tool_call.started"}, "limit": 1}, &calls)
	if len(calls.Events) != 1 || calls.Events[0].Type != "tool_call.started" {
		t.Fatalf("get_events types: %+v", calls)
	}
	var all struct {
		Events []struct {
			Data map[string]any `json:"data"`
		} `json:"events"`
	}
	call(t, cs, "get_events", map[string]any{"run": id, "types": []string{"tool_call.started"}, "limit": 1}, &all)
	tcID, _ := all.Events[0].Data["toolCallId"].(string)
	var tc struct{ ID, Tool string }
	if _, msg := call(t, cs, "get_tool_call", map[string]any{"run": id, "id": tcID}, &tc); msg != "" || tc.ID != tcID {
		t.Errorf("get_tool_call %q: %s %+v", tcID, msg, tc)
	}
	var arts struct {
		Events []struct {
			Data map[string]any `json:"data"`
		} `json:"events"`
	}
	call(t, cs, "get_events", map[string]any{"run": id, "types": []string{"artifact.updated"}, "limit": 1}, &arts)
	if len(arts.Events) == 0 {
		t.Fatal("no artifact.updated event")
	}
	artifact, _ := arts.Events[0].Data["artifact"].(map[string]any)
	artID, _ := artifact["artifactId"].(string)
	var art struct {
		ID, Content string
		Versions    []struct{ Snapshot string } `json:"versions"`
	}
	if _, msg := call(t, cs, "get_artifact", map[string]any{"run": id, "id": artID}, &art); msg != "" || art.ID != artID || art.Content == "" || len(art.Versions) == 0 {
		t.Errorf("get_artifact %q: %s %+v", artID, msg, art)
	}
	var result struct {
		Data any    `json:"data"`
		Why  string `json:"why"`
	}
	if _, msg := call(t, cs, "get_result", map[string]any{"run": id}, &result); msg != "" || result.Data == nil {
		t.Errorf("get_result: %s %+v", msg, result)
	}
	if _, msg := call(t, cs, "get_result", map[string]any{"run": srv.Jobs[1].ID}, &result); msg != "" || !strings.Contains(result.Why, "failed") {
		t.Errorf("get_result of a failed run: %s %+v", msg, result)
	}
	if _, msg := call(t, cs, "get_tool_call", map[string]any{"run": id, "id": "nope"}, nil); !strings.Contains(msg, "no tool call") {
		t.Errorf("an unknown tool call: %q", msg)
	}
	var rep struct {
		Markdown string `json:"markdown"`
	}
	if _, msg := call(t, cs, "report", map[string]any{"run": id}, &rep); msg != "" || !strings.Contains(rep.Markdown, "#") {
		t.Errorf("report: %s %.200s", msg, rep.Markdown)
	}
	var cmp struct {
		Verdict string   `json:"verdict"`
		Crossed []string `json:"crossed"`
	}
	if _, msg := call(t, cs, "compare_runs", map[string]any{"a": id, "b": srv.Jobs[1].ID, "fail_on": "outcome"}, &cmp); msg != "" || cmp.Verdict != "fail" {
		t.Errorf("compare_runs succeeded → failed with fail_on outcome: %s %+v", msg, cmp)
	}
	if _, msg := call(t, cs, "cost", map[string]any{"by": "model"}, nil); msg != "" {
		t.Errorf("cost: %s", msg)
	}
	// Errors a model can act on, never the server's end.
	if _, msg := call(t, cs, "get_run", map[string]any{"run": "0190f000-0000-7000-8000-000000000000"}, nil); !strings.Contains(msg, "404") {
		t.Errorf("an unknown run: %q", msg)
	}
	if _, msg := call(t, cs, "get_run", map[string]any{"run": "../../etc/passwd"}, nil); !strings.Contains(msg, "run id") {
		t.Errorf("a path for a run: %q", msg)
	}
	if _, msg := call(t, cs, "wait_for_run", map[string]any{"run": id, "until": "nonsense"}, nil); !strings.Contains(msg, "until") {
		t.Errorf("a bad until: %q", msg)
	}
	if strings.Contains(errOut.String(), srv.Key) {
		t.Error("the key on stderr")
	}
}

// At the 20 000-event run every result keeps within its budget, and
// get_events' first pages within the largest budget hold each event once
// (TestMCPReadTools pages a smaller run to its end).
func TestMCPBudgetsAtTheLargeRun(t *testing.T) {
	if raceDetector {
		t.Skip("a 20 000-event run under the race detector takes minutes: .ci/run runs this test without it")
	}
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"large"}, Speed: sim.MaxSpeed})
	svc := mcpEnv(t, srv.URL, srv.Key)
	srv.WaitFinished(context.Background(), srv.Jobs[0].ID)
	cs, _ := startMCP(t, svc, "test-client", finishedRuns...)
	id := srv.Jobs[0].ID
	sizes := map[string]int{}
	for _, tool := range []string{"get_run", "get_tree", "report", "get_result"} {
		size, msg := call(t, cs, tool, map[string]any{"run": id}, nil)
		if msg != "" {
			t.Fatalf("%s: %s", tool, msg)
		}
		sizes[tool] = size
	}
	size, msg := call(t, cs, "get_events", map[string]any{"run": id, "limit": 500}, nil)
	if msg != "" {
		t.Fatal(msg)
	}
	sizes["get_events"] = size
	var small eventsPage
	if size, _ := call(t, cs, "get_events", map[string]any{"run": id, "limit": 500, "max_chars": 2000}, &small); size > 2000 || len(small.Events) == 0 {
		t.Errorf("get_events with max_chars 2000: %d characters, %d events", size, len(small.Events))
	}
	for tool, size := range sizes {
		if size > 20000 {
			t.Errorf("%s: %d characters, over the default budget of 20000", tool, size)
		}
	}
	// Pages within the largest budget, each event once (TestMCPReadTools
	// pages a run to its end): the first pages of the whole run's 20 000.
	ids, largest, total := pageSome(t, cs, id, map[string]any{"limit": 500, "max_chars": 100000}, 4)
	if total < 20000 || len(ids) < 4*100 {
		t.Errorf("%d events in 4 pages of %d", len(ids), total)
	}
	if largest > 100000 {
		t.Errorf("a page of %d characters, over max_chars 100000", largest)
	}
	t.Logf("largest results at the %d-event run: %v", total, sizes)
}

// wait_for_run returns when the run ends, and on the first attention item
// of a run that loops (before it ends).
func TestMCPWaitForRun(t *testing.T) {
	t.Parallel()
	srv := startHeldSim(t, sim.Options{Scenarios: []string{"research", "loop"}, Speed: 25})
	svc := mcpEnv(t, srv.URL, srv.Key)
	cs, _ := startMCP(t, svc, "test-client", "--interval", "500ms")
	var w struct {
		Reason, State string
		Raised        []struct{ Kind string } `json:"raised"`
		Open          []struct{ Kind string } `json:"open"`
	}
	// The loop first: both runs go from the first poll on.
	if _, msg := call(t, cs, "wait_for_run", map[string]any{"run": srv.Jobs[1].ID, "until": "attention", "timeout_seconds": 120}, &w); msg != "" || w.Reason != "attention" || len(w.Open) == 0 {
		t.Fatalf("wait until attention: %s %+v", msg, w)
	}
	if w.State == "finished" {
		t.Errorf("the loop's first attention item came only with its end: %+v", w)
	}
	if _, msg := call(t, cs, "wait_for_run", map[string]any{"run": srv.Jobs[0].ID, "timeout_seconds": 60}, &w); msg != "" || w.Reason != "finished" || w.State != "finished" {
		t.Fatalf("wait until finished: %s %+v", msg, w)
	}
	if !srv.Finished(srv.Jobs[0].ID) {
		t.Error("wait_for_run returned before the run finished")
	}
	// The run is archived as a watch archives it: its bill known to cost
	// asked at once, as a model would after "finished".
	var cost struct {
		Total struct {
			Billed float64 `json:"billed_credits"`
		} `json:"total"`
	}
	if _, msg := call(t, cs, "cost", map[string]any{}, &cost); msg != "" || cost.Total.Billed <= 0 {
		t.Fatalf("cost just after wait_for_run said finished: %s %+v", msg, cost)
	}
}

// Two clients (two firewatch mcp on one archive) waiting on one run make
// one stream of trace requests: about as many as one client waiting on a
// run of the same length at the same time.
func TestMCPTwoClientsOneTraceStream(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research", "research"}, Speed: 25})
	var mu sync.Mutex
	traces := map[string]int{}
	target, _ := url.Parse(srv.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/trace") {
			mu.Lock()
			traces[strings.Split(r.URL.Path, "/")[3]]++
			mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close) // after the servers' cleanups: they end talking to it
	svc := mcpEnv(t, front.URL, srv.Key)
	one, _ := startMCP(t, svc, "one", "--interval", "500ms")
	two, _ := startMCP(t, svc, "two", "--interval", "500ms")
	var wg sync.WaitGroup
	wait := func(cs *mcp.ClientSession, id string) {
		defer wg.Done()
		var w struct{ Reason string }
		if _, msg := call(t, cs, "wait_for_run", map[string]any{"run": id, "timeout_seconds": 120}, &w); msg != "" || w.Reason != "finished" {
			t.Errorf("wait: %s %+v", msg, w)
		}
	}
	wg.Add(3)
	go wait(one, srv.Jobs[0].ID)
	go wait(one, srv.Jobs[1].ID)
	go wait(two, srv.Jobs[1].ID)
	wg.Wait()
	mu.Lock()
	alone, both := traces[srv.Jobs[0].ID], traces[srv.Jobs[1].ID]
	mu.Unlock()
	t.Logf("trace requests: one client waiting %d, two clients waiting %d", alone, both)
	if alone == 0 || both > alone*3/2+2 {
		t.Errorf("two clients made %d trace requests, one made %d: two streams", both, alone)
	}
}

// With --allow-actions the acting tools are offered: a start over the
// budget is refused, one within it starts, a cancel is kept with who
// asked in the run's record.
func TestMCPActions(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"cancel"}, Speed: 1})
	svc := mcpEnv(t, srv.URL, srv.Key)
	cs, errOut := startMCP(t, svc, "test-agent", "--allow-actions", "--budget", "20")
	tools := toolNames(t, cs)
	for _, name := range []string{"cancel_run", "start_run"} {
		if tools[name] == nil {
			t.Fatalf("%s not offered with --allow-actions", name)
		}
	}
	if a := tools["cancel_run"].Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("cancel_run's hints: %+v", a)
	}
	before := srv.Stats().ByRoute["POST agent"]
	if _, msg := call(t, cs, "start_run", map[string]any{"prompt": "find the docs", "max_credits": 50}, nil); !strings.Contains(msg, "over this server's budget") {
		t.Errorf("a start over the budget: %q", msg)
	}
	if _, msg := call(t, cs, "start_run", map[string]any{"prompt": "find the docs"}, nil); msg == "" {
		t.Error("a start without max_credits was made")
	}
	if n := srv.Stats().ByRoute["POST agent"] - before; n != 0 {
		t.Errorf("%d starts reached the service", n)
	}
	var st struct{ Run, By string }
	if _, msg := call(t, cs, "start_run", map[string]any{"prompt": "find the docs", "max_credits": 20}, &st); msg != "" || st.Run == "" || st.By != "mcp:test-agent" {
		t.Fatalf("start_run: %s %+v", msg, st)
	}
	id := srv.Jobs[0].ID
	if _, msg := call(t, cs, "cancel_run", map[string]any{"run": id}, nil); msg != "" {
		t.Fatalf("cancel_run: %s", msg)
	}
	if !strings.Contains(errOut.String(), "mcp:test-agent cancelled run "+id) {
		t.Errorf("the cancel is not logged:\n%s", errOut)
	}
	st2, err := archive.Open(context.Background(), svc.archive())
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	r, err := st2.Get(context.Background(), "", id)
	if err != nil || r.CancelledBy != "mcp:test-agent" || !r.CancelRequested {
		t.Errorf("the archive's record: %v %+v", err, r)
	}
}

// Text of the service's that carries escape sequences, C1 controls, bidi
// characters and the key in every disguise comes back inert.
func TestMCPHostileTextInert(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: sim.MaxSpeed})
	f := hostile.Start(t, srv, hostile.KeyEchoHostileText)
	svc := mcpEnv(t, f.URL, srv.Key)
	srv.WaitFinished(context.Background(), srv.Jobs[0].ID)
	cs, errOut := startMCP(t, svc, "test-client", finishedRuns...)
	id := srv.Jobs[0].ID
	var got []string
	collect := func(tool string, args map[string]any) {
		var v any
		if _, msg := call(t, cs, tool, args, &v); msg != "" {
			got = append(got, msg)
		}
		got = append(got, stringsOf(v)...)
	}
	collect("list_runs", map[string]any{})
	collect("get_run", map[string]any{"run": id})
	collect("get_tree", map[string]any{"run": id})
	collect("get_events", map[string]any{"run": id, "limit": 500, "max_chars": 100000})
	collect("report", map[string]any{"run": id})
	collect("get_result", map[string]any{"run": id})
	all := strings.Join(got, "\n")
	if !strings.Contains(all, "[redacted]") {
		t.Error("no redacted echo: were the hostile events read?")
	}
	if bad := notInert(all, srv.Key); bad != "" {
		t.Errorf("results: %s", bad)
	}
	if bad := notInert(errOut.String(), srv.Key); bad != "" {
		t.Errorf("stderr: %s", bad)
	}
}

func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case map[string]any:
		var out []string
		for k, e := range x {
			out = append(out, k)
			out = append(out, stringsOf(e)...)
		}
		return out
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, stringsOf(e)...)
		}
		return out
	}
	return nil
}

// A client that sends garbage gets JSON-RPC errors, and the server goes on
// answering.
func TestMCPGarbageRequests(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1000})
	svc := mcpEnv(t, srv.URL, srv.Key)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Execute(ctx, append([]string{"mcp"}, svc...), inR, outW, io.Discard)
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		if !lines.Scan() {
			t.Fatalf("the server ended: %v", lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %q", lines.Text())
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := next(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, bad := range []string{
		`not json at all`,
		`{"hello":"world"}`,
		`[1,2,3]`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get_run","arguments":{"run":"` + strings.Repeat("a", 2<<20) + `"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_run","arguments":{"run":12}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_events","arguments":{"run":"x","limit":"many"}}}`,
	} {
		send(bad)
		m := next()
		res, _ := m["result"].(map[string]any)
		if m["error"] == nil && (res == nil || res["isError"] != true) {
			t.Errorf("garbage %d: no error: %v", i, m)
		}
	}
	send(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	m := next()
	res, _ := m["result"].(map[string]any)
	if tools, _ := res["tools"].([]any); len(tools) != len(readTools) {
		t.Errorf("after garbage, tools/list: %v", m)
	}
	inW.Close()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Error("the server did not end when its stdin closed")
	}
}

// A client that makes hundreds of calls in a burst is told to slow down
// (tool errors that say how long to wait), the service is asked no more
// than the burst allows, and the server goes on answering.
func TestMCPThousandsOfCallsAreSlowedDown(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1000})
	svc := mcpEnv(t, srv.URL, srv.Key)
	cs, _ := startMCP(t, svc, "test-client")
	before := srv.Stats().ByRoute["GET list"]
	// At once: 300 calls in flight together, as a looping agent makes
	// them, whatever this machine's speed (one after another, a slow run
	// of the test would stay under the refill rate).
	var refused atomic.Int32
	var wg sync.WaitGroup
	for range 300 {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_runs", Arguments: map[string]any{}})
			switch {
			case err != nil:
				t.Errorf("list_runs: %v", err)
			case res.IsError && strings.Contains(toolText(res), "too many calls"):
				refused.Add(1)
			case res.IsError:
				t.Errorf("list_runs: %s", toolText(res))
			}
		})
	}
	wg.Wait()
	asked := srv.Stats().ByRoute["GET list"] - before
	if refused.Load() == 0 || asked > 120 {
		t.Errorf("300 calls at once: %d refused, %d lists asked of the service", refused.Load(), asked)
	}
	if len(toolNames(t, cs)) != len(readTools) {
		t.Error("the server stopped answering")
	}
}

// ssh HUB mcp: the server on the session's streams, with the hub's key.
// A viewer's has no acting tools whatever its flags; an operator's has
// them, and a cancel is the hub's action, logged with the person's name.
func TestMCPThroughTheHub(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"cancel"}, Speed: 1})
	h := startCLIHub(t, srv.URL, srv.Key, "--interval", "500ms", "--name", "prod")
	open := func(p sshtest.Person) *mcp.ClientSession {
		c := h.login(t, p)
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		in, _ := s.StdinPipe()
		out, _ := s.StdoutPipe()
		if err := s.Start("mcp --allow-actions --budget 10"); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "hub-client", Version: "1"}, nil).
			Connect(context.Background(), &mcp.IOTransport{Reader: io.NopCloser(out), Writer: in}, nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, h.log)
		}
		t.Cleanup(func() { cs.Close(); s.Close() })
		return cs
	}
	viewer, operator := open(h.bob), open(h.alice)
	if tools := toolNames(t, viewer); tools["cancel_run"] != nil || tools["start_run"] != nil || len(tools) != len(readTools) {
		t.Errorf("a viewer's tools: %v", tools)
	}
	if tools := toolNames(t, operator); tools["cancel_run"] == nil || tools["start_run"] == nil {
		t.Errorf("an operator's tools: %v", tools)
	}
	id := srv.Jobs[0].ID
	var run struct{ State string }
	if _, msg := call(t, viewer, "get_run", map[string]any{"run": id}, &run); msg != "" || run.State != "running" {
		t.Fatalf("get_run over the hub: %s %+v", msg, run)
	}
	if _, msg := call(t, operator, "cancel_run", map[string]any{"run": id}, nil); msg != "" {
		t.Fatalf("cancel_run over the hub: %s", msg)
	}
	h.log.WaitLine(t, "action: alice (operator, SHA256:", "through mcp:hub-client cancelled run "+id)
	// The run's record names the person, the client and the hub:
	// get_run says them, and so does history -o json.
	waitUntil(t, "the record names alice through mcp via hub prod", func() bool {
		var got struct {
			CancelledBy  string `json:"cancelled_by"`
			CancelledVia string `json:"cancelled_via"`
		}
		_, msg := call(t, viewer, "get_run", map[string]any{"run": id}, &got)
		return msg == "" && got.CancelledBy == "alice (mcp:hub-client)" && got.CancelledVia == "prod"
	})
	out, _, _ := sshtest.Run(t, h.login(t, h.bob), "history -o json")
	if !strings.Contains(out, `"cancelledBy":"alice (mcp:hub-client)"`) || !strings.Contains(out, `"cancelledVia":"prod"`) {
		t.Errorf("history -o json:\n%s", out)
	}
}

// A local client may not name a hub in its record: "x via hub prod" is
// kept as the client's name, with no hub read from it.
func TestMCPClientCannotNameAHub(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"cancel"}, Speed: 1})
	svc := mcpEnv(t, srv.URL, srv.Key)
	cs, _ := startMCP(t, svc, "x via hub prod", "--allow-actions")
	id := srv.Jobs[0].ID
	if _, msg := call(t, cs, "cancel_run", map[string]any{"run": id}, nil); msg != "" {
		t.Fatalf("cancel_run: %s", msg)
	}
	var got struct {
		CancelledBy  string `json:"cancelled_by"`
		CancelledVia string `json:"cancelled_via"`
	}
	if _, msg := call(t, cs, "get_run", map[string]any{"run": id}, &got); msg != "" || got.CancelledBy != "mcp:x via-hub prod" || got.CancelledVia != "" {
		t.Errorf("get_run: %s %+v", msg, got)
	}
}
