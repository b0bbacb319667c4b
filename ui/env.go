package ui

import (
	"strconv"
	"time"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/theme"
)

// env is what every pane reads: the store, the look, and the clock. The
// root model owns it and hands the same pointer to each pane.
type env struct {
	store    *model.Store
	st       *theme.Styles
	sym      theme.Symbols
	ascii    bool
	noColor  bool
	liveView bool
	loc      *time.Location // for event times; time.Local outside tests
	clock    *serverClock

	// ordinal gives each agent a stable colour: the order agents were
	// first seen.
	ordinal map[string]int
}

func (e *env) agentStyle(id string) theme.Style {
	if o, ok := e.ordinal[id]; ok {
		return e.st.AgentStyle(o)
	}
	return e.st.Text
}

// noteAgents gives new agents their ordinal.
func (e *env) noteAgents(as []*model.Agent) {
	for _, a := range as {
		if _, ok := e.ordinal[a.ID]; !ok {
			e.ordinal[a.ID] = len(e.ordinal)
		}
	}
}

// text adapts a describe string for the screen: ASCII symbols in ASCII
// mode.
func (e *env) text(s string) string {
	if e.ascii {
		return describe.ASCII(s)
	}
	return s
}

// clockTime formats an event time as local wall-clock time.
func (e *env) clockTime(t time.Time) string {
	if t.IsZero() {
		return "--:--:--"
	}
	return t.In(e.loc).Format("15:04:05")
}

// since is the live duration of something that started at t.
func (e *env) since(t time.Time) (time.Duration, bool) {
	if t.IsZero() {
		return 0, false
	}
	d := e.clock.Now().Sub(t)
	if d < 0 {
		d = 0
	}
	return d, true
}

// liveDuration is a running thing's elapsed time in whole seconds (it is
// redrawn once a second, so tenths would only cost bytes).
func liveDuration(d time.Duration) string {
	if d < time.Minute {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return describe.Duration(d.Truncate(time.Second))
}

// serverClock is "now" on the run's clock, for elapsed times and the live
// durations of running calls. Watching live, it is the local clock (never
// earlier than the newest event). Replaying an old recording, where the
// local clock is hours past the events, it is the newest event's time plus
// the time since it arrived.
type serverClock struct {
	wall   func() time.Time
	latest time.Time // newest occurredAt seen
	recvAt time.Time // wall time when it was seen
	skewed bool      // the wall clock is far from the events': estimate
}

// observe notes the newest event time of a merge.
func (c *serverClock) observe(events []*model.Event) {
	var newest time.Time
	for _, e := range events {
		if e.OccurredAt.After(newest) {
			newest = e.OccurredAt
		}
	}
	if newest.IsZero() || !newest.After(c.latest) {
		return
	}
	now := c.wall()
	c.latest, c.recvAt = newest, now
	lag := now.Sub(newest)
	c.skewed = lag > 10*time.Minute || lag < -2*time.Minute
}

// Now is the current time on the run's clock.
func (c *serverClock) Now() time.Time {
	now := c.wall()
	if c.latest.IsZero() {
		return now
	}
	if c.skewed {
		return c.latest.Add(now.Sub(c.recvAt))
	}
	if now.Before(c.latest) {
		return c.latest
	}
	return now
}
