package hub

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/text"
)

// The access level is the role's, decided at login; Allow lets an
// operator's session change runs and refuses a viewer's, and a session
// whose level was never set, with an *AccessError that is ErrForbidden.
func TestSessionAllow(t *testing.T) {
	if Viewer.Access() != ReadOnlyAccess || Operator.Access() != OperatorAccess || Role(0).Access() != NoAccess {
		t.Fatalf("levels: viewer %s, operator %s, nobody %s", Viewer.Access(), Operator.Access(), Role(0).Access())
	}
	h := &Hub{log: &logger{w: &strings.Builder{}, secrets: text.NewSecrets(), now: time.Now}}
	op := &Session{Person: Person{Name: "alice", Role: Operator}, Access: OperatorAccess, hub: h}
	if err := op.Allow("cancel", "run", "x"); err != nil {
		t.Errorf("an operator's cancel: %v", err)
	}
	for _, s := range []*Session{
		{Person: Person{Name: "bob", Role: Viewer}, Access: ReadOnlyAccess, hub: h},
		{Person: Person{Name: "carol", Role: Operator}, hub: h}, // no level set: nothing is allowed
		nil,
	} {
		err := s.Allow("start", "run", "")
		var ae *AccessError
		if !errors.Is(err, ErrForbidden) || !errors.As(err, &ae) || ae.What != "start" {
			t.Errorf("%v: start allowed or refused wrongly: %v", s, err)
		}
	}
}
