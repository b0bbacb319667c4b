package sim

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"
)

// Endings other than success are made by cutting a script short: every
// agent's events after its cut are dropped (their sequence numbers become
// gaps), and the running agents are given closing events. The same code
// serves a DELETE at run time, the failure scenario, the credit limit and
// the cancel scenario's time limit.

const never = time.Duration(math.MaxInt64)

// finishedAt is the time of run.finished, or never.
func (b *builder) finishedAt() time.Duration {
	for i := range b.evs {
		if b.evs[i].kind == kRunFinished {
			return b.evs[i].at
		}
	}
	return never
}

// running is the state of one agent at the cut.
type running struct {
	x        *actor
	started  bool
	finished bool
}

// cut drops events after cutFor(agent) and every run.finished, and returns
// per agent an actor positioned at its cut, with its open browser sessions.
func (b *builder) cut(cutFor func(a int32) time.Duration) []*running {
	kept := make([]event, 0, len(b.evs))
	st := make([]*running, len(b.agents))
	for a := range b.agents {
		x := b.actor(int32(a), 0)
		st[a] = &running{x: x}
	}
	for _, e := range b.evs {
		if e.at > cutFor(e.agent) || e.kind == kRunFinished {
			continue
		}
		kept = append(kept, e)
		r := st[e.agent]
		switch e.kind {
		case kAgentStarted:
			r.started = true
			r.x.started = e.at
		case kAgentFinished:
			r.finished = true
		case kBrowserStarted:
			r.x.open[e.ref] = e.at
		case kBrowserFinished:
			delete(r.x.open, e.ref)
		}
	}
	b.evs = kept
	for a, r := range st {
		r.x.t = cutFor(int32(a)) + time.Millisecond
	}
	return st
}

