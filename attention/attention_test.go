package attention

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/model"
)

// want is an item expected at the end: kind, agent name ("" for the run),
// firstAt and lastAt offsets, count, cleared, and a piece of the message.
type want struct {
	kind        Kind
	agent       string
	first, last time.Duration
	count       int
	cleared     bool
	msg         string
}

func check(t *testing.T, tk *Tracker, ws []want) {
	t.Helper()
	got := tk.Items()
	if len(got) != len(ws) {
		t.Fatalf("%d items, want %d:\n%s", len(got), len(ws), strings.Join(items(tk), "\n"))
	}
	for i, w := range ws {
		it := got[i]
		id := ""
		if w.agent != "" {
			id = agentID(w.agent)
		}
		if it.Kind != w.kind || it.AgentID != id || !it.FirstAt.Equal(t0.Add(w.first)) || !it.LastAt.Equal(t0.Add(w.last)) ||
			it.Count != w.count || it.Cleared != w.cleared || !strings.Contains(it.Message, w.msg) {
			t.Errorf("item %d: %s\nwant %v %q %s..%s x%d cleared=%v %q", i, short(it), w.kind, w.agent, w.first, w.last, w.count, w.cleared, w.msg)
		}
	}
}

// team is an orchestrator with two subagents; pricing emits every 5 s
// from 1 s to end.
func team(end time.Duration) *trace {
	tr := newTrace()
	tr.agent("pricing", "subagent", "orch")
	tr.agent("docs", "subagent", "orch")
	tr.ev(0, "orch", "run.started").ev(0, "orch", "agent.started")
	tr.ev(sec(1), "pricing", "agent.started").ev(sec(1), "docs", "agent.started")
	for at := sec(5); at <= end; at += sec(5) {
		tr.ev(at, "pricing", "reasoning.summary", "text", "working")
	}
	return tr
}

func every(from, to, step time.Duration, credits float64) []poll {
	var ps []poll
	for at := from; at <= to; at += step {
		ps = append(ps, poll{at, credits})
	}
	return ps
}

func TestStall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func() *trace
		end   time.Duration
		o     Options
		want  []want
	}{
		{"moves again", func() *trace {
			tr := team(sec(120))
			tr.ev(sec(10), "docs", "reasoning.summary", "text", "a")
			tr.ev(sec(100), "docs", "reasoning.summary", "text", "b")
			return tr
		}, sec(120), Options{}, []want{{KindStall, "docs", sec(70), sec(100), 1, true, "no event for 1m30s"}}},
		{"still stalled", func() *trace {
			tr := team(sec(120))
			tr.ev(sec(10), "docs", "reasoning.summary", "text", "a")
			return tr
		}, sec(120), Options{}, []want{{KindStall, "docs", sec(70), sec(120), 1, false, "no event for 1m50s"}}},
		{"clears when the agent finishes", func() *trace {
			tr := team(sec(120))
			tr.ev(sec(10), "docs", "reasoning.summary", "text", "a")
			tr.ev(sec(90), "docs", "agent.finished", "outcome", "succeeded", "durationMs", 89000, "error", nil)
			return tr
		}, sec(120), Options{}, []want{{KindStall, "docs", sec(70), sec(90), 1, true, ""}}},
		{"under the threshold", func() *trace {
			tr := team(sec(120))
			tr.ev(sec(10), "docs", "reasoning.summary", "text", "a")
			tr.ev(sec(69), "docs", "reasoning.summary", "text", "b")
			return tr
		}, sec(120), Options{}, nil},
		{"--stall 30s", func() *trace {
			tr := team(sec(120))
			tr.ev(sec(10), "docs", "reasoning.summary", "text", "a")
			tr.ev(sec(69), "docs", "reasoning.summary", "text", "b")
			return tr
		}, sec(120), Options{Stall: 30 * time.Second}, []want{
			{KindStall, "docs", sec(40), sec(69), 1, true, "no event for 59s"},
			{KindStall, "docs", sec(99), sec(120), 1, false, "no event for 51s"},
		}},
		{"5x its median gap", func() *trace {
			tr := team(sec(400))
			for _, at := range []float64{10, 30, 50, 70, 150, 350} { // gaps 20 s: threshold 100 s
				tr.ev(sec(at), "docs", "reasoning.summary", "text", "a")
			}
			return tr
		}, sec(400), Options{}, []want{{KindStall, "docs", sec(250), sec(350), 1, true, "no event for 3m20s"}}},
		{"an orchestrator waiting on moving subagents is not stalled", func() *trace {
			tr := team(sec(200))
			tr.ev(sec(200), "docs", "reasoning.summary", "text", "a") // docs was quiet from 1 s
			return tr
		}, sec(200), Options{}, []want{{KindStall, "docs", sec(61), sec(200), 1, true, ""}}},
		{"the whole run quiet", func() *trace {
			tr := newTrace()
			tr.ev(0, "orch", "run.started").ev(0, "orch", "agent.started").ev(sec(10), "orch", "reasoning.summary", "text", "a")
			tr.ev(sec(95), "orch", "reasoning.summary", "text", "b")
			return tr
		}, sec(120), Options{}, []want{{KindStall, "", sec(70), sec(95), 1, true, "quiet for 1m25s"}}},
		{"the run finishing clears it", func() *trace {
			tr := team(sec(100))
			tr.ev(sec(10), "docs", "reasoning.summary", "text", "a")
			tr.ev(sec(101), "orch", "run.finished", "outcome", "succeeded", "error", nil)
			return tr
		}, sec(120), Options{}, []want{{KindStall, "docs", sec(70), sec(101), 1, true, ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := tc.build()
			tk, _ := tr.run(t, tc.o, every(0, tc.end, sec(2), 1)...)
			check(t, tk, tc.want)
		})
	}
}

