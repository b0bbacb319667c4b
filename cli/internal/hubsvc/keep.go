package hubsvc

import (
	"fmt"
	"sync"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/text"
)

// A hub with an archive keeps it complete: the runs the team's list shows
// that the archive holds in part or not at all (known from the list
// alone, or watched by nobody) are completed once they are over, in the
// background, paced by the team's budget as an archive pass is (the
// hub's live work comes first). A pass over the whole list when the hub
// starts, then, every keepIntervals of its poll interval, a pass over
// the newest pages until one the archive held whole. Each run is
// completed under its lease, so that of several hubs (and passes) on one
// archive one fetches it; the others find it held, or whole once they
// hold it. What archive --every adds: the older pages walked again (a
// run skipped or left by a failing endpoint there), and runs the
// service no longer lists marked expired.

// keepIntervals is the time between two of the hub's passes over the
// newest pages, in its --interval (2s: every 10s, the runs screens'
// refresh).
const keepIntervals = 5

// keepArchive starts the hub's passes (nil archive: none); they end with
// the hub.
func (h *Hub) keepArchive() {
	if h.st == nil {
		return
	}
	c, err := h.env.Client(h.svc, func(string) {})
	if err != nil {
		return
	}
	team := archive.TeamOf(h.svc.Key)
	holder := archive.NewHolder("hub")
	every := max(keepIntervals*h.interval, time.Second)
	report := &passReport{passErr: h.env.PassErr, say: func(line string) { h.say("archive: " + h.env.Secrets.Redact(line)) }, skipped: map[string]bool{}}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		for first := true; ; first = false {
			p := &archiving.Pass{C: c, St: h.st, Secrets: h.env.Secrets, Service: h.svc.BaseURL, Team: team, Holder: holder,
				Budget: archiving.NewBudget(h.st, h.svc.BaseURL, team, h.env.RateLimit(), nil), OverOnly: true, Newest: !first, Report: report}
			report.first = first
			err := p.Run(h.ctx)
			if h.ctx.Err() != nil {
				return
			}
			report.failed(err)
			t := time.NewTimer(every)
			select {
			case <-h.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
	}()
}

// passReport says in the hub's log what its passes did: the first
// pass's total, a later one's when it fetched runs, each run skipped
// once, an endpoint asked no more once a pass, a pass that failed once
// until one works again.
type passReport struct {
	say     func(line string)
	passErr func(error) error

	mu      sync.Mutex
	first   bool
	skipped map[string]bool
	failing bool
}

func (r *passReport) Progress(p archiving.PassCounts, final bool) {
	if !final || !r.first && p.Fetched == 0 {
		return
	}
	r.say(fmt.Sprintf("the hub completed %d runs of the %d its pass saw (%d requests, %s) %s",
		p.Fetched, p.Seen, p.Requests, text.Size(int(p.Bytes)), text.Duration(time.Since(p.Started))))
}

func (r *passReport) Skip(id, what string, err error) {
	r.mu.Lock()
	seen := r.skipped[id]
	r.skipped[id] = true
	r.mu.Unlock()
	if !seen {
		r.say(fmt.Sprintf("run %s %s (%v); the hub's next passes try again", id, what, err))
	}
}

func (r *passReport) FirstGen(string) {}

func (r *passReport) EndpointOff(endpoint string, runs int, err error) {
	r.say(fmt.Sprintf("the service failed to give the runs' %s for %d runs in a row (%v): the hub's pass asks for it no more; the next pass tries again", endpoint, runs, err))
}

// failed says a failed pass (nil: it worked), once until one works.
func (r *passReport) failed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err == nil:
		r.failing = false
	case !r.failing:
		r.failing = true
		r.say(fmt.Sprintf("the hub's pass failed (%v); it tries again at its next pass", r.passErr(err)))
	}
}

var _ archiving.PassReport = (*passReport)(nil)
