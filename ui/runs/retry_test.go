package runs

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// TestSameRetryAsTheCommands: the runs screen meets the front the commands
// meet in cli's TestOneRetryPolicy (429s asking for 1s on the runs list).
// A poller, it waits the same, 1s a time (with a refresh interval below the
// delay asked: a poller never waits less than its interval), says each wait
// with its length on screen, never gives up, and shows the list once the
// service answers.
func TestSameRetryAsTheCommands(t *testing.T) {
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{sim.ScenarioFirstGen}, History: 3, Speed: 1000, RateLimit: -1,
		Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const refused = poller.DefaultTries + 1 // more than a one-shot command tries
	front := &hostile.Refuser{Next: srv, Method: "GET", Route: "/v2/agent", N: refused}
	hs := httptest.NewServer(front)
	defer hs.Close()
	c, err := poller.New(poller.Config{BaseURL: hs.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	now := fixedNow.Add(90 * time.Second)
	m := New(Config{Service: c, NoColor: true, Interval: 500 * time.Millisecond, Now: func() time.Time { return now }})
	h := &harness{t: t, m: m, srv: srv}
	m.tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		return func() tea.Msg { return timerMsg{d, fn} }
	}
	m.SetSize(100, 30)
	h.run(m.Init())
	for i := 1; i <= refused; i++ {
		if !strings.Contains(m.note, "rate limited, retrying in 1.0s") || !strings.Contains(h.view(), "retrying in 1.0s") {
			t.Fatalf("refusal %d: the wait is not said on screen (note %q)", i, m.note)
		}
		armed := false
		for _, tm := range h.timers {
			armed = armed || tm.d == time.Second
		}
		if !armed {
			t.Fatalf("refusal %d: no 1s wait armed (timers %v)", i, h.timers)
		}
		now = now.Add(time.Second)
		h.fire(time.Second)
	}
	if m.note != "" || len(m.rows) == 0 || front.Requests() != refused+1 {
		t.Fatalf("after the refusals: note %q, %d runs, %d list requests", m.note, len(m.rows), front.Requests())
	}
}
