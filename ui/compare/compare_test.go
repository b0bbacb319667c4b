package compare

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/go-json-experiment/json/jsontext"

	cmp "github.com/firewatch/firewatch/compare"
	"github.com/firewatch/firewatch/linediff"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/ui/internal/golden"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

func strp(s string) *string  { return &s }
func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }

// hostile strings: an OSC 52 clipboard write, a screen clear, a C1 CSI,
// bidi overrides and a hyperlink, where a run's text goes.
const (
	evilPrompt = "Compare the pricing\x1b]52;c;ZXZpbA==\x07 of the top 5\u202e APIs\x1b[2J and \u009b31m their free tiers"
	evilTool   = "mcp__tools__scr\x1b[31mape\u200f"
	evilAgent  = "researcher\x1b]8;;http://evil.example\x07"
)

// fixture is a comparison of two runs of one prompt: the candidate cost
// more, failed, changed a parameter, dropped a call and added an agent.
func fixture(hostile bool) *cmp.Comparison {
	prompt, tool, agent := "Compare the pricing of the top 5 web-scraping APIs and their free tiers", "mcp__tools__scrape", "researcher"
	if hostile {
		prompt, tool, agent = evilPrompt, evilTool, evilAgent
	}
	call := func(name, params string) *cmp.Call {
		return &cmp.Call{ToolName: name, Parameters: jsontext.Value(params)}
	}
	res := linediff.Compute(model.KindJSON, `{"vendors":[{"name":"ScrapingBee","price":49},{"name":"Zyte","price":100}]}`,
		`{"vendors":[{"name":"ScrapingBee","price":49},{"name":"Zyte","price":120}],"note":"cheaper\u001b[2J"}`, linediff.DefaultContext)
	c := &cmp.Comparison{
		Baseline:  &cmp.Side{Ref: "base.ndjson", ID: strp("019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"), Outcome: strp("succeeded"), Prompt: strp(prompt), Model: strp("spark-1")},
		Candidate: &cmp.Side{Ref: "019a2b3d-0000-7f60-8a9b-0c1d2e3f4a6c", ID: strp("019a2b3d-0000-7f60-8a9b-0c1d2e3f4a6c"), Outcome: strp("failed"), Prompt: strp(prompt), Model: strp("spark-1")},
		Metrics: []cmp.Metric{
			{Name: "durationMs", Baseline: 64000, Candidate: 95500, Delta: 31500, DeltaPercent: f64(49.22)},
			{Name: "creditsUsed", Baseline: 120, Candidate: 150.5, Delta: 30.5, DeltaPercent: f64(25.42)},
			{Name: "tokensUsed", Baseline: 1800, Candidate: 2257, Delta: 457, DeltaPercent: f64(25.39)},
			{Name: "agents", Baseline: 2, Candidate: 3, Delta: 1, DeltaPercent: f64(50)},
			{Name: "toolCalls", Baseline: 4, Candidate: 4, Delta: 0, DeltaPercent: f64(0)},
			{Name: "errors", Baseline: 1, Candidate: 0, Delta: -1, DeltaPercent: f64(-100)},
			{Name: "attention", Baseline: 0, Candidate: 2, Delta: 2},
			{Name: "toolCalls:" + tool, Baseline: 2, Candidate: 1, Delta: -1, DeltaPercent: f64(-50)},
			{Name: "toolCalls:mcp__tools__search", Baseline: 1, Candidate: 1, Delta: 0, DeltaPercent: f64(0)},
			{Name: "toolCalls:spawn_subagent", Baseline: 1, Candidate: 2, Delta: 1, DeltaPercent: f64(100)},
		},
		Agents: []cmp.Agent{
			{Name: "orchestrator", Role: "orchestrator",
				Baseline:  &cmp.AgentSide{ID: "a1", ToolCalls: 2, Outcome: strp("succeeded"), DurationMs: i64(64000)},
				Candidate: &cmp.AgentSide{ID: "b1", ToolCalls: 3, Outcome: strp("failed"), DurationMs: i64(95500)}},
			{Name: agent, Role: "subagent",
				Baseline:  &cmp.AgentSide{ID: "a2", ToolCalls: 2, Outcome: strp("succeeded"), DurationMs: i64(30000)},
				Candidate: &cmp.AgentSide{ID: "b2", ToolCalls: 1, Outcome: strp("cancelled"), DurationMs: i64(12000)}},
			{Name: "verifier", Role: "subagent",
				Candidate: &cmp.AgentSide{ID: "b3", ToolCalls: 0}},
		},
		Steps: []cmp.Step{
			{Agent: "orchestrator", Step: 1, Change: cmp.Same, Baseline: call("mcp__tools__search", `{"query":"web scraping API pricing"}`), Candidate: call("mcp__tools__search", `{"query":"web scraping API pricing"}`)},
			{Agent: "orchestrator", Step: 2, Change: cmp.Same, Baseline: call("spawn_subagent", `{"name":"researcher"}`), Candidate: call("spawn_subagent", `{"name":"researcher"}`)},
			{Agent: "orchestrator", Step: 3, Change: cmp.Added, Candidate: call("spawn_subagent", `{"name":"verifier"}`)},
			{Agent: agent, Step: 1, Change: cmp.Changed, AgentIndex: 1, Baseline: call(tool, `{"url":"https://www.zyte.com/pricing","formats":["markdown"]}`), Candidate: call(tool, `{"url":"https://www.zyte.com/pricing/\u001b[2J","formats":["markdown"]}`)},
			{Agent: agent, Step: 2, Change: cmp.Removed, AgentIndex: 1, Baseline: call(tool, `{"url":"https://apify.com/pricing"}`)},
		},
		Result:  &cmp.Result{Same: res.Same(), Added: res.Added, Removed: res.Removed, Computed: res},
		Crossed: []string{"creditsUsed:+20%", "outcome"},
	}
	return c
}

