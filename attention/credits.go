package attention

import (
	"cmp"
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// creditState splits the rises of creditsUsed over the agents (see the
// package doc).
type creditState struct {
	next   int       // credit points taken in
	prevAt time.Time // the end of the last closed interval
	prevC  float64
	carry  float64  // rises no agent could take yet
	ended  []worked // calls that ended in the open interval
}

// worked is the time an agent's call ran, kept for the credit split after
// the call ended.
type worked struct {
	agent      *agentState
	start, end time.Time
}

// closeCredit closes the interval that ends at p.
func (t *Tracker) closeCredit(p model.CreditPoint) {
	c := &t.credit
	c.next++
	t.shares++
	rise := p.Credits - c.prevC + c.carry
	a, b := c.prevAt, p.At
	c.prevAt, c.prevC, c.carry = p.At, p.Credits, 0
	if b.Before(a) {
		b = a
	}
	w := make(map[*agentState]time.Duration)
	var total time.Duration
	add := func(k worked) {
		s, e := k.start, k.end
		if s.Before(a) {
			s = a
		}
		if e.After(b) {
			e = b
		}
		if d := e.Sub(s); d > 0 {
			w[k.agent] += d
			total += d
		}
	}
	for _, k := range c.ended {
		add(k)
	}
	for _, k := range t.running {
		add(worked{t.agents[k.agent], k.start, b})
	}
	c.ended = slices.DeleteFunc(c.ended, func(k worked) bool { return !k.end.After(b) })
	events := 0
	for _, x := range t.agentSeq {
		events += x.events
	}
	switch {
	case rise <= 0:
	case total > 0:
		for x, d := range w {
			x.share += rise * float64(d) / float64(total)
		}
	case events > 0:
		for _, x := range t.agentSeq {
			x.share += rise * float64(x.events) / float64(events)
		}
	default:
		c.carry = rise
	}
	for _, x := range t.agentSeq {
		x.events = 0
	}
}

// AgentCredits is one agent's estimated share of the credits.
type AgentCredits struct {
	AgentID string
	Credits float64
}

// Estimate is the estimated credits of each agent that took part, in the
// order the agents were first seen; the parts add up exactly to the run's
// creditsUsed (in whole credits, or hundredths when the service reported
// fractions). Empty while no credits were reported or no agent is known.
func (t *Tracker) Estimate() []AgentCredits {
	r := t.s.Run()
	if !r.HasCredits || len(t.agentSeq) == 0 {
		return nil
	}
	unit := 1.0
	for _, p := range t.s.CreditHistory() {
		if p.Credits != math.Trunc(p.Credits) {
			unit = 0.01
			break
		}
	}
	total := int64(math.Round(r.CreditsUsed / unit))
	shares := make([]float64, len(t.agentSeq))
	for i, x := range t.agentSeq {
		shares[i] = x.share / unit
	}
	// What could not be placed (and any credits shown before the first
	// point closed) goes to the root agent.
	var placed float64
	for _, s := range shares {
		placed += s
	}
	if rest := float64(total) - placed; rest > 1e-9 {
		root := 0
		if ra := t.s.Root(); ra != nil {
			if x := t.agents[ra.ID]; x != nil {
				root = x.idx
			}
		}
		shares[root] += rest
	}
	units := make([]int64, len(shares))
	var sum int64
	for i, s := range shares {
		units[i] = int64(math.Floor(s + 1e-9))
		sum += units[i]
	}
	order := make([]int, len(shares))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		return cmp.Compare(shares[j]-float64(units[j]), shares[i]-float64(units[i]))
	})
	for k := 0; sum < total; k = (k + 1) % len(order) {
		units[order[k]]++
		sum++
	}
	for k := len(order) - 1; sum > total; k = (k + len(order) - 1) % len(order) {
		if units[order[k]] > 0 {
			units[order[k]]--
			sum--
		}
	}
	out := make([]AgentCredits, 0, len(units))
	for i, x := range t.agentSeq {
		v := float64(units[i])
		if unit != 1 {
			v = float64(units[i]) / 100
		}
		out = append(out, AgentCredits{AgentID: x.id, Credits: v})
	}
	return out
}

// estimateKey is what Estimate depends on.
type estimateKey struct {
	shares, points, agents int
	credits                float64
	has                    bool
}

// EstimateOf is the agent's entry of Estimate (0 when none): the same
// figure the summary, the closing block and the report show, so the
// agents' figures add up to the run's. Estimate is computed once per
// change of its inputs, not per agent drawn.
func (t *Tracker) EstimateOf(agentID string) float64 {
	r := t.s.Run()
	k := estimateKey{shares: t.shares, points: len(t.s.CreditHistory()), agents: len(t.agentSeq), credits: r.CreditsUsed, has: r.HasCredits}
	if t.est == nil || k != t.estKey {
		t.est = make(map[string]float64, len(t.agentSeq))
		for _, ac := range t.Estimate() {
			t.est[ac.AgentID] = ac.Credits
		}
		t.estKey = k
	}
	return t.est[agentID]
}

// Burn is the credit burn of the run.
type Burn struct {
	Used        float64
	PerMinute   float64 // over the last minute of trace time (the run, while younger)
	RunPerMin   float64 // over the run so far
	Cap         float64
	CapAssumed  bool
	ToCap       time.Duration // at PerMinute, from the trace's clock; 0 when not burning or past it
	HasRate     bool
	Running     bool
	TypicalLeft time.Duration // until a typical run finishes (5 min after the start)
}

