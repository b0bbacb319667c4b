package cli

import (
	"cmp"
	"context"
	"fmt"
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

// lineageOf is the runs of q that are thread's turns (thread: a thread id
// or one of its runs' ids), or root and its reruns, transitively; in turn
// order, else the order they started.
func lineageOf(all []archive.Run, thread, root string) []archive.Run {
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

func (a *app) historyLineage(ctx context.Context, o *watchOptions, ho *historyOptions, q archive.Query) error {
	if ho.Thread != "" && ho.Reruns != "" {
		return badUsage("--thread and --reruns: give one")
	}
	st, err := a.openArchive(ctx, needArchive, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	limit := q.Limit
	q.Limit = 0
	all, err := st.List(ctx, q)
	if err != nil {
		return archiveErr(err)
	}
	list := lineageOf(all, ho.Thread, ho.Reruns)
	if limit > 0 && len(list) > limit {
		list = list[:limit]
	}
	if len(list) == 0 {
		what := "thread " + text.Sanitize(ho.Thread)
		if ho.Reruns != "" {
			what = "run " + text.Sanitize(ho.Reruns)
		}
		fmt.Fprintf(a.stderr, "firewatch: history: the archive holds no run of %s\n", what)
		return nil
	}
	now := time.Now()
	if o.Output == OutputJSON {
		return a.printJSONLines(len(list), func(i int) any {
			f := archiving.FiguresOf(&list[i], now)
			return historyLineOf(&f)
		}, json.Deterministic(true), json.FormatNilMapAsNull(true))
	}
	tw := tabwriter.NewWriter(a.print, 0, 0, 2, ' ', 0)
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
		outcome := describe.OneLine(f.Outcome, 20)
		if !f.Complete {
			outcome = "incomplete"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", turn, watchprint.OrDash(describe.OneLine(f.Status, 12)), watchprint.OrDash(outcome), f.ID,
			watchprint.OrDash(text.Age(now, r.SortTime())), credits, a.secrets.Sanitize(changed), watchprint.OrDash(runs.FirstLine(a.secrets.Sanitize(f.Prompt), 50)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.print, "%d runs, %s in all\n", len(list), text.Credits(total))
	return err
}

// shortID is an id's first 8 characters, as the screens show ids.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// previousOf is the run before id in its lineage (compare --previous): the
// run it was rerun from, else its thread's previous turn, as the archive
// holds them.
func (a *app) previousOf(ctx context.Context, o *watchOptions, id string) (string, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	st, err := a.openArchive(ctx, needArchive, nil)
	if err != nil {
		return "", err
	}
	defer st.Close()
	service := a.baseURLOf(o.APIURL)
	r, err := st.Get(ctx, service, id)
	if isArchiveNotFound(err) {
		return "", badUsage("compare --previous %s: the archive does not hold that run", text.Sanitize(id))
	}
	if err != nil {
		return "", archiveErr(err)
	}
	if r.RerunOf != "" {
		return r.RerunOf, nil
	}
	if r.ThreadID != "" && r.ThreadTurn > 1 {
		all, err := st.List(ctx, archive.Query{Service: r.Service})
		if err != nil {
			return "", archiveErr(err)
		}
		for _, p := range all {
			if p.ThreadID == r.ThreadID && p.ThreadTurn == r.ThreadTurn-1 {
				return p.ID, nil
			}
		}
		return "", badUsage("compare --previous %s: it is turn %d of thread %s, whose turn %d the archive does not hold", id, r.ThreadTurn, r.ThreadID, r.ThreadTurn-1)
	}
	return "", badUsage("compare --previous %s: it was not rerun from another run, nor is it a later turn of a thread (as far as the archive knows)", id)
}
