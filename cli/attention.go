package cli

import (
	"math"
	"time"

	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/model"
)

// The attention flags (watch, demo, replay) and what the printers and the
// summary say about what needs a look: see package attention.

// registerAttention adds --stall and --max-credits.
func (o *watchOptions) registerAttention(f *pflag.FlagSet) {
	f.DurationVar(&o.Stall, "stall", attention.DefaultStall, "an agent (or the whole run) with no event for this long is stalled (also 5x an agent's usual gap when longer)")
	f.Float64Var(&o.MaxCredits, "max-credits", 0, "the run's maxCredits, for the burn projection (default: the one firewatch started the run with, else 2500, shown as assumed)")
}

// minStall is the shortest --stall.
const minStall = time.Second

// checkAttention validates them (exit 2 on a bad one).
func (o *watchOptions) checkAttention(f *pflag.FlagSet) error {
	// A stall shorter than a second would be raised and cleared between
	// any two polls.
	if f.Lookup("stall") != nil && o.Stall < minStall {
		return badUsage("--stall %s: it must be at least %s", o.Stall, minStall)
	}
	// Given, it is a cap as run sends it: a positive whole number (0 is
	// not "the default", it is a mistake).
	if mc := f.Lookup("max-credits"); mc != nil && mc.Changed && (!(o.MaxCredits >= 1) || o.MaxCredits != math.Trunc(o.MaxCredits) || o.MaxCredits > 1e9) {
		return badUsage("--max-credits %v: it must be a positive whole number of credits", o.MaxCredits)
	}
	return nil
}

// attentionOptions are the tracker's options: the cap is the run's own
// maxCredits when firewatch started the run, else --max-credits, else the
// service's default, assumed.
func (w *watchSession) attentionOptions() attention.Options {
	o := w.Opts
	ao := attention.Options{Stall: o.Stall, Scale: o.timeScale}
	switch {
	case o.StartedMaxCredits > 0:
		ao.MaxCredits = o.StartedMaxCredits
	case o.MaxCredits > 0:
		ao.MaxCredits = o.MaxCredits
	}
	return ao
}

// attend runs the tracker after a merge (d) or, with d nil, on the quiet
// clock, and hands what changed to the printer.
func (w *watchSession) attend(p watchprint.Printer, d *model.Delta, now time.Time) {
	for _, c := range w.Attend(d, now) {
		p.Attention(c)
	}
}