// Burn is the burn rate and projection as of the trace's clock.
func (t *Tracker) Burn() Burn {
	r := t.s.Run()
	b := Burn{Used: r.CreditsUsed, Cap: t.o.MaxCredits, CapAssumed: t.o.MaxCreditsAssumed, Running: r.State != model.StateFinished}
	if c := t.s.Request().MaxCredits; b.CapAssumed && c > 0 {
		// Not told by the options, but known with the run's request (the
		// run firewatch started, or a recording's header).
		b.Cap, b.CapAssumed = c, false
	}
	now := t.clock
	if !r.HasCredits || now.IsZero() || t.start.IsZero() || !now.After(t.start) {
		return b
	}
	run := now.Sub(t.start)
	b.RunPerMin = r.CreditsUsed / run.Minutes()
	b.HasRate = true
	b.PerMinute = b.RunPerMin
	if w := t.o.d(burnWindow); run > w {
		from := now.Add(-w)
		base := 0.0
		for _, p := range t.s.CreditHistory() {
			if p.At.After(from) {
				break
			}
			base = p.Credits
		}
		b.PerMinute = (r.CreditsUsed - base) / w.Minutes()
	}
	if b.PerMinute > 0 && r.CreditsUsed < b.Cap {
		b.ToCap = time.Duration((b.Cap - r.CreditsUsed) / b.PerMinute * float64(time.Minute))
	}
	b.TypicalLeft = t.o.d(typicalRun) - run
	return b
}

// budget raises or clears the budget item as of the trace's clock.
func (t *Tracker) budget() {
	b := t.Burn()
	if t.runOver {
		t.settleBudget(b)
		return
	}
	it := t.byKey["budget"]
	if !b.HasRate {
		return
	}
	capText := describe.Tokens(b.Cap) + "-credit cap"
	if b.CapAssumed {
		capText += " (assumed)"
	}
	var msg string
	switch {
	case b.CapAssumed && b.Used > b.Cap:
		// The service caps creditsUsed at maxCredits: this run's cap is
		// not the default after all, and there is nothing to warn about.
		if it != nil {
			it.Message = "passed the assumed " + capText + ": this run's maxCredits is higher (set --max-credits to watch against it)"
			t.clear(it, t.clock)
		}
		return
	case b.Used >= budgetShare*b.Cap:
		msg = fmt.Sprintf("%d %% of the %s used", int(math.Floor(100*b.Used/b.Cap)), capText)
		if b.ToCap >= time.Second {
			msg += fmt.Sprintf(", reached in about %s at %s credits/min", text.Duration(b.ToCap.Round(time.Second)), describe.Tokens(b.PerMinute))
		}
	case b.ToCap > 0 && t.clock.Sub(t.start) >= t.o.d(budgetWarmup) && b.ToCap < b.TypicalLeft:
		msg = fmt.Sprintf("at %s credits/min the %s is reached in about %s, before a typical run finishes", describe.Tokens(b.PerMinute), capText, text.Duration(b.ToCap.Round(time.Second)))
	}
	if msg == "" {
		if it != nil {
			t.clear(it, t.clock)
		}
		return
	}
	if it != nil {
		it.Message, it.LastAt = msg, t.clock
		return
	}
	t.raise(&Item{Kind: KindBudget, key: "budget", FirstAt: t.clock, LastAt: t.clock, Count: 1, Message: msg}, t.clock)
}

// settleBudget judges the budget once the run is over. An open warning
// clears, unless the run ended at its cap: then what it warned of
// happened, and the item (raised now when no warning came first) says so
// and is marked reached, not cleared. It runs after every merge once the
// run is over, so it leaves a settled item as it is.
func (t *Tracker) settleBudget(b Burn) {
	it := t.byKey["budget"]
	r := t.s.Run()
	limited := r.Outcome == model.OutcomeCreditLimitReached
	if !limited && (b.CapAssumed || !r.HasCredits || b.Used < b.Cap) {
		if it != nil {
			t.clear(it, t.clock)
		}
		return
	}
	msg := "the run " + describe.CapHit(b.Cap, b.CapAssumed, b.Used)
	if limited {
		msg += " and stopped"
	}
	if it == nil {
		if last := t.reopen("budget"); last != nil && last.Reached {
			last.Message = msg // settled already (before a start-again)
			return
		}
		it = &Item{Kind: KindBudget, key: "budget", FirstAt: t.clock, LastAt: t.clock, Count: 1}
		t.items = append(t.items, it)
	} else {
		delete(t.byKey, it.key)
		t.open = slices.DeleteFunc(t.open, func(x *Item) bool { return x == it })
	}
	it.Message, it.Reached, it.Cleared = msg, true, false
	if t.clock.After(it.LastAt) {
		it.LastAt = t.clock
	}
	t.changes = append(t.changes, Change{Item: it, Message: msg})
}

// paramsDigest identifies tool parameters by their canonical form (RFC
// 8785: sorted keys, no white space; a value that is not valid JSON is
// taken as it is): the first 16 bytes of its SHA-256. Calls compare
// equal when their canonical parameters do, and the tracker keeps 16
// bytes a call instead of a copy of each call's parameters.
func paramsDigest(v jsontext.Value) string {
	if len(v) == 0 {
		return ""
	}
	c := v.Clone()
	if err := c.Canonicalize(); err != nil {
		c = v
	}
	sum := sha256.Sum256(c)
	return string(sum[:16])
}
