package model

import (
	"bytes"
	"strings"
)

// SetRunID names the run the store holds (the watched job id): an event whose
// runId is another run's is set aside with a reason instead of being merged,
// by the store's own decoder and by Merge for polls decoded elsewhere. An
// event without a runId is kept. Call it before the first merge.
func (s *Store) SetRunID(id string) {
	s.watchID = id
	s.dec.SetRunID(id)
	if s.run.ID == "" {
		s.run.ID = id
	}
}

// foreign reports whether e names another run than the watched one.
func (s *Store) foreign(e *Event) bool {
	return s.watchID != "" && e.RunID != "" && !strings.EqualFold(e.RunID, s.watchID)
}

// reject keeps r, once per distinct value, and reports it in d.
func (s *Store) reject(r Rejected, d *Delta) {
	k := string(r.Raw)
	if s.rejectedSeen[k] {
		return
	}
	s.rejectedSeen[k] = true
	s.rejected = append(s.rejected, r)
	d.Rejected = append(d.Rejected, r)
}

// ReasonChanged is the reason of a duplicate set aside: an event whose
// eventId was seen before with other content. The first version is kept.
const ReasonChanged = "eventId seen before with other content; the first version is kept"

// mergeExtras handles what a poll carries besides its events: values out of
// range (flaws) and events that repeat an eventId. It runs after the
// poll's events are merged, so a duplicate finds its first version.
func (s *Store) mergeExtras(p *Poll, d *Delta) {
	for _, f := range p.Flaws {
		k := f.EventID + "\x00" + f.Field + "\x00" + f.Value
		if s.flawSeen == nil {
			s.flawSeen = make(map[string]bool)
		}
		if s.flawSeen[k] {
			continue
		}
		s.flawSeen[k] = true
		s.flaws = append(s.flaws, f)
		d.Flaws = append(d.Flaws, f)
	}
	for _, e := range p.Duplicates {
		first := s.Event(e.ID)
		if first == nil || sameJSON(first.Raw, e.Raw) {
			continue // written differently, or never merged here
		}
		s.reject(Rejected{Index: -1, EventID: e.ID, Reason: ReasonChanged, Raw: e.Raw}, d)
	}
}

// Flaws is every value out of range the store was given, in the order first
// seen (see MaxCredits and the other bounds).
func (s *Store) Flaws() []Flaw { return s.flaws }

// sameJSON reports whether a and b are the same JSON text but for white
// space outside strings.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	i, j := 0, 0
	inStr := false
	for {
		if !inStr {
			for i < len(a) && isSpace(a[i]) {
				i++
			}
			for j < len(b) && isSpace(b[j]) {
				j++
			}
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if a[i] != b[j] {
			return false
		}
		switch c := a[i]; {
		case inStr && c == '\\':
			// The escaped byte must match too.
			if i+1 >= len(a) || j+1 >= len(b) || a[i+1] != b[j+1] {
				return false
			}
			i, j = i+1, j+1
		case c == '"':
			inStr = !inStr
		}
		i, j = i+1, j+1
	}
}

// foreignReason is the reason of an event of another run.
func foreignReason(runID, watched string) string {
	return "runId " + describeID(runID) + " is another run's, not the watched " + describeID(watched)
}
