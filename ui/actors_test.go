package ui

import (
	"strings"
	"testing"

	"github.com/firewatch/firewatch/model"
)

// TestHeaderActors: the run's header names who cancelled it through a hub
// (a shorter form on a narrow screen), or who started it; a cancel
// firewatch did not see is said to be unknown.
func TestHeaderActors(t *testing.T) {
	for _, c := range []struct {
		fixture string
		acts    model.Actors
		w       int
		want    string
	}{
		{"cancelled.json", model.Actors{CancelledBy: "alice", StartedBy: "bob"}, 120, "⊘ cancelled   by alice through the hub · "},
		{"cancelled.json", model.Actors{CancelledBy: "alice"}, 80, "⊘ cancelled   by alice"},
		{"cancelled.json", model.Actors{}, 120, "⊘ cancelled   by the service or a client firewatch did not see"},
		{"running.json", model.Actors{StartedBy: "bob"}, 120, "   started by bob through the hub · working"},
		// A record that names its hub says it; narrow, the person alone.
		{"cancelled.json", model.Actors{CancelledBy: "alice via hub prod"}, 120, "⊘ cancelled   by alice via hub prod · "},
		{"cancelled.json", model.Actors{CancelledBy: "alice via hub prod"}, 80, "⊘ cancelled   by alice"},
		{"running.json", model.Actors{StartedBy: "bob (mcp:claude-code) via hub prod"}, 120, "   started by bob (mcp:claude-code) via hub prod · working"},
	} {
		s := loadStore(t, c.fixture)
		s.SetActors(c.acts)
		m := newTestModel(t, "", c.w, 40, Config{Store: s, JobID: "e9d1e131-b05b-4d08-b44a-bde34a7aa278"})
		healthy(m, true)
		first, _, _ := strings.Cut(plain(content(m)), "\n")
		if !strings.Contains(first, c.want) {
			t.Errorf("%s %+v at %d: no %q in\n%s", c.fixture, c.acts, c.w, c.want, first)
		}
	}
}

// TestHubPersonAndKeys: on a hub the run's header says who the session is
// and its role; a viewer's help does not offer c, p or l (pressed anyway,
// c is refused with why), an operator's does.
func TestHubPersonAndKeys(t *testing.T) {
	for _, role := range []string{"operator", "viewer"} {
		cfg := Config{JobID: "e9d1e131-b05b-4d08-b44a-bde34a7aa278", Person: "carol", Role: role, Backend: &fakeBackend{}}
		if role == "viewer" {
			cfg.ReadOnly, cfg.PollReadOnly = "only the hub's operators may cancel a run", "only the hub's operators may pause"
		}
		m := newTestModel(t, "running.json", 120, 40, cfg)
		healthy(m, false)
		lines := strings.Split(plain(content(m)), "\n")
		if !strings.Contains(lines[1], "carol · "+role) {
			t.Errorf("%s: header:\n%s", role, strings.Join(lines[:2], "\n"))
		}
		pressRun(t, m, "?")
		help := plain(content(m))
		for _, k := range []string{"cancel the run", "pause polling", "live view on/off"} {
			if strings.Contains(help, k) != (role == "operator") {
				t.Errorf("%s: %q offered %v in help:\n%s", role, k, !(role == "operator"), help)
			}
		}
		pressRun(t, m, "esc", "c")
		if refused := strings.Contains(footerLine(m), "only the hub's operators may cancel a run"); refused != (role == "viewer") {
			t.Errorf("%s: c refused %v: %s", role, refused, footerLine(m))
		}
	}
}

// TestCancelledHere: a cancel this screen made (outside a hub) is said to
// be this firewatch's, not unknown.
func TestCancelledHere(t *testing.T) {
	m := newTestModel(t, "cancelled.json", 120, 40, Config{JobID: "e9d1e131-b05b-4d08-b44a-bde34a7aa278", Backend: &fakeBackend{}})
	healthy(m, true)
	m.onCancelDone(cancelDoneMsg{})
	first, _, _ := strings.Cut(plain(content(m)), "\n")
	if !strings.Contains(first, "⊘ cancelled   by this firewatch (c on its screen)") {
		t.Errorf("header: %s", first)
	}
}
