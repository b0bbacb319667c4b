package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/screen"
)

func TestEverySizeIsWholeAndAligned(t *testing.T) {
	m := newTestModel(t, "running.json", 120, 40, Config{LiveView: true})
	for _, size := range [][2]int{
		{120, 40}, {80, 24}, {200, 60}, {100, 30}, {99, 30}, {100, 29}, {60, 16}, {59, 16}, {60, 15},
		{30, 8}, {1, 1}, {0, 0}, {250, 80}, {133, 41}, {81, 25},
	} {
		w, h := size[0], size[1]
		m.Update(tea.WindowSizeMsg{Width: w, Height: h})
		got := content(m)
		if w == 0 || h == 0 {
			if got != "" {
				t.Errorf("%dx%d: want nothing before a size is known", w, h)
			}
			continue
		}
		checkScreen(t, got, w, h)
		small := w < compactMinW || h < compactMinH
		if says := strings.Contains(plain(got), fmt.Sprintf("at least %dx%d", compactMinW, compactMinH)); says != small && w >= 20 {
			t.Errorf("%dx%d: size note shown=%v, want %v", w, h, says, small)
		}
	}
	// Every pane, every overlay, at both layouts.
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for i := range m.panes {
			m.setFocus(i)
			checkScreen(t, content(m), size[0], size[1])
			press(m, "enter")
			checkScreen(t, content(m), size[0], size[1])
			press(m, "esc", "?")
			checkScreen(t, content(m), size[0], size[1])
			press(m, "esc")
		}
	}
}

func TestCompactLayoutReachesEveryPane(t *testing.T) {
	m := newTestModel(t, "succeeded.json", 80, 24, Config{})
	m.setFocus(0)
	seen := map[string]bool{}
	for range m.panes {
		tabs := screenLines(m)[2]
		name := shortName(m.focused())
		if !strings.Contains(tabs, name) {
			t.Errorf("tab bar %q lacks %s", tabs, name)
		}
		seen[name] = true
		press(m, "tab")
	}
	if len(seen) != 5 {
		t.Fatalf("tab reached %d panes", len(seen))
	}
	press(m, "shift+tab")
	if m.focus != len(m.panes)-1 {
		t.Fatalf("shift+tab from the first pane should go to the last")
	}
}

func TestNoColourAndASCII(t *testing.T) {
	m := newTestModel(t, "failed.json", 120, 40, Config{NoColor: true})
	s := content(m)
	checkScreen(t, s, 120, 40)
	for i := 0; i+1 < len(s); i++ {
		if s[i] != 0x1b {
			continue
		}
		j := strings.IndexByte(s[i:], 'm')
		for _, p := range strings.Split(s[i+2:i+j], ";") {
			switch p {
			case "", "0", "1", "2", "4", "7", "22", "24", "27":
			default:
				t.Fatalf("colour in no-colour mode: %q", s[i:i+j+1])
			}
		}
	}
	a := newTestModel(t, "failed.json", 120, 40, Config{ASCII: true})
	for _, fn := range []func(){func() {}, func() { press(a, "?") }, func() { press(a, "esc", "enter") }} {
		fn()
		s = plain(content(a))
		for i, r := range s {
			if r > 0x7e || (r < 0x20 && r != '\n') {
				t.Fatalf("non-ASCII %q at %d in ASCII mode:\n%s", r, i, s)
			}
		}
	}
}

