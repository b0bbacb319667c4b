// Package followtest builds, for tests and benchmarks, a long run as a
// watcher would get it, from the simulator's script (no wall clock).
package followtest

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/sim"
)

// Bodies are the trace bodies of the simulator's large run of events
// events as a watcher polling polls times would get them: each the trace
// so far.
func Bodies(t testing.TB, events, polls int) [][]byte {
	t.Helper()
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{sim.ScenarioLarge}, Events: events})
	if err != nil {
		t.Fatal(err)
	}
	id := srv.Jobs[0].ID
	script, _ := srv.Script(id)
	_ = srv.Close()
	var out [][]byte
	for i := 1; i <= polls; i++ {
		n := len(script) * i / polls
		var b bytes.Buffer
		b.WriteString(`{"success":true,"id":"` + id + `","events":[`)
		for j, e := range script[:n] {
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(e.JSON)
		}
		b.WriteString(`]}`)
		out = append(out, b.Bytes())
	}
	return out
}

// HeapInUse is the heap in use once the collector has run (twice: what
// the first freed is then gone too), for a benchmark's memory figures.
func HeapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Polls decodes bodies as one watch's polls: each what is new in its body,
// fresh events that no store holds yet.
func Polls(t testing.TB, bodies [][]byte) []*model.Poll {
	t.Helper()
	dec := model.NewDecoder()
	out := make([]*model.Poll, len(bodies))
	for i, b := range bodies {
		p, err := dec.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = p
	}
	return out
}
