package attention

import (
	"bytes"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/sim"
)

// BenchmarkRepoll is the model's re-poll benchmark (a 20 000-event trace
// polled again with 10 new events, which the service's producerSequence
// order puts in the middle of the body) followed by the tracker's Update,
// each half timed on its own in the same iteration (model-ns/poll,
// attention-ns/poll, and attention-% = the second over the first):
//
//	go test -run '^$' -bench Repoll -benchmem -count 6 ./attention
//
// The trace is the simulator's large scenario (12 agents); creditsUsed
// rises with it, so each poll also closes a credit interval.
func BenchmarkRepoll(b *testing.B) {
	const base, step, chain = 20_000, 10, 100
	srv, err := sim.Start(b.Context(), sim.Options{Scenarios: []string{sim.ScenarioLarge}, Events: base + step*chain + 100, RateLimit: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	job := srv.Jobs[0].ID
	evs, _ := srv.Script(job)
	// rank[i]: event i's place in visibility order.
	order := make([]int, len(evs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return int(evs[x].Visible - evs[y].Visible) })
	rank := make([]int, len(evs))
	for r, i := range order {
		rank[i] = r
	}
	bodies := make([][]byte, chain+1)
	for k := range bodies {
		n := base + step*k
		var buf bytes.Buffer
		buf.WriteString(`{"success":true,"id":"` + job + `","events":[`)
		first := true
		for i, e := range evs { // serving order: by producerSequence
			if rank[i] < n {
				if !first {
					buf.WriteByte(',')
				}
				buf.Write(e.JSON)
				first = false
			}
		}
		buf.WriteString(`],"creditsUsed":` + strconv.Itoa(srv.CreditsAt(job, evs[order[n-1]].Visible)) + `}`)
		bodies[k] = buf.Bytes()
	}
	// One loop times both halves of every re-poll, so that a busy machine
	// weighs on them alike: the model's merge, then the tracker's Update.
	b.SetBytes(int64(len(bodies[0])))
	b.ReportAllocs()
	var s *model.Store
	var tk *Tracker
	var modelNs, attNs time.Duration
	k := chain
	now := time.Now()
	for b.Loop() {
		if k == chain {
			b.StopTimer()
			s = model.NewStore()
			d, err := s.Ingest(bodies[0])
			if err != nil {
				b.Fatal(err)
			}
			tk = New(s, Options{})
			tk.Update(d, now)
			k = 0
			b.StartTimer()
		}
		k++
		t0 := time.Now()
		d, err := s.Ingest(bodies[k])
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		tk.Update(d, now)
		attNs += time.Since(t1)
		modelNs += t1.Sub(t0)
		if len(d.Events) == 0 {
			b.Fatalf("poll %d brought nothing", k)
		}
	}
	b.ReportMetric(float64(modelNs.Nanoseconds())/float64(b.N), "model-ns/poll")
	b.ReportMetric(float64(attNs.Nanoseconds())/float64(b.N), "attention-ns/poll")
	b.ReportMetric(100*float64(attNs)/float64(modelNs), "attention-%")
}

// BenchmarkFirstPoll is the tracker's first Update on the simulator's large
// run of 20 000 and of 100 000 events, the poll a watch or a replay starts
// with (the model's ingest of it is not timed); the tracker's medians kept
// in sorted slices made the second quadratic:
//
//	go test -run '^$' -bench FirstPoll -benchmem -count 6 ./attention
func BenchmarkFirstPoll(b *testing.B) {
	for _, n := range []int{20_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) { benchmarkFirstPoll(b, n) })
	}
}

func benchmarkFirstPoll(b *testing.B, events int) {
	srv, err := sim.Start(b.Context(), sim.Options{Scenarios: []string{sim.ScenarioLarge}, Events: events, RateLimit: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	job := srv.Jobs[0].ID
	evs, _ := srv.Script(job)
	var buf bytes.Buffer
	buf.WriteString(`{"success":true,"id":"` + job + `","events":[`)
	for i, e := range evs {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(e.JSON)
	}
	buf.WriteString(`],"creditsUsed":` + strconv.Itoa(srv.CreditsAt(job, evs[len(evs)-1].Visible)) + `}`)
	body := buf.Bytes()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	now := time.Now()
	for b.Loop() {
		b.StopTimer()
		s := model.NewStore()
		d, err := s.Ingest(body)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		New(s, Options{}).Update(d, now)
	}
}
