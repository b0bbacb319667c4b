package attention

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/attention/attentiontest"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/sim"
)

func simPolls(t testing.TB, scenario string, step time.Duration) ([][]byte, int) {
	return attentiontest.SimPolls(t, scenario, step)
}

// feed merges the bodies one after the other; live, it also ticks the
// tracker as a live watch does while it waits for the next poll (the
// bodies are 2 s apart).
func feed(t testing.TB, bodies [][]byte, o Options, live bool) (*model.Store, *Tracker) {
	t.Helper()
	s := model.NewStore()
	tk := New(s, o)
	local := t0
	for _, b := range bodies {
		d, err := s.Ingest(b)
		if err != nil {
			t.Fatal(err)
		}
		tk.Update(d, local)
		if live {
			for dt := 250 * time.Millisecond; dt < 2*time.Second; dt += 250 * time.Millisecond {
				tk.Tick(local.Add(dt))
			}
		}
		local = local.Add(2 * time.Second)
	}
	return s, tk
}

// The clean scenarios raise nothing; each attention scenario raises what
// it is for and nothing else; every item has cleared once the run is over,
// but the budget of a run that ended at its cap, which is reached; the
// estimate adds up.
func TestScenarios(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		want     []Kind
	}{
		{sim.ScenarioResearch, nil},
		{sim.ScenarioFailure, nil},
		{sim.ScenarioRefused, nil},
		// 150 credits of an assumed 2 500, then stopped at its cap: reached.
		{sim.ScenarioCreditLimit, []Kind{KindBudget}},
		{sim.ScenarioChaos, nil},
		// 9 000 credits in under a minute: past 80 % of the assumed 2 500
		// at once, then past it (so the cap was not the default: cleared).
		{sim.ScenarioLarge, []Kind{KindBudget}},
		{sim.ScenarioCancel, nil},
		{sim.ScenarioStall, []Kind{KindStall}},
		{sim.ScenarioHang, []Kind{KindSlowTool}},
		{sim.ScenarioLoop, []Kind{KindLoop, KindFailingStreak}},
		{sim.ScenarioBurn, []Kind{KindBudget}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel()
			bodies, maxCredits := simPolls(t, tc.scenario, 2*time.Second)
			o := Options{MaxCredits: float64(maxCredits)}
			if tc.scenario == sim.ScenarioCreditLimit {
				o = Options{} // as watch would, knowing no cap
			}
			s, tk := feed(t, bodies, o, true)
			// A replay (no local clock between the polls) finds the same.
			if _, re := feed(t, bodies, o, false); fmt.Sprint(items(re)) != fmt.Sprint(items(tk)) {
				t.Errorf("replay:\n%s\nlive:\n%s", strings.Join(items(re), "\n"), strings.Join(items(tk), "\n"))
			}
			var got []Kind
			for _, it := range tk.Items() {
				got = append(got, it.Kind)
				limited := s.Run().Outcome == model.OutcomeCreditLimitReached
				if s.Run().State == model.StateFinished && it.State() != map[bool]string{true: "reached", false: "cleared"}[limited && it.Kind == KindBudget] {
					t.Errorf("%s after the run: %s", it.State(), short(it))
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("kinds %v, want %v:\n%s", got, tc.want, strings.Join(items(tk), "\n"))
			}
			var sum float64
			for _, ac := range tk.Estimate() {
				sum += ac.Credits
			}
			if sum != s.Run().CreditsUsed {
				t.Errorf("estimate adds up to %v, creditsUsed %v: %v", sum, s.Run().CreditsUsed, tk.Estimate())
			}
			t.Logf("%s\n%v", strings.Join(items(tk), "\n"), tk.Estimate())
		})
	}
}
