package hub

import (
	"errors"
	"fmt"
)

// AccessLevel is what a session may do, decided once when it logs in
// (from the person's role then) and checked by every service its screens
// and its command are given that changes something: the keys only choose
// what the screens say, the services refuse.
type AccessLevel int

const (
	// NoAccess may do nothing: the zero value, so that a session whose
	// level was never set is refused everything.
	NoAccess AccessLevel = iota
	// ReadOnlyAccess (a viewer) sees the screens and runs the commands
	// that only read.
	ReadOnlyAccess
	// OperatorAccess may also cancel and start runs and crawls, pause and
	// resume a shared run's polling and change its live view.
	OperatorAccess
)

func (l AccessLevel) String() string {
	switch l {
	case ReadOnlyAccess:
		return "read-only"
	case OperatorAccess:
		return "operator"
	}
	return "no access"
}

// Access is the level of a person of role r.
func (r Role) Access() AccessLevel {
	switch r {
	case Viewer:
		return ReadOnlyAccess
	case Operator:
		return OperatorAccess
	}
	return NoAccess
}

// ErrForbidden is what a change a session may not make is refused with
// (errors.Is); the error itself is an *AccessError saying who and what.
var ErrForbidden = errors.New("forbidden")

// AccessError is a change refused for the session's access level.
type AccessError struct {
	Who   Person
	Level AccessLevel
	What  string // "cancel", "start", "pause", "live view on"...
	Kind  string // "run", "crawl"
	ID    string // "" when not known
}

func (e *AccessError) Error() string {
	a := Action{Who: e.Who, What: e.What, Kind: e.Kind, ID: e.ID}
	who := e.Who.Name
	if who == "" {
		who = "this session"
	}
	return fmt.Sprintf("only the hub's operators may %s %s (%s has %s access)", e.What, a.Of(), who, e.Level)
}

// Is makes errors.Is(err, ErrForbidden) hold.
func (e *AccessError) Is(target error) bool { return target == ErrForbidden }

// Allow says whether the session may make a change (what: "cancel",
// "start", "pause"...; kind and id what to: "run", its id): nil for an
// operator's session, else an *AccessError, said in the hub's log. Every
// service handed to a session's screens or command calls it before it
// changes anything.
func (s *Session) Allow(what, kind, id string) error {
	if s == nil {
		return &AccessError{What: what, Kind: kind, ID: id}
	}
	if s.Access >= OperatorAccess {
		return nil
	}
	err := &AccessError{Who: s.Person, Level: s.Access, What: what, Kind: kind, ID: id}
	if s.hub != nil {
		s.hub.log.printf("refused %s from %s: %v", s.Person, s.Addr, err)
	}
	return err
}
