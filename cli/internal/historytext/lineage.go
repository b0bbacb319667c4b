package historytext

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/runs"
)

// history --thread and --reruns: a run's lineage from the archive, in
// order.

// Lineage is the runs of all that are thread's turns (thread: a thread id
// or one of its runs' ids), or root and its reruns, transitively; in turn
// order, else the order they started.
func Lineage(all []archive.Run, thread, root string) []archive.Run {
	var out []archive.Run
	if thread != "" {
		tid := strings.ToLower(thread)
		for _, r := range all {
			if r.ID == tid && r.ThreadID != "" {
				tid = r.ThreadID
			}
		}
		for _, r := range all {
			if r.ThreadID == tid {
				out = append(out, r)
			}
		}
		slices.SortStableFunc(out, func(x, y archive.Run) int {
			return cmp.Or(cmp.Compare(x.ThreadTurn, y.ThreadTurn), x.SortTime().Compare(y.SortTime()))
		})
		return out
	}
	in := map[string]bool{strings.ToLower(root): true}
	for changed := true; changed; {
		changed = false
		for _, r := range all {
			if !in[r.ID] && r.RerunOf != "" && in[r.RerunOf] {
				in[r.ID], changed = true, true
			}
		}
	}
	for _, r := range all {
		if in[r.ID] {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(x, y archive.Run) int { return x.SortTime().Compare(y.SortTime()) })
	return out
}

// NoLineage is what history says when the archive holds no run of the
// lineage asked for.
func NoLineage(thread, reruns string) string {
	what := "thread " + text.Sanitize(thread)
	if reruns != "" {
		what = "run " + text.Sanitize(reruns)
	}
	return "firewatch: history: the archive holds no run of " + what + "\n"
}

// WriteLineageJSON writes the lineage's runs as history's JSON lines.
func WriteLineageJSON(w io.Writer, list []archive.Run, secrets *text.Secrets, now time.Time) error {
	return WriteJSONLines(w, secrets, len(list), func(i int) any {
		f := archiving.FiguresOf(&list[i], now)
		return LineOf(&f)
	}, json.Deterministic(true), json.FormatNilMapAsNull(true))
}

// WriteLineage writes the lineage's runs as a table (TURN, CHANGED), then
// their count and credits.
func WriteLineage(w io.Writer, list []archive.Run, secrets *text.Secrets, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TURN\tSTATUS\tOUTCOME\tID\tCREATED\tCREDITS\tCHANGED\tPROMPT")
	total := 0.0
	for i := range list {
		r := &list[i]
		f := archiving.FiguresOf(r, now)
		turn, credits, changed := "-", "-", "-"
		if f.ThreadTurn > 0 {
			turn = strconv.Itoa(f.ThreadTurn)
		}
		if f.CreditsUsed != nil {
			credits = describe.Tokens(*f.CreditsUsed)
			total += *f.CreditsUsed
		}
		if f.RerunOf != "" {
			changed = "rerun of " + shortID(f.RerunOf) + ": " + watchprint.OrDash(strings.Join(f.RerunChanged, ","))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", turn, watchprint.OrDash(describe.OneLine(f.Status, 12)), watchprint.OrDash(outcome(&f)), f.ID,
			watchprint.OrDash(text.Age(now, r.SortTime())), credits, secrets.Sanitize(changed), watchprint.OrDash(runs.FirstLine(secrets.Sanitize(f.Prompt), 50)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d runs, %s in all\n", len(list), text.Credits(total))
	return err
}

// shortID is an id's first 8 characters, as the screens show ids.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// PreviousTurn is the id of the turn before r's in its thread among all
// ("" when all holds none).
func PreviousTurn(all []archive.Run, r *archive.Run) string {
	for _, p := range all {
		if p.ThreadID == r.ThreadID && p.ThreadTurn == r.ThreadTurn-1 {
			return p.ID
		}
	}
	return ""
}
