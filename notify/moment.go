package notify

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/text"
)

// Moment is one thing worth telling, as every sink is handed it. Its
// strings are sanitised, one line each, with the secrets and the run's
// live-view links redacted.
type Moment struct {
	// Key names the moment in its run: the same moment of the same run
	// has the same key, in every attempt to deliver it (the webhook's
	// "id", for a receiver that wants to drop a repeat).
	Key   string
	Event Event
	At    time.Time // when firewatch decided it (local time)
	// Text is the line for people: "run 5eb381f7 succeeded: 288 credits
	// in 4m12s".
	Text      string
	Job       Job
	Attention *Attention  // EventAttention's item
	Budget    *Budget     // EventBudget's share
	Team      *TeamMoment // EventTeam's share or projection
	// Dropped is how many moments this sink dropped since the last one
	// it delivered (it was too far behind); Text then ends with "(3
	// notifications were dropped)".
	Dropped int
}

// Kinds of Job.
const (
	KindRun   = "run"
	KindCrawl = "crawl"
)

// (KindTeam, the team's moments, is in team.go.)

// Job is the run (or the crawl) a moment is about, as it stood then.
type Job struct {
	Kind   string // KindRun or KindCrawl
	ID     string
	Prompt string // a run's (cut to maxPrompt)
	Model  string // a run's
	URL    string // a crawl's
	// Outcome is a run's outcome, a crawl's final status; "" while it runs.
	Outcome     string
	Credits     *float64 // nil: not known
	Duration    time.Duration
	HasDuration bool
	Pages       int // a crawl's pages seen
	// StartedBy and CancelledBy name who started or cancelled a run
	// through a hub; "" when nobody did there or firewatch did not see it.
	StartedBy, CancelledBy string
	// CancelledHere: this process cancelled the run (no name to give).
	CancelledHere bool
}

// Attention is the item an EventAttention moment is about.
type Attention struct {
	Kind    attention.Kind
	AgentID string // "" for the run as a whole
	Agent   string // its name, else its short id; "run" for the whole run
	Message string // the tracker's message when it was raised
}

// Budget is the share of the cap an EventBudget moment is about.
type Budget struct {
	Share      float64 // of the cap, 0.8 for budget:80%
	Credits    float64 // used
	Cap        float64
	CapAssumed bool // not told: the service's default
}

// Bounds of what a moment carries.
const (
	maxText    = 300 // cells of Text
	maxPrompt  = 1000
	maxField   = 200 // a name, a model, a message
	maxURLText = 500
)

// ended is "succeeded", "failed", "was cancelled"... for a run's outcome.
func ended(outcome string) string {
	switch outcome {
	case "succeeded", "failed":
		return outcome
	case "cancelled":
		return "was cancelled"
	case "refused":
		return "was refused"
	case "credit_limit_reached":
		return "reached its credit limit"
	}
	return "ended " + describe.OneLine(outcome, 40)
}

// credits is "288 credits", "1 credit", "12.5 credits".
func credits(c float64) string {
	n := describe.Tokens(c)
	if c != math.Trunc(c) && math.Abs(c) < 1e6 {
		n = strconv.FormatFloat(c, 'f', 1, 64)
	}
	if c == 1 {
		return n + " credit"
	}
	return n + " credits"
}

// figures is ": 288 credits in 4m12s", " in 4m12s", ": 288 credits" or "".
func figures(j *Job, extra ...string) string {
	var parts []string
	parts = append(parts, extra...)
	if j.Credits != nil {
		parts = append(parts, credits(*j.Credits))
	}
	s := strings.Join(parts, ", ")
	if j.HasDuration {
		d := text.Duration(j.Duration)
		if s == "" {
			return " in " + d
		}
		s += " in " + d
	}
	if s == "" {
		return ""
	}
	return ": " + s
}

// head is "run 5eb381f7" or "crawl 1a2b3c4d".
func head(j *Job) string { return j.Kind + " " + describe.ShortID(j.ID) }

// attentionHead says what an item kind is, after "run 5eb381f7 ".
var attentionHead = map[attention.Kind]string{
	attention.KindStall:         "stalled",
	attention.KindSlowTool:      "has a slow tool call",
	attention.KindLoop:          "is looping",
	attention.KindFailingStreak: "has a failing streak",
	attention.KindBudget:        "is near its budget",
}

// attentionText is "run 5eb381f7 stalled: nothing new for 1m00s" (the
// whole run) or "run 5eb381f7 is looping: pricing-researcher:
// mcp__tools__search called 3 times with the same parameters (7.5s in
// all)".
func attentionText(j *Job, a *Attention) string {
	h, ok := attentionHead[a.Kind]
	if !ok {
		h = "needs a look (" + describe.OneLine(string(a.Kind), 30) + ")"
	}
	msg := a.Message
	if a.AgentID == "" {
		msg = strings.Replace(msg, "the whole run quiet for ", "nothing new for ", 1)
	} else {
		msg = a.Agent + ": " + msg
	}
	return head(j) + " " + h + ": " + msg
}

// budgetText is "run 5eb381f7 used 80% of its cap: 2,000 of 2,500
// credits" ("of an assumed 2,500" when the cap was not told).
func budgetText(j *Job, b *Budget) string {
	of := describe.Tokens(b.Cap)
	if b.CapAssumed {
		of = "an assumed " + of
	}
	pct := strconv.FormatFloat(math.Round(b.Share*1000)/10, 'f', -1, 64)
	return head(j) + " used " + pct + "% of its cap: " + describe.Tokens(b.Credits) + " of " + of + " credits"
}

// endText is "run 5eb381f7 succeeded: 288 credits in 4m12s", with the
// error's message after a dash when there is one.
func endText(j *Job, errMsg string) string {
	var s string
	if j.Kind == KindCrawl {
		s = head(j) + " " + crawlEnded(j.Outcome) + figures(j, describe.Count(j.Pages, "page"))
	} else {
		s = head(j) + " " + ended(j.Outcome) + cancelledBy(j) + figures(j)
	}
	if errMsg != "" {
		s += " — " + errMsg
	}
	if j.Kind == KindRun && j.StartedBy != "" {
		s += " (started by " + describe.ViaHub(j.StartedBy) + ")"
	}
	return s
}

// cancelledBy is " by alice through the hub" after a cancelled run's
// "was cancelled", or " (by the service or a client firewatch did not
// see)" when firewatch does not know who: never a guess.
func cancelledBy(j *Job) string {
	if j.Outcome != "cancelled" {
		return ""
	}
	if j.CancelledBy != "" {
		return " by " + describe.ViaHub(j.CancelledBy)
	}
	if j.CancelledHere {
		return " by " + describe.CancelledHere
	}
	return " (by " + describe.UnknownCanceller + ")"
}

// crawlEnded is "completed", "failed", "was cancelled" for a crawl.
func crawlEnded(status string) string {
	switch strings.ToLower(status) {
	case "completed", "failed":
		return strings.ToLower(status)
	case "cancelled", "canceled":
		return "was cancelled"
	}
	return "ended " + describe.OneLine(status, 40)
}
