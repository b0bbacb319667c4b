package model

import (
	"container/heap"
	"math"
	"sort"
	"strings"
	"time"
)

// The timeline is the per-agent sequences (each in producerSequence order)
// merged by occurredAt: a k-way merge that always takes, among the agents'
// next events, the one with the smallest key (occurredAt, agent id,
// producerSequence, eventId). Because it only ever takes an agent's next
// event, an agent's own order is never broken, however its clock disagrees
// with the others'. The result depends only on the set of events, so it is
// the same whatever order the polls arrive in.
//
// Merges keep it up to date incrementally: new events change the merge only
// from the first step whose decision they can alter, so only the tail from
// there is merged again. When events arrive in time order that tail is just
// the new events.

// cmpKey orders events for the timeline merge.
func cmpKey(a, b *Event) int {
	if ta, tb := a.tkey, b.tkey; ta != tb {
		if ta < tb {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.Agent.ID, b.Agent.ID); c != 0 {
		return c
	}
	if a.ProducerSequence != b.ProducerSequence {
		if a.ProducerSequence < b.ProducerSequence {
			return -1
		}
		return 1
	}
	return strings.Compare(a.ID, b.ID)
}

// timeKey is an occurredAt as the timeline orders it: Unix nanoseconds,
// clamped to what int64 holds (about years 1678 to 2261; later or earlier
// times tie and the rest of the key decides). An unknown time (zero) sorts first,
// so such an event is placed as soon as its agent reaches it.
func timeKey(t time.Time) int64 {
	if t.IsZero() {
		return math.MinInt64
	}
	// UnixNano is defined for 1678-2262 only.
	const lo, hi = -9_200_000_000, 9_200_000_000 // seconds, inside that span
	switch sec := t.Unix(); {
	case sec < lo:
		return math.MinInt64 + 1
	case sec > hi:
		return math.MaxInt64
	}
	return t.UnixNano()
}

// cmpAgentOrder orders one agent's events: producerSequence, then eventId.
func cmpAgentOrder(a, b *Event) int {
	if a.ProducerSequence != b.ProducerSequence {
		if a.ProducerSequence < b.ProducerSequence {
			return -1
		}
		return 1
	}
	return strings.Compare(a.ID, b.ID)
}

// insertAgentEvent puts e into a's events in producerSequence order and
// returns its index.
func insertAgentEvent(a *Agent, e *Event) int {
	n := len(a.Events)
	if n == 0 || cmpAgentOrder(a.Events[n-1], e) < 0 {
		a.Events = append(a.Events, e)
		return n
	}
	i := sort.Search(n, func(i int) bool { return cmpAgentOrder(a.Events[i], e) > 0 })
	a.Events = append(a.Events, nil)
	copy(a.Events[i+1:], a.Events[i:])
	a.Events[i] = e
	return i
}

// timeline holds the merged order and, for each index, the event with the
// greatest key up to it (keys are not monotonic when clocks disagree).
type timeline struct {
	events    []*Event
	prefixMax []*Event
}

// restartPoint is the first timeline index whose merge decision the new
// event e, inserted at index i of its agent's events, can change, when e is
// the first of the agent's new events (the ones after it cannot change a
// decision before e's). Everything before that index stays as it is.
//
// From lo (just after e's predecessor) the agent's head in the old merge was
// its next placed event N (at hi), or nothing when e is last. Each old
// decision X_p in [lo, hi) was smaller than N; with e as the head instead it
// changes exactly when X_p > e. At hi it changes anyway: N is no longer the
// head. prefixMax finds the first X_p > e by binary search.
func (t *timeline) restartPoint(a *Agent, i int) int {
	lo := 0
	if i > 0 {
		lo = a.Events[i-1].pos + 1
	}
	hi := len(t.events)
	for _, next := range a.Events[i+1:] {
		if next.pos >= 0 {
			hi = next.pos
			break
		}
	}
	e := a.Events[i]
	if lo > 0 && cmpKey(t.prefixMax[lo-1], e) > 0 {
		return lo // some earlier X is already greater: stay on the safe side
	}
	return lo + sort.Search(hi-lo, func(j int) bool { return cmpKey(t.prefixMax[lo+j], e) > 0 })
}

// remerge merges again from index from, with agents' events (new ones have
// pos -1). total is the number of events after the merge.
func (t *timeline) remerge(from int, agents []*Agent, total int) {
	h := make(agentHeap, 0, len(agents))
	for _, a := range agents {
		// The agent's events already placed before from keep their place;
		// its cursor starts at the first one that is not.
		c := len(a.Events)
		for c > 0 {
			e := a.Events[c-1]
			if e.pos >= 0 && e.pos < from {
				break
			}
			c--
		}
		if c < len(a.Events) {
			h = append(h, &cursor{a: a, i: c})
		}
	}
	heap.Init(&h)
	if cap(t.events) < total {
		grow := max(total, 2*cap(t.events))
		ev := make([]*Event, len(t.events), grow)
		copy(ev, t.events)
		t.events = ev
		pm := make([]*Event, len(t.prefixMax), grow)
		copy(pm, t.prefixMax)
		t.prefixMax = pm
	}
	t.events = t.events[:total]
	t.prefixMax = t.prefixMax[:total]
	for p := from; h.Len() > 0; p++ {
		c := h[0]
		e := c.a.Events[c.i]
		e.pos = p
		t.events[p] = e
		if p == 0 || cmpKey(e, t.prefixMax[p-1]) > 0 {
			t.prefixMax[p] = e
		} else {
			t.prefixMax[p] = t.prefixMax[p-1]
		}
		c.i++
		if c.i < len(c.a.Events) {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
}

type cursor struct {
	a *Agent
	i int
}

type agentHeap []*cursor

func (h agentHeap) Len() int { return len(h) }
func (h agentHeap) Less(i, j int) bool {
	return cmpKey(h[i].a.Events[h[i].i], h[j].a.Events[h[j].i]) < 0
}
func (h agentHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *agentHeap) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *agentHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