func TestMouseOnlyWhenAsked(t *testing.T) {
	m := newTestModel(t, "running.json", 120, 40, Config{})
	if (screen.Root{S: m}).View().MouseMode != tea.MouseModeNone {
		t.Fatal("the mouse must be off by default (text selection over SSH)")
	}
	m = newTestModel(t, "running.json", 120, 40, Config{Mouse: true})
	if (screen.Root{S: m}).View().MouseMode == tea.MouseModeNone {
		t.Fatal("--mouse should turn the mouse on")
	}
	if !(screen.Root{S: m}).View().AltScreen {
		t.Fatal("the UI uses the alternate screen")
	}
	// A click on a tool call row focuses the pane and selects the row.
	r := m.paneRects()[paneTools]
	m.Update(tea.MouseClickMsg{X: r.x + 5, Y: r.y + 2, Button: tea.MouseLeft})
	if m.focus != paneTools || m.tools.sel != 2 {
		t.Fatalf("click: focus %d, row %d", m.focus, m.tools.sel)
	}
	m.Update(tea.MouseWheelMsg{X: 5, Y: m.paneRects()[paneTimeline].y + 1, Button: tea.MouseWheelUp})
	if m.focus != paneTimeline || m.timeline.follow {
		t.Fatal("the wheel over the timeline should scroll it")
	}
}

// hostile is a trace whose every server string tries to reach the terminal.
func hostileBody(t *testing.T) []byte {
	t.Helper()
	evil := "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[31mred\u009b1;1H\u202eevil\u200b\r\x08\x07end"
	run := "11111111-1111-4111-8111-111111111111"
	orch := map[string]any{"id": "22222222-2222-4222-8222-222222222222", "role": "orchestrator", "name": "orch" + evil}
	sub := map[string]any{"id": "33333333-3333-4333-8333-333333333333", "role": "subagent", "name": "sub" + evil, "parentId": orch["id"]}
	at := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	var evs []map[string]any
	seq := map[string]int{}
	add := func(agent map[string]any, typ string, fields map[string]any) {
		id := agent["id"].(string)
		seq[id]++
		e := map[string]any{"schemaVersion": 1, "eventId": fmt.Sprintf("e%04d", len(evs)), "runId": run,
			"occurredAt": at.Add(time.Duration(len(evs)) * time.Second).Format(time.RFC3339Nano), "producerSequence": seq[id], "agent": agent, "type": typ}
		for k, v := range fields {
			e[k] = v
		}
		evs = append(evs, e)
	}
	add(orch, "run.started", nil)
	add(orch, "agent.started", nil)
	add(orch, "progress.reported", map[string]any{"phase": "working" + evil, "message": "msg" + evil})
	add(sub, "agent.started", nil)
	add(sub, "reasoning.summary", map[string]any{"text": strings.Repeat("think"+evil+" ", 40)})
	add(sub, "tool_call.started", map[string]any{"toolCallId": "tc" + evil, "toolName": "tool" + evil, "parameters": map[string]any{"url" + evil: evil}})
	add(sub, "browser.session.started", map[string]any{"sessionId": "sess" + evil})
	add(sub, "artifact.updated", map[string]any{"artifact": map[string]any{"kind": "json" + evil, "artifactId": "a" + evil, "path": "/p" + evil,
		"snapshotId": "s1", "change": "init" + evil, "sourceToolCallId": "tc" + evil, "itemCount": 3}})
	add(sub, "error.occurred", map[string]any{"error": map[string]any{"code": "internal" + evil, "source": "tool", "retryable": true, "message": "boom" + evil}})
	add(sub, "tool_call.finished", map[string]any{"toolCallId": "tc" + evil, "toolName": "tool" + evil, "result": map[string]any{"error": evil}})
	add(sub, "weird.type"+evil, map[string]any{"x": evil})
	add(orch, "run.finished", map[string]any{"outcome": "failed" + evil, "error": map[string]any{"code": "internal", "source": "system", "retryable": false, "message": "fatal" + evil}})
	body := map[string]any{"success": true, "id": run, "creditsUsed": 12.5, "events": evs,
		"activeBrowserSessions": []any{map[string]any{"id": "sess" + evil, "liveViewUrl": "https://x" + evil, "viewport": map[string]any{"width": 800, "height": 600}}}}
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	s := model.NewStore()
	if _, err := s.Ingest(hostileBody(t)); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, "", 120, 40, Config{Store: s, LiveView: true, JobID: "\x1b]0;pwned\x07"})
	m.Update(updateMsg{poller.Update{Err: fmt.Errorf("server said \x1b[2J\u202e no"), Health: poller.Health{Failures: 2, Cause: "rate \x1b]2;x\x07limited"}}})
	check := func(where string) {
		s := content(m)
		checkScreen(t, s, 120, 40)
		for _, bad := range []string{"\u202e", "\u200b", "\u009b", "\x07", "\r", "\x08", "ZXZpbA=="} {
			if strings.Contains(s, bad) && bad != "ZXZpbA==" {
				t.Fatalf("%s: %q reached the screen", where, bad)
			}
		}
		title := m.Frame().Title
		for _, r := range title {
			if r < 0x20 || r > 0x7e {
				t.Fatalf("%s: window title %q", where, title)
			}
		}
	}
	check("main")
	for i := range m.panes {
		m.setFocus(i)
		press(m, "enter")
		check(fmt.Sprintf("details of pane %d", i))
		press(m, "esc")
	}
	press(m, "/")
	typeText(m, "think")
	press(m, "enter")
	check("filtered")
	press(m, "?")
	check("help")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	press(m, "esc")
	checkScreen(t, content(m), 80, 24)
}

