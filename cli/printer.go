package cli

import (
	"context"
	"time"

	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// recoveryNote is how long connection trouble must have lasted for its end
// to be reported.
const recoveryNote = 5 * time.Second

// print runs the source and feeds the printer. The store is only touched
// here, on this goroutine; the source's sink hands updates over a channel,
// so that a heartbeat can be printed while the source waits.
func (w *watchSession) print(ctx context.Context, p watchprint.Printer) error {
	updates, wait := w.follow(ctx, 16, false)

	hb := w.Opts.Heartbeat
	if hb <= 0 {
		hb = defaultHeartbeat
	}
	tick := time.NewTicker(max(min(hb/4, time.Second), 10*time.Millisecond))
	defer tick.Stop()
	lastEvent := time.Now()    // for "last event 45s ago"
	lastOutput := time.Now()   // for the heartbeat's quiet period
	var troubleSince time.Time // the first failure of the current streak
	handle := func(u poller.Update) {
		d := w.Merge(u)
		if u.Poll != nil {
			if len(d.Events) > 0 {
				p.Events(d.Events)
				lastEvent, lastOutput = time.Now(), time.Now()
			}
			w.attend(p, &d, time.Now())
			reportBad(w, p, d)
			w.Debug.Printf("poll: %d new events, %d late, credits %v", len(d.Events), d.Late, w.Store.Run().CreditsUsed)
		}
		if u.Err != nil {
			if troubleSince.IsZero() {
				troubleSince = time.Now()
			}
			msg := describe.OneLine(u.Health.Reason, 200)
			if msg == "" {
				msg = describe.OneLine(u.Health.String(), 200)
			}
			if msg == "" {
				msg = describe.OneLine(u.Err.Error(), 200)
			}
			w.Debug.Printf("trouble: %s (%v)", msg, u.Err)
			p.Health(msg)
		} else if !troubleSince.IsZero() && u.Poll != nil {
			// Say so when the trouble lasted; a blip that was retried
			// at once needs no second line.
			d := time.Since(troubleSince)
			troubleSince = time.Time{}
			w.Debug.Printf("connection ok again after %s", d)
			if d >= recoveryNote {
				p.Health("connection ok again after " + text.Duration(d.Truncate(100*time.Millisecond)))
			}
		}
	}
	for {
		select {
		case u, ok := <-updates:
			if !ok {
				return endCause(ctx, wait())
			}
			handle(u)
		case now := <-tick.C:
			if troubleSince.IsZero() { // no news is not quiet when polls fail
				w.attend(p, nil, now)
			}
			if now.Sub(lastOutput) >= hb {
				p.Heartbeat(now.Sub(lastEvent))
				lastOutput = now
			}
		}
	}
}
