package ui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// press sends keys: single characters, or names such as "enter", "esc",
// "tab", "up", "shift+tab", "ctrl+c".
func press(m *Model, keys ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range keys {
		last = m.Update(keyMsg(k))
	}
	return last
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(k)
	if len(r) != 1 {
		panic("unknown key " + k)
	}
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

func typeText(m *Model, s string) {
	for _, r := range s {
		press(m, string(r))
	}
}

// rows is the plain text of the focused pane's rows, as on screen.
func screenLines(m *Model) []string { return strings.Split(plain(content(m)), "\n") }

// bannerRow is the screen row of the end-of-run banner's first line: at
// the top of the timeline's band in the full layout, under the tab bar in
// the compact one.
func bannerRow(m *Model) int {
	f := m.frame()
	if f.kind == layoutFull {
		return m.paneRects()[paneTimeline].y - f.bannerH
	}
	return f.headerH
}

// TestKeysAreDistinct: no key is bound twice on the main screen, every key
// in the list below is bound, and every binding is in the full help.
func TestKeysAreDistinct(t *testing.T) {
	k := defaultKeys()
	seen := map[string]string{}
	for _, b := range k.all() {
		for _, key := range b.Keys() {
			if prev, ok := seen[key]; ok {
				t.Errorf("%q bound twice: %q and %q", key, prev, b.Help().Desc)
			}
			seen[key] = b.Help().Desc
		}
	}
	for _, want := range []string{"up", "down", "k", "j", "h", "left", "right", "pgup", "pgdown", "g", "G", "tab", "shift+tab",
		"enter", "esc", "/", "n", "N", "e", "E", "f", "p", "r", "?", "q", "ctrl+c",
		"w", "a", "c", "y", "o", "l", "s", "d", "+", "-"} {
		if _, ok := seen[want]; !ok {
			t.Errorf("no binding for %q", want)
		}
	}
	inHelp := map[string]bool{}
	for _, g := range k.fullHelp() {
		for _, b := range g {
			inHelp[b.Help().Desc] = true
		}
	}
	for _, b := range k.all() {
		if !inHelp[b.Help().Desc] {
			t.Errorf("%q (%s) is not in the full help", b.Help().Desc, b.Help().Key)
		}
	}
}

func TestFilterAndMatchSteps(t *testing.T) {
	m := newTestModel(t, "succeeded.json", 120, 40, Config{})
	all := m.timeline.len()
	press(m, "/")
	if !m.filtering {
		t.Fatal("/ did not open the filter")
	}
	typeText(m, "scrape")
	if got := screenLines(m)[39]; !strings.Contains(got, "/scrape") {
		t.Errorf("footer while typing: %q", got)
	}
	press(m, "enter")
	if m.filtering || m.scope.q.text != "scrape" {
		t.Fatalf("filter not applied: filtering=%v q=%q", m.filtering, m.scope.q.text)
	}
	n := m.timeline.len()
	want := 0
	for _, e := range m.env.store.Timeline() {
		if newQuery("scrape").event(e) {
			want++
		}
	}
	if n != want || n == 0 || n >= all {
		t.Fatalf("timeline shows %d events for /scrape, want %d of %d", n, want, all)
	}
	// Every row on screen matches.
	tr := m.paneRects()[paneTimeline]
	for _, l := range screenLines(m)[tr.y : tr.y+tr.h] {
		if strings.TrimSpace(l) != "" && !strings.Contains(strings.ToLower(l), "scrape") && !strings.Contains(l, "…") {
			t.Errorf("row does not match the filter: %q", l)
		}
	}
	// n and N step through the matches, wrapping around.
	press(m, "g")
	first := m.timeline.selEv
	press(m, "n")
	second := m.timeline.selEv
	if second == first || second.Pos() <= first.Pos() {
		t.Fatalf("n did not move to the next match: %v -> %v", first.Pos(), second.Pos())
	}
	press(m, "N")
	if m.timeline.selEv != first {
		t.Fatalf("N did not go back to the previous match")
	}
	press(m, "N")
	if m.timeline.sel != n-1 {
		t.Fatalf("N from the first match should wrap to the last, at %d of %d", m.timeline.sel, n)
	}
	// In the agents pane, n jumps to the next agent whose name matches.
	press(m, "esc", "/")
	typeText(m, "checker")
	press(m, "enter")
	m.setFocus(paneAgents)
	press(m, "n")
	if a := m.agents.selA; a == nil || a.Name != "free-tier-checker" {
		t.Fatalf("n in Agents selected %v", a)
	}
	// esc clears the filter (with the root selected: everything again).
	press(m, "g")
	m.setFocus(paneTimeline)
	press(m, "esc")
	if !m.scope.q.empty() || m.timeline.len() != all {
		t.Fatalf("esc did not clear the filter: %q, %d of %d events", m.scope.q.text, m.timeline.len(), all)
	}
}

func TestFilterTypingNarrowsAndEscCancels(t *testing.T) {
	m := newTestModel(t, "succeeded.json", 120, 40, Config{})
	all := m.timeline.len()
	press(m, "/")
	typeText(m, "verif")
	narrow := m.timeline.len()
	if narrow == 0 || narrow >= all {
		t.Fatalf("typing did not filter: %d of %d", narrow, all)
	}
	press(m, "backspace", "backspace", "backspace", "backspace", "backspace")
	if m.timeline.len() != all {
		t.Fatalf("deleting the text should show everything: %d of %d", m.timeline.len(), all)
	}
	typeText(m, "zzz-nothing")
	if m.timeline.len() != 0 || !strings.Contains(plain(content(m)), "no events match") {
		t.Fatalf("a filter matching nothing: %d rows", m.timeline.len())
	}
	press(m, "esc")
	if m.filtering || m.timeline.len() != all {
		t.Fatalf("esc while typing should cancel the filter")
	}
}

func TestErrorJumps(t *testing.T) {
	m := newTestModel(t, "failed.json", 120, 40, Config{})
	errs := m.env.store.Errors()
	if len(errs) < 3 {
		t.Fatalf("fixture has %d errors", len(errs))
	}
	press(m, "g")
	press(m, "e")
	if m.timeline.selEv != errs[0].Event {
		t.Fatalf("e from the top: selected %v, want the first error", m.timeline.selEv.Type)
	}
	press(m, "e")
	if m.timeline.selEv != errs[1].Event {
		t.Fatalf("second e: want the second error")
	}
	press(m, "E")
	if m.timeline.selEv != errs[0].Event {
		t.Fatalf("E: want the first error again")
	}
	press(m, "E")
	if m.env.flash == "" || m.timeline.selEv != errs[0].Event {
		t.Fatalf("E before the first error: selection moved or no message (%q)", m.env.flash)
	}
	// From another pane, e focuses the timeline.
	m.setFocus(paneTools)
	press(m, "G")
	m.setFocus(paneTools)
	press(m, "e")
	if m.focus != paneTimeline {
		t.Fatalf("e did not focus the timeline")
	}
	// The selected error is on screen, in the selection style.
	press(m, "g", "e")
	if !strings.Contains(content(m), m.env.st.Selected.Open()) {
		t.Fatalf("no selected row drawn")
	}
}

func TestFollowAndNewBelow(t *testing.T) {
	full := loadStore(t, "succeeded.json")
	evs := full.Timeline()
	s := model.NewStore()
	s.Merge(&model.Poll{Events: evs[:60]})
	m := newTestModel(t, "", 120, 40, Config{Store: s})
	if !m.timeline.follow || m.timeline.selEv != s.Timeline()[59] {
		t.Fatalf("a new UI should follow the newest event")
	}
	m.Update(updateMsg{poller.Update{Poll: &model.Poll{Events: evs[60:70]}}})
	if !m.timeline.follow || m.timeline.selEv.ID != evs[69].ID {
		t.Fatalf("following: the newest event should be selected")
	}
	press(m, "k")
	if m.timeline.follow {
		t.Fatalf("moving up should stop following")
	}
	held := m.timeline.selEv
	m.Update(updateMsg{poller.Update{Poll: &model.Poll{Events: evs[70:82]}}})
	if m.timeline.selEv != held {
		t.Fatalf("not following, new events must not move the selection")
	}
	title := screenLines(m)[18]
	if !strings.Contains(title, "12 new below") {
		t.Fatalf("title should count the new events: %q", title)
	}
	press(m, "f")
	if !m.timeline.follow || m.timeline.selEv.ID != evs[81].ID {
		t.Fatalf("f should follow again from the newest event")
	}
	if strings.Contains(screenLines(m)[18], "new below") {
		t.Fatalf("following again, no new-below count")
	}
	// Moving down to the last row follows again too.
	press(m, "k", "k", "j", "j")
	if !m.timeline.follow {
		t.Fatalf("reaching the bottom should follow again")
	}
	// f while following stops it.
	press(m, "f")
	if m.timeline.follow {
		t.Fatalf("f while following should stop following")
	}
}

func TestReasoningUnfoldsWhenSelected(t *testing.T) {
	m := newTestModel(t, "succeeded.json", 120, 40, Config{})
	var think *model.Event
	for _, e := range m.env.store.Reasoning() {
		if p := e.Payload.(model.ReasoningSummary); len(p.Text) > 200 {
			think = e
			break
		}
	}
	if think == nil {
		t.Fatal("no long reasoning summary in the fixture")
	}
	if !m.timeline.selectEvent(think) {
		t.Fatal("cannot select the reasoning event")
	}
	text := think.Payload.(model.ReasoningSummary).Text
	screen := strings.Join(screenLines(m), " ")
	// Every word of the summary is on screen.
	for _, w := range strings.Fields(text) {
		if !strings.Contains(screen, w) {
			t.Fatalf("word %q of the reasoning is not on screen", w)
		}
	}
}

func TestPauseAndPollNow(t *testing.T) {
	fb := &fakeBackend{}
	m := newTestModel(t, "running.json", 120, 40, Config{Backend: fb, Updates: make(chan poller.Update)})
	press(m, "p")
	if !slices.Equal(fb.paused, []bool{true}) || !strings.Contains(screenLines(m)[1], "paused") {
		t.Fatalf("p: SetPaused calls %v; header %q", fb.paused, screenLines(m)[1])
	}
	press(m, "p")
	if !slices.Equal(fb.paused, []bool{true, false}) || strings.Contains(screenLines(m)[1], "paused") {
		t.Fatalf("second p: SetPaused calls %v", fb.paused)
	}
	press(m, "r")
	if fb.polls != 1 {
		t.Fatalf("r: PollNow called %d times", fb.polls)
	}
	// In a replay there is no backend: the keys say so.
	m2 := newTestModel(t, "running.json", 120, 40, Config{})
	press(m2, "p")
	if !strings.Contains(screenLines(m2)[39], "replay") {
		t.Fatalf("p without a backend: footer %q", screenLines(m2)[39])
	}
}

func TestAgentScopesOtherPanes(t *testing.T) {
	m := newTestModel(t, "succeeded.json", 120, 40, Config{})
	all := m.timeline.len()
	m.setFocus(paneAgents)
	// Select pricing-researcher: its subtree has free-tier-checker.
	for i := 0; i < 6 && (m.agents.selA == nil || m.agents.selA.Name != "pricing-researcher"); i++ {
		press(m, "j")
	}
	a := m.agents.selA
	if a == nil || a.Name != "pricing-researcher" {
		t.Fatalf("could not select pricing-researcher")
	}
	want := 0
	for _, e := range m.env.store.Timeline() {
		if e.Agent.Name == "pricing-researcher" || e.Agent.Name == "free-tier-checker" {
			want++
		}
	}
	if got := m.timeline.len(); got != want {
		t.Fatalf("timeline in scope: %d events, want %d (of %d)", got, want, all)
	}
	for i := 0; i < m.tools.len(); i++ {
		if n := m.tools.at(i).Agent.Name; n != "pricing-researcher" && n != "free-tier-checker" {
			t.Fatalf("tool call of %s in pricing-researcher's scope", n)
		}
	}
	if !strings.Contains(screenLines(m)[18], "pricing-researcher") {
		t.Fatalf("the timeline's title should name the scope: %q", screenLines(m)[18])
	}
	// The root shows everything again.
	press(m, "g")
	if m.timeline.len() != all {
		t.Fatalf("root selected: %d of %d events", m.timeline.len(), all)
	}
}

func TestHelpAndDetails(t *testing.T) {
	m := newTestModel(t, "succeeded.json", 120, 40, Config{Backend: &fakeBackend{}, Start: (&fakeStarts{}).start, RerunOf: testJob})
	press(m, "?")
	screen := plain(content(m))
	for _, b := range m.keys.all() {
		if h := b.Help(); !strings.Contains(screen, h.Desc) {
			t.Errorf("help does not show %q (%s)", h.Desc, h.Key)
		}
	}
	press(m, "?")
	if m.overlay != nil {
		t.Fatal("? should close the help")
	}
	press(m, "enter")
	sel := m.timeline.selEv
	screen = plain(content(m))
	if m.overlay == nil || !strings.Contains(screen, sel.ID) || !strings.Contains(screen, string(sel.Type)) {
		t.Fatalf("enter should show the selected event's fields")
	}
	press(m, "esc")
	if m.overlay != nil {
		t.Fatal("esc should close the details")
	}
	// Details of a tool call show its parameters.
	m.setFocus(paneTools)
	press(m, "enter")
	tc := m.tools.at(m.tools.sel)
	if !strings.Contains(plain(content(m)), tc.ID) || !strings.Contains(plain(content(m)), "Parameters") {
		t.Fatalf("tool call details")
	}
}

func TestQuitKeys(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		m := newTestModel(t, "running.json", 120, 40, Config{})
		cmd := press(m, k)
		if cmd == nil {
			t.Fatalf("%s returned no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Fatalf("%s did not quit", k)
		}
		if !m.Result().Quit {
			t.Fatalf("%s before the run finished: Result.Quit should be true", k)
		}
	}
	m := newTestModel(t, "succeeded.json", 120, 40, Config{})
	press(m, "q")
	if m.Result().Quit {
		t.Fatalf("quitting after the run finished is not an early quit")
	}
}

func TestNoTicksOnceIdle(t *testing.T) {
	// A finished run, the watch over: nothing moves, so nothing ticks.
	m := newTestModel(t, "succeeded.json", 120, 40, Config{Updates: make(chan poller.Update)})
	if cmd := m.armTicks(); cmd != nil {
		t.Fatal("a finished run armed the clock")
	}
	cmd := m.Update(updatesClosedMsg{})
	if cmd != nil {
		t.Fatalf("the end of the watch returned a command: %T", cmd())
	}
	cmd = m.Update(clockMsg{tag: m.clockTag})
	if cmd != nil {
		t.Fatal("a clock tick re-armed itself after the run finished")
	}

	// A running run ticks once a second, from one tick at a time.
	r := newTestModel(t, "running.json", 120, 40, Config{Updates: make(chan poller.Update)})
	if r.armTicks() == nil {
		t.Fatal("a running run should tick")
	}
	if r.armTicks() != nil {
		t.Fatal("arming twice started a second clock")
	}
	tag := r.clockTag
	if cmd := r.Update(clockMsg{tag: tag - 1}); cmd != nil {
		t.Fatal("a stale tick re-armed the clock")
	}
	if cmd := r.Update(clockMsg{tag: tag}); cmd == nil {
		t.Fatal("the current tick did not re-arm the clock while running")
	}
	// The run finishes: the next tick does not re-arm.
	fin := loadStore(t, "succeeded.json")
	var last []*model.Event
	for _, e := range fin.Timeline() {
		if e.Type == model.TypeRunFinished || e.Type == model.TypeAgentFinished {
			last = append(last, e)
		}
	}
	r.Update(updateMsg{poller.Update{Poll: &model.Poll{Events: last}}})
	if r.env.store.Run().State != model.StateFinished {
		t.Fatal("run should be finished")
	}
	if cmd := r.Update(clockMsg{tag: r.clockTag}); cmd != nil {
		t.Fatal("a tick after the run finished re-armed the clock")
	}
}

func TestExitOnFinish(t *testing.T) {
	m := newTestModel(t, "succeeded.json", 120, 40, Config{ExitOnFinish: true, Updates: make(chan poller.Update)})
	cmd := m.Update(updateMsg{poller.Update{Health: poller.Health{Done: true}, Done: true}})
	if cmd == nil {
		t.Fatal("Done with --exit-on-finish: no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("Done with --exit-on-finish should quit")
	}
	// Without the flag the UI stays, and reads on until the channel
	// closes.
	ch := make(chan poller.Update)
	m = newTestModel(t, "succeeded.json", 120, 40, Config{Updates: ch})
	cmd = m.Update(updateMsg{poller.Update{Health: poller.Health{Done: true}, Done: true}})
	close(ch)
	if cmd == nil {
		t.Fatal("the UI stopped reading updates before the channel closed")
	}
	msg := cmd()
	if _, ok := msg.(updatesClosedMsg); !ok {
		t.Fatalf("after Done: %T, want the read of the closed channel", msg)
	}
	if cmd = m.Update(msg); cmd != nil {
		t.Fatal("the UI did something by itself after the watch ended")
	}
}

func TestBackgroundColourSwitchesPalette(t *testing.T) {
	m := newTestModel(t, "failed.json", 120, 40, Config{})
	dark := content(m)
	m.Update(tea.BackgroundColorMsg{Color: whiteish{}})
	light := content(m)
	if dark == light || m.dark {
		t.Fatal("a light background should switch to the light palette")
	}
	if plain(dark) != plain(light) {
		t.Fatal("the palette changed the text")
	}
}

type whiteish struct{}

func (whiteish) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

func TestLiveClock(t *testing.T) {
	m := newTestModel(t, "running.json", 120, 40, Config{Updates: make(chan poller.Update), Backend: &fakeBackend{}})
	before := screenLines(m)[0]
	now := latest(m.env.store).Add(61 * time.Second)
	m.env.clock.wall = func() time.Time { return now }
	m.Update(clockMsg{tag: m.clockTag})
	after := screenLines(m)[0]
	if before == after || !strings.Contains(after, "elapsed 1m13s") {
		t.Fatalf("the clock tick should move elapsed: %q -> %q", before, after)
	}
}

func TestPasteIntoFilter(t *testing.T) {
	m := newTestModel(t, "succeeded.json", 120, 40, Config{})
	m.Update(tea.PasteMsg{Content: "scr\x1b[2Jape\n"})
	if m.scope.q.text != "" {
		t.Fatal("a paste outside the filter must do nothing")
	}
	press(m, "/")
	m.Update(tea.PasteMsg{Content: "scr\x1b[2Jape\n"})
	if m.scope.q.text != "scrape" {
		t.Fatalf("pasted filter: %q", m.scope.q.text)
	}
}

// A replay's elapsed time is the run's, on the recording's clock: a replay
// started 2m30s after the recording was made does not count those (the
// live watch's clock is the wall clock).
func TestReplayElapsedIsTheRuns(t *testing.T) {
	for _, live := range []bool{false, true} {
		cfg := Config{}
		if live {
			cfg.Backend = &fakeBackend{}
		}
		m := newTestModel(t, "running.json", 120, 40, cfg)
		last := latest(m.env.store)
		m.SetClock(func() time.Time { return last.Add(150 * time.Second) }, time.UTC)
		want := text.Elapsed(last.Sub(m.env.store.Run().StartedAt))
		if live {
			want = text.Elapsed(last.Add(150 * time.Second).Sub(m.env.store.Run().StartedAt))
		}
		if got := m.elapsed(); got != want {
			t.Errorf("live %v: elapsed %s, want %s", live, got, want)
		}
	}
}

// A replay's elapsed time follows the recording's own timeline at the
// replay's speed, however long after the run it is watched: at --speed 2,
// 3 s of wall time after a poll recorded at R, the run's clock is R+6s;
// when the recording ends, the clock stops.
func TestReplayElapsedFollowsTheRecording(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "running.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := model.DecodeTrace(b)
	if err != nil {
		t.Fatal(err)
	}
	ref := loadStore(t, "running.json")
	start, last := ref.Run().StartedAt, latest(ref)
	m := newTestModel(t, "", 120, 40, Config{Updates: make(chan poller.Update)})
	// Watched a day after the run: the wall clock is far from the events.
	now := last.Add(26 * time.Hour)
	m.SetClock(func() time.Time { return now }, time.UTC)
	rec := last.Add(time.Second)
	m.Update(updateMsg{poller.Update{Poll: p, Health: poller.Health{Replay: true, Polls: 1, Recorded: rec, Speed: 2}}})
	at := func(d time.Duration) string { return "elapsed " + text.Elapsed(rec.Add(d).Sub(start)) }
	if got := plain(screenLines(m)[0]); !strings.Contains(got, at(0)) {
		t.Fatalf("as the poll is shown: %q, want %q", got, at(0))
	}
	// A second of the run's clock passes in half a second.
	if d := m.env.clock.wallFor(time.Second); d != 500*time.Millisecond {
		t.Errorf("a run's second at speed 2 takes %v of wall time, want 500ms", d)
	}
	now = now.Add(3 * time.Second)
	m.Update(clockMsg{tag: m.clockTag})
	if got := plain(screenLines(m)[0]); !strings.Contains(got, at(6*time.Second)) {
		t.Fatalf("3 s later at speed 2: %q, want %q", got, at(6*time.Second))
	}
	// The recording ends: running calls stop aging with it.
	m.Update(updateMsg{poller.Update{Health: poller.Health{Replay: true, Polls: 1, Done: true, Recorded: rec, Speed: 2}}})
	end := m.env.clock.Now()
	now = now.Add(time.Minute)
	if got := m.env.clock.Now(); !got.Equal(end) {
		t.Fatalf("the replay's clock moved after the recording ended: %v -> %v", end, got)
	}
	if want := rec.Add(6 * time.Second); !end.Equal(want) {
		t.Fatalf("the replay's clock stopped at %v, want %v", end, want)
	}
	// At --speed 1000 the clock still ticks at most 20 times a second.
	fast := &serverClock{wall: func() time.Time { return now }, replay: true}
	fast.recorded(rec, 1000)
	if d := fast.wallFor(time.Second); d != minTick {
		t.Errorf("a tick at speed 1000 after %v, want %v", d, minTick)
	}
}

// At 120 columns the connection's state is whole beside what the team has
// left, in credits as the runs screen says it, and the team's figure moves with the run's credits, not only when the
// service is asked again.
func TestHeaderHealthAndTeamTokens(t *testing.T) {
	m := newTestModel(t, "running.json", 120, 40, Config{Updates: make(chan poller.Update), Backend: &fakeBackend{}})
	m.onUpdate(poller.Update{Tokens: &poller.TokenUsage{RemainingTokens: 1_395_735}, Health: poller.Health{Polls: 3, Interval: 2 * time.Second}})
	line := plain(screenLines(m)[1])
	if !strings.Contains(line, "✓ live, polling every 2s") || !strings.Contains(line, "team 93,049") {
		t.Fatalf("header line 2: %q", line)
	}
	credits := m.env.store.Run().CreditsUsed
	m.onUpdate(poller.Update{Poll: &model.Poll{RunID: m.env.store.Run().ID, HasCredits: true, CreditsUsed: credits + 10}, Health: poller.Health{Polls: 4, Interval: 2 * time.Second}})
	if line := plain(screenLines(m)[1]); !strings.Contains(line, "team 93,039") {
		t.Errorf("after 10 more credits, the team's figure did not move: %q", line)
	}
}
