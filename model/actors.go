package model

import "github.com/firewatch/firewatch/text"

// Actors is who started or cancelled the run through a hub, as far as
// firewatch knows it (the person's name, the comment of their key in the
// hub's keys files): from the hub that did it, or from the archive's
// record of the run. "" when nobody did through a hub, or firewatch did
// not see it: never a guess.
type Actors struct {
	StartedBy, CancelledBy string
	// CancelledHere: this process cancelled the run (a watch's c outside
	// a hub), with no name to give: it is not "unknown", nor a person.
	CancelledHere bool
}

// IsZero reports whether nothing is known.
func (a Actors) IsZero() bool { return a.StartedBy == "" && a.CancelledBy == "" && !a.CancelledHere }

// Merge fills what a does not know from o: the first name known is kept,
// as the archive keeps it.
func (a Actors) Merge(o Actors) Actors {
	if a.StartedBy == "" {
		a.StartedBy = o.StartedBy
	}
	if a.CancelledBy == "" {
		a.CancelledBy = o.CancelledBy
	}
	a.CancelledHere = a.CancelledHere || o.CancelledHere
	return a
}

// Clean returns a with its names sanitised and bounded (they may come
// from a keys file or the archive).
func (a Actors) Clean() Actors {
	return Actors{StartedBy: text.Sanitize(cut(a.StartedBy, maxActor)), CancelledBy: text.Sanitize(cut(a.CancelledBy, maxActor)), CancelledHere: a.CancelledHere}
}

// maxActor bounds a name kept, in bytes (the hub keeps 64).
const maxActor = 200

// SetActors records who started or cancelled the run (cleaned); a name
// already known is kept.
func (s *Store) SetActors(a Actors) { s.actors = s.actors.Merge(a.Clean()) }

// Actors is who started or cancelled the run through a hub, as far as it
// is known.
func (s *Store) Actors() Actors { return s.actors }
