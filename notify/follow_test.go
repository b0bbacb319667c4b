package notify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/attention/attentiontest"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/sim"
)

// collect is a sink that keeps the moments' keys.
type collect struct{ l lines }

func (c *collect) name() string { return "collect" }
func (c *collect) deliver(_ context.Context, m *Moment) error {
	c.l.add(m.Key)
	return nil
}

func newCollecting(t *testing.T, on On) (*Notifier, *collect) {
	t.Helper()
	n, err := New(Config{On: on})
	if err != nil {
		t.Fatal(err)
	}
	c := &collect{}
	w := &worker{s: c, wake: make(chan struct{}, 1)}
	n.sinks = append(n.sinks, w)
	n.wg.Add(1)
	go n.run(w)
	return n, c
}

// follow feeds bodies[from:to] to a new Follow of the run (a new store:
// the runs screen opens a run again from the start).
func follow(t *testing.T, n *Notifier, bodies [][]byte, to int) {
	t.Helper()
	s := model.NewStore()
	tk := attention.New(s, attention.Options{})
	r := n.Follow("019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7", s)
	local := attentiontest.Base
	for _, b := range bodies[:to] {
		d, err := s.Ingest(b)
		if err != nil {
			t.Fatal(err)
		}
		r.Saw(tk, tk.Update(d, local))
		local = local.Add(2 * time.Second)
	}
}

// TestOncePerRun: a run opened again (the runs screen) tells nothing twice;
// a run that had ended when first seen tells nothing, unless this process
// started it (then its end only); a run first seen in
// the middle tells what is open then, not what its history raised and
// cleared.
func TestOncePerRun(t *testing.T) {
	bodies, _ := attentiontest.SimPolls(t, sim.ScenarioLoop, 2*time.Second)

	n, c := newCollecting(t, DefaultOn())
	follow(t, n, bodies, len(bodies)/2)
	follow(t, n, bodies, len(bodies))
	closeNow(t, n)
	if got := strings.Join(c.l.all(), " "); strings.Count(got, ":attention:loop") != 1 || strings.Count(got, ":finished") != 1 {
		t.Errorf("opened twice: %s", got)
	}

	n, c = newCollecting(t, DefaultOn())
	follow(t, n, bodies[len(bodies)-1:], 1) // the last poll holds it all
	closeNow(t, n)
	if got := c.l.all(); len(got) != 0 {
		t.Errorf("a run seen ended: %q", got)
	}

	// The same, for a run this process started: it was going, so its end
	// is told (a run over before the first poll of `run` or `demo`).
	n, c = newCollecting(t, DefaultOn())
	s := model.NewStore()
	r := n.Follow("019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7", s)
	r.Started()
	tk := attention.New(s, attention.Options{})
	d, err := s.Ingest(bodies[len(bodies)-1])
	if err != nil {
		t.Fatal(err)
	}
	r.Saw(tk, tk.Update(d, attentiontest.Base))
	closeNow(t, n)
	if got := strings.Join(c.l.all(), " "); got != "run:019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7:finished" {
		t.Errorf("a run started here, seen ended: %q", got)
	}

	// From the middle, in one poll: the loop and the streak of the
	// history have cleared by then.
	n, c = newCollecting(t, DefaultOn())
	follow(t, n, bodies[len(bodies)-3:], 3)
	closeNow(t, n)
	if got := strings.Join(c.l.all(), " "); got != "run:019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7:finished" {
		t.Errorf("seen late: %s", got)
	}
}

// TestOnChooses: --notify-on failed tells a failure and nothing about a
// success or the attention items.
func TestOnChooses(t *testing.T) {
	for sc, want := range map[string]int{sim.ScenarioLoop: 0, sim.ScenarioFailure: 1} {
		bodies, _ := attentiontest.SimPolls(t, sc, 2*time.Second)
		n, c := newCollecting(t, On{Failed: true})
		follow(t, n, bodies, len(bodies))
		closeNow(t, n)
		if got := c.l.all(); len(got) != want {
			t.Errorf("%s: %q", sc, got)
		}
	}
}

// TestBudgetAtTheEnd: a run whose one poll both passes budget:50% and
// budget:90% and ends it (it burnt through its cap) tells the highest
// share reached, then its end: the end does not swallow the share.
func TestBudgetAtTheEnd(t *testing.T) {
	bodies, maxCredits := attentiontest.SimPolls(t, sim.ScenarioBurn, 2*time.Second)
	n, c := newCollecting(t, On{Finished: true, Budgets: []float64{0.5, 0.9}})
	s := model.NewStore()
	s.SetRequest(model.Request{MaxCredits: float64(maxCredits)})
	tk := attention.New(s, attention.Options{MaxCredits: float64(maxCredits)})
	r := n.Follow("019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7", s)
	for i, b := range [][]byte{bodies[0], bodies[len(bodies)-1]} {
		d, err := s.Ingest(b)
		if err != nil {
			t.Fatal(err)
		}
		if run := s.Run(); i == 0 && (run.State == model.StateFinished || run.CreditsUsed >= 0.5*float64(maxCredits)) {
			t.Fatalf("the first poll is not a going run under half its cap: %+v", run)
		}
		r.Saw(tk, tk.Update(d, attentiontest.Base.Add(time.Duration(i)*2*time.Second)))
	}
	if run := s.Run(); run.State != model.StateFinished || run.CreditsUsed < 0.9*float64(maxCredits) {
		t.Fatalf("the last poll is not the end at the cap: %+v", run)
	}
	closeNow(t, n)
	want := "run:019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7:budget:90% run:019a2b3c-4d5e-7f60-8a9b-0c1d5eb381f7:finished"
	if got := strings.Join(c.l.all(), " "); got != want {
		t.Errorf("moments %q, want %q", got, want)
	}
}
