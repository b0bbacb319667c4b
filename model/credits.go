package model

import "time"

// CreditPoint is one rise of the run's creditsUsed, placed on the trace's
// own clock: At is the newest occurredAt the store held once the merge that
// brought the figure was done (zero while no event had a known time).
// Pinning the figure to the trace rather than to when the poll arrived
// makes a replay of a recording see the same points as the live watch.
type CreditPoint struct {
	At      time.Time
	Credits float64
}

// creditPoint records the figure a merge raised (called once that merge's
// events are in). Two rises at the same trace time keep the higher.
func (s *Store) creditPoint() {
	p := CreditPoint{At: s.maxTime, Credits: s.run.CreditsUsed}
	if len(s.credits) == 0 && p.Credits <= 0 {
		return // a first figure of 0 is no rise
	}
	if n := len(s.credits); n > 0 && s.credits[n-1].At.Equal(p.At) {
		s.credits[n-1] = p
		return
	}
	s.credits = append(s.credits, p)
}

// CreditHistory is every rise of creditsUsed in the order seen, each on the
// trace's clock (see CreditPoint). Unlike the rest of the derived state it
// depends on how the figures were spread over polls: it is what the polls
// showed. The slice is the store's own: do not modify it.
func (s *Store) CreditHistory() []CreditPoint { return s.credits }

// Newest is the newest occurredAt merged so far: the trace's clock.
func (s *Store) Newest() time.Time { return s.maxTime }
