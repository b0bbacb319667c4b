package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"
)

// The fault schedule is a pure function of seed, job, route and request
// number: every kind in each block of 18 requests, never two faults in a
// row, the first request clean.
func TestFaultSchedule(t *testing.T) {
	t.Parallel()
	p := newFaultPlan(1, 0)
	for _, route := range []string{"GET trace", "GET status", "GET snapshot"} {
		var kinds []string
		for n := range 60 {
			k, x := p.at(route, n)
			if (n%2 == 0) != (k == "") || x < 0 || x >= 1 {
				t.Fatalf("%s request %d: %q %v", route, n, k, x)
			}
			if k2, x2 := newFaultPlan(1, 0).at(route, n); k2 != k || x2 != x {
				t.Fatalf("schedule not deterministic")
			}
			kinds = append(kinds, k)
		}
		for start := 0; start+18 <= len(kinds); start += 18 {
			for _, want := range faultKinds {
				if !slices.Contains(kinds[start:start+18], want) {
					t.Fatalf("%s: no %s in requests %d-%d: %v", route, want, start, start+17, kinds)
				}
			}
		}
	}
	a, b := newFaultPlan(1, 0), newFaultPlan(2, 0)
	same := true
	for n := 1; n < 40; n += 2 {
		ka, _ := a.at("GET trace", n)
		kb, _ := b.at("GET trace", n)
		same = same && ka == kb
	}
	if same {
		t.Error("the seed does not change the fault order")
	}
}

// Each fault looks on the wire as it should.
func TestChaosFaultsOnTheWire(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Scenarios: []string{ScenarioChaos}, Speed: 100, RetryAfterHeader: true})
	id := s.Jobs[0].ID
	plan := newFaultPlan(1, 0)
	// Fresh connections, so that Go's transport does not silently retry a
	// dropped keep-alive connection.
	c := &tclient{base: s.URL, key: s.Key, hc: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}}
	seen := map[string]bool{}
	for n := range 36 {
		kind, _ := plan.at("GET trace", n)
		r, err := c.do("GET", "/v2/agent/"+id+"/trace")
		seen[kind] = true
		switch kind {
		case "", "slow":
			if err != nil || r.status != 200 {
				t.Fatalf("request %d (%q): %v %d", n, kind, err, r.status)
			}
			if _, derr := decodeTrace(r.body); derr != nil {
				t.Fatalf("request %d (%q): %v", n, kind, derr)
			}
		case "drop", "truncated-eof":
			if err == nil {
				t.Errorf("request %d (%s): no error, status %d", n, kind, r.status)
			}
		case "truncated":
			if err != nil || r.status != 200 || json.Valid(r.body) || len(r.body) == 0 {
				t.Errorf("request %d (truncated): %v %d valid=%v", n, err, r.status, json.Valid(r.body))
			}
		case "not-json":
			if err != nil || r.status != 200 || json.Valid(r.body) || !bytes.HasPrefix(r.body, []byte("<!DOCTYPE html>")) {
				t.Errorf("request %d (not-json): %v %d %.80s", n, err, r.status, r.body)
			}
		case "429":
			if err != nil || r.status != 429 || r.header.Get("Retry-After") == "" || !regexp.MustCompile(`please retry after \d+s, resets at`).Match(r.body) {
				t.Errorf("request %d (429): %v %d %s", n, err, r.status, r.body)
			}
		case "500", "502", "503":
			if err != nil || strconv.Itoa(r.status) != kind || len(r.body) == 0 {
				t.Errorf("request %d (%s): %v %d", n, kind, err, r.status)
			}
			if kind == "502" && !bytes.Contains(r.body, []byte("<html>")) {
				t.Errorf("502 body %s", r.body)
			}
		}
	}
	if len(seen) != len(faultKinds)+1 {
		t.Errorf("kinds seen %v", seen)
	}
	st := s.Stats()
	for _, k := range faultKinds {
		if st.Faults[k] < 2 {
			t.Errorf("fault %s served %d times in 36 requests", k, st.Faults[k])
		}
	}
	if st.RateLimited < 2 {
		t.Errorf("RateLimited %d", st.RateLimited)
	}
}