const failOn = "creditsUsed:+20%,durationMs:+50%,toolCalls:mcp__tools__scrape:+3,outcome"

func newModel(t *testing.T, c *cmp.Comparison, w, h int, noColor bool) *Model {
	t.Helper()
	m := New(Config{C: c, Gates: gates(failOn), NoColor: noColor})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

func press(m *Model, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "tab":
			msg = tea.KeyPressMsg{Code: tea.KeyTab}
		case "shift+tab":
			msg = tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "ctrl+c":
			msg = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
		default:
			msg = tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
		}
		cmd = m.Update(msg)
	}
	return cmd
}

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

// TestGoldens: each tab at 120x40 and 80x24, in colour (its text) and
// without (NO_COLOR: no colour sequence at all). The two sizes lay out
// differently: the narrow one shortens the tools' metric names and the
// agents' cells.
func TestGoldens(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			name := fmt.Sprintf("%dx%d", w, h)
			m := newModel(t, fixture(false), w, h, false)
			nc := newModel(t, fixture(false), w, h, true)
			var screens []string
			for _, tab := range []string{"metrics", "agents", "steps", "result"} {
				got := golden.View(t, m.View(), w, h)
				if plain := golden.NoColour(t, nc.View(), w, h); plain != got {
					t.Errorf("%s: NO_COLOR changed the text:\n%s\n---\n%s", tab, plain, got)
				}
				golden.Colour(t, m.View(), w, h)
				screens = append(screens, "=== "+tab+"\n"+got)
				press(m, "tab")
				press(nc, "tab")
			}
			// The researcher's steps (a changed and a removed call), then
			// the changed call's parameters diffed.
			for _, step := range [][]string{{"3", "]"}, {"enter"}} {
				press(m, step...)
				screens = append(screens, "=== "+strings.Join(step, " ")+"\n"+golden.View(t, m.View(), w, h))
			}
			golden.Check(t, "compare-"+name+".txt", strings.Join(screens, "\n")+"\n")
		})
	}
	// The sizes' goldens differ where the layouts do.
	if !golden.Updating() && golden.Read(t, "compare-120x40.txt") == golden.Read(t, "compare-80x24.txt") {
		t.Fatal("the 120x40 and 80x24 goldens are the same")
	}
}

