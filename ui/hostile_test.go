package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/model"
)

// longWordStore is a run whose one reasoning summary is a single word of n
// bytes (a hostile or broken server's text).
func longWordStore(t testing.TB, n int) (*model.Store, *model.Event) {
	t.Helper()
	s := model.NewStore()
	word := strings.Repeat("w", n)
	body := fmt.Sprintf(`{"success":true,"id":"r","events":[{"schemaVersion":1,"eventId":"e1","runId":"r","occurredAt":"2026-03-14T09:26:53Z","producerSequence":1,"agent":{"id":"a","role":"orchestrator","name":"orchestrator"},"type":"run.started"},{"schemaVersion":1,"eventId":"e2","runId":"r","occurredAt":"2026-03-14T09:26:54Z","producerSequence":2,"agent":{"id":"a","role":"orchestrator","name":"orchestrator"},"type":"reasoning.summary","text":%q}]}`, word)
	if _, err := s.Ingest([]byte(body)); err != nil {
		t.Fatal(err)
	}
	return s, s.Event("e2")
}

// The details of a text that is one word of 20 MB open without laying it
// out on the update loop (the layout comes from a command, linear in the
// text), q and ctrl+c quit at once while it is under way, and a resize
// asks for a new layout instead of blocking.
func TestLongWordDetailsStayResponsive(t *testing.T) {
	t.Parallel()
	s, ev := longWordStore(t, 20<<20)
	for _, quit := range []string{"q", "ctrl+c"} {
		m := newTestModel(t, "", 120, 40, Config{Store: s})
		m.openDetail(Selection{Event: ev})
		cmd := m.sizeOverlay()
		if cmd == nil {
			t.Fatal("no layout command: the 20 MB text was laid out on the update loop")
		}
		if got := strings.Join(screenLines(m), "\n"); !strings.Contains(got, "laying out") {
			t.Fatalf("the screen while laying out:\n%s", got)
		}
		c := m.Update(keyMsg(quit))
		if c == nil {
			t.Fatalf("%s: no command", quit)
		}
		if _, ok := c().(tea.QuitMsg); !ok {
			if b, ok := c().(tea.BatchMsg); !ok || !hasQuit(b) {
				t.Fatalf("%s does not quit while the layout is under way", quit)
			}
		}
	}
	// The layout arrives and is shown; a resize asks again, and a layout
	// for the old width is dropped.
	m := newTestModel(t, "", 120, 40, Config{Store: s})
	m.openDetail(Selection{Event: ev})
	first := m.sizeOverlay()
	second := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if second == nil {
		t.Fatal("a resize did not ask for a new layout")
	}
	m.Update(first()) // stale: for 120 columns
	if got := strings.Join(screenLines(m), "\n"); !strings.Contains(got, "laying out") {
		t.Fatalf("a stale layout was shown:\n%s", got)
	}
	runCmds(t, m, second)
	lines := screenLines(m)
	if got := strings.Join(lines, "\n"); strings.Contains(got, "laying out") || !strings.Contains(got, "wwwwwwwwww") {
		t.Fatalf("the layout was not shown:\n%s", got)
	}
	checkScreen(t, content(m), 80, 24)
	// Scrolling to the end costs one page, not the text.
	t0 := time.Now()
	runCmds(t, m, press(m, "G"))
	t.Logf("G on 20 MB: %v", time.Since(t0))
}

func hasQuit(b tea.BatchMsg) bool {
	for _, c := range b {
		if c == nil {
			continue
		}
		switch m := c().(type) {
		case tea.QuitMsg:
			return true
		case tea.BatchMsg:
			if hasQuit(m) {
				return true
			}
		}
	}
	return false
}

// armConfirm delivers the confirmation's arming, as its timer would.
func armConfirm(t *testing.T, m *Model) {
	t.Helper()
	v, ok := m.overlay.(*confirmView)
	if !ok {
		t.Fatalf("no confirmation: %T", m.overlay)
	}
	m.Update(v.q.Arm())
}

// The cancel confirmation costs money: keys typed ahead (queued before it
// was shown: "cy" typed fast, a paste) never answer it, and only a
// lower-case y does once it is shown.
func TestCancelNotAnsweredByTypeAhead(t *testing.T) {
	fb := &fakeService{}
	m := serviceModel(t, "running.json", 120, 40, fb, Config{})
	pressRun(t, m, "c", "y", "y", "enter")
	if _, ok := m.overlay.(*confirmView); !ok || fb.cancels != 0 {
		t.Fatalf("typed ahead: overlay %T, %d cancels", m.overlay, fb.cancels)
	}
	if s := plain(content(m)); strings.Contains(s, "yes, cancel the run") {
		t.Fatalf("the answers are offered before they are taken:\n%s", s)
	}
	armConfirm(t, m)
	if s := plain(content(m)); !strings.Contains(s, "yes, cancel the run") {
		t.Fatalf("the answers are not offered once armed:\n%s", s)
	}
	pressRun(t, m, "Y")
	if _, ok := m.overlay.(*confirmView); !ok || fb.cancels != 0 {
		t.Fatalf("Y: overlay %T, %d cancels", m.overlay, fb.cancels)
	}
	pressRun(t, m, "y")
	if fb.cancels != 1 {
		t.Fatalf("y once armed: %d cancels", fb.cancels)
	}
}