// The chaos script is the research script of the same seed, byte for byte,
// with late and out-of-order delivery: a client that copes ends with exactly
// the clean run's events.
func TestChaosScript(t *testing.T) {
	t.Parallel()
	r := startSim(t, Options{Seed: 5, Speed: 1})
	c := startSim(t, Options{Seed: 5, Speed: 1, Scenarios: []string{ScenarioChaos}})
	re, _ := r.Script(r.Jobs[0].ID)
	ce, _ := c.Script(c.Jobs[0].ID)
	if len(re) != len(ce) {
		t.Fatalf("%d vs %d events", len(re), len(ce))
	}
	var fin time.Duration
	for _, e := range ce {
		if e.Type == "run.finished" {
			fin = e.Visible
		}
	}
	late := 0
	for i := range re {
		a, b := re[i], ce[i]
		if !bytes.Equal(a.JSON, b.JSON) {
			t.Fatalf("event %d differs:\n%s\n%s", i, a.JSON, b.JSON)
		}
		if b.Visible > fin && b.Visible > a.Visible {
			late++
		}
	}
	if late < 3 {
		t.Errorf("%d late events", late)
	}
	// Out of order across polls: a lower sequence shows after a higher one
	// of the same agent.
	ooo := 0
	for _, a := range ce {
		for _, b := range ce {
			if a.Agent == b.Agent && a.Seq < b.Seq && a.Visible > b.Visible {
				ooo++
			}
		}
	}
	if ooo == 0 {
		t.Error("no out-of-order delivery")
	}
}

// A client that retries correctly ends with exactly the events of the clean
// research run, sees late events after run.finished, and sees a lower
// sequence number arrive after a higher one.
func TestChaosPatientClient(t *testing.T) {
	t.Parallel()
	// The clean run at the same speed (durationMs is wall-clock time, so
	// it depends on the speed): its script is every event it will serve.
	clean := startSim(t, Options{Seed: 9, Speed: 25})
	script, _ := clean.Script(clean.Jobs[0].ID)
	var want []tev
	for _, e := range script {
		var ev tev
		if err := json.Unmarshal(e.JSON, &ev); err != nil {
			t.Fatal(err)
		}
		ev.raw = e.JSON
		want = append(want, ev)
	}

	// The test moves the time, 500 ms (simulated) between polls: what the
	// polls see does not depend on how busy the machine is, and the late
	// events (0.4 to 3.5 s after run.finished) come polls after it.
	var clk manualClock
	s := startSim(t, Options{Seed: 9, Scenarios: []string{ScenarioChaos}, Speed: 25, elapsed: clk.elapsed})
	id := s.Jobs[0].ID
	c := newClient(s)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	firstSeen := map[string]int{}
	byID := map[string]tev{}
	finishedPoll := -1
	failures := 0
	for poll := 0; ; poll++ {
		done := s.Finished(id)
		tr, f, err := c.patientTrace(ctx, id)
		failures += f
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tr.events {
			if _, ok := firstSeen[e.EventID]; !ok {
				firstSeen[e.EventID] = poll
				byID[e.EventID] = e
			}
			if e.Type == "run.finished" && finishedPoll < 0 {
				finishedPoll = poll
			}
		}
		if done {
			break
		}
		clk.advance(500*time.Millisecond, 25)
	}
	if failures < 5 {
		t.Errorf("only %d failed requests in a chaos run", failures)
	}
	if len(byID) != len(want) {
		t.Fatalf("%d events, clean run has %d", len(byID), len(want))
	}
	strip := regexp.MustCompile(`"occurredAt":"[^"]*"`)
	for _, w := range want {
		g, ok := byID[w.EventID]
		if !ok || !bytes.Equal(strip.ReplaceAll(g.raw, nil), strip.ReplaceAll(w.raw, nil)) {
			t.Fatalf("event %s differs or is missing", w.EventID)
		}
	}
	afterFinish := 0
	for _, p := range firstSeen {
		if p > finishedPoll {
			afterFinish++
		}
	}
	if afterFinish == 0 {
		t.Error("no event landed after run.finished")
	}
	ooo := false
	for _, a := range byID {
		for _, b := range byID {
			if a.Agent.ID == b.Agent.ID && a.ProducerSequence < b.ProducerSequence && firstSeen[a.EventID] > firstSeen[b.EventID] {
				ooo = true
			}
		}
	}
	if !ooo {
		t.Error("no lower producerSequence arrived after a higher one")
	}
}
