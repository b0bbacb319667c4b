package attention

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestEstimateSplitsByToolTime(t *testing.T) {
	tr := team(sec(40))
	tr.call(sec(0), sec(10), "pricing", "a", "scrape", 1, nil) // 10 s
	tr.call(sec(5), sec(5), "docs", "b", "scrape", 2, nil)     // 5 s
	tr.call(sec(12), sec(8), "docs", "c", "scrape", 3, nil)    // 8 s
	tr.ev(sec(30), "orch", "reasoning.summary", "text", "t")
	// However the figure rose, 34 credits over 23 s of tool time: pricing
	// 14.78, docs 19.22, rounded by largest remainder; orch made no call.
	want := map[string]float64{agentID("orch"): 0, agentID("pricing"): 15, agentID("docs"): 19}
	for _, polls := range [][]poll{
		{{sec(10), 15}, {sec(20), 31}, {sec(30), 34}, {sec(40), 34}},
		{{sec(40), 34}},
		{{sec(1), 30}, {sec(40), 34}},
	} {
		tk, _ := tr.run(t, Options{}, polls...)
		got := tk.Estimate()
		if len(got) != 3 {
			t.Fatalf("estimate %v", got)
		}
		for _, ac := range got {
			if ac.Credits != want[ac.AgentID] {
				t.Errorf("polls %v: %s: %v, want %v (all: %v)", polls, ac.AgentID, ac.Credits, want[ac.AgentID], got)
			}
		}
	}
}

// With no tool call at all, the credits follow the events each agent
// emitted.
func TestEstimateByEventsWithoutTools(t *testing.T) {
	tr := newTrace()
	tr.agent("a", "subagent", "orch")
	tr.ev(0, "orch", "run.started").ev(0, "orch", "agent.started")
	tr.ev(sec(1), "a", "agent.started").ev(sec(2), "a", "reasoning.summary", "text", "x").ev(sec(3), "a", "reasoning.summary", "text", "y")
	tk, _ := tr.run(t, Options{}, poll{sec(3), 10})
	got := tk.Estimate()
	// orch 2 events, a 3: 4 and 6.
	if len(got) != 2 || got[0].Credits != 4 || got[1].Credits != 6 {
		t.Fatalf("estimate %v, want orch 4, a 6", got)
	}
}

// randomTrace is an orchestrator that emits every second (the trace's clock
// runs on each second) and three subagents with tool calls of whole seconds.
// toolSecs is each agent's tool time up to each second.
func randomTrace(r *rand.Rand, end int) (*trace, map[string]int, func(h int) int) {
	tr := newTrace()
	names := []string{"a", "b", "c"}
	for _, n := range names {
		tr.agent(n, "subagent", "orch")
	}
	tr.ev(0, "orch", "run.started").ev(0, "orch", "agent.started")
	for s := 1; s <= end; s++ {
		tr.ev(sec(float64(s)), "orch", "reasoning.summary", "text", "tick")
	}
	type span struct{ from, to int }
	var spans []span
	per := map[string]int{}
	for i, n := range names {
		at := 1 + r.IntN(5)
		for at < end-2 {
			d := 1 + r.IntN(12)
			if at+d > end {
				break
			}
			tr.call(sec(float64(at)), sec(float64(d)), n, fmt.Sprint(n, i, at), "scrape", map[string]any{"at": at}, nil)
			spans = append(spans, span{at, at + d})
			per[agentID(n)] += d
			at += d + r.IntN(4)
		}
	}
	busy := func(h int) int { // tool seconds up to h, all agents
		n := 0
		for _, s := range spans {
			n += max(0, min(h, s.to)-s.from)
		}
		return n
	}
	return tr, per, busy
}

// Property: when credits accrue as the rule assumes (in proportion to tool
// time), the estimate is each agent's tool time, however the polls split
// the trace; and with any credit figures the parts add up exactly.
func TestEstimatePollSplits(t *testing.T) {
	for seed := range uint64(24) {
		r := rand.New(rand.NewPCG(seed, 7))
		const end = 90
		tr, per, busy := randomTrace(r, end)
		var results [][]AgentCredits
		for range 4 {
			var polls []poll
			for h := 1; h < end; h++ {
				if r.IntN(6) == 0 {
					polls = append(polls, poll{sec(float64(h)), float64(busy(h))})
					if r.IntN(4) == 0 { // the same poll again: nothing changes
						polls = append(polls, polls[len(polls)-1])
					}
				}
			}
			polls = append(polls, poll{sec(end), float64(busy(end))})
			tk, _ := tr.run(t, Options{}, polls...)
			est := tk.Estimate()
			results = append(results, est)
			for _, ac := range est {
				if want := per[ac.AgentID]; ac.AgentID != agentID("orch") && ac.Credits != float64(want) {
					t.Fatalf("seed %d: agent %s got %v, want its tool seconds %d (%v)", seed, ac.AgentID, ac.Credits, want, est)
				}
			}
		}
		for _, res := range results[1:] {
			if !slices.Equal(res, results[0]) {
				t.Fatalf("seed %d: estimates differ across poll splits: %v vs %v", seed, res, results[0])
			}
		}

		// Any rising figures, fractional ones included: the parts add up.
		for _, frac := range []bool{false, true} {
			var polls []poll
			c := 0.0
			for h := 1; h <= end; h += 1 + r.IntN(9) {
				c += float64(r.IntN(20))
				if frac {
					c += float64(r.IntN(100)) / 100
				}
				polls = append(polls, poll{sec(float64(h)), c})
			}
			tk, _ := tr.run(t, Options{}, polls...)
			var units, total, shown int64
			for _, ac := range tk.Estimate() {
				units += int64(ac.Credits*100 + 0.5)
				// What the agents pane draws is the same figure.
				if of := tk.EstimateOf(ac.AgentID); of != ac.Credits {
					t.Fatalf("seed %d frac %v: agent %s: EstimateOf %v, Estimate %v", seed, frac, ac.AgentID, of, ac.Credits)
				}
				shown += int64(tk.EstimateOf(ac.AgentID)*100 + 0.5)
			}
			if shown != units {
				t.Fatalf("seed %d frac %v: the drawn figures add up to %d hundredths, the estimate to %d", seed, frac, shown, units)
			}
			total = int64(c*100 + 0.5)
			if units != total {
				t.Fatalf("seed %d frac %v: parts add up to %d hundredths, creditsUsed %v", seed, frac, units, c)
			}
			if !frac {
				var sum float64
				for _, ac := range tk.Estimate() {
					sum += ac.Credits
				}
				if sum != c {
					t.Fatalf("seed %d: whole credits add up to %v, want %v exactly", seed, sum, c)
				}
			}
		}
	}
}

// The estimate does not depend on when the polls arrived (the local clock)
// nor on ticks between them.
func TestEstimateLocalTimingIrrelevant(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	tr, _, busy := randomTrace(r, 60)
	polls := []poll{{sec(10), float64(busy(10))}, {sec(33), float64(busy(33)) + 7}, {sec(60), float64(busy(60)) + 9}}
	a, _ := tr.run(t, Options{}, polls...)
	_, b := liveRun(t, tr, polls, func(tk *Tracker, local time.Time) []Change {
		return tk.Tick(local.Add(time.Hour))
	})
	if !slices.Equal(a.Estimate(), b.tk.Estimate()) {
		t.Errorf("%v vs %v", a.Estimate(), b.tk.Estimate())
	}
}
