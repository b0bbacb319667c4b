package sim

import (
	"strings"
	"testing"
	"time"
)

// TestRetention: past --retention a run's status, trace and snapshots answer
// 404 and the list leaves it out; before it they answer.
func TestRetention(t *testing.T) {
	t.Parallel()
	var clk manualClock
	s := startSim(t, Options{Speed: 100, Retention: 2 * time.Minute, elapsed: clk.elapsed})
	c := newClient(s)
	id := s.Jobs[0].ID
	for _, p := range []string{"/v2/agent/" + id, "/v2/agent/" + id + "/trace"} {
		if r := c.must(t, "GET", p); r.status != 200 {
			t.Fatalf("%s before retention: %d", p, r.status)
		}
	}
	if r := c.must(t, "GET", "/v2/agent"); !strings.Contains(string(r.body), id) {
		t.Fatal("the list leaves out a live run")
	}
	clk.ns.Add(int64(2 * time.Minute))
	for _, p := range []string{"/v2/agent/" + id, "/v2/agent/" + id + "/trace", "/v2/agent/" + id + "/snapshots/" + id} {
		if r := c.must(t, "GET", p); r.status != 404 {
			t.Errorf("%s after retention: %d", p, r.status)
		}
	}
	if r := c.must(t, "GET", "/v2/agent"); strings.Contains(string(r.body), id) {
		t.Error("the list still has an expired run")
	}
}

// TestPassTime: PassTime moves the retention clock at once; the runs keep
// their pace.
func TestPassTime(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{Speed: 100, Retention: time.Hour})
	c := newClient(s)
	id := s.Jobs[0].ID
	if r := c.must(t, "GET", "/v2/agent/"+id); r.status != 200 {
		t.Fatalf("before: %d", r.status)
	}
	s.PassTime(time.Hour)
	if r := c.must(t, "GET", "/v2/agent/"+id); r.status != 404 {
		t.Fatalf("after an hour passed: %d", r.status)
	}
	if r := c.must(t, "GET", "/v2/agent"); strings.Contains(string(r.body), id) {
		t.Error("the list still has the forgotten run")
	}
}
