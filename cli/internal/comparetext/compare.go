package comparetext

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/compare"
	"github.com/firewatch/firewatch/text"
)

// SideOf is one side of a comparison, and the figures compare.Build takes
// of it, from rr: the run read from ref (a file, or a job id). What the
// run says of itself (prompt, model) is sanitised.
func SideOf(ref string, rr *archiving.RunRead, secrets *text.Secrets) (*compare.Side, *compare.Run) {
	f := &rr.Figures
	sum := rr.Run.Summary()
	s := &compare.Side{Ref: ref, Prompt: orNil(secrets.Sanitize(f.Prompt)), Model: orNil(secrets.Sanitize(f.Model)),
		Outcome: orNil(f.Outcome), MaxCredits: f.MaxCredits, BilledCredits: f.Bill.BilledCredits(), Complete: f.Complete}
	if id := cmp.Or(f.ID, rr.Store().Run().ID); id != "" {
		s.ID = &id
	}
	run := &compare.Run{Secrets: secrets, Store: rr.Store(), DurationMs: f.DurationMs, TokensUsed: sum.TokensUsed, Result: f.Result,
		Agents: len(sum.Agents), ToolCalls: len(sum.ToolCalls), Errors: len(sum.Errors), Attention: f.Attention, CreditsByAgent: f.CreditsByAgent}
	if f.CreditsUsed != nil {
		run.CreditsUsed = *f.CreditsUsed
	}
	return s, run
}

func orNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Unused says of each --fail-on threshold on a tool that neither run
// called (compare.Gates.Unused) that it did not apply, a line each.
func Unused(gs compare.Gates, c *compare.Comparison, secrets *text.Secrets) string {
	var b strings.Builder
	for _, u := range gs.Unused(c) {
		called := "neither called any tool"
		if len(u.Called) > 0 {
			called = "they called " + strings.Join(u.Called, ", ")
		}
		fmt.Fprintf(&b, "firewatch: compare: --fail-on %s: neither run called %s (%s); it crosses only when a candidate calls it\n",
			text.Sanitize(u.Gate.Spec), text.Sanitize(u.Tool), secrets.Sanitize(called))
	}
	return b.String()
}

// Write writes c on w as the mode asks: "json" the comparison's JSON,
// "md" Markdown, else text (coloured when colour); redacted.
func Write(w io.Writer, c *compare.Comparison, mode string, secrets *text.Secrets, colour bool) error {
	var out []byte
	switch mode {
	case "json":
		b, err := json.Marshal(c, json.Deterministic(true), jsontext.WithIndent("  "))
		if err != nil {
			return err
		}
		out, _ = secrets.RedactJSON(b)
		out = append(out, '\n')
	case "md":
		out = []byte(secrets.Redact(Markdown(c)))
	default:
		out = []byte(secrets.Redact(Text(c, colour)))
	}
	_, err := w.Write(out)
	return err
}
