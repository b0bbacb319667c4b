package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/cli/internal/historytext"
	"github.com/firewatch/firewatch/text"
)

// history --thread and --reruns: a run's lineage from the archive, in
// order; and a follow-up's refusal for its thread (historytext).

// threadRefusal is the follow-up's refusal in words, nil when err is none.
var threadRefusal = historytext.ThreadRefusal

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
	list := historytext.Lineage(all, ho.Thread, ho.Reruns)
	if limit > 0 && len(list) > limit {
		list = list[:limit]
	}
	if len(list) == 0 {
		fmt.Fprint(a.stderr, historytext.NoLineage(ho.Thread, ho.Reruns))
		return nil
	}
	if o.Output == OutputJSON {
		return historytext.WriteLineageJSON(a.print, list, a.secrets, time.Now())
	}
	return historytext.WriteLineage(a.print, list, a.secrets, time.Now())
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
		if p := historytext.PreviousTurn(all, r); p != "" {
			return p, nil
		}
		return "", badUsage("compare --previous %s: it is turn %d of thread %s, whose turn %d the archive does not hold", id, r.ThreadTurn, r.ThreadID, r.ThreadTurn-1)
	}
	return "", badUsage("compare --previous %s: it was not rerun from another run, nor is it a later turn of a thread (as far as the archive knows)", id)
}
