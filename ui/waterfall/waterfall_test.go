package waterfall

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/ui/internal/golden"
)

// -update: golden.Check rewrites the golden files instead of comparing.
var _ = flag.Bool("update", false, "rewrite the golden files")

// A small trace, written as the service writes it.

const runID = "8f1d2c3b-0000-4000-8000-000000000001"

var t0 = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

type agent struct{ id, role, name, parent string }

var (
	orch    = agent{"a-orch", "orchestrator", "Orchestrator", ""}
	res     = agent{"a-res", "subagent", "Researcher", "a-orch"}
	writer  = agent{"a-wri", "subagent", "Writer", "a-orch"}
	deep    = agent{"a-deep", "subagent", "Deep diver with a very long name indeed", "a-res"}
	checker = agent{"a-chk", "subagent", "Checker", "a-orch"}
)

type trace struct {
	events []map[string]any
	seq    map[string]int
}

func (tr *trace) add(a agent, ms int, typ string, kv ...any) {
	if tr.seq == nil {
		tr.seq = map[string]int{}
	}
	tr.seq[a.id]++
	ag := map[string]any{"id": a.id, "role": a.role, "name": a.name}
	if a.parent != "" {
		ag["parentId"] = a.parent
	}
	e := map[string]any{
		"schemaVersion": 1, "eventId": fmt.Sprintf("e-%03d", len(tr.events)), "runId": runID,
		"occurredAt":       t0.Add(time.Duration(ms) * time.Millisecond).Format(time.RFC3339Nano),
		"producerSequence": tr.seq[a.id], "agent": ag, "type": typ,
	}
	for i := 0; i+1 < len(kv); i += 2 {
		e[kv[i].(string)] = kv[i+1]
	}
	tr.events = append(tr.events, e)
}

func (tr *trace) body() []byte {
	b, err := json.Marshal(map[string]any{"success": true, "id": runID, "creditsUsed": 12, "events": tr.events})
	if err != nil {
		panic(err)
	}
	return b
}

func tool(tr *trace, a agent, id, name string, start, end int, result any) {
	tr.add(a, start, "tool_call.started", "toolCallId", id, "toolName", name, "parameters", map[string]any{"q": id})
	if end >= 0 {
		tr.add(a, end, "tool_call.finished", "toolCallId", id, "toolName", name, "result", result)
	}
}

// running is a run 12 s in: finished, failed and running rows.
func running() *trace {
	tr := &trace{}
	tr.add(orch, 0, "run.started")
	tr.add(orch, 0, "agent.started")
	tool(tr, orch, "tc-plan", "mcp__tools__search", 200, 1500, map[string]any{"hits": 3})
	tr.add(res, 1000, "agent.started")
	tool(tr, res, "tc-scrape", "mcp__tools__scrape", 1200, 4200, map[string]any{"error": "timeout"})
	tr.add(res, 2000, "browser.session.started", "sessionId", "bs-1")
	tr.add(res, 9000, "browser.session.finished", "sessionId", "bs-1", "durationMs", 7000)
	tool(tr, res, "tc-extract", "mcp__tools__extract", 5000, -1, nil)
	tr.add(writer, 3000, "agent.started")
	tool(tr, writer, "tc-write", "write_report", 3500, 7600, "ok")
	tr.add(writer, 8000, "agent.finished", "outcome", "succeeded", "durationMs", 5000, "error", nil)
	tr.add(deep, 6000, "agent.started")
	tool(tr, deep, "tc-fetch", "fetch", 6500, -1, nil)
	tr.add(deep, 7000, "browser.session.started", "sessionId", "bs-2")
	tr.add(checker, 4000, "agent.started")
	tr.add(checker, 4500, "agent.finished", "outcome", "cancelled", "durationMs", 500,
		"error", map[string]any{"code": "cancelled", "source": "system", "retryable": false, "message": "stop"})
	return tr
}

// finished is the same run ended (failed) at 15 s: what was running is
// unfinished.
func finished() *trace {
	tr := running()
	tr.add(orch, 15000, "run.finished", "outcome", "failed",
		"error", map[string]any{"code": "internal", "source": "system", "retryable": false, "message": "boom"})
	return tr
}