func TestSlowTool(t *testing.T) {
	search := func(q string) map[string]any { return map[string]any{"query": q} }
	for _, tc := range []struct {
		name  string
		build func(tr *trace)
		want  []want
	}{
		{"3x the median, at least 30 s", func(tr *trace) {
			tr.call(sec(2), sec(5), "docs", "c1", "search", search("a"), nil)
			tr.call(sec(8), sec(5), "docs", "c2", "search", search("b"), nil)
			tr.call(sec(14), sec(5), "docs", "c3", "search", search("c"), nil)
			tr.call(sec(20), sec(50), "docs", "c4", "search", search("d"), nil)
			tr.ev(sec(71), "docs", "agent.finished", "outcome", "succeeded", "durationMs", 70000, "error", nil)
		}, []want{{KindSlowTool, "docs", sec(50), sec(70), 1, true, "search running for 50s (usually 5.0s)"}}},
		{"3x the median above the floor", func(tr *trace) {
			tr.call(sec(2), sec(20), "docs", "c1", "scrape", search("a"), nil)
			tr.call(sec(22), sec(55), "docs", "c2", "scrape", search("b"), nil)
			tr.ev(sec(78), "docs", "agent.finished", "outcome", "succeeded", "durationMs", 77000, "error", nil)
		}, nil},
		{"nothing to compare with: 120 s", func(tr *trace) {
			tr.call(sec(2), sec(130), "docs", "c1", "scrape", search("a"), nil)
			tr.ev(sec(133), "docs", "agent.finished", "outcome", "succeeded", "durationMs", 132000, "error", nil)
		}, []want{{KindSlowTool, "docs", sec(122), sec(132), 1, true, "scrape running for 2m10s"}}},
		{"still running", func(tr *trace) {
			tr.call(sec(2), -1, "docs", "c1", "scrape", search("a"), nil)
		}, []want{{KindSlowTool, "docs", sec(122), sec(150), 1, false, "running for 2m28s"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := team(sec(150))
			tc.build(tr)
			tk, _ := tr.run(t, Options{}, every(0, sec(150), sec(2), 1)...)
			check(t, tk, tc.want)
		})
	}
}

func TestLoopAndStreak(t *testing.T) {
	q1 := map[string]any{"query": "x", "limit": 5}
	q1b := `{ "limit" : 5,  "query":"x" }` // the same, canonically
	q2 := map[string]any{"query": "y", "limit": 5}
	ok := map[string]any{"web": []any{}}
	bad := map[string]any{"success": false, "error": "HTTP 403"}
	for _, tc := range []struct {
		name  string
		build func(tr *trace)
		want  []want
	}{
		{"twice is not a loop", func(tr *trace) {
			tr.call(sec(2), sec(1), "docs", "c1", "search", q1, ok)
			tr.call(sec(4), sec(1), "docs", "c2", "search", q1, ok)
		}, nil},
		{"three times, key order aside; cleared by another call", func(tr *trace) {
			tr.call(sec(2), sec(1), "docs", "c1", "search", q1, ok)
			tr.call(sec(4), sec(1), "docs", "c2", "search", rawJSON(q1b), ok)
			tr.call(sec(6), sec(1), "docs", "c3", "search", q1, ok)
			tr.call(sec(8), sec(1), "docs", "c4", "search", q1, ok)
			tr.call(sec(10), sec(1), "docs", "c5", "search", q2, ok)
			for i, at := range []float64{12, 14, 16, 18} {
				tr.call(sec(at), sec(1), "docs", fmt.Sprint("d", i), "search", map[string]any{"query": i}, ok)
			}
		}, []want{{KindLoop, "docs", sec(6), sec(18), 4, true, "search called 4 times with the same parameters (4.0s in all)"}}},
		{"round and round: 3 of the last 6 calls", func(tr *trace) {
			tr.call(sec(2), sec(1), "docs", "c1", "search", q1, ok)
			tr.call(sec(4), sec(1), "docs", "c2", "search", q2, ok)
			tr.call(sec(6), sec(1), "docs", "c3", "search", q1, ok)
			tr.call(sec(8), sec(1), "docs", "c4", "search", q2, ok)
			tr.call(sec(10), sec(1), "docs", "c5", "search", q1, ok)
		}, []want{{KindLoop, "docs", sec(10), sec(11), 3, false, "3 times"}}},
		{"the same call many calls apart (monitoring) is not a loop", func(tr *trace) {
			for i := range 18 {
				tr.call(sec(float64(i)), sec(0.5), "docs", fmt.Sprint("c", i), "scrape", map[string]any{"url": i % 6}, ok)
			}
		}, nil},
		{"another agent's same call is not a loop", func(tr *trace) {
			tr.call(sec(2), sec(1), "docs", "c1", "search", q1, ok)
			tr.call(sec(4), sec(1), "pricing", "c2", "search", q1, ok)
			tr.call(sec(6), sec(1), "docs", "c3", "search", q1, ok)
		}, nil},
		{"open at the end", func(tr *trace) {
			tr.call(sec(2), sec(1), "docs", "c1", "search", q1, ok)
			tr.call(sec(4), sec(1), "docs", "c2", "search", q1, ok)
			tr.call(sec(6), sec(1), "docs", "c3", "search", q1, ok)
		}, []want{{KindLoop, "docs", sec(6), sec(7), 3, false, "3 times"}}},
		{"failing streak, cleared by a success", func(tr *trace) {
			tr.call(sec(2), sec(1), "docs", "c1", "scrape", q1, bad)
			tr.call(sec(4), sec(1), "docs", "c2", "scrape", q2, bad)
			tr.call(sec(6), sec(1), "docs", "c3", "scrape", map[string]any{"url": "z"}, bad)
			tr.call(sec(8), sec(1), "docs", "c4", "scrape", map[string]any{"url": "w"}, ok)
		}, []want{{KindFailingStreak, "docs", sec(7), sec(9), 3, true, "scrape"}}},
		{"a success breaks the streak", func(tr *trace) {
			tr.call(sec(2), sec(1), "docs", "c1", "scrape", q1, bad)
			tr.call(sec(4), sec(1), "docs", "c2", "scrape", q2, bad)
			tr.call(sec(6), sec(1), "docs", "c3", "scrape", map[string]any{"url": "z"}, ok)
			tr.call(sec(8), sec(1), "docs", "c4", "scrape", map[string]any{"url": "w"}, bad)
		}, nil},
		{"the agent ending clears", func(tr *trace) {
			tr.call(sec(2), sec(1), "docs", "c1", "scrape", q1, bad)
			tr.call(sec(4), sec(1), "docs", "c2", "scrape", q2, bad)
			tr.call(sec(6), sec(1), "docs", "c3", "scrape", map[string]any{"url": "z"}, bad)
			tr.ev(sec(12), "docs", "agent.finished", "outcome", "failed", "durationMs", 11000, "error", nil)
		}, []want{{KindFailingStreak, "docs", sec(7), sec(12), 3, true, "failed 3 times in a row"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := team(sec(20))
			tc.build(tr)
			tk, _ := tr.run(t, Options{}, every(0, sec(20), sec(2), 1)...)
			check(t, tk, tc.want)
		})
	}
}

type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		name  string
		o     Options
		polls []poll
		fin   string // the run's outcome at 50 s ("" still running)
		want  []want
		// reached: the item is marked reached (the run ended at its cap),
		// which is neither open nor cleared.
		reached bool
	}{
		{"80 % of the cap", Options{MaxCredits: 100}, []poll{{sec(10), 20}, {sec(20), 50}, {sec(40), 85}}, "",
			[]want{{KindBudget, "", sec(40), sec(40), 1, false, "85 % of the 100-credit cap used"}}, false},
		{"reached when the run ends at its cap", Options{MaxCredits: 100}, []poll{{sec(10), 20}, {sec(40), 85}, {sec(50), 100}}, "credit_limit_reached",
			[]want{{KindBudget, "", sec(40), sec(50), 1, false, "the run hit its 100-credit cap and stopped"}}, true},
		{"reached with no warning before", Options{MaxCredits: 100}, []poll{{sec(10), 20}, {sec(50), 100}}, "credit_limit_reached",
			[]want{{KindBudget, "", sec(50), sec(50), 1, false, "the run hit its 100-credit cap and stopped"}}, true},
		{"an assumed cap: what it stopped at", Options{}, []poll{{sec(10), 20}, {sec(50), 150}}, "credit_limit_reached",
			[]want{{KindBudget, "", sec(50), sec(50), 1, false, "the run hit its credit cap at 150 credits and stopped"}}, true},
		{"cleared when the run ends under its cap", Options{MaxCredits: 100}, []poll{{sec(10), 20}, {sec(40), 85}, {sec(50), 90}}, "succeeded",
			[]want{{KindBudget, "", sec(40), sec(50), 1, true, "85 % of the 100-credit cap"}}, false},
		{"projected before a typical finish", Options{}, []poll{{sec(10), 150}, {sec(20), 300}, {sec(40), 600}}, "",
			[]want{{KindBudget, "", sec(40), sec(40), 1, false, "at 900 credits/min the 2,500-credit cap (assumed) is reached in about 2m07s"}}, false},
		{"not before 30 s", Options{}, []poll{{sec(10), 150}, {sec(20), 300}}, "", nil, false},
		{"a research-like burn", Options{}, []poll{{sec(10), 40}, {sec(30), 120}, {sec(50), 200}, {sec(64), 280}}, "", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := team(sec(60))
			switch tc.fin {
			case "credit_limit_reached":
				tr.ev(sec(50), "orch", "run.finished", "outcome", "credit_limit_reached", "error",
					map[string]any{"code": "credit_limit_reached", "source": "billing", "retryable": false, "message": "cap"})
			case "succeeded":
				tr.ev(sec(50), "orch", "run.finished", "outcome", "succeeded")
			}
			tk, _ := tr.run(t, tc.o, tc.polls...)
			check(t, tk, tc.want)
			for _, it := range tk.Items() {
				if it.Reached != tc.reached || (it.State() == "reached") != tc.reached {
					t.Errorf("reached %v (%s), want %v", it.Reached, it.State(), tc.reached)
				}
			}
			if tc.fin != "" && len(tk.Open()) > 0 {
				t.Errorf("items open after the run: %s", strings.Join(items(tk), "\n"))
			}
		})
	}
}

