package model

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// digest writes down the state a store derived, beyond the summary: the
// tree with its marks, each agent's activity and lists, calls with their
// errors and artifacts, versions with their producing calls, the run's
// phase, reasoning. Two stores holding the same events must agree on it.
func digest(t testing.TB, s *Store) string {
	t.Helper()
	var b strings.Builder
	sum, err := json.Marshal(s.Summary())
	if err != nil {
		t.Fatal(err)
	}
	b.Write(sum)
	b.WriteByte('\n')
	for _, a := range s.Agents() {
		parent := ""
		if a.Parent != nil {
			parent = a.Parent.ID
		}
		fmt.Fprintf(&b, "agent %s parent=%s depth=%d orphan=%v role=%s name=%q state=%s outcome=%s dur=%d/%v err=%v started=%v finished=%v errors=%d running=%d open=%d last=%s activity=%q children=%v\n",
			a.ID, parent, a.Depth, a.Orphan, a.Role, a.Name, a.State, a.Outcome, a.DurationMs, a.HasDuration, a.Error, a.StartedAt, a.FinishedAt,
			a.Errors, a.RunningTools, a.OpenSessions, a.LastEvent.ID, a.Activity(), agentIDs(a.Children))
		for _, c := range a.ToolCalls {
			fmt.Fprintf(&b, "  call %s\n", c.ID+"/"+c.first().ID)
		}
		for _, x := range a.Sessions {
			fmt.Fprintf(&b, "  session %s\n", x.ID+"/"+x.first().ID)
		}
	}
	for _, c := range s.ToolCalls() {
		var errs, arts []string
		for _, e := range c.Errors {
			errs = append(errs, e.Event.ID)
		}
		for _, a := range c.Artifacts {
			arts = append(arts, a.ID)
		}
		fmt.Fprintf(&b, "call %s name=%s agent=%s state=%s failed=%v params=%s result=%s errors=%v artifacts=%v\n",
			c.ID, c.Name, c.AgentID, c.State, c.Failed(), c.Parameters, c.Result, errs, arts)
	}
	for _, a := range s.Artifacts() {
		fmt.Fprintf(&b, "artifact %s kind=%s path=%s\n", a.ID, a.Kind, a.Path)
		for _, v := range a.Versions {
			src := ""
			if v.SourceToolCall != nil {
				src = v.SourceToolCall.ID
			}
			fmt.Fprintf(&b, "  %s %+v src=%s\n", v.Event.ID, v.Ref, src)
		}
	}
	r := s.Run()
	fmt.Fprintf(&b, "run phase=%s message=%q seen=%v cancel=%v/%s\n", r.Phase, r.Message, r.PhasesSeen, r.CancelRequested, r.CancelReason)
	fmt.Fprintf(&b, "reasoning %v\n", ids(s.Reasoning()))
	return b.String()
}

// scratchStore is a store built from all events at once.
func scratchStore(t testing.TB, events []genEvent, credits int) *Store {
	return ingest(t, render(events, globalSeq, nil, credits))
}

// polls splits events into n polls at random: a random permutation cut
// into pieces, each poll also carrying a random sample of events sent
// before (the service sends everything again), in a random order.
func randomPolls(r *rand.Rand, events []genEvent, n int) [][]genEvent {
	perm := slices.Clone(events)
	r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	cuts := []int{0, len(perm)}
	for range n - 1 {
		cuts = append(cuts, r.IntN(len(perm)+1))
	}
	slices.Sort(cuts)
	var out [][]genEvent
	for i := 0; i+1 < len(cuts); i++ {
		poll := slices.Clone(perm[cuts[i]:cuts[i+1]])
		for _, e := range perm[:cuts[i]] {
			if r.IntN(3) == 0 {
				poll = append(poll, e)
			}
		}
		out = append(out, poll)
	}
	return out
}

