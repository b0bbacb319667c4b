package notify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// Moments decided once for the team: with a Claimer (the archive that the
// team's processes share), each moment of a team sink (the webhook, the
// command: the team's channel) is claimed before it is delivered, by the
// sink's own goroutine (the merging goroutine that decides moments never
// waits on the archive). The process that gets the claim delivers the
// moment and marks it sent; the others drop it. A claim is a short lease:
// while its delivery lasts the claimer renews it; a claimer that dies
// before it is done lets it expire, and a process that was told "held by
// another" claims it again then and delivers it, so nothing is lost. A
// moment marked sent is never claimed again, by a restarted process
// either.
//
// A delivery that fails for good (the sink's tries spent) is marked sent
// too, failed: the other processes would fail the same way on the same
// URL, and the team's channel is not to be retried forever. A delivery
// abandoned at exit (Close gave up) is released: another process may
// deliver it at once.
//
// An archive that cannot answer a claim leaves the moment to this process
// alone (as without an archive), said once. The terminal's desktop
// notifications are this process's and never claimed.

// DefaultClaimTTL is a claim's lease: how long a claimer that died holds
// its moment up.
const DefaultClaimTTL = 30 * time.Second

// claimTimeout bounds one claim's round trip to the archive.
const claimTimeout = 3 * time.Second

// claimRecheck is how often a moment another process holds is asked about
// again: soon after its holder is done, a process at its end knows it was
// sent (and need not wait for the claim's lease).
const claimRecheck = time.Second

// Claimer claims moments for the team: the archive (cli binds its
// service, team and holder).
type Claimer interface {
	// Claim claims moment (the Moment's Key) of the run or crawl job for
	// sink (a teamSink's claimID), for ttl; the caller's own claim is
	// renewed.
	Claim(ctx context.Context, job, moment, sink string, ttl time.Duration) (Claimed, error)
	// Sent marks the caller's claim sent (failed: given up for good).
	Sent(ctx context.Context, job, moment, sink string, failed bool) error
	// Release gives the caller's claim up unsent.
	Release(ctx context.Context, job, moment, sink string) error
}

// Claimed is a Claim's answer.
type Claimed struct {
	Got  bool          // the caller delivers it
	Sent bool          // sent already: nobody delivers it again
	Left time.Duration // another holds it for that long yet (neither Got nor Sent)
	By   string        // that other, as its holder says (a label: "hub")
}

// teamSink is a sink whose moments are the team's (claimed).
type teamSink interface {
	// claimID names the sink in the archive: a hash of where it sends,
	// never the URL (a secret).
	claimID() string
}

// sinkHash is the claim id of a sink sending to what (its kind's prefix).
func sinkHash(kind string, what ...string) string {
	h := sha256.Sum256([]byte(strings.Join(what, "\x00")))
	return kind + ":" + hex.EncodeToString(h[:16])
}

func (w *webhook) claimID() string { return sinkHash("url", w.url) }
func (c *command) claimID() string { return sinkHash("cmd", c.argv...) }

// claim1 claims m for w's sink: claimed (it is ours, to mark when done)
// and send (deliver it here: ours, or the archive could not say).
func (n *Notifier) claim1(w *worker, m *Moment) (claimed, send bool) {
	ctx, cancel := context.WithTimeout(n.ctx, claimTimeout)
	defer cancel()
	c, err := n.claims.Claim(ctx, m.Job.ID, m.Key, w.team, n.claimTTL)
	switch {
	case err != nil:
		msg := n.secrets.Redact(err.Error())
		n.logf("notify: %s: %s not claimed for the team (%s): sent by this process alone", w.s.name(), m.Key, msg)
		n.alone.Do(func() {
			n.sayf("notifications are decided by this process alone: the archive did not answer a claim (%s)", msg)
		})
		return false, true
	case c.Got:
		n.logf("notify: %s: %s claimed for the team", w.s.name(), m.Key)
		return true, true
	case c.Sent:
		n.logf("notify: %s: %s sent already by the team's firewatch", w.s.name(), m.Key)
		return false, false
	}
	// Another holds it: asked again soon (its holder marks it sent once
	// delivered) and at the latest when its claim expires (its holder
	// died before delivering).
	wait := min(max(c.Left, 0), n.claimTTL, claimRecheck) + 50*time.Millisecond
	n.mu.Lock()
	w.later = append(w.later, heldMoment{m: m, due: time.Now().Add(wait)})
	n.mu.Unlock()
	n.logf("notify: %s: %s claimed by %s: asked again in %s", w.s.name(), m.Key, c.By, wait.Round(time.Millisecond))
	return false, false
}

// renewing renews m's claim while it is delivered, every third of its
// lease, until the returned stop.
func (n *Notifier) renewing(w *worker, m *Moment) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(max(n.claimTTL/3, 10*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(n.ctx, claimTimeout)
			c, err := n.claims.Claim(ctx, m.Job.ID, m.Key, w.team, n.claimTTL)
			cancel()
			if err == nil && !c.Got {
				n.logf("notify: %s: the claim of %s was lost while it was delivered", w.s.name(), m.Key)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// claimDone marks m's claim after its delivery: sent, sent-failed (the
// sink failed for good), or released (Close gave up on it).
func (n *Notifier) claimDone(w *worker, m *Moment, err error) {
	// The archive is asked even after Close gave up: bounded, on a
	// context of its own.
	ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
	defer cancel()
	var cerr error
	switch {
	case err != nil && n.ctx.Err() != nil:
		cerr = n.claims.Release(ctx, m.Job.ID, m.Key, w.team)
	default:
		cerr = n.claims.Sent(ctx, m.Job.ID, m.Key, w.team, err != nil)
	}
	if cerr != nil {
		n.logf("notify: %s: %s not marked in the archive: %s", w.s.name(), m.Key, n.secrets.Redact(cerr.Error()))
	}
}
