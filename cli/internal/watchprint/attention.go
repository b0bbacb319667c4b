package watchprint

import (
	"fmt"
	"strings"
	"time"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

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

// Attention prints an item that came or went.
func (p *Plain) Attention(c attention.Change) {
	p.buf.Reset()
	sgr := sgrYellow
	if c.Cleared {
		sgr = sgrGreen
	}
	line := p.sym(attentionLine(p.w.Run.Store, c))
	p.paint(sgr, truncate(line, max(minDetailW, p.lineW), p.tail()))
	p.buf.WriteByte('\n')
	p.flush()
}

// Attention says an item that came or went on stderr.
func (p *JSON) Attention(c attention.Change) {
	fmt.Fprintf(p.w.Stderr, "firewatch: %s\n", attentionLine(p.w.Run.Store, c))
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
func (p *Plain) attentionRows(row func(label, sgr, value string)) {
	w := p.w.Run
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
		row("attention", sgrYellow, text.Plural(len(items), "item", "items")+" raised")
		for _, it := range items {
			row("", "", "! "+string(it.Kind)+"  "+agentName(w.Store, it.AgentID)+"  "+it.Message+" ("+it.State()+")")
		}
	}
}
