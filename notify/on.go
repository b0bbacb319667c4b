package notify

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Event is what a moment is about.
type Event string

const (
	// EventFinished: the run (or crawl) ended, whatever its outcome; its
	// event is EventFailed instead when it ended badly.
	EventFinished Event = "finished"
	// EventFailed: the run ended badly (failed, refused, the credit
	// limit: every outcome but succeeded and cancelled), or the crawl
	// failed.
	EventFailed Event = "failed"
	// EventAttention: the first item of one kind of attention (stall,
	// slow-tool, loop, failing-streak, budget) in the run.
	EventAttention Event = "attention"
	// EventBudget: the credits used reached a share of the cap.
	EventBudget Event = "budget"
)

// On is which moments are sent (--notify-on).
type On struct {
	Finished  bool // every end, with its outcome (failures included)
	Failed    bool // the ends that are failures
	Attention bool
	// Budgets are shares of the cap (0.8 for budget:80%), ascending; each
	// is sent once per run.
	Budgets []float64
	// Team are shares of the team's plan (0.8 for team:80%), ascending;
	// each is sent once per billing period (team.go).
	Team []float64
	// TeamProjected: the projection says the plan runs out before the
	// billing period ends (team:projected), once per period.
	TeamProjected bool
}

// DefaultOn is finished and attention.
func DefaultOn() On { return On{Finished: true, Attention: true} }

// OnWords are the words of --notify-on, for help and completion.
const OnWords = "finished, failed, attention, budget:N%, team:N%, team:projected"

// ParseOn reads --notify-on: a comma-separated list of finished, failed,
// attention, budget:N% (N from 1 to 100; budget:80% is 80 % of the
// run's cap), team:N% (N % of the team's plan used in the billing period)
// and team:projected (the plan runs out before the period ends, at the
// last 7 days' rate). Words are case-insensitive; repeating one changes
// nothing.
func ParseOn(s string) (On, error) {
	var on On
	if strings.TrimSpace(s) == "" {
		return on, errors.New("it is empty: choose from " + OnWords)
	}
	for w := range strings.SplitSeq(s, ",") {
		w = strings.ToLower(strings.TrimSpace(w))
		switch {
		case w == "finished":
			on.Finished = true
		case w == "failed":
			on.Failed = true
		case w == "attention":
			on.Attention = true
		case w == "budget":
			return on, errors.New(`"budget" needs the share of the cap, e.g. budget:80%`)
		case strings.HasPrefix(w, "budget:"):
			share, err := parseShare(strings.TrimPrefix(w, "budget:"))
			if err != nil {
				return on, fmt.Errorf("%q: %v", w, err)
			}
			if !slices.Contains(on.Budgets, share) {
				on.Budgets = append(on.Budgets, share)
			}
		case w == "team":
			return on, errors.New(`"team" needs the share of the plan or "projected", e.g. team:80% or team:projected`)
		case w == "team:projected":
			on.TeamProjected = true
		case strings.HasPrefix(w, "team:"):
			share, err := parseShare(strings.TrimPrefix(w, "team:"))
			if err != nil {
				return on, fmt.Errorf("%q: %v", w, strings.Replace(strings.Replace(err.Error(), "the cap", "the plan", 1), "budget:", "team:", 1))
			}
			if !slices.Contains(on.Team, share) {
				on.Team = append(on.Team, share)
			}
		case w == "":
			return on, errors.New("an empty word in the list: choose from " + OnWords)
		default:
			return on, fmt.Errorf("%q is not a moment firewatch knows: choose from %s", w, OnWords)
		}
	}
	slices.Sort(on.Budgets)
	slices.Sort(on.Team)
	return on, nil
}

// parseShare reads "80%" (or "80") as 0.8.
func parseShare(s string) (float64, error) {
	n := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || n == "" {
		return 0, errors.New("the share of the cap must be a percentage, e.g. budget:80%")
	}
	if !(f >= 1 && f <= 100) {
		return 0, errors.New("the share of the cap must be from 1% to 100%")
	}
	return f / 100, nil
}

// String is the list as --notify-on takes it.
func (o On) String() string {
	var w []string
	if o.Finished {
		w = append(w, "finished")
	}
	if o.Failed {
		w = append(w, "failed")
	}
	if o.Attention {
		w = append(w, "attention")
	}
	for _, b := range o.Budgets {
		w = append(w, "budget:"+strconv.FormatFloat(b*100, 'f', -1, 64)+"%")
	}
	for _, b := range o.Team {
		w = append(w, "team:"+strconv.FormatFloat(b*100, 'f', -1, 64)+"%")
	}
	if o.TeamProjected {
		w = append(w, "team:projected")
	}
	return strings.Join(w, ",")
}

// wants reports whether a moment of event e is sent.
func (o On) wants(e Event) bool {
	switch e {
	case EventFinished:
		return o.Finished
	case EventFailed:
		return o.Finished || o.Failed
	case EventAttention:
		return o.Attention
	case EventBudget:
		return len(o.Budgets) > 0
	case EventTeam:
		return len(o.Team) > 0 || o.TeamProjected
	}
	return false
}