// TestMetricsTable: deltas, the outcome row and the gate column.
func TestMetricsTable(t *testing.T) {
	m := newModel(t, fixture(false), 120, 40, true)
	v := ansi.Strip(m.View())
	for _, want := range []string{
		"baseline  2e3f4a5b", "candidate 2e3f4a6c", "✓ succeeded", "✗ failed", "spark-1", "Compare the pricing",
		"2 thresholds crossed", "GATE",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q in\n%s", want, v)
		}
	}
	line := func(prefix string) string {
		for _, l := range strings.Split(v, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), prefix) {
				return strings.Join(strings.Fields(l), " ")
			}
		}
		t.Fatalf("no row %q in\n%s", prefix, v)
		return ""
	}
	for prefix, want := range map[string]string{
		"outcome ":      "outcome ✓ succeeded ✗ failed changed ! crossed",
		"durationMs":    "durationMs 1m04s 1m36s +31.5s +49.2% ok",
		"creditsUsed":   "creditsUsed 120 150.5 +30.5 +25.4% ! crossed",
		"tokensUsed":    "tokensUsed 1,800 2,257 +457 +25.4%",
		"attention":     "attention 0 2 +2 …",
		"errors":        "errors 1 0 -1 -100.0%",
		"toolCalls:mcp": "toolCalls:mcp__tools__scrape 2 1 -1 -50.0% ok",
	} {
		if got := line(prefix); got != want {
			t.Errorf("row %q:\n got %q\nwant %q", prefix, got, want)
		}
	}
	// In colour, worse is the bad colour and better the good one.
	c := newModel(t, fixture(false), 120, 40, false)
	st := c.st
	if v := c.View(); !strings.Contains(v, st.Bad.Render("+30.5")) || !strings.Contains(v, st.Good.Render("-1")) {
		t.Errorf("deltas not coloured worse/better:\n%q", v)
	}
}

// TestKeys: the tabs, the agent's steps, the parameters' diff, the next
// change, the other agents, help, q and Ctrl-C.
func TestKeys(t *testing.T) {
	m := newModel(t, fixture(false), 100, 30, true)
	for k, want := range map[string]tab{"2": tabAgents, "3": tabSteps, "4": tabResult, "1": tabMetrics} {
		press(m, k)
		if m.tab != want {
			t.Errorf("%s: tab %d, want %d", k, m.tab, want)
		}
	}
	press(m, "1", "tab")
	if m.tab != tabAgents {
		t.Fatalf("tab: %d", m.tab)
	}
	press(m, "shift+tab", "shift+tab")
	if m.tab != tabResult {
		t.Fatalf("shift+tab twice from agents: %d", m.tab)
	}
	// Agents: j selects the researcher, its steps show below; enter opens
	// them in the steps tab.
	press(m, "2", "j")
	if m.agent != 1 || !strings.Contains(m.View(), "zyte.com") {
		t.Fatalf("agent %d after j:\n%s", m.agent, m.View())
	}
	press(m, "enter")
	if m.tab != tabSteps || !strings.Contains(ansi.Strip(m.View()), "agent researcher (subagent)  2/3") {
		t.Fatalf("enter on an agent:\n%s", m.View())
	}
	// enter diffs the changed step's parameters; esc comes back.
	press(m, "enter")
	if m.params == nil || !strings.Contains(ansi.Strip(m.View()), "parameters, baseline → candidate: +1 −1 lines") {
		t.Fatalf("enter on a changed step:\n%s", m.View())
	}
	press(m, "esc")
	if m.params != nil {
		t.Fatal("esc kept the parameters' diff")
	}
	// A call only the baseline made: its parameters, all removed.
	press(m, "j", "enter")
	if v := ansi.Strip(m.View()); !strings.Contains(v, "+0 −3 lines") || !strings.Contains(v, `-   "url": "https://apify.com/pricing"`) || strings.Contains(v, "null") {
		t.Fatalf("enter on a removed step:\n%s", v)
	}
	press(m, "esc", "k")
	// [ goes to the orchestrator, n to its first changed step (3, added).
	press(m, "[", "n")
	if m.agent != 0 || m.step != 2 || m.steps[m.step].Change != cmp.Added {
		t.Fatalf("[ then n: agent %d step %d", m.agent, m.step)
	}
	press(m, "N")
	if m.step != 2 {
		t.Fatalf("N with no earlier change moved to %d", m.step)
	}
	// ? shows the keys of this tab only; esc closes it.
	press(m, "?")
	v := m.View()
	if !m.help || !strings.Contains(v, "next agent") || !strings.Contains(v, "diff the step's parameters") {
		t.Fatalf("help on the steps tab:\n%s", v)
	}
	press(m, "esc", "1", "?")
	if v := m.View(); strings.Contains(v, "next agent") || strings.Contains(v, "next change") || strings.Contains(v, "enter") {
		t.Fatalf("help on the metrics tab lists keys that do nothing there:\n%s", v)
	}
	press(m, "?")
	if m.help {
		t.Fatal("? did not close the help")
	}
	if !isQuit(press(m, "q")) || m.Result().Interrupted {
		t.Fatal("q: not a plain quit")
	}
	if !isQuit(press(m, "ctrl+c")) || !m.Result().Interrupted {
		t.Fatal("ctrl+c: not an interrupt")
	}
}

