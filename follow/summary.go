package follow

import (
	"fmt"
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/model"
)

// Summary is the run summed up, as --summary writes it and the archive
// keeps it: the model's fields, the attention fields, then what was asked
// and what is billed.
type Summary struct {
	model.Summary           `json:",inline"`
	attention.SummaryFields `json:",inline"`
	SummaryRequest          `json:",inline"`
}

// SummaryRequest are the summary's fields of what the run was asked (null
// when not known) and what the service bills for it: billedCredits by the
// one rule (model.BillOf), null while the outcome is not known.
type SummaryRequest struct {
	Prompt        *string  `json:"prompt"`
	Model         *string  `json:"model"`
	Effort        *string  `json:"effort"`
	BilledCredits *float64 `json:"billedCredits"`
}

// Summary sums the run up (its tracker made if it has none).
func (r *Run) Summary() Summary {
	sum := Summary{Summary: r.Store.Summary(), SummaryFields: r.Tracker().Summary()}
	req := r.Store.Request()
	sum.Prompt, sum.Model, sum.Effort = strOrNil(req.Prompt), strOrNil(req.Model), strOrNil(req.Effort)
	if sum.Outcome != nil {
		sum.BilledCredits = model.BillOf(*sum.Outcome, sum.CreditsUsed).BilledCredits()
	}
	return sum
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Marshal encodes the summary, indented or on one line.
func (sum Summary) Marshal(indent bool) ([]byte, error) {
	opts := []json.Options{json.Deterministic(true)} // creditsByAgent's keys in order
	if indent {
		opts = append(opts, jsontext.WithIndent("  "))
	}
	b, err := json.Marshal(sum, opts...)
	if err != nil {
		return nil, fmt.Errorf("encoding the summary: %w", err)
	}
	return b, nil
}

// Write is Marshal(false) written to w as it is encoded.
func (sum Summary) Write(w io.Writer) error {
	if err := json.MarshalWrite(w, sum, json.Deterministic(true)); err != nil {
		return fmt.Errorf("encoding the summary: %w", err)
	}
	return nil
}
