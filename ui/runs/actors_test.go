package runs

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/internal/golden"
	"github.com/firewatch/firewatch/ui/remote"
)

// TestDetailsActors: the selected run's details say who cancelled and who
// started it through a hub, as the archive's record says; a cancelled run
// nobody is known to have cancelled says so; a cancel made from this
// screen on a hub is the session's person's, via the hub's name. A
// record from before hubs had names says "through the hub".
func TestDetailsActors(t *testing.T) {
	known, unknown, live := "11111111-0000-4000-8000-000000000001", "11111111-0000-4000-8000-000000000002", "11111111-0000-4000-8000-000000000003"
	c := 12.0
	expires := fixedNow.Add(24 * time.Hour)
	svc := &fixedService{
		runs: []poller.RunInfo{
			{ID: known, Status: "failed", CreatedAt: fixedNow, Prompt: "a", Known: &poller.Known{Outcome: "cancelled", Complete: true, StartedBy: "bob", CancelledBy: "alice via hub prod"}},
			{ID: unknown, Status: "failed", CreatedAt: fixedNow.Add(-time.Minute), Prompt: "b", Known: &poller.Known{Outcome: "cancelled", Complete: true}},
			{ID: live, Status: "processing", CreatedAt: fixedNow.Add(-2 * time.Minute), Prompt: "c"},
		},
		status: map[string]*poller.Status{
			// A full pane (model, thread, expiry, error): who is not cut.
			known: {Status: "failed", CreditsUsed: &c, Model: "spark-2", Effort: "low", ThreadID: "51b3ab58-0000-4000-8000-000000000000", ThreadTurn: 1,
				ExpiresAt: &expires, Error: "The run was cancelled by the user"},
			unknown: {Status: "failed", CreditsUsed: &c},
			live:    {Status: "processing"},
		},
	}
	m := New(Config{Service: svc, NoColor: true, Person: "carol", Role: "operator", HubName: "prod", Now: func() time.Time { return fixedNow.Add(90 * time.Second) }})
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
	if v := h.view(); !strings.Contains(v, "who      cancelled by alice via hub prod · started by bob through the hub") {
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
	if v := h.view(); !strings.Contains(v, "who      cancelled by carol via hub prod") {
		t.Errorf("cancelled here:\n%s", v)
	}
}

// TestHubGoldens: a hub's runs screen says who the session is and its
// role in its title line; a viewer's footer and help do not offer n and
// c (pressed anyway, they are refused with why), an operator's do. At
// 120x40 and 80x24: testdata/hub-{operator,viewer}-{size}.txt hold the
// title line, the footer and the help screen.
func TestHubGoldens(t *testing.T) {
	const refusal = "only the hub's operators may start or cancel runs (carol is a viewer)"
	for _, role := range []string{"operator", "viewer"} {
		for _, size := range [][2]int{{120, 40}, {80, 24}} {
			name := fmt.Sprintf("hub-%s-%dx%d.txt", role, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				c := 12.0
				id := "11111111-0000-4000-8000-000000000001"
				svc := &fixedService{
					runs:   []poller.RunInfo{{ID: id, Status: "completed", CreatedAt: fixedNow, Prompt: "Compare the pricing of the top web-scraping APIs"}},
					status: map[string]*poller.Status{id: {Status: "completed", CreditsUsed: &c}},
				}
				cfg := Config{Service: svc, NoColor: true, Person: "carol", Role: role, Now: func() time.Time { return fixedNow.Add(90 * time.Second) }}
				// A hub session's terminal: no suspend is offered there.
				cfg.Terminal = remote.New(strings.NewReader(""), io.Discard, nil, size[0], size[1])
				if role == "viewer" {
					cfg.ReadOnly = refusal
				}
				m := New(cfg)
				h := &harness{t: t, m: m}
				m.tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
					return func() tea.Msg { return timerMsg{d, fn} }
				}
				m.SetSize(size[0], size[1])
				h.run(m.Init())
				h.fire(detailDelay)
				lines := strings.Split(h.view(), "\n")
				got := "header:\n" + lines[0] + "\nfooter:\n" + lines[len(lines)-1] + "\n"
				h.key("?")
				got += "help:\n" + h.view() + "\n"
				h.key("?")
				golden.Check(t, name, got)
				for _, k := range []string{"n", "c"} {
					h.key(k)
					v := h.view()
					if refused := strings.Contains(v, refusal); refused != (role == "viewer") {
						t.Errorf("%s pressed by the %s: refused %v:\n%s", k, role, refused, v)
					}
					h.key("esc")
				}
			})
		}
	}
}