// TestScrollAndResize: the metrics table scrolls within its rows, and every
// size, tiny ones included, draws exactly its box; resizing keeps the
// selection in view.
func TestScrollAndResize(t *testing.T) {
	m := newModel(t, fixture(false), 80, 10, true)
	press(m, "G")
	rows := len(m.c.Metrics) + 1
	if want := rows - (m.bodyHeight() - 1); m.metricTop != want {
		t.Fatalf("G: top %d, want %d", m.metricTop, want)
	}
	if v := m.View(); !strings.Contains(v, "spawn_subagent") || strings.Contains(v, "durationMs") {
		t.Fatalf("scrolled to the bottom:\n%s", v)
	}
	press(m, "g")
	if m.metricTop != 0 {
		t.Fatalf("g: top %d", m.metricTop)
	}
	for _, tab := range []string{"1", "2", "3", "4"} {
		press(m, tab)
		for _, s := range [][2]int{{120, 40}, {80, 24}, {60, 12}, {20, 5}, {1, 1}, {200, 60}} {
			m.Update(tea.WindowSizeMsg{Width: s[0], Height: s[1]})
			v := m.View()
			golden.Safe(t, v)
			golden.Fits(t, v, s[0], s[1])
			if n := strings.Count(v, "\n") + 1; n != s[1] {
				t.Fatalf("tab %s at %dx%d: %d lines", tab, s[0], s[1], n)
			}
		}
	}
	// The steps tab keeps the cursor on screen when the window shrinks.
	press(m, "2", "j", "enter", "enter", "esc")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	press(m, "G")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 6})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "apify.com") {
		t.Fatalf("the selected step left the screen:\n%s", v)
	}
}

// TestHostileStringsInert: escape sequences, bidi and C1 characters in a
// prompt, a tool's name, an agent's name and the results draw as inert
// text on every tab: nothing but SGR reaches the terminal.
func TestHostileStringsInert(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		m := newModel(t, fixture(true), 120, 40, noColor)
		for _, keys := range [][]string{{"1"}, {"2", "j"}, {"3"}, {"enter"}, {"esc", "4"}, {"?"}} {
			press(m, keys...)
			v := m.View()
			golden.Safe(t, v)
			golden.Fits(t, v, 120, 40)
			plain := ansi.Strip(v)
			for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u009b", "\u200f"} {
				if strings.Contains(plain, bad) {
					t.Fatalf("%q reached the screen after %v:\n%q", bad, keys, plain)
				}
			}
		}
	}
	m := newModel(t, fixture(true), 120, 40, true)
	press(m, "2")
	if v := ansi.Strip(m.View()); !strings.Contains(v, "researcher") || !strings.Contains(v, "Compare the pricing") {
		t.Fatalf("the text around the hostile bytes is gone:\n%s", v)
	}
}