func storeOf(t testing.TB, tr *trace) *model.Store {
	t.Helper()
	s := model.NewStore()
	if _, err := s.Ingest(tr.body()); err != nil {
		t.Fatal(err)
	}
	return s
}

func view(t *testing.T, m Model, w, h int) string {
	t.Helper()
	return golden.View(t, m.View(), w, h)
}

func newModel(t testing.TB, tr *trace, w, h int, opts ...Option) Model {
	m := New(storeOf(t, tr), PlainStyles(), opts...)
	m.SetSize(w, h)
	m.SetNow(t0.Add(12 * time.Second))
	return m
}

func TestGoldenWidths(t *testing.T) {
	for _, tc := range []struct {
		name string
		tr   *trace
	}{{"running", running()}, {"finished", finished()}} {
		var out strings.Builder
		for _, w := range []int{120, 80} {
			m := newModel(t, tc.tr, w, 20)
			fmt.Fprintf(&out, "== %d columns\n%s\n", w, view(t, m, w, 20))
		}
		m := newModel(t, tc.tr, 80, 20, WithASCII(true))
		v := view(t, m, 80, 20)
		if strings.ContainsAny(v, "━█▒─┬●✓✗◌…") {
			t.Fatalf("unicode in ASCII mode:\n%s", v)
		}
		fmt.Fprintf(&out, "== 80 columns, ASCII\n%s\n", v)
		golden.Check(t, tc.name+".golden", out.String())
	}
}

func TestGoldenColour(t *testing.T) {
	m := New(storeOf(t, finished()), DefaultStyles())
	m.SetSize(100, 14)
	v := m.View()
	for _, want := range []string{"\x1b[31m", "\x1b[32m", "\x1b[90m"} { // failed, finished, unfinished
		if !strings.Contains(v, want) {
			t.Errorf("no %q in the view", want)
		}
	}
	golden.Check(t, "colour.golden", v)
}

func TestStates(t *testing.T) {
	want := map[Target]State{
		{KindAgent, "a-orch"}:    Running,
		{KindTool, "tc-plan"}:    Finished,
		{KindTool, "tc-scrape"}:  Failed,
		{KindSession, "bs-1"}:    Finished,
		{KindTool, "tc-extract"}: Running,
		{KindAgent, "a-wri"}:     Finished,
		{KindAgent, "a-chk"}:     Unfinished,
		{KindSession, "bs-2"}:    Running,
		{KindAgent, "a-deep"}:    Running,
	}
	m := newModel(t, running(), 120, 40)
	check := func(now time.Time, runEnd time.Time, want map[Target]State) {
		t.Helper()
		for _, r := range m.rowsNow() {
			w, ok := want[r.target()]
			if !ok {
				continue
			}
			if got := r.spanOf(now, runEnd).state; got != w {
				t.Errorf("%v: state %d, want %d", r.target(), got, w)
			}
		}
	}
	now := t0.Add(12 * time.Second)
	check(now, time.Time{}, want)

	f := newModel(t, finished(), 120, 40)
	m = f
	end := t0.Add(15 * time.Second)
	want[Target{KindAgent, "a-orch"}] = Unfinished
	want[Target{KindTool, "tc-extract"}] = Unfinished
	want[Target{KindSession, "bs-2"}] = Unfinished
	want[Target{KindAgent, "a-deep"}] = Unfinished
	check(now, end, want)
	// Unfinished rows end with the run.
	for _, r := range m.rowsNow() {
		if r.target() == (Target{KindTool, "tc-extract"}) {
			if sp := r.spanOf(now, end); !sp.end.Equal(end) {
				t.Fatalf("unfinished call ends at %v", sp.end)
			}
		}
	}
}

