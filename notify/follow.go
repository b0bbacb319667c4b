package notify

import (
	"strconv"
	"strings"
	"time"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
)

// Run follows one run's store for its moments. Not safe for concurrent
// use: call Saw from the goroutine that merges into the store.
type Run struct {
	n  *Notifier
	id string
	s  *model.Store

	primed bool // Saw has seen the run's first events
	over   bool // the run had ended: nothing more to tell
}

// Follow starts following the run id whose store is s. The moments already
// sent for id (by an earlier Follow of the same run, e.g. a run opened
// again from the runs screen) are not sent again. A nil Notifier returns a
// nil *Run, whose Saw does nothing.
func (n *Notifier) Follow(id string, s *model.Store) *Run {
	if n == nil {
		return nil
	}
	return &Run{n: n, id: id, s: s}
}

// Started says the run was seen going before its first look: this
// process started it (run, demo), so a run that is over by the first poll
// still tells its end.
func (r *Run) Started() {
	if r != nil {
		r.primed = true
	}
}

// Saw takes in the store as it stands after a merge, or after a tick of
// the attention tracker t on the quiet clock, with what that Update or
// Tick changed. Call it after every merge, even one that changed no item:
// the run's end is read from the store. t gives the run's cap (nil: the
// service's default, assumed).
//
// A run that had already ended when it was first seen tells nothing
// (unless Started); an
// item tells only if it is still open after the merge or tick that raised
// it (not one of the history of a run first seen late).
func (r *Run) Saw(t *attention.Tracker, changes []attention.Change) {
	if r == nil || r.over {
		return
	}
	run := r.s.Run()
	if !r.primed {
		if r.s.Len() == 0 && run.State != model.StateFinished {
			return // nothing seen yet
		}
		r.primed = true
		if run.State == model.StateFinished {
			r.over = true
			return
		}
	}
	// Only what is still open: an item raised and cleared between two
	// looks (the history of a run first seen late, a catch-up after a
	// failing poll) is over already.
	changes = openOnly(changes)
	// A poll that both passes a share of the cap and ends the run (a run
	// that burnt through its cap) tells the share, then the end.
	budgetSent := r.budgets(t)
	if r.n.on.Attention {
		for _, c := range changes {
			if c.Item.Kind == attention.KindBudget && budgetSent {
				// The same news as the budget moment sent just now.
				r.n.claim(r.key(EventAttention, string(attention.KindBudget)))
				continue
			}
			r.attention(c)
		}
	}
	if run.State == model.StateFinished {
		r.over = true
		r.end()
	}
}

// openOnly keeps the raises of items still open.
func openOnly(ch []attention.Change) []attention.Change {
	out := ch[:0:0]
	for _, c := range ch {
		if !c.Cleared && c.Item != nil && !c.Item.Cleared {
			out = append(out, c)
		}
	}
	return out
}

func (r *Run) key(e Event, detail string) string {
	k := KindRun + ":" + r.id + ":" + string(e)
	if detail != "" {
		k += ":" + detail
	}
	return k
}

// job is the run as it stands.
func (r *Run) job() Job {
	run := r.s.Run()
	req := r.s.Request()
	j := Job{Kind: KindRun, ID: r.id,
		Prompt: r.clean(req.Prompt, maxPrompt), Model: r.clean(req.Model, maxField)}
	acts := r.s.Actors()
	j.StartedBy, j.CancelledBy = r.clean(acts.StartedBy, maxField), r.clean(acts.CancelledBy, maxField)
	j.CancelledHere = acts.CancelledHere
	if run.State == model.StateFinished {
		j.Outcome = describe.OneLine(string(run.Outcome), 40)
		j.Duration, j.HasDuration = run.Duration()
	}
	if run.HasCredits {
		c := run.CreditsUsed
		j.Credits = &c
	}
	return j
}

// clean makes a string from the service fit to send: one line, at most
// max cells, the secrets and the run's live-view links redacted.
func (r *Run) clean(s string, max int) string {
	for _, l := range r.s.LiveSessions() {
		if len(l.LiveViewURL) >= 8 && strings.Contains(s, l.LiveViewURL) {
			s = strings.ReplaceAll(s, l.LiveViewURL, "[live view]")
		}
	}
	return r.n.clean(s, max)
}