func TestStateBadges(t *testing.T) {
	for _, tc := range []struct{ fixture, badge, banner string }{
		{"running.json", "running", ""},
		{"succeeded.json", "succeeded", "Run succeeded"},
		{"failed.json", "failed", "Run failed"},
		{"cancelled.json", "cancelled", "Run cancelled"},
		{"refused.json", "refused", "Run refused"},
		{"credit-limit.json", "credit limit", "Run credit limit"},
	} {
		m := newTestModel(t, tc.fixture, 120, 40, Config{})
		lines := screenLines(m)
		if !strings.Contains(lines[0], " "+tc.badge+" ") {
			t.Errorf("%s: header %q lacks the badge %q", tc.fixture, lines[0], tc.badge)
		}
		b := bannerRow(m)
		if tc.banner != "" && !strings.Contains(lines[b], tc.banner) {
			t.Errorf("%s: banner %q lacks %q", tc.fixture, lines[b], tc.banner)
		}
		if r := m.env.store.Run(); r.Error != nil && !strings.Contains(lines[b+1], r.Error.Message[:20]) {
			t.Errorf("%s: the fatal error's message is not under the banner: %q", tc.fixture, lines[b+1])
		}
	}
	// Cancel requested, not finished yet.
	full := loadStore(t, "cancelled.json")
	var evs []*model.Event
	for _, e := range full.Timeline() {
		evs = append(evs, e)
		if e.Type == model.TypeRunCancelRequested {
			break
		}
	}
	s := model.NewStore()
	s.Merge(&model.Poll{Events: evs})
	m := newTestModel(t, "", 120, 40, Config{Store: s})
	if l := screenLines(m)[0]; !strings.Contains(l, "cancel requested") {
		t.Errorf("header %q lacks the cancel requested badge", l)
	}
}

func TestWatchStoppedBeforeTheEnd(t *testing.T) {
	ch := make(chan poller.Update)
	m := newTestModel(t, "running.json", 120, 40, Config{Updates: ch, Backend: &fakeBackend{}})
	m.Update(updateMsg{poller.Update{Err: fmt.Errorf("trace: not found or expired (404)"), Done: true, Health: poller.Health{Done: true}}})
	lines := screenLines(m)
	if b := bannerRow(m); !strings.Contains(lines[0], "not finished") || !strings.Contains(lines[b], "watch stopped before the run finished: trace: not found") {
		t.Fatalf("header and banner:\n%s\n%s", lines[0], lines[b])
	}
	if m.armTicks() != nil {
		t.Fatal("nothing moves once the watch stopped")
	}
	press(m, "p")
	if !strings.Contains(screenLines(m)[39], "ended") {
		t.Fatalf("p after the watch ended: %q", screenLines(m)[39])
	}
}