// TestFooterKeepsQuit: at 80 columns the footer drops keys before it
// drops ? and q.
func TestFooterKeepsQuit(t *testing.T) {
	m := newModel(t, fixture(false), 60, 24, true)
	press(m, "3")
	f := ansi.Strip(m.footer())
	if !strings.HasSuffix(strings.TrimSpace(f), "? keys  q quit") || ansi.StringWidth(f) > 60 {
		t.Fatalf("footer %q", f)
	}
}

// TestNoResult: without both results the result tab says why.
func TestNoResult(t *testing.T) {
	c := fixture(false)
	c.Result = nil
	m := newModel(t, c, 80, 24, true)
	press(m, "4")
	if v := m.View(); !strings.Contains(v, "No final results to compare") {
		t.Fatalf("%s", v)
	}
	if strings.Contains(ansi.Strip(m.footer()), "next change") {
		t.Fatal("n offered with no diff")
	}
}

// TestASCII: with --ascii every tab is drawn in ASCII (the fixture's own
// text is ASCII).
func TestASCII(t *testing.T) {
	m := New(Config{C: fixture(false), Gates: gates(failOn), NoColor: true, ASCII: true})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, keys := range [][]string{{"1"}, {"2"}, {"3", "]"}, {"enter"}, {"4"}, {"?"}} {
		press(m, keys...)
		v := ansi.Strip(m.View())
		golden.Fits(t, v, 80, 24)
		for _, r := range v {
			if r >= 0x80 {
				t.Fatalf("%q after %v in\n%s", r, keys, v)
			}
		}
	}
}

// TestColourGoldens: the metrics and the steps at 80x24 with their escape
// sequences, in colour and without (NO_COLOR: attributes only), so that a
// change of style shows; the two differ where the modes do.
func TestColourGoldens(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		m := newModel(t, fixture(false), 80, 24, noColor)
		var screens []string
		for _, keys := range [][]string{{"1"}, {"3", "]"}} {
			press(m, keys...)
			v := m.View()
			if noColor {
				golden.NoColour(t, v, 80, 24)
			} else {
				golden.Colour(t, v, 80, 24)
			}
			screens = append(screens, v)
		}
		name := "compare-colour-80x24.txt"
		if noColor {
			name = "compare-nocolor-80x24.txt"
		}
		golden.Check(t, name, strings.Join(screens, "\n===\n")+"\n")
	}
	if !golden.Updating() && golden.Read(t, "compare-colour-80x24.txt") == golden.Read(t, "compare-nocolor-80x24.txt") {
		t.Fatal("the colour and NO_COLOR goldens are the same")
	}
}

// TestHelpFits: at 80x24 the keys of every tab are all on screen (side by
// side when one column would not fit).
func TestHelpFits(t *testing.T) {
	m := newModel(t, fixture(false), 80, 24, true)
	for _, tab := range []string{"1", "2", "3", "4"} {
		press(m, tab, "?")
		v := ansi.Strip(m.View())
		for _, g := range m.FullHelp() {
			for _, b := range g {
				if h := b.Help(); !strings.Contains(v, h.Key+strings.Repeat(" ", 10-ansi.StringWidth(h.Key)+1)+h.Desc) {
					t.Errorf("tab %s: %q %q not on the help screen:\n%s", tab, h.Key, h.Desc, v)
				}
			}
		}
		press(m, "?")
	}
}

// TestWheel: with the mouse on, the wheel scrolls the metrics and moves the
// agents' selection.
func TestWheel(t *testing.T) {
	m := newModel(t, fixture(false), 80, 10, true)
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if m.metricTop != 3 {
		t.Fatalf("metrics after a wheel turn: top %d", m.metricTop)
	}
	press(m, "2")
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if m.agent != 2 {
		t.Fatalf("agents after a wheel turn: %d", m.agent)
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if m.agent != 0 {
		t.Fatalf("agents after a wheel turn up: %d", m.agent)
	}
}

func gates(s string) cmp.Gates {
	g, err := cmp.ParseFailOn(s)
	if err != nil {
		panic(err)
	}
	return g
}
