package cli

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
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

// attentionPrinter is a printer that shows items as they come and go.
type attentionPrinter interface {
	attention(c attention.Change)
}

// attend runs the tracker after a merge (d) or, with d nil, on the quiet
// clock, and hands what changed to the printer.
func (w *watchSession) attend(p printer, d *model.Delta, now time.Time) {
	ch := w.Attend(d, now)
	if ap, ok := p.(attentionPrinter); ok {
		for _, c := range ch {
			ap.attention(c)
		}
	}
}

// attentionLine is "! stall  docs-analyst  no event for 1m12s" when an
// item appears and "✓ stall  docs-analyst  cleared: no event for 1m30s"
// when it clears.
func attentionLine(s *model.Store, c attention.Change) string {
	mark, msg := "!", c.Message
	if c.Cleared {
		mark, msg = "✓", "cleared: "+msg
	}
	return mark + " " + string(c.Item.Kind) + "  " + agentName(s, c.Item.AgentID) + "  " + msg
}

// agentName is the agent's name (sanitised by the model), its short id
// when it has none, "run" for the run as a whole.
func agentName(s *model.Store, id string) string {
	if id == "" {
		return "run"
	}
	if a := s.Agent(id); a != nil && a.Name != "" {
		return describe.OneLine(a.Name, 40)
	}
	return describe.ShortID(id)
}

func (p *plainPrinter) attention(c attention.Change) {
	p.buf.Reset()
	sgr := sgrYellow
	if c.Cleared {
		sgr = sgrGreen
	}
	line := p.sym(attentionLine(p.w.Store, c))
	p.paint(sgr, truncate(line, max(minDetailW, p.lineW), p.tail()))
	p.buf.WriteByte('\n')
	p.flush()
}

func (p *jsonPrinter) attention(c attention.Change) {
	fmt.Fprintf(p.w.Stderr, "firewatch: %s\n", attentionLine(p.w.Store, c))
}

// burnText is "≈ 258 credits/min (last minute), 2,500 cap (assumed)
// reached in about 8m at this rate".
func burnText(b attention.Burn) string {
	if !b.HasRate {
		return ""
	}
	v := "≈ " + describe.Tokens(b.PerMinute) + " credits/min"
	if b.Running {
		v += " now, " + describe.Tokens(b.RunPerMin) + " over the run"
	} else {
		v = "≈ " + describe.Tokens(b.RunPerMin) + " credits/min over the run"
	}
	v += " · cap " + describe.Tokens(b.Cap)
	if b.CapAssumed {
		v += " (assumed)"
	}
	if b.Running && b.ToCap > 0 {
		v += ", reached in about " + text.Duration(b.ToCap.Round(time.Second)) + " at this rate"
	}
	return v
}

// attentionRows are the closing block's rows about attention: the burn,
// the estimate per agent, the items seen and the errors explained.
func (p *plainPrinter) attentionRows(row func(label, sgr, value string)) {
	w := p.w
	tk := w.Tracker()
	for _, ex := range attention.ExplainAll(w.Store) {
		row("", "", string(ex.Code)+": "+ex.Text)
	}
	if w.Store.Run().HasCredits {
		if v := burnText(tk.Burn()); v != "" {
			row("burn", "", v)
		}
		if est := tk.Estimate(); len(est) > 0 {
			row("by agent", "", "estimated from tool-call time, not billing")
			// In the agents' tree order, indented by depth as the event
			// lines are.
			by := make(map[string]float64, len(est))
			for _, ac := range est {
				by[ac.AgentID] = ac.Credits
			}
			for _, a := range w.Store.Agents() {
				if c, ok := by[a.ID]; ok {
					row("", "", strings.Repeat("  ", min(a.Depth, maxIndent))+"≈ "+describe.Tokens(c)+" "+agentName(w.Store, a.ID))
					delete(by, a.ID)
				}
			}
			for _, ac := range est { // none in practice: every estimate is of an agent of the store
				if _, ok := by[ac.AgentID]; ok {
					row("", "", "≈ "+describe.Tokens(ac.Credits)+" "+agentName(w.Store, ac.AgentID))
				}
			}
		}
	}
	items := tk.Items()
	if len(items) == 0 {
		row("attention", "", "nothing needed a look")
	} else {
		row("attention", sgrYellow, plural(len(items), "item", "items")+" raised")
		for _, it := range items {
			row("", "", "! "+string(it.Kind)+"  "+agentName(w.Store, it.AgentID)+"  "+it.Message+" ("+it.State()+")")
		}
	}
}