// The final state does not depend on how the events were split into polls
// or the order the polls came in; after every merge the incremental
// timeline equals a merge from scratch and each agent's events are in
// producerSequence order (checkInvariants); merging a poll twice changes
// nothing.
func TestMergeOrderIndependent(t *testing.T) {
	trials := 40
	if testing.Short() || raceDetector {
		trials = 10
	}
	for trial := range trials {
		seed := uint64(trial + 1)
		r := rand.New(rand.NewPCG(seed, 99))
		tr := genTrace(genOpts{events: 60 + r.IntN(140), seed: seed, skew: trial%3 != 0, hostile: trial%2 == 0, maxAgent: 2 + r.IntN(6)})
		want := digest(t, scratchStore(t, tr.events, 7))

		for round := range 3 {
			polls := randomPolls(r, tr.events, 1+r.IntN(8))
			s := NewStore()
			shared := r.IntN(2) == 0 // one decoder for all polls, or one each
			seen := map[string]bool{}
			var so []genEvent // the events merged so far
			maxCredits := 0
			for i, poll := range polls {
				credits := 7
				if i != len(polls)-1 {
					credits = r.IntN(7) // lower figures come and go
				}
				maxCredits = max(maxCredits, credits)
				for _, e := range poll {
					if !seen[e.id] {
						seen[e.id] = true
						so = append(so, e)
					}
				}
				b := render(poll, ordering(r.IntN(3)), r, credits)
				var p *Poll
				var err error
				if shared {
					p, err = s.dec.Decode(b)
				} else {
					p, err = DecodeTrace(b)
				}
				if err != nil {
					t.Fatal(err)
				}
				s.Merge(p)
				checkInvariants(t, s)
				// After every merge, not only the last: what a merge
				// leaves as it was must still be right.
				if got, want := digest(t, s), digest(t, scratchStore(t, so, maxCredits)); got != want {
					t.Fatalf("trial %d round %d poll %d: state differs from one merge of the events so far:\n%s", trial, round, i, diffLines(want, got))
				}
				if r.IntN(3) == 0 {
					before := digest(t, s)
					if d := s.Merge(p); !d.Empty() {
						t.Fatalf("trial %d: merging a poll again: %+v", trial, d)
					}
					if q, _ := DecodeTrace(b); !s.Merge(q).Empty() {
						t.Fatalf("trial %d: merging the same events again from another decoder changed something", trial)
					}
					if after := digest(t, s); after != before {
						t.Fatalf("trial %d: merging a poll again changed the state:\n%s", trial, diffLines(before, after))
					}
				}
			}
			if got := digest(t, s); got != want {
				t.Fatalf("trial %d round %d (%d polls, shared decoder %v): state differs from one merge of all events:\n%s",
					trial, round, len(polls), shared, diffLines(want, got))
			}
		}
	}
}

// Polls as the service sends them: each the whole trace so far, with
// events that land late (older than ones already shown, or after
// run.finished) appearing a few polls after their time.
func TestMergeRealisticPolls(t *testing.T) {
	seeds := uint64(8)
	if raceDetector {
		seeds = 2
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		tr := genTrace(genOpts{events: 300, seed: seed, skew: true, hostile: seed%2 == 1})
		visible := make([]int, len(tr.events)) // the poll from which each event shows
		for i := range tr.events {
			visible[i] = i / 10
			if r.IntN(8) == 0 {
				visible[i] += 1 + r.IntN(5)
			}
		}
		s := NewStore()
		for poll := 0; ; poll++ {
			var evs []genEvent
			for i, e := range tr.events {
				if visible[i] <= poll {
					evs = append(evs, e)
				}
			}
			if _, err := s.Ingest(render(evs, globalSeq, nil, min(poll, 5))); err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, s)
			if got, want := digest(t, s), digest(t, scratchStore(t, evs, min(poll, 5))); got != want {
				t.Fatalf("seed %d poll %d: state differs from one merge of the events so far:\n%s", seed, poll, diffLines(want, got))
			}
			if len(evs) == len(tr.events) {
				break
			}
		}
		if got, want := digest(t, s), digest(t, scratchStore(t, tr.events, 5)); got != want {
			t.Fatalf("seed %d: realistic polls end elsewhere than one merge:\n%s", seed, diffLines(want, got))
		}
	}
}

// diffLines shows the first lines where a and b differ.
func diffLines(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < max(len(al), len(bl)) && len(out) < 12; i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			if len(x) > 600 {
				x = x[:600] + "…"
			}
			if len(y) > 600 {
				y = y[:600] + "…"
			}
			out = append(out, fmt.Sprintf("line %d\n  want %s\n  got  %s", i, x, y))
		}
	}
	return strings.Join(out, "\n")
}

