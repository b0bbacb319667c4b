package cli

import (
	"fmt"

	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
)

// reportBad says what a merge set aside or did not use: each event set
// aside and each value out of range once in the debug log, and one line on
// stderr (plain and JSON output) for each kind of trouble in the merge.
func reportBad(w *watchSession, p watchprint.Printer, d model.Delta) {
	if len(d.Rejected) > 0 {
		for _, r := range d.Rejected {
			w.Debug.Printf("event set aside (index %d, id %q): %s", r.Index, describe.OneLine(r.EventID, 60), r.Reason)
		}
		p.Health(fmt.Sprintf("%s set aside: %s", plural(len(d.Rejected), "event", "events"), describe.OneLine(d.Rejected[0].Reason, 120)))
	}
	if len(d.Flaws) > 0 {
		for _, f := range d.Flaws {
			w.Debug.Printf("value not used: %s", flawText(f))
		}
		p.Health(fmt.Sprintf("%s out of range, not used: %s", plural(len(d.Flaws), "value", "values"), flawText(d.Flaws[0])))
	}
}

// flawText is one bad value in a few words: creditsUsed 1.7e308 (above 1e+12)
// in event 1a2b3c4d.
func flawText(f model.Flaw) string {
	s := fmt.Sprintf("%s %s (%s)", f.Field, describe.OneLine(f.Value, 40), f.Reason)
	if f.EventID != "" {
		s += " in event " + describe.OneLine(f.EventID, 40)
	}
	return s
}
