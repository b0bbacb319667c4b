package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/browser"
	"github.com/firewatch/firewatch/ui/clipboard"
	artcontent "github.com/firewatch/firewatch/ui/content"
)

// env is what every pane and overlay reads: the store, the look, the
// clock, the snapshot cache, the live-view state and the spinner frame.
// The root model owns it, hands the same pointer to each child and is the
// only one that writes it: a child that wants a line in the footer returns
// flash(...), one that wants a snapshot or a diff returns
// want(snapshotWantMsg{...}) or want(diffWantMsg{...}) (messages.go).
type env struct {
	store    *model.Store
	st       *theme.Styles
	sym      theme.Symbols
	ascii    bool
	noColor  bool
	liveView bool
	loc      *time.Location // for event times; time.Local outside tests
	clock    *serverClock
	replay   bool // the run comes from a recording: no service to ask

	// ordinal gives each agent a stable colour: the order agents were
	// first seen.
	ordinal map[string]int

	// For the detail views.
	cs      componentStyles
	render  *artcontent.Renderer // markdown rendering and its cache, per program
	snaps   *snapshots
	dk      detailKeys
	spin    int // the loading spinner's frame
	saveDir string
	noSave  string              // set: s saves nothing and says this (a remote session)
	getenv  func(string) string // TMUX, STY, TERM for OSC 52
	opener  browser.Opener

	// attn is what needs attention (package attention): the root updates it once per
	// merge and per clock tick; the panes and the header only look in it.
	attn *attention.Tracker

	// flash is the footer's one-line message after an action; a key
	// press clears it.
	flash string
}

// copy copies text to the terminal's clipboard (OSC 52); the root says
// what was copied when the CopiedMsg comes back.
func (e *env) copy(text, what string) tea.Cmd {
	if text == "" {
		return flash("nothing to copy here")
	}
	return clipboard.Copy(text, what, clipboard.Options{Getenv: e.getenv})
}

// open opens link in a browser on a desktop; elsewhere the root copies it
// instead and says so (see openedMsg).
func (e *env) open(link, what string) tea.Cmd {
	if link == "" {
		return flash("nothing to open here: o opens live-view links and screenshot links")
	}
	cmd := e.opener.OpenCmd(link)
	return func() tea.Msg {
		return openedMsg{what: what, OpenedMsg: cmd().(browser.OpenedMsg)}
	}
}

// spinner is the loading spinner's current frame.
func (e *env) spinner() string {
	if len(e.sym.Spinner) == 0 {
		return "*"
	}
	return e.sym.Spinner[e.spin%len(e.sym.Spinner)]
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
	return model.Span(t, e.clock.Now())
}

// serverClock is "now" on the run's clock, for elapsed times and the live
// durations of running calls. Watching live, it is the local clock (never
// earlier than the newest event). Replaying a recording, the local clock
// is replaced by the recording's: the time the poll being shown was
// received, moving on at the replay's speed and stopping where the
// recording ends. Replaying saved trace bodies, which carry no such time,
// it is the newest event's time plus the time since it arrived. Either
// way, when the clock is far from the events' it is estimated from them.
type serverClock struct {
	wall   func() time.Time
	latest time.Time // newest occurredAt seen
	recvAt time.Time // pos() when it was seen
	skewed bool      // pos() is far from the events' clock: estimate
	// replay: the events are a recording's, whenever it was made: the
	// run's clock is never the wall clock.
	replay bool
	// The recording's clock (replay): rec is the recorded time of the
	// poll shown last, recWall the wall time it was shown, speed the
	// replay's pace; stopped once the recording has ended.
	rec     time.Time
	recWall time.Time
	speed   float64
	stopped bool
}

// recorded moves a replay's clock to the recorded time of the poll about
// to be shown.
func (c *serverClock) recorded(at time.Time, speed float64) {
	if at.IsZero() || c.stopped {
		return
	}
	if speed <= 0 {
		speed = 1
	}
	c.rec, c.recWall, c.speed = at, c.wall(), speed
}

// stop holds a replay's clock where it is: the recording has ended.
func (c *serverClock) stop() {
	if c.replay && !c.rec.IsZero() && !c.stopped {
		c.rec, c.stopped = c.pos(), true
	}
}

// pos is the local clock's reading: the wall clock, or a replay's
// recorded clock.
func (c *serverClock) pos() time.Time {
	if c.rec.IsZero() {
		return c.wall()
	}
	if c.stopped {
		return c.rec
	}
	return c.rec.Add(time.Duration(float64(c.wall().Sub(c.recWall)) * c.speed))
}

// wallFor is how long the wall clock takes for d on the run's clock, at
// least minTick: a replay at --speed 1000 does not tick a thousand times
// a second.
func (c *serverClock) wallFor(d time.Duration) time.Duration {
	if c.rec.IsZero() || c.stopped {
		return d
	}
	return max(time.Duration(float64(d)/c.speed), minTick)
}

// minTick is the shortest wait between two clock ticks: the UI's frame
// interval (20 frames a second).
const minTick = 50 * time.Millisecond

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
	now := c.pos()
	c.latest, c.recvAt = newest, now
	lag := now.Sub(newest)
	c.skewed = lag > 10*time.Minute || lag < -2*time.Minute
}

// Now is the current time on the run's clock.
func (c *serverClock) Now() time.Time {
	now := c.pos()
	if c.latest.IsZero() {
		return now
	}
	if c.skewed || (c.replay && c.rec.IsZero()) {
		return c.latest.Add(now.Sub(c.recvAt))
	}
	if now.Before(c.latest) {
		return c.latest
	}
	return now
}
