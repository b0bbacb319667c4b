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

// AgentCredits is one agent's estimated share of the credits.
type AgentCredits struct {
	AgentID string
	Credits float64
}

// EstimateCredits is the estimated credits of each agent of s, a function
// of its events and its creditsUsed alone (see the package doc): the same
// run gives the same figures live, replayed or read from the archive,
// however its polls came. The agents are in the order of their first event
// on the timeline; the parts add up exactly to creditsUsed (in whole
// credits, or hundredths when the figure has a fraction). Empty while no
// credits were reported or no agent is known.
func EstimateCredits(s *model.Store) []AgentCredits {
	r := s.Run()
	if !r.HasCredits {
		return nil
	}
	var order []*model.Agent
	seen := make(map[*model.Agent]bool)
	for _, e := range s.Timeline() {
		if a := s.Agent(e.Agent.ID); a != nil && !seen[a] {
			seen[a] = true
			order = append(order, a)
		}
	}
	if len(order) == 0 {
		return nil
	}
	unit := 1.0
	if r.CreditsUsed != math.Trunc(r.CreditsUsed) {
		unit = 0.01
	}
	total := int64(math.Round(r.CreditsUsed / unit))
	// Each agent's weight: its tool-call time, a call still open counted
	// up to its agent's end (else the run's, else the newest event).
	weights := make([]float64, len(order))
	var sum float64
	for i, a := range order {
		end := a.FinishedAt
		if end.IsZero() {
			end = r.FinishedAt
		}
		if end.IsZero() {
			end = s.Newest()
		}
		for _, tc := range a.ToolCalls {
			from, to := tc.StartedAt(), tc.FinishedAt()
			if to.IsZero() {
				to = end
			}
			if from.IsZero() || !to.After(from) {
				continue
			}
			weights[i] += to.Sub(from).Seconds()
		}
		sum += weights[i]
	}
	if sum == 0 {
		// No tool time: by the events each agent emitted.
		for i, a := range order {
			weights[i] = float64(len(a.Events))
			sum += weights[i]
		}
	}
	shares := make([]float64, len(order))
	if sum > 0 {
		for i := range order {
			shares[i] = float64(total) * weights[i] / sum
		}
	} else {
		root := 0
		if ra := s.Root(); ra != nil {
			root = max(slices.Index(order, ra), 0)
		}
		shares[root] = float64(total)
	}
	units := largestRemainder(shares, total)
	out := make([]AgentCredits, len(order))
	for i, a := range order {
		out[i] = AgentCredits{AgentID: a.ID, Credits: float64(units[i])}
		if unit != 1 {
			out[i].Credits = float64(units[i]) / 100
		}
	}
	return out
}

// largestRemainder rounds shares to whole units adding up to total: each is
// rounded down, and the units left go to the largest remainders (ties to
// the first).
func largestRemainder(shares []float64, total int64) []int64 {
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
	return units
}

// Estimate is EstimateCredits of the tracker's store.
func (t *Tracker) Estimate() []AgentCredits { return EstimateCredits(t.s) }

// estimateKey is what EstimateCredits depends on.
type estimateKey struct {
	events  int
	newest  time.Time
	credits float64
	has     bool
}

// EstimateOf is the agent's entry of Estimate (0 when none): the same
// figure the summary, the closing block and the report show, so the
// agents' figures add up to the run's. Estimate is computed once per
// change of its inputs, not per agent drawn.
func (t *Tracker) EstimateOf(agentID string) float64 {
	r := t.s.Run()
	k := estimateKey{events: t.s.Len(), newest: t.s.Newest(), credits: r.CreditsUsed, has: r.HasCredits}
	t.estMu.Lock()
	defer t.estMu.Unlock()
	if t.est == nil || k != t.estKey {
		t.est = make(map[string]float64)
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