func (r *Run) attention(c attention.Change) {
	k := r.key(EventAttention, string(c.Item.Kind))
	if !r.n.claim(k) {
		return
	}
	j := r.job()
	a := &Attention{Kind: c.Item.Kind, AgentID: r.clean(c.Item.AgentID, 100), Agent: r.agentName(c.Item.AgentID), Message: r.clean(c.Message, maxField)}
	r.n.send(&Moment{Key: k, Event: EventAttention, Text: attentionText(&j, a), Job: j, Attention: a})
}

// agentName is the agent's name, its short id when it has none, "run" for
// the run as a whole.
func (r *Run) agentName(id string) string {
	if id == "" {
		return "run"
	}
	if a := r.s.Agent(id); a != nil && a.Name != "" {
		return r.clean(a.Name, 40)
	}
	return describe.ShortID(id)
}

// budgets sends the budget moments whose share the credits reached; it
// reports whether one was sent now.
func (r *Run) budgets(t *attention.Tracker) bool {
	run := r.s.Run()
	if len(r.n.on.Budgets) == 0 || !run.HasCredits {
		return false
	}
	capOf, assumed := float64(attention.DefaultMaxCredits), true
	if t != nil {
		b := t.Burn()
		capOf, assumed = b.Cap, b.CapAssumed
	} else if c := r.s.Request().MaxCredits; c > 0 {
		capOf, assumed = c, false
	}
	if !(capOf > 0) {
		return false
	}
	sent := false
	// The highest share reached is the news: passing 50 % and 80 % in
	// one poll says 80 % once (50 % is claimed, not sent).
	for i := len(r.n.on.Budgets) - 1; i >= 0; i-- {
		share := r.n.on.Budgets[i]
		if run.CreditsUsed < share*capOf {
			continue
		}
		k := r.key(EventBudget, strconv.FormatFloat(share*100, 'f', -1, 64)+"%")
		if !r.n.claim(k) || sent {
			continue
		}
		j := r.job()
		b := &Budget{Share: share, Credits: run.CreditsUsed, Cap: capOf, CapAssumed: assumed}
		r.n.send(&Moment{Key: k, Event: EventBudget, Text: budgetText(&j, b), Job: j, Budget: b})
		sent = true
	}
	return sent
}

// end sends the run's end: EventFailed when its outcome is a bad one.
func (r *Run) end() {
	run := r.s.Run()
	e := EventFinished
	if describe.Outcome(run.Outcome).Level == describe.Bad {
		e = EventFailed
	}
	if !r.n.on.wants(e) {
		return
	}
	k := r.key(EventFinished, "")
	if !r.n.claim(k) {
		return
	}
	j := r.job()
	msg := ""
	if run.Error != nil && e == EventFailed {
		msg = r.clean(run.Error.Message, 120)
	}
	r.n.send(&Moment{Key: k, Event: e, Text: endText(&j, msg), Job: j})
}

// CrawlEnd is how a crawl ended, for CrawlEnded.
type CrawlEnd struct {
	ID, URL  string
	Status   string // its final status: completed, failed, cancelled
	Pages    int
	Credits  *float64
	Duration time.Duration // how long it was watched (0: not known)
}

// CrawlEnded sends a crawl's end, once per crawl: EventFailed when it
// failed, EventFinished otherwise (completed or cancelled). Crawls have no
// attention items or cap: these are their only moments. Safe to call from
// any goroutine.
func (n *Notifier) CrawlEnded(c CrawlEnd) {
	if n == nil {
		return
	}
	e := EventFinished
	if strings.EqualFold(c.Status, "failed") {
		e = EventFailed
	}
	if !n.on.wants(e) {
		return
	}
	k := KindCrawl + ":" + c.ID + ":" + string(EventFinished)
	if !n.claim(k) {
		return
	}
	j := Job{Kind: KindCrawl, ID: c.ID, URL: n.clean(c.URL, maxURLText), Outcome: describe.OneLine(strings.ToLower(c.Status), 40),
		Credits: c.Credits, Pages: c.Pages, Duration: c.Duration, HasDuration: c.Duration > 0}
	n.send(&Moment{Key: k, Event: e, Text: endText(&j, ""), Job: j})
}
