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
