package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/firewatch/firewatch/sim"
)

// simTrace is the simulator's large run of n events: what `firewatch serve
// --scenario large --events n` serves, in its order (producerSequence),
// with the order in which the events become visible; run.finished is made
// the last to, so that only the last poll brings it.
func simTrace(n int) (*trace, error) {
	s, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{sim.ScenarioLarge}, Events: n, RateLimit: -1, Scrapes: -1})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	job := s.Jobs[0].ID
	evs, _ := s.Script(job)
	t := &trace{job: job, evs: make([][]byte, len(evs)), rank: make([]int, len(evs))}
	byVis := make([]int, 0, len(evs))
	fin := -1
	for i, e := range evs {
		t.evs[i] = e.JSON
		if e.Type == "run.finished" {
			fin = i
			continue
		}
		byVis = append(byVis, i)
	}
	if fin < 0 {
		return nil, fmt.Errorf("the simulator's large run has no run.finished")
	}
	slices.SortStableFunc(byVis, func(a, b int) int { return cmp.Compare(evs[a].Visible, evs[b].Visible) })
	for r, i := range byVis {
		t.rank[i] = r
	}
	t.rank[fin] = len(evs) - 1
	return t, nil
}