// An event that lands at the head of its agent's events with a later time
// than the next one can reorder events already placed: before it, sub1's y
// (1 s) came before sub2's b (5 s); with x (10 s) ahead of y in sub1's own
// order, b comes first. Whatever those events belong to follows, even when
// the poll brings nothing of the same kind.
func TestMergeReordersWhatWasPlaced(t *testing.T) {
	y := func(typ string, kv ...any) E { return ev("y", sub1, 2, 1000, typ, kv...) }
	b := func(typ string, kv ...any) E { return ev("b", sub2, 1, 5000, typ, kv...) }
	x := ev("x", sub1, 1, 10000, "progress.reported", "phase", "working", "message", "x")
	for _, tc := range []struct {
		name string
		y, b E
	}{
		{"reasoning", y("reasoning.summary", "text", "y"), b("reasoning.summary", "text", "b")},
		{"calls", y("tool_call.started", "toolCallId", "call-y", "toolName", "mcp__tools__scrape", "parameters", map[string]any{}),
			b("tool_call.started", "toolCallId", "call-b", "toolName", "mcp__tools__scrape", "parameters", map[string]any{})},
		{"errors", y("error.occurred", "error", terr("E1", "tool", true, "y")), b("error.occurred", "error", terr("E2", "tool", true, "b"))},
		{"sessions", y("browser.session.started", "sessionId", "s-y"), b("browser.session.started", "sessionId", "s-b")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ingest(t, body(tc.y, tc.b))
			if got := ids(s.Timeline()); !slices.Equal(got, []string{"y", "b"}) {
				t.Fatalf("first timeline %v, want [y b]", got)
			}
			if _, err := s.Ingest(body(tc.y, tc.b, x)); err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, s)
			if got := ids(s.Timeline()); !slices.Equal(got, []string{"b", "x", "y"}) {
				t.Fatalf("timeline %v, want [b x y]", got)
			}
			if got, want := digest(t, s), digest(t, ingest(t, body(tc.y, tc.b, x))); got != want {
				t.Fatalf("state differs from one merge:\n%s", diffLines(want, got))
			}
		})
	}
}

// A call known only by its finish is ordered by that finish until its
// start comes; a start that lands after it (a higher sequence number)
// moves the call behind calls that were after it.
func TestMergeCallOrderedByLateStart(t *testing.T) {
	var evs []any
	for i := range 8 {
		id := fmt.Sprintf("call-%d", i)
		if i == 1 {
			evs = append(evs, ev("f1", sub1, 2, 1000, "tool_call.finished", "toolCallId", id, "toolName", "mcp__tools__scrape", "result", map[string]any{}))
			continue
		}
		evs = append(evs, ev(fmt.Sprintf("s%d", i), sub1, int64(2*i+1), 1000*i+100, "tool_call.started", "toolCallId", id, "toolName", "mcp__tools__scrape", "parameters", map[string]any{}))
	}
	late := ev("s1", sub1, 40, 9000, "tool_call.started", "toolCallId", "call-1", "toolName", "mcp__tools__scrape", "parameters", map[string]any{})
	s := ingest(t, body(evs...), body(append(evs, late)...))
	var got []string
	for _, c := range s.ToolCalls() {
		got = append(got, c.ID)
	}
	want := []string{"call-0", "call-2", "call-3", "call-4", "call-5", "call-6", "call-7", "call-1"}
	if !slices.Equal(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	if g, w := digest(t, s), digest(t, ingest(t, body(append(evs, late)...))); g != w {
		t.Fatalf("state differs from one merge:\n%s", diffLines(w, g))
	}
}

// The start says whose call it is: a finish that came first from another
// agent gives the call up when the start lands, and both agents' lists
// and counts follow.
func TestMergeCallChangesHands(t *testing.T) {
	f := ev("f", sub2, 1, 1000, "tool_call.finished", "toolCallId", "call-x", "toolName", "mcp__tools__scrape", "result", map[string]any{})
	o := ev("o", sub2, 2, 1500, "tool_call.started", "toolCallId", "call-o", "toolName", "mcp__tools__scrape", "parameters", map[string]any{})
	st := ev("st", sub1, 1, 2000, "tool_call.started", "toolCallId", "call-x", "toolName", "mcp__tools__scrape", "parameters", map[string]any{})
	s := ingest(t, body(f, o), body(f, o, st))
	if g, w := digest(t, s), digest(t, ingest(t, body(f, o, st))); g != w {
		t.Fatalf("state differs from one merge:\n%s", diffLines(w, g))
	}
	if c := s.ToolCall("call-x"); c == nil || c.AgentID != sub1.id {
		t.Fatalf("call-x belongs to %v, want %s", c, sub1.id)
	}
}