func TestOrderAndSelection(t *testing.T) {
	m := newModel(t, running(), 120, 8)
	var order []string
	for _, r := range m.rowsNow() {
		order = append(order, strings.Repeat(".", r.depth)+r.target().ID)
	}
	want := "a-orch .tc-plan .a-res ..tc-scrape ..bs-1 ..tc-extract ..a-deep ...tc-fetch ...bs-2 .a-wri ..tc-write .a-chk"
	if strings.Join(order, " ") != want {
		t.Fatalf("order:\n%s\nwant\n%s", strings.Join(order, " "), want)
	}

	press := func(k string) tea.Cmd {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "pgdown":
			msg = tea.KeyPressMsg{Code: tea.KeyPgDown}
		default:
			msg = tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
		}
		var cmd tea.Cmd
		m, cmd = m.Update(msg)
		return cmd
	}
	press("j")
	press("j")
	press("j")
	if sel, _ := m.Selected(); sel != (Target{KindTool, "tc-scrape"}) {
		t.Fatalf("selected %v", sel)
	}
	cmd := press("enter")
	if cmd == nil || cmd().(OpenMsg).Target != (Target{KindTool, "tc-scrape"}) {
		t.Fatal("enter does not open the selected row")
	}
	press("pgdown")
	if m.Cursor() != 9 || m.Offset() != 6 {
		t.Fatalf("pgdown: cursor %d offset %d", m.Cursor(), m.Offset())
	}
	press("G")
	if sel, _ := m.Selected(); sel != (Target{KindAgent, "a-chk"}) || m.Offset() != m.Len()-6 {
		t.Fatalf("G: %v offset %d", sel, m.Offset())
	}

	// New rows above keep the selection on its target.
	tr := running()
	s := storeOf(t, tr)
	m = New(s, PlainStyles())
	m.SetSize(120, 8)
	m.Select(Target{KindTool, "tc-write"})
	before := m.Cursor()
	tr.add(orch, 11000, "tool_call.started", "toolCallId", "tc-late", "toolName", "late", "parameters", nil)
	d, err := s.Ingest(tr.body())
	if err != nil {
		t.Fatal(err)
	}
	m.Changed(d)
	if m.Len() != 13 {
		t.Fatalf("%d rows after the merge", m.Len())
	}
	if sel, _ := m.Selected(); sel != (Target{KindTool, "tc-write"}) || m.Cursor() != before+1 {
		t.Fatalf("selection moved to %v (cursor %d, was %d)", sel, m.Cursor(), before)
	}
	// An empty merge does not rebuild.
	m.Changed(model.Delta{})
	if m.st.dirty {
		t.Fatal("rebuild for nothing")
	}
}

func TestZoomAndPan(t *testing.T) {
	m := newModel(t, finished(), 100, 16)
	key := func(k string) {
		var msg tea.KeyPressMsg
		switch k {
		case "left":
			msg = tea.KeyPressMsg{Code: tea.KeyLeft}
		case "right":
			msg = tea.KeyPressMsg{Code: tea.KeyRight}
		default:
			msg = tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
		}
		m, _ = m.Update(msg)
	}
	window := func() (time.Duration, time.Duration) {
		_, full := m.axis()
		return m.window(full)
	}
	if s, sp := window(); s != 0 || sp != 15*time.Second {
		t.Fatalf("fit: %v %v", s, sp)
	}
	key("+")
	key("+")
	if s, sp := window(); s != 5625*time.Millisecond || sp != 3750*time.Millisecond {
		t.Fatalf("zoomed: %v %v", s, sp)
	}
	var out strings.Builder
	out.WriteString("== zoom ×4 around the middle\n" + view(t, m, 100, 16) + "\n")
	key("l")
	key("right")
	if s, _ := window(); s != 7500*time.Millisecond {
		t.Fatalf("panned to %v", s)
	}
	for range 20 {
		key("h")
	}
	if s, _ := window(); s != 0 {
		t.Fatalf("panned to %v", s)
	}
	out.WriteString("== panned to the start\n" + view(t, m, 100, 16) + "\n")
	for range 12 {
		key("+")
	}
	if _, sp := window(); sp < minSpan {
		t.Fatalf("zoomed to %v", sp)
	}
	out.WriteString("== zoomed in all the way (ms ticks)\n" + view(t, m, 100, 16) + "\n")
	key("-")
	key("0")
	if s, sp := window(); s != 0 || sp != 15*time.Second {
		t.Fatalf("0: %v %v", s, sp)
	}
	for range 3 {
		key("+")
	}
	for range 3 {
		key("-")
	}
	if !m.st.fit {
		t.Fatal("zooming out all the way does not fit")
	}
	golden.Check(t, "zoom.golden", out.String())
}

