package runs

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/poller"
)

// fixedService answers with fixed runs and statuses.
type fixedService struct {
	runs   []poller.RunInfo
	status map[string]*poller.Status
}

func (f *fixedService) Runs(context.Context, time.Time) (*poller.RunList, error) {
	return &poller.RunList{Runs: append([]poller.RunInfo(nil), f.runs...)}, nil
}
func (f *fixedService) Status(_ context.Context, id string) (*poller.Status, error) {
	st := *f.status[id]
	return &st, nil
}
func (f *fixedService) TokenUsage(context.Context) (*poller.TokenUsage, error) {
	return &poller.TokenUsage{}, nil
}
func (f *fixedService) ActiveCrawls(context.Context) ([]poller.Crawl, error) { return nil, nil }
func (f *fixedService) Cancel(context.Context, string) error                 { return nil }
func (f *fixedService) StartAgent(context.Context, poller.AgentRequest) (string, error) {
	return "", nil
}

// TestRowAndDetailsAgree: the service reports a cancelled and a
// credit-limited run as failed; where firewatch's record read their
// outcome, a run's row and its details pane show that outcome, the same
// word, before the run is archived (a live row) and after (an archived
// one); a run known only in part is "incomplete" in both; a cancel made
// from the list shows as one in both.
func TestRowAndDetailsAgree(t *testing.T) {
	cancelled, capped, part, live := "11111111-0000-4000-8000-000000000001", "11111111-0000-4000-8000-000000000002",
		"11111111-0000-4000-8000-000000000003", "11111111-0000-4000-8000-000000000004"
	c, c2 := 266.0, 150.0
	svc := &fixedService{
		runs: []poller.RunInfo{
			{ID: cancelled, Status: "failed", CreatedAt: fixedNow, Prompt: "a", Known: &poller.Known{Outcome: "cancelled", Complete: true}},
			{ID: capped, Status: "failed", CreatedAt: fixedNow.Add(-time.Minute), Prompt: "b", Archived: true, Known: &poller.Known{Outcome: "credit_limit_reached", Complete: true}},
			{ID: part, Status: "processing", CreatedAt: fixedNow.Add(-2 * time.Minute), Prompt: "c", Archived: true, Known: &poller.Known{}},
			{ID: live, Status: "processing", CreatedAt: fixedNow.Add(-3 * time.Minute), Prompt: "d"},
		},
		status: map[string]*poller.Status{
			cancelled: {Status: "failed", CreditsUsed: &c, Known: &poller.Known{Outcome: "cancelled", Complete: true}},
			capped:    {Status: "failed (archived)", CreditsUsed: &c2, Known: &poller.Known{Outcome: "credit_limit_reached", Complete: true}},
			part:      {Status: "processing (archived)", Known: &poller.Known{}},
			live:      {Status: "processing"},
		},
	}
	m := New(Config{Service: svc, NoColor: true, Now: func() time.Time { return fixedNow.Add(90 * time.Second) }})
	h := &harness{t: t, m: m}
	m.tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		return func() tea.Msg { return timerMsg{d, fn} }
	}
	m.SetSize(120, 40)
	h.run(m.Init())
	want := map[string]string{cancelled: "cancelled", capped: "credit_limit_reached", part: "incomplete", live: "processing"}
	for i := range m.rows {
		r := &m.rows[i]
		row := m.shownStatus(r)
		st, _ := svc.Status(context.Background(), r.ID)
		det := m.shown(r, st)
		if row != want[r.ID] || det != row {
			t.Errorf("run %s: row %q, details %q, want %q in both", r.ID, row, det, want[r.ID])
		}
	}
	// The details pane of the credit-limited run, drawn.
	for m.Selected().ID != capped {
		h.key("down")
	}
	h.fire(detailDelay)
	v := h.view()
	if !strings.Contains(v, "status   $ credit_limit_reached (archived)") || !strings.Contains(v, "150 credits") || !strings.Contains(v, ", billed") {
		t.Errorf("the details pane of the credit-limited run:\n%s", v)
	}
	// A cancel from the list: the row and the details say so while the
	// service still says failed.
	m.onAction(cancelDoneMsg{id: live})
	svc.status[live] = &poller.Status{Status: "failed", CreditsUsed: &c}
	r := m.rows[m.byID[live]]
	r.Status = "failed"
	if row, det := m.shownStatus(&r), m.shown(&r, svc.status[live]); row != "cancelled" || det != "cancelled" {
		t.Errorf("after a cancel: row %q, details %q", row, det)
	}
	// Details fetched while the run was processing, the list since
	// refreshed with it over: the details show the row's outcome, and are
	// asked again.
	r.Known = &poller.Known{Outcome: "cancelled", Complete: true}
	if det := m.shown(&r, &poller.Status{Status: "processing"}); det != "cancelled" {
		t.Errorf("stale details: %q, want the row's cancelled", det)
	}
}

// TestStaleDetailsAskedAgain: the details of a run fetched while it was
// processing are asked again when a refresh of the list says it is over,
// without waiting for the next interval.
func TestStaleDetailsAskedAgain(t *testing.T) {
	id := "11111111-0000-4000-8000-000000000009"
	svc := &fixedService{
		runs:   []poller.RunInfo{{ID: id, Status: "processing", CreatedAt: fixedNow, Prompt: "x"}},
		status: map[string]*poller.Status{id: {Status: "processing"}},
	}
	now := fixedNow.Add(90 * time.Second)
	m := New(Config{Service: svc, NoColor: true, Now: func() time.Time { return now }})
	h := &harness{t: t, m: m}
	m.tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		return func() tea.Msg { return timerMsg{d, fn} }
	}
	m.SetSize(120, 40)
	h.run(m.Init())
	h.fire(detailDelay)
	if d := m.details[id]; d == nil || d.st == nil || d.st.Status != "processing" {
		t.Fatalf("details %+v", d)
	}
	c := 266.0
	svc.runs[0].Status, svc.runs[0].Known = "failed", &poller.Known{Outcome: "cancelled", Complete: true}
	svc.status[id] = &poller.Status{Status: "failed", CreditsUsed: &c, Known: &poller.Known{Outcome: "cancelled", Complete: true}}
	now = now.Add(time.Second) // well within the interval: the details are not old
	h.run(m.refresh())
	if d := m.details[id]; d == nil || d.st == nil || d.st.Status != "failed" {
		t.Fatalf("the details were not asked again: %+v", d.st)
	}
	if v := h.view(); !strings.Contains(v, "status   ⊘ cancelled") || !strings.Contains(v, "266 credits") {
		t.Errorf("the details pane:\n%s", v)
	}
}
