package archive

import (
	"cmp"
	"slices"
	"strings"
)

// Merge is the one rule by which what firewatch learns of a run joins what
// the archive holds: held is the record as stored (nil when there is none;
// its blobs need not be loaded), in what one source says now (a run
// started here, a recording's header, the service's list item or status, a
// derivation from the trace, a cancel). The later and more specific answer
// wins, field by field:
//
//   - the request (prompt, model, effort, urls, schema, label, cap), the
//     list item, the result and expiresAt: in's where it gives them;
//   - createdAt: in's, except that firewatch's own clock (CreatedAtLocal,
//     a run it started) never replaces the service's time;
//   - creditsUsed: the higher figure (credits only rise; a figure read
//     before the end never replaces the final one);
//   - what was derived from the trace (the outcome, the counts, the
//     summary, the credits by agent): in's as a whole when it carries a
//     derivation, unless held's is of the finished run and in's is not (a
//     watch left early never replaces what a complete read found);
//   - the status: the trace's outcome decides it when known (its
//     "cancelled" beats the service's "failed"); else a later word wins,
//     but "processing" never replaces a finished one and "failed" never
//     replaces "cancelled";
//   - Complete, Expired and CancelRequested, once set, stay set; StartedAt
//     keeps the first, and so do CancelledBy and StartedBy (the first
//     person whose cancel or start the service accepted), and RerunOf
//     with RerunChanged and the Request sent; the thread and turn: in's where it gives them.
//
// The result is a new Run; held and in are not changed. Its blobs (the
// item, the result, the summary) are in's when the rule takes in's, else
// held's (a store that did not load them keeps its own).
func Merge(held, in *Run) *Run {
	if held == nil {
		held = &Run{}
	}
	m := *held
	if in.Service != "" {
		m.Service = in.Service
	}
	if in.ID != "" {
		m.ID = in.ID
	}
	str := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	str(&m.Prompt, in.Prompt)
	str(&m.Model, in.Model)
	str(&m.Effort, in.Effort)
	str(&m.Label, in.Label)
	str(&m.Team, in.Team) // the last key whose list showed the run
	if in.URLs != nil {
		m.URLs = slices.Clone(in.URLs)
	}
	if in.Schema != nil {
		m.Schema = in.Schema
	}
	if in.MaxCredits != nil {
		m.MaxCredits = in.MaxCredits
	}
	if in.ExpiresAt != nil {
		m.ExpiresAt = in.ExpiresAt
	}
	if in.Item != nil {
		m.Item = in.Item
	}
	if in.Result != nil {
		m.Result = in.Result
	}
	switch {
	case in.CreatedAt == nil:
	case in.CreatedAtLocal && held.CreatedAt != nil:
	default:
		m.CreatedAt, m.CreatedAtLocal = in.CreatedAt, in.CreatedAtLocal
	}
	if in.CreditsUsed != nil && (m.CreditsUsed == nil || *in.CreditsUsed > *m.CreditsUsed) {
		m.CreditsUsed = in.CreditsUsed
	}
	if in.HasDerived() && (in.Complete || !held.Complete) {
		m.Outcome, m.FinishedAt, m.DurationMs, m.TokensUsed = in.Outcome, in.FinishedAt, in.DurationMs, in.TokensUsed
		m.Events, m.ToolCalls, m.Errors, m.Attention = in.Events, in.ToolCalls, in.Errors, in.Attention
		m.CreditsByAgent = in.CreditsByAgent
		m.Summary, m.SummaryEncoded = in.Summary, in.SummaryEncoded
	}
	m.Status = mergeStatus(held.Status, in.Status)
	if m.Outcome != "" {
		m.Status = StatusOf(m.Outcome)
	}
	if in.StartedAt != nil && m.StartedAt == nil {
		m.StartedAt = in.StartedAt
	}
	m.Complete = held.Complete || in.Complete
	m.Expired = held.Expired || in.Expired
	m.CancelRequested = held.CancelRequested || in.CancelRequested
	m.CancelledBy = cmp.Or(held.CancelledBy, in.CancelledBy)
	m.StartedBy = cmp.Or(held.StartedBy, in.StartedBy)
	// What a run was rerun from is said once, when it starts.
	if m.RerunOf == "" && in.RerunOf != "" {
		m.RerunOf, m.RerunChanged = in.RerunOf, slices.Clone(in.RerunChanged)
	}
	if m.Request == nil && in.Request != nil {
		m.Request = slices.Clone(in.Request)
	}
	str(&m.ThreadID, in.ThreadID)
	if in.ThreadTurn > 0 {
		m.ThreadTurn = in.ThreadTurn
	}
	return &m
}

// mergeStatus is the service's status word after a source said in.
func mergeStatus(held, in string) string {
	h, n := strings.ToLower(held), strings.ToLower(in)
	switch {
	case in == "":
		return held
	case n == "processing" && held != "" && h != "processing":
		return held // a finished run does not start again
	case n == "failed" && (h == "cancelled" || h == "canceled"):
		return held // the service has no word for a cancel
	}
	return in
}

// StatusOf is the service's status word for a run that ended with outcome:
// completed for a success, cancelled for a cancel (which the service
// reports as failed), failed for the rest.
func StatusOf(outcome string) string {
	switch outcome {
	case "succeeded":
		return "completed"
	case "cancelled":
		return "cancelled"
	}
	return "failed"
}

// HasDerived reports whether r carries a derivation from the trace: a
// summary or an outcome.
func (r *Run) HasDerived() bool {
	return r.Summary != nil || r.SummaryEncoded != nil || r.Outcome != ""
}
