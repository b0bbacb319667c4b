// Package attentiontest builds, for tests, the trace bodies a watcher of the
// simulator would get, without waiting for the wall clock.
package attentiontest

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/firewatch/firewatch/sim"
)

// Base is the time the simulated runs start at: bodies are the same from
// run to run.
var Base = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// SimPolls are the trace bodies a watcher polling every step would get
// from the simulator's scenario at speed 1 (built from its script), to the
// end of the run, and the maxCredits the run was started with (0: none).
func SimPolls(t testing.TB, scenario string, step time.Duration) (bodies [][]byte, maxCredits int) {
	t.Helper()
	srv, err := sim.Start(t.Context(), sim.Options{Scenarios: []string{scenario}, Seed: 1, RateLimit: -1, Now: func() time.Time { return Base }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	job := srv.Jobs[0].ID
	evs, _ := srv.Script(job)
	var last time.Duration
	for _, e := range evs {
		last = max(last, e.Visible)
	}
	for v := step; ; v += step {
		var b bytes.Buffer
		b.WriteString(`{"success":true,"id":"` + job + `","events":[`)
		n := 0
		for _, e := range evs { // serving order
			if e.Visible <= v {
				if n > 0 {
					b.WriteByte(',')
				}
				b.Write(e.JSON)
				n++
			}
		}
		b.WriteString(`],"creditsUsed":` + strconv.Itoa(srv.CreditsAt(job, v)) + `}`)
		bodies = append(bodies, b.Bytes())
		if v > last {
			break
		}
	}
	return bodies, srv.MaxCredits(job)
}