func TestLiveGrowth(t *testing.T) {
	m := newModel(t, running(), 80, 20)
	row := func() string {
		for _, l := range strings.Split(ansi.Strip(m.View()), "\n") {
			if strings.Contains(l, " extract ") {
				return l
			}
		}
		return ""
	}
	m.SetNow(t0.Add(6 * time.Second))
	early := row()
	m.SetNow(t0.Add(60 * time.Second))
	late := row()
	if !strings.Contains(early, "1.0s") || !strings.Contains(late, "55.0s") {
		t.Fatalf("running bar does not grow:\n%s\n%s", early, late)
	}
	// The ruler follows now at the fitted zoom.
	if !strings.Contains(ansi.Strip(m.View()), "45s") {
		t.Fatalf("ruler:\n%s", m.View())
	}
}

func TestTickLabels(t *testing.T) {
	for _, tc := range []struct {
		d, step time.Duration
		want    string
	}{
		{0, time.Second, "0"},
		{250 * time.Millisecond, 250 * time.Millisecond, "250ms"},
		{1250 * time.Millisecond, 250 * time.Millisecond, "1.25s"},
		{2 * time.Second, 500 * time.Millisecond, "2s"},
		{45 * time.Second, 5 * time.Second, "45s"},
		{90 * time.Second, 30 * time.Second, "1m30s"},
		{2 * time.Minute, time.Minute, "2m"},
		{61500 * time.Millisecond, 500 * time.Millisecond, "1m01.5s"},
		{65 * time.Minute, 5 * time.Minute, "1h05m"},
		{2 * time.Hour, time.Hour, "2h"},
	} {
		if got := tickLabel(tc.d, tc.step); got != tc.want {
			t.Errorf("tickLabel(%v, %v) = %q, want %q", tc.d, tc.step, got, tc.want)
		}
	}
	if s := tickStep(15*time.Second, 8); s != 2*time.Second {
		t.Errorf("tickStep(15s, 8) = %v", s)
	}
	if s := tickStep(100*24*time.Hour, 5); s < 20*24*time.Hour {
		t.Errorf("tickStep(100d, 5) = %v", s)
	}
}

func TestEmptyAndNarrow(t *testing.T) {
	m := New(model.NewStore(), PlainStyles())
	m.SetSize(80, 10)
	if v := ansi.Strip(m.View()); !strings.Contains(v, "no agents yet") {
		t.Fatal(v)
	}
	if _, ok := m.Selected(); ok {
		t.Fatal("selection without rows")
	}
	n := newModel(t, running(), 16, 5)
	if v := view(t, n, 16, 5); !strings.Contains(v, "too narrow") {
		t.Fatal(v)
	}
}

// bigTrace has agents with n tool calls in all.
func bigTrace(n int) *trace {
	tr := &trace{}
	tr.add(orch, 0, "run.started")
	tr.add(orch, 0, "agent.started")
	agents := []agent{orch}
	for i := range 20 {
		a := agent{fmt.Sprintf("a-%02d", i), "subagent", fmt.Sprintf("Worker %d", i), "a-orch"}
		tr.add(a, 10*i, "agent.started")
		agents = append(agents, a)
	}
	for i := range n {
		a := agents[i%len(agents)]
		tool(tr, a, fmt.Sprintf("tc-%05d", i), "mcp__tools__scrape", 100+i*50, 100+i*50+3000, "ok")
	}
	return tr
}

// BenchmarkView: the cost of drawing does not grow with the run (only the
// visible rows are drawn); BenchmarkRebuild is the cost of a merge that
// changed the rows.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{50, 5000} {
		b.Run(fmt.Sprint(n, "rows"), func(b *testing.B) {
			s := storeOf(b, bigTrace(n))
			m := New(s, DefaultStyles())
			m.SetSize(120, 40)
			m.SetNow(t0.Add(time.Hour))
			m.View()
			b.ResetTimer()
			for range b.N {
				_ = m.View()
			}
			b.ReportMetric(float64(m.Len()), "rows")
		})
	}
}

func BenchmarkRebuild(b *testing.B) {
	s := storeOf(b, bigTrace(5000))
	m := New(s, DefaultStyles())
	m.SetSize(120, 40)
	b.ResetTimer()
	for range b.N {
		m.Invalidate()
		m.rowsNow()
	}
}
