package model

import (
	"strings"

	"github.com/firewatch/firewatch/text"
)

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

// maxActor bounds a name kept, in bytes (the hub keeps 64 of a person,
// 64 of an mcp client and 63 of its own name).
const maxActor = 256

// SetActors records who started or cancelled the run (cleaned); a name
// already known is kept.
func (s *Store) SetActors(a Actors) { s.actors = s.actors.Merge(a.Clean()) }

// Actors is who started or cancelled the run through a hub, as far as it
// is known.
func (s *Store) Actors() Actors { return s.actors }

// An actor's record is "alice via hub prod": the person (on a hub through
// firewatch mcp "alice (mcp:claude-code)") and the name of the hub it was
// done through, in one string, so that the archive's text columns carry
// both. A record without " via hub " is from before hubs had names (or a
// local firewatch mcp's "mcp:claude-code").
const viaHub = " via hub "

// maxHubName bounds a hub's name, in bytes.
const maxHubName = 63

// HubName is name made fit to name a hub: letters, digits, '.', '-' and
// '_' kept (anything else becomes '-'), at most 63 bytes; "" when nothing
// is left.
func HubName(name string) string {
	b := make([]byte, 0, min(len(name), maxHubName))
	for i := 0; i < len(name) && len(b) < maxHubName; i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
			b = append(b, c)
		case c >= 0x80:
			// one '-' for a whole multi-byte character
			for i+1 < len(name) && name[i+1]&0xc0 == 0x80 {
				i++
			}
			b = append(b, '-')
		default:
			b = append(b, '-')
		}
	}
	s := strings.Trim(string(b), "-.")
	return s
}

// ActorVia is the record of a person who acted through the hub named hub
// ("" names no hub: the person alone).
func ActorVia(person, hub string) string {
	if hub = HubName(hub); hub == "" || person == "" {
		return person
	}
	return person + viaHub + hub
}

// SplitActor is a record's person and hub ("" when it names none): the
// last " via hub " followed by a hub's name splits it, so a person's name
// holding those words is kept whole.
func SplitActor(s string) (person, hub string) {
	i := strings.LastIndex(s, viaHub)
	if i < 0 {
		return s, ""
	}
	h := s[i+len(viaHub):]
	if h == "" || HubName(h) != h {
		return s, ""
	}
	return s[:i], h
}

// ActorFields is an actor's record as JSON says it: the person
// ("startedBy") and the hub's name ("startedVia"), each nil when not known.
func ActorFields(actor string) (by, via *string) {
	p, h := SplitActor(actor)
	if p != "" {
		by = &p
	}
	if h != "" {
		via = &h
	}
	return by, via
}
