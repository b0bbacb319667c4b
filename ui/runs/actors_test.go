package runs

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/poller"
)

// TestDetailsActors: the selected run's details say who cancelled and who
// started it through a hub, as the archive's record says; a cancelled run
// nobody is known to have cancelled says so; a cancel made from this
// screen on a hub is the session's person's.
func TestDetailsActors(t *testing.T) {
	known, unknown, live := "11111111-0000-4000-8000-000000000001", "11111111-0000-4000-8000-000000000002", "11111111-0000-4000-8000-000000000003"
	c := 12.0
	svc := &fixedService{
		runs: []poller.RunInfo{
			{ID: known, Status: "failed", CreatedAt: fixedNow, Prompt: "a", Known: &poller.Known{Outcome: "cancelled", Complete: true, StartedBy: "bob", CancelledBy: "alice"}},
			{ID: unknown, Status: "failed", CreatedAt: fixedNow.Add(-time.Minute), Prompt: "b", Known: &poller.Known{Outcome: "cancelled", Complete: true}},
			{ID: live, Status: "processing", CreatedAt: fixedNow.Add(-2 * time.Minute), Prompt: "c"},
		},
		status: map[string]*poller.Status{
			known:   {Status: "failed", CreditsUsed: &c},
			unknown: {Status: "failed", CreditsUsed: &c},
			live:    {Status: "processing"},
		},
	}
	m := New(Config{Service: svc, NoColor: true, Person: "carol", Role: "operator", Now: func() time.Time { return fixedNow.Add(90 * time.Second) }})
	h := &harness{t: t, m: m}
	m.tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		return func() tea.Msg { return timerMsg{d, fn} }
	}
	m.SetSize(120, 40)
	h.run(m.Init())
	at := func(id string) {
		for range 5 {
			h.key("up")
		}
		for m.Selected().ID != id {
			h.key("down")
		}
		h.fire(detailDelay)
	}
	at(known)
	if v := h.view(); !strings.Contains(v, "who      cancelled by alice through the hub · started by bob through the hub") {
		t.Errorf("known:\n%s", v)
	}
	at(unknown)
	if v := h.view(); !strings.Contains(v, "who      cancelled, by the service or a client firewatch did not see") || strings.Contains(v, "started by") {
		t.Errorf("unknown:\n%s", v)
	}
	at(live)
	if v := h.view(); strings.Contains(v, "who  ") {
		t.Errorf("a running run nobody acted on:\n%s", v)
	}
	m.onAction(cancelDoneMsg{id: live})
	if v := h.view(); !strings.Contains(v, "who      cancelled by carol through the hub") {
		t.Errorf("cancelled here:\n%s", v)
	}
}
