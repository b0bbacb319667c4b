package attention

import (
	"time"

	"github.com/firewatch/firewatch/model"
)

// Explain is one line on what an error code means and what to do about it.
// Unknown codes get a general line.
func Explain(code model.ErrorCode) string {
	switch code {
	case model.CodeCancelled:
		return "cancelled by a DELETE of the job; credits used until then count, and can keep accruing for a moment after the cancel"
	case model.CodeCreditLimitReached:
		return "the run hit its maxCredits and stopped; nothing beyond the cap is billed; raise maxCredits (default 2,500) or narrow the prompt"
	case model.CodeParentFinished:
		return "stopped because the agent that started it finished first; see that agent's outcome"
	case model.CodeRefused:
		return "the agent declined the task; change what is asked, as it is it will be refused again"
	case model.CodeInternal:
		return "a failure inside the service (a model or tool outage); if the run failed, none of its credits are billed; try again later"
	}
	return "an error code the spec does not name; see its message"
}

// ExplainRetryable is one line on the retryable flag.
func ExplainRetryable(retryable bool) string {
	if retryable {
		return "retryable: the same request may work if tried again"
	}
	return "not retryable: change the request before trying again"
}

// ExplainError is Explain and ExplainRetryable together, for an error's
// details.
func ExplainError(te *model.TraceError) string {
	if te == nil {
		return ""
	}
	return Explain(te.Code) + " · " + ExplainRetryable(te.Retryable)
}

// Explained is one error code met in the run with its explanation.
type Explained struct {
	Code      model.ErrorCode
	Retryable bool
	Count     int
	Text      string
}

// ExplainAll lists each (code, retryable) pair among the run's errors once,
// in the order first met, with its explanation.
func ExplainAll(s *model.Store) []Explained {
	var out []Explained
	for _, en := range s.Errors() {
		found := false
		for i := range out {
			if out[i].Code == en.Error.Code && out[i].Retryable == en.Error.Retryable {
				out[i].Count++
				found = true
			}
		}
		if !found {
			out = append(out, Explained{Code: en.Error.Code, Retryable: en.Error.Retryable, Count: 1, Text: ExplainError(&en.Error)})
		}
	}
	return out
}

// SummaryItem is one item of the summary's "attention" array.
type SummaryItem struct {
	Kind        Kind      `json:"kind"`
	AgentID     *string   `json:"agentId"`
	ToolCallIDs []string  `json:"toolCallIds"`
	Message     string    `json:"message"`
	FirstAt     time.Time `json:"firstAt"`
	LastAt      time.Time `json:"lastAt"`
	Count       int       `json:"count"`
	Cleared     bool      `json:"cleared"`
	// Reached: a budget the run reached (it ended at its cap), which is
	// not "cleared".
	Reached bool `json:"reached"`
}

// SummaryFields are the fields attention adds to the run's summary.
type SummaryFields struct {
	Attention         []SummaryItem      `json:"attention"`
	CreditsByAgent    map[string]float64 `json:"creditsByAgent"`
	BurnRatePerMinute float64            `json:"burnRatePerMinute"`
	MaxCredits        float64            `json:"maxCredits"`
	MaxCreditsAssumed bool               `json:"maxCreditsAssumed"`
}

// Summary is the tracker's part of the summary.
func (t *Tracker) Summary() SummaryFields {
	sum := SummaryFields{Attention: make([]SummaryItem, 0, len(t.items)), CreditsByAgent: make(map[string]float64)}
	for _, it := range t.items {
		si := SummaryItem{Kind: it.Kind, ToolCallIDs: it.ToolCallIDs, Message: it.Message,
			FirstAt: it.FirstAt.UTC(), LastAt: it.LastAt.UTC(), Count: it.Count, Cleared: it.Cleared, Reached: it.Reached}
		if si.ToolCallIDs == nil {
			si.ToolCallIDs = []string{}
		}
		if it.AgentID != "" {
			id := it.AgentID
			si.AgentID = &id
		}
		sum.Attention = append(sum.Attention, si)
	}
	for _, ac := range t.Estimate() {
		sum.CreditsByAgent[ac.AgentID] = ac.Credits
	}
	b := t.Burn()
	sum.BurnRatePerMinute = roundTo(b.RunPerMin, 100)
	sum.MaxCredits, sum.MaxCreditsAssumed = b.Cap, b.CapAssumed
	return sum
}

func roundTo(v, f float64) float64 {
	return float64(int64(v*f+0.5)) / f
}