// The local clock: while the run is quiet, Tick raises the run's stall and
// a hanging call; the events that come later clear them, and the items are
// the ones a replay of the same polls finds from the trace alone.
func TestTickAndReplay(t *testing.T) {
	tr := newTrace()
	tr.ev(0, "orch", "run.started").ev(0, "orch", "agent.started")
	tr.call(sec(10), sec(140), "orch", "c1", "scrape", map[string]any{"url": "u"}, nil)
	polls := []poll{{sec(5), 1}, {sec(10), 2}, {sec(150), 9}}

	s, live := liveRun(t, tr, polls, func(tk *Tracker, local time.Time) []Change {
		var ch []Change
		for dt := time.Second; dt <= 140*time.Second; dt += time.Second {
			ch = append(ch, tk.Tick(local.Add(dt))...)
		}
		return ch
	})
	_ = s
	replayed, _ := tr.run(t, Options{}, polls...)
	if !slices.Equal(items(live.tk), items(replayed)) {
		t.Errorf("live:\n%s\nreplay:\n%s", strings.Join(items(live.tk), "\n"), strings.Join(items(replayed), "\n"))
	}
	check(t, live.tk, []want{
		{KindStall, "", sec(70), sec(150), 1, true, ""},
		{KindSlowTool, "orch", sec(130), sec(150), 1, true, "scrape running for 2m20s"},
	})
	// The live watch saw them appear before the events came.
	if len(live.changes) < 4 || live.changes[0].Cleared || live.changes[1].Cleared {
		t.Errorf("changes: %+v", live.changes)
	}
}

