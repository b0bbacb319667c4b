package describe

import (
	"strings"

	"github.com/firewatch/firewatch/model"
)

// UnknownCanceller is who cancelled a run firewatch did not see cancelled
// through a hub: it does not know, and says so rather than guess.
const UnknownCanceller = "the service or a client firewatch did not see"

// CancelledHere is who cancelled a run this process cancelled itself (a
// watch's c outside a hub): it has no name to give.
const CancelledHere = "this firewatch (c on its screen)"

// ViaHub is a hub's person as every output names them: "alice via hub
// prod" (the hub's name, model.ActorVia), "alice through the hub" for a
// record from before hubs had names, "mcp:claude-code" for a local
// firewatch mcp's.
func ViaHub(name string) string {
	person, hub := model.SplitActor(name)
	person = OneLine(person, 140)
	switch {
	case hub != "":
		return person + " via hub " + hub
	case strings.HasPrefix(person, "mcp:"):
		return person
	}
	return person + " through the hub"
}

// StartedBy is who started the run, "bob through the hub", or "" when
// nobody did through a hub that firewatch knows of.
func StartedBy(a model.Actors) string {
	if a.StartedBy == "" {
		return ""
	}
	return ViaHub(a.StartedBy)
}

// CancelledBy is who cancelled the run: "alice through the hub", else
// UnknownCanceller. Ask it only of a run that was cancelled.
func CancelledBy(a model.Actors) string {
	if a.CancelledBy == "" && a.CancelledHere {
		return CancelledHere
	}
	if a.CancelledBy == "" {
		return UnknownCanceller
	}
	return ViaHub(a.CancelledBy)
}

// Cancelled is a cancelled run's end with who did it: "cancelled by alice
// through the hub", or "cancelled, by the service or a client firewatch
// did not see".
func Cancelled(a model.Actors) string {
	if a.CancelledBy == "" && a.CancelledHere {
		return "cancelled by " + CancelledHere
	}
	if a.CancelledBy == "" {
		return "cancelled, by " + UnknownCanceller
	}
	return "cancelled by " + ViaHub(a.CancelledBy)
}

// HubPerson is who a hub's session is, as its screens say it: "alice ·
// viewer" (the name from the keys file, cut to 24 cells; "someone" when
// the key has no comment), "" outside a hub.
func HubPerson(name, role string) string {
	if role == "" {
		return ""
	}
	name = OneLine(name, 24)
	if name == "" {
		name = "someone"
	}
	return name + " · " + role
}
