package follow

import (
	"time"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// Run is what a watch knows of its run as it follows it. One goroutine
// merges into it and reads it (the consumer of a Stream: the terminal UI or
// a printer; a Follower's own); when watching ends, the summary and the
// exit code are read from it.
type Run struct {
	// Store is the run as data: every Update's Poll is merged into it.
	Store *model.Store
	// Request is what the run was asked to do, when the command knows it
	// (run, demo); the service is asked otherwise.
	Request model.Request
	// Tokens is the team's token balance, when the service gave it.
	Tokens *poller.TokenUsage
	// Attention follows the store for what needs a look; made on first
	// need (Tracker, Attend) unless a screen makes its own (NewTracker).
	Attention *attention.Tracker
	// TrackerOptions gives the tracker's options when it is made (the
	// run's cap, --stall); nil: the defaults.
	TrackerOptions func() attention.Options
	// Saw, if set, is told the tracker's changes after each Attend (the
	// notifier: once per run, from the merging goroutine).
	Saw func(*attention.Tracker, []attention.Change)
}

// NewRun is a run with an empty store.
func NewRun() Run { return Run{Store: model.NewStore()} }

// Merge takes one update into the run: the request a recording's header
// brings, who acted on the run (Actors), the poll (merged into the store: its delta is returned, empty
// without one) and the team's tokens. The tracker is fed by Attend.
func (r *Run) Merge(u poller.Update) model.Delta {
	if u.Request != nil {
		r.Store.SetRequest(*u.Request)
	}
	if u.Actors != nil {
		r.Store.SetActors(*u.Actors)
	}
	if u.Thread != nil {
		r.Store.SetThread(*u.Thread)
	}
	var d model.Delta
	if u.Poll != nil {
		d = r.Store.Merge(u.Poll)
	}
	if u.Tokens != nil {
		r.Tokens = u.Tokens
	}
	return d
}

func (r *Run) trackerOptions() attention.Options {
	if r.TrackerOptions == nil {
		return attention.Options{}
	}
	return r.TrackerOptions()
}

// Tracker is the run's attention tracker. Whoever merges keeps it up to
// date (Attend, or a screen's own); when watching ends without one (an
// early error) it is made from the store.
func (r *Run) Tracker() *attention.Tracker {
	if r.Attention == nil {
		r.Attention = attention.New(r.Store, r.trackerOptions())
		if r.Store.Len() > 0 {
			r.Attention.Update(model.Delta{From: 0, Events: r.Store.Timeline()}, time.Now())
		}
	}
	return r.Attention
}

// NewTracker gives the run a tracker that whoever merges (the terminal
// UI) keeps up to date; the summary then reads it.
func (r *Run) NewTracker() *attention.Tracker {
	r.Attention = attention.New(r.Store, r.trackerOptions())
	return r.Attention
}

// Attend runs the tracker after a merge (d) or, with d nil, on the quiet
// clock, tells Saw, and returns what changed.
func (r *Run) Attend(d *model.Delta, now time.Time) []attention.Change {
	if r.Attention == nil {
		r.Attention = attention.New(r.Store, r.trackerOptions())
	}
	var ch []attention.Change
	if d != nil {
		ch = r.Attention.Update(*d, now)
	} else {
		ch = r.Attention.Tick(now)
	}
	if r.Saw != nil {
		r.Saw(r.Attention, ch)
	}
	return ch
}