// An event that lands well before the newest makes the tracker start again
// over the timeline; the items that still hold keep their identity (no
// clear-and-raise for the printers) and the budget item is kept.
func TestLateEventStartsAgain(t *testing.T) {
	tr := team(sec(100))
	tr.ev(sec(10), "docs", "reasoning.summary", "text", "a")
	late := tr.ev(sec(50), "pricing", "reasoning.summary", "text", "late").events
	lateEv := late[len(late)-1]
	s := model.NewStore()
	tk := New(s, Options{MaxCredits: 100})
	// Everything but the late event, then everything.
	var evs []tev
	evs = append(evs, tr.events...)
	tr.events = tr.events[:len(tr.events)-1]
	d, _ := s.Ingest(tr.upTo(sec(100), 90))
	first := tk.Update(d, t0)
	if len(first) != 2 || len(tk.Open()) != 2 {
		t.Fatalf("before: %v", items(tk))
	}
	before := slices.Clone(tk.Items())
	tr.events = append(evs[:len(evs)-1:len(evs)-1], lateEv)
	d, _ = s.Ingest(tr.upTo(sec(100), 90))
	if d.From >= len(s.Timeline())-1 {
		t.Fatalf("the event is not late: from %d of %d", d.From, len(s.Timeline()))
	}
	if ch := tk.Update(d, t0.Add(time.Second)); len(ch) != 0 {
		t.Errorf("changes after starting again: %+v", ch)
	}
	if got := tk.Items(); len(got) != 2 || got[0].Kind != before[0].Kind || got[1] != before[1] {
		t.Errorf("items after starting again:\n%s", strings.Join(items(tk), "\n"))
	}
}

// The run's request names its cap (a run firewatch started, a recording's
// header): the budget is watched against it, not the assumed default; a
// cap given in the options wins.
func TestBudgetFromRequest(t *testing.T) {
	tr := team(sec(60))
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{}, "85 % of the 100-credit cap used"},
		{Options{MaxCredits: 1000}, ""},
	} {
		s := model.NewStore()
		s.SetRequest(model.Request{MaxCredits: 100})
		tk := New(s, tc.o)
		local := t0
		for _, p := range []poll{{sec(10), 20}, {sec(20), 50}, {sec(40), 85}} {
			d, err := s.Ingest(tr.upTo(p.At, p.Credits))
			if err != nil {
				t.Fatal(err)
			}
			local = local.Add(time.Second)
			tk.Update(d, local)
		}
		got := ""
		for _, it := range tk.Open() {
			if it.Kind == KindBudget {
				got = it.Message
			}
		}
		if !strings.Contains(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("options %+v: budget item %q, want %q", tc.o, got, tc.want)
		}
		if b := tk.Burn(); b.CapAssumed {
			t.Errorf("options %+v: the cap is shown as assumed", tc.o)
		}
	}
}
