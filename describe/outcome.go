package describe

import (
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
)

// OutcomeInfo is the one mapping from a run's or an agent's outcome to what
// firewatch shows for it: its word, its Level (the colour) and its symbol.
// The UI's agents pane and header, the plain printer and describe use it;
// the exit code of an outcome is decided in cli/internal/exitcode.
type OutcomeInfo struct {
	Word   string
	Level  Level
	Symbol func(theme.Symbols) string
}

var outcomes = map[model.Outcome]OutcomeInfo{
	model.OutcomeSucceeded:          {"succeeded", Good, func(s theme.Symbols) string { return s.Succeeded }},
	model.OutcomeFailed:             {"failed", Bad, func(s theme.Symbols) string { return s.Failed }},
	model.OutcomeCancelled:          {"cancelled", Warn, func(s theme.Symbols) string { return s.Cancelled }},
	model.OutcomeRefused:            {"refused", Bad, func(s theme.Symbols) string { return s.Refused }},
	model.OutcomeCreditLimitReached: {"credit_limit_reached", Bad, func(s theme.Symbols) string { return s.CreditLimit }},
}

// Outcome is what firewatch shows for o. An outcome the spec does not name
// keeps its own word (sanitised, "-" when empty), counts as bad (as its exit code does) and
// has the "unfinished" symbol.
func Outcome(o model.Outcome) OutcomeInfo {
	if in, ok := outcomes[o]; ok {
		return in
	}
	return OutcomeInfo{orDash(OneLine(string(o), 40)), Bad, func(s theme.Symbols) string { return s.Unfinished }}
}

// CapHit is what a run that ended at its credit cap did: "hit its
// 150-credit cap". With the cap not told (assumed), it names what the run
// used instead, which the service stops a run at: "hit its credit cap at
// 150 credits".
func CapHit(cap float64, assumed bool, used float64) string {
	if assumed {
		return "hit its credit cap at " + text.Credits(used)
	}
	return "hit its " + Tokens(cap) + "-credit cap"
}
