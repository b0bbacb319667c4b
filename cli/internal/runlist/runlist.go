// Package runlist is firewatch runs for scripts: the service's list of
// the team's runs paged through (GET /v2/agent) and printed as an aligned
// table or one JSON line per run, with the outcome firewatch knows of a
// run beside the service's status.
package runlist

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/runs"
)

// MaxIDCells is the widest id printed in a table: a UUID is 36; a longer
// one (not a run firewatch can watch) is cut.
const MaxIDCells = 40

// Print is the list printed for scripts.
type Print struct {
	Client  *poller.Client
	Stdout  io.Writer // the list
	Stderr  io.Writer // where paging that stopped early is said
	Secrets *text.Secrets
	Status  string // the --status filter ("all": none)
	Limit   int    // at most this many runs
	JSON    bool   // one line per run, else the table
	// Mark adds to the runs the outcome firewatch knows of them.
	Mark func([]poller.RunInfo)
}

// Run pages through the list and prints it: JSON as each page comes,
// nothing waiting for the last; the table once the list is in, the error
// after the runs that came before it.
func (p *Print) Run(ctx context.Context) error {
	keep := func(r *poller.RunInfo) bool { return runs.StatusMatches(p.Status, r.Status) }
	if p.JSON {
		var buf []byte
		_, err := Page(ctx, p.Stderr, p.Client, p.Limit, ScanPages(p.Status), keep, func(page []poller.RunInfo) error {
			p.Mark(page)
			buf = buf[:0]
			for i := range page {
				line := withOutcome(watchprint.EventLine(nil, page[i].Raw, p.Secrets), RunOutcome(&page[i]))
				buf = append(append(buf, watchprint.EscapeForTerminal(line)...), '\n')
			}
			_, err := p.Stdout.Write(buf)
			return err
		})
		return err
	}
	list, err := Collect(ctx, p.Stderr, p.Client, p.Limit, ScanPages(p.Status), keep)
	if err != nil && len(list) == 0 {
		return err
	}
	p.Mark(list)
	writeTable(p.Stdout, list, time.Now())
	// Some pages came, then the service refused: say so after them.
	return err
}

// RunOutcome is how run r ended, in firewatch's words (describe.Outcome):
// the outcome the archive holds (its trace's) when it holds one, else the
// service's status read as one (completed is succeeded); "" while the run
// is not over.
func RunOutcome(r *poller.RunInfo) string {
	if !(&poller.Status{Status: r.Status}).Terminal() {
		return ""
	}
	if r.Known != nil && r.Known.Outcome != "" {
		return describe.Outcome(model.Outcome(r.Known.Outcome)).Word
	}
	switch strings.ToLower(r.Status) {
	case "completed":
		return string(model.OutcomeSucceeded)
	case "failed":
		return string(model.OutcomeFailed)
	default:
		return string(model.OutcomeCancelled) // cancelled, canceled
	}
}

// runWord is run r's STATUS in the plain table: the outcome firewatch
// knows (a cancelled run is cancelled, not the service's failed), in the
// list's words as on the runs screen (succeeded reads completed), else the
// service's status.
func runWord(r *poller.RunInfo) string {
	if r.Known == nil || r.Known.Outcome == "" || !(&poller.Status{Status: r.Status}).Terminal() {
		return r.Status
	}
	if o := RunOutcome(r); o != string(model.OutcomeSucceeded) {
		return o
	}
	return "completed"
}

// withOutcome adds "outcome" (RunOutcome; null while the run is not over)
// as the last member of the JSON object line, the service's members kept
// as they were. A line that is not an object is left as it is.
func withOutcome(line []byte, outcome string) []byte {
	line = bytes.TrimRight(line, " \t\r\n")
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' {
		return line
	}
	body := bytes.TrimSpace(line[1 : len(line)-1])
	out := append([]byte(nil), line[:len(line)-1]...)
	if len(body) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"outcome":`...)
	if outcome == "" {
		out = append(out, "null"...)
	} else {
		out, _ = jsontext.AppendQuote(out, outcome)
	}
	return append(out, '}')
}

// ScanPages bounds the paging of runs with a status filter, which may look
// for runs it never finds; without one, each page brings a new run and
// --limit bounds it.
func ScanPages(status string) int {
	if status == "all" {
		return 0
	}
	return poller.MaxScanPages
}

// Collect pages through the list until limit runs keep (nil: all) or
// the list ends. On an error it returns what it had and the error.
func Collect(ctx context.Context, stderr io.Writer, c *poller.Client, limit, maxPages int, keep func(*poller.RunInfo) bool) ([]poller.RunInfo, error) {
	var out []poller.RunInfo
	_, err := Page(ctx, stderr, c, limit, maxPages, keep, func(page []poller.RunInfo) error {
		out = append(out, page...)
		return nil
	})
	return out, err
}

// Page pages through the list, handing emit each page's runs that keep
// (nil: all), until limit runs were handed, maxPages pages were fetched (0:
// no bound) or the list ends. Paging that stops by poller.PageStep's rule
// (the service's cursor or pages cannot be trusted) is said on stderr and
// is not an error: what came is the list as far as it can be told. It
// returns the number of runs handed, and the error that stopped it (a
// request, emit's, or the context's at once).
func Page(ctx context.Context, stderr io.Writer, c *poller.Client, limit, maxPages int, keep func(*poller.RunInfo) bool, emit func([]poller.RunInfo) error) (int, error) {
	p := c.RunPages()
	n := 0
	var page []poller.RunInfo
	for !p.Done() && n < limit {
		if maxPages > 0 && p.Pages() >= maxPages {
			if maxPages == poller.MaxScanPages {
				fmt.Fprintf(stderr, "firewatch: %s\n", poller.ErrScanBound)
			}
			break
		}
		if err := ctx.Err(); err != nil {
			return n, err
		}
		l, err := p.Next(ctx)
		var stopped *poller.PagingStopped
		if errors.As(err, &stopped) {
			fmt.Fprintf(stderr, "firewatch: %s; %s\n", stopped, text.Plural(n+keptOn(l, keep, limit-n), "run", "runs"))
			err = nil
		}
		if l != nil {
			page = page[:0]
			for i := range l.Runs {
				if n+len(page) < limit && (keep == nil || keep(&l.Runs[i])) {
					page = append(page, l.Runs[i])
				}
			}
			if len(page) > 0 {
				n += len(page)
				if eerr := emit(page); eerr != nil {
					return n, eerr
				}
			}
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// keptOn is the number of l's runs Page keeps, at most max.
func keptOn(l *poller.RunList, keep func(*poller.RunInfo) bool, max int) int {
	if l == nil {
		return 0
	}
	k := 0
	for i := range l.Runs {
		if keep == nil || keep(&l.Runs[i]) {
			k++
		}
	}
	return min(k, max)
}

// writeTable prints the aligned table of plain output.
func writeTable(w io.Writer, list []poller.RunInfo, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tID\tCREATED\tMODEL\tTARGET\tPROMPT")
	for _, r := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", watchprint.OrDash(describe.OneLine(runWord(&r), 20)), describe.OneLine(r.ID, MaxIDCells), watchprint.OrDash(text.Age(now, r.CreatedAt)),
			watchprint.OrDash(runs.ModelEffort(&r)), watchprint.OrDash(describe.OneLine(r.TargetHint, 30)), watchprint.OrDash(runs.FirstLine(r.Prompt, 60)))
	}
	_ = tw.Flush()
}