// active returns the subagents that started and did not finish, deepest
// first (children close before their parents).
func (b *builder) active(st []*running) []*running {
	var out []*running
	for a, r := range st {
		if a != 0 && r.started && !r.finished {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(p, q *running) int {
		return cmp.Compare(b.agents[q.x.a].depth, b.agents[p.x.a].depth)
	})
	return out
}

func (x *actor) closeSessions() {
	ids := make([]string, 0, len(x.open))
	for id := range x.open {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		x.wait(x.b.between(20*time.Millisecond, 120*time.Millisecond))
		x.sessionEnd(id)
	}
}

func runFinishedFrag(outcome string, err obj) []byte {
	f := appendField(nil, "outcome", outcome)
	var e any
	if err != nil {
		e = err
	}
	return appendField(f, "error", e)
}

var parentFinished = errObj("parent_finished", "system", false, "The parent agent finished before this agent completed its task")

// endRun closes the subagents in st (each at its cut) with the outcome and
// error chosen by sub, then the orchestrator (orchOutcome) at least gap
// later, then the run. The last subagent's agent.finished (the
// orchestrator's when no subagent was running) lands after run.finished,
// as events of the real service do: every ending gives a tail window
// something to catch.
func (b *builder) endRun(st []*running, outcome string, sub func(r *running) (string, obj), orchOutcome string, runErr obj, gap time.Duration) {
	o := st[0].x
	last := o.t
	var lastFin = -1
	for _, r := range b.active(st) {
		x := r.x
		x.closeSessions()
		x.wait(b.between(60*time.Millisecond, 300*time.Millisecond))
		lastFin = x.finish(sub(r))
		last = max(last, x.t)
	}
	o.waitUntil(last + gap)
	o.closeSessions()
	if st[0].started && !st[0].finished {
		orchFin := o.finish(orchOutcome, runErr)
		if lastFin < 0 {
			lastFin = orchFin
		}
		o.wait(b.between(80*time.Millisecond, 200*time.Millisecond))
	}
	rf := o.emit(kRunFinished, runFinishedFrag(outcome, runErr))
	if lastFin >= 0 {
		b.evs[lastFin].vis = b.evs[rf].at + b.between(300*time.Millisecond, 900*time.Millisecond)
	}
}

var cancelledErr = errObj("cancelled", "system", false, "The run was cancelled by the user")

// endCancel cuts the script for a DELETE that arrived at simulated time t:
// run.cancel_requested within a moment, the subagents go on for a second
// or two (more events and credits), then everything finishes cancelled.
func (b *builder) endCancel(t time.Duration) {
	ms := time.Millisecond
	fin := b.finishedAt()
	clamp := func(c time.Duration) time.Duration { return min(c, fin-2*ms) }
	tc := t + b.between(150*ms, 400*ms)
	cuts := make([]time.Duration, len(b.agents))
	cuts[0] = clamp(tc - ms)
	for a := 1; a < len(b.agents); a++ {
		cuts[a] = clamp(t + b.between(700*ms, 2500*ms))
	}
	st := b.cut(func(a int32) time.Duration { return cuts[a] })
	o := st[0].x
	o.waitUntil(tc)
	o.emit(kRunCancelRequested, appendField(nil, "reason", "user"))
	o.usage(1)
	for _, r := range b.active(st) {
		r.x.usage(b.intn(1, 3))
	}
	b.endRun(st, "cancelled", func(r *running) (string, obj) {
		if b.agents[r.x.a].depth >= 2 {
			return "cancelled", parentFinished
		}
		return "cancelled", cancelledErr
	}, "cancelled", cancelledErr, b.between(150*ms, 400*ms))
}

// endFailure fails the run at t: the subagent named failing (if running;
// none when "") fails first, the orchestrator hits a fatal error a few
// seconds later.
func (b *builder) endFailure(t time.Duration, failing, fatal string) {
	ms := time.Millisecond
	// Who is running at t?
	fail := int32(-1)
	{
		started, finished := map[int32]bool{}, map[int32]bool{}
		for _, e := range b.evs {
			if e.at > t {
				continue
			}
			switch e.kind {
			case kAgentStarted:
				started[e.agent] = true
			case kAgentFinished:
				finished[e.agent] = true
			}
		}
		for a := int32(1); a < int32(len(b.agents)); a++ {
			if started[a] && !finished[a] && b.agents[a].name == failing {
				fail = a
			}
		}
	}
	tf := t + 3500*ms
	tAll := t + 7000*ms
	st := b.cut(func(a int32) time.Duration {
		switch a {
		case fail:
			return t
		case 0:
			return tf
		}
		return tAll
	})
	if fail >= 0 {
		x := st[fail].x
		url := "https://docs.zyte.com/zyte-api/usage/limits.html"
		x.wait(100 * ms)
		x.errorEv("internal", "tool", true, "Scrape failed: "+url+" returned 403 Forbidden (blocked by bot protection); retrying (attempt 2 of 3)")
		x.wait(b.between(1500*ms, 2000*ms))
		x.errorEv("internal", "tool", true, "Scrape failed: "+url+" returned 403 Forbidden (blocked by bot protection); retrying (attempt 3 of 3)")
		x.usage(1)
		x.wait(b.between(800*ms, 1200*ms))
		x.closeSessions()
		x.finish("failed", errObj("internal", "tool", false, "Giving up after 3 attempts: "+url+" keeps returning 403 Forbidden"))
		st[fail].finished = true
		st[0].x.waitUntil(x.t + 200*ms)
	}
	o := st[0].x
	if fail >= 0 {
		o.think(b.between(600*ms, 1000*ms), 3, b.agents[fail].name+" failed: its source blocks automated access. "+
			"I'll continue with the data already collected and note the gap in the report.")
	}
	o.waitUntil(tAll - 800*ms)
	fatalErr := errObj("internal", "system", false, fatal)
	o.errorEv("internal", "system", false, fatal)
	o.waitUntil(tAll)
	b.endRun(st, "failed", func(*running) (string, obj) { return "cancelled", parentFinished }, "failed", fatalErr, b.between(150*ms, 400*ms))
}

// endCreditLimit ends the run when its credits reach max: the agent whose
// usage crossed the limit stops with credit_limit_reached, the others with
// parent_finished, and the run finishes credit_limit_reached.
func (b *builder) endCreditLimit(maxCredits int) bool {
	var usage []int
	for i := range b.evs {
		if b.evs[i].kind == kUsage {
			usage = append(usage, i)
		}
	}
	slices.SortStableFunc(usage, func(i, j int) int { return cmp.Compare(b.evs[i].at, b.evs[j].at) })
	sum, hit := 0, -1
	for _, i := range usage {
		sum += int(b.evs[i].credits)
		if sum >= maxCredits {
			hit = i
			break
		}
	}
	if hit < 0 {
		return false
	}
	t, who := b.evs[hit].at, b.evs[hit].agent
	st := b.cut(func(int32) time.Duration { return t })
	ms := time.Millisecond
	limitErr := errObj("credit_limit_reached", "billing", false, "Credit limit reached: the run used all "+strconv.Itoa(maxCredits)+" of its maxCredits")
	x := st[who].x
	x.wait(50 * ms)
	x.errorEv("credit_limit_reached", "billing", false, "Credit limit reached: the run used all "+strconv.Itoa(maxCredits)+" of its maxCredits")
	st[0].x.waitUntil(x.t)
	b.endRun(st, "credit_limit_reached", func(r *running) (string, obj) {
		if r.x.a == who {
			return "cancelled", limitErr
		}
		return "cancelled", parentFinished
	}, "cancelled", limitErr, b.between(100*ms, 300*ms))
	return true
}
