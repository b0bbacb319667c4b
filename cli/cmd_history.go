package cli

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/runs"
)

// firewatch history: the archived runs.

type historyOptions struct {
	Since, Status, Grep string
	Limit               int
	AllServices         bool
}

var historyStatuses = []string{"all", "processing", "completed", "failed", "cancelled"}

func (a *app) historyCommand() *cobra.Command {
	o := &watchOptions{}
	ho := &historyOptions{}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "The archived runs: on a terminal the runs screen, else a table or JSON lines",
		Long: `List the runs the archive holds, newest first: the current service's
(FIRECRAWL_API_URL) unless --all-services. On a terminal it opens the runs
screen on them (enter shows one, read-only); --output plain prints a table,
json one object per line with exactly
  id, status, outcome, prompt, model, createdAt, finishedAt, creditsUsed, expired
(null when unknown; expired: the service no longer has the run).

Ages (--since) are a Go duration (36h), Nd, Nw, or an RFC 3339 date.`,
		Example: `  firewatch history --since 7d
  firewatch history -o json --status failed | jq -r .id
  firewatch history --grep pricing --limit 20 -o plain`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runE(a.history(cmd, o, ho)) },
	}
	f := cmd.Flags()
	f.StringVar(&ho.Since, "since", "", "only runs created since this age or date (7d, 2w, 36h, 2026-11-01)")
	f.StringVar(&ho.Status, "status", "all", "only runs with this status: "+strings.Join(historyStatuses, ", "))
	f.StringVar(&ho.Grep, "grep", "", "only runs whose prompt contains this text (any case)")
	f.IntVar(&ho.Limit, "limit", 0, "at most this many runs (0: all)")
	f.BoolVar(&ho.AllServices, "all-services", false, "runs of every service, not only the current one")
	o.register(cmd, flagsConnection|flagsOutput)
	return cmd
}

// parseAge reads an age (a Go duration, Nd, Nw) as now minus it, or an
// RFC 3339 date or time.
func parseAge(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	mult := time.Duration(0)
	switch {
	case strings.HasSuffix(s, "d"):
		mult = 24 * time.Hour
	case strings.HasSuffix(s, "w"):
		mult = 7 * 24 * time.Hour
	}
	if mult > 0 {
		n, err := strconv.Atoi(strings.TrimSpace(s[:len(s)-1]))
		if err != nil || n < 0 || n > 100000 {
			return time.Time{}, errors.New("an age is a Go duration (36h), Nd, Nw or an RFC 3339 date")
		}
		return now.Add(-time.Duration(n) * mult), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, errors.New("an age is a Go duration (36h), Nd, Nw or an RFC 3339 date")
	}
	return now.Add(-d), nil
}

// historyLine is one run of history's JSON output: exactly these fields.
type historyLine struct {
	ID          string     `json:"id"`
	Status      *string    `json:"status"`
	Outcome     *string    `json:"outcome"`
	Prompt      *string    `json:"prompt"`
	Model       *string    `json:"model"`
	CreatedAt   *time.Time `json:"createdAt"`
	FinishedAt  *time.Time `json:"finishedAt"`
	CreditsUsed *float64   `json:"creditsUsed"`
	Expired     bool       `json:"expired"`
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// expiredAt reports whether the service no longer has r at now.
func expiredAt(r *archive.Run, now time.Time) bool {
	return r.Expired || r.ExpiresAt != nil && !now.Before(*r.ExpiresAt)
}

func (a *app) history(cmd *cobra.Command, o *watchOptions, ho *historyOptions) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	q, err := ho.query(o, time.Now())
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	termOut, _ := isTerminal(a.stdout)
	if o.Output == OutputTUI || (o.Output == OutputAuto && termOut && a.onTerminal()) {
		st, err := a.requireArchive(ctx)
		if err != nil {
			return err
		}
		defer st.Close()
		return a.archiveRunsLoop(cmd, o, ho.Status, st, q, nil)
	}
	st, err := a.requireArchive(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	now := time.Now()
	if o.Output == OutputJSON {
		return a.historyJSON(ctx, st, q, now)
	}
	tw := tabwriter.NewWriter(a.print, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tOUTCOME\tID\tCREATED\tCREDITS\tMODEL\tPROMPT")
	err = st.Each(ctx, q, func(r *archive.Run) error {
		credits := "-"
		if r.CreditsUsed != nil {
			credits = describe.Tokens(*r.CreditsUsed)
		}
		st := orDash(describe.OneLine(r.Status, 12))
		if expiredAt(r, now) {
			st += " (expired)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", st, orDash(describe.OneLine(r.Outcome, 20)), r.ID, orDash(text.Age(now, r.SortTime())),
			credits, orDash(describe.OneLine(r.Model, 20)), orDash(runs.FirstLine(a.secrets.Sanitize(r.Prompt), 60)))
		return nil
	})
	if err != nil {
		return archiveErr(err)
	}
	return tw.Flush()
}

// historyJSON writes history's JSON lines as the archive gives the runs,
// in constant memory and time per run: each line is made, redacted and
// escaped alone and goes out through a buffer, the first ones at once; a
// signal stops it between two runs.
func (a *app) historyJSON(ctx context.Context, st archive.Store, q archive.Query, now time.Time) error {
	bw := bufio.NewWriterSize(a.print, 64<<10)
	err := st.Each(ctx, q, func(r *archive.Run) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		hl := historyLine{ID: r.ID, Status: strOrNil(r.Status), Outcome: strOrNil(r.Outcome), Prompt: strOrNil(r.Prompt),
			Model: strOrNil(r.Model), CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt, CreditsUsed: r.CreditsUsed, Expired: expiredAt(r, now)}
		line, err := json.Marshal(hl)
		if err != nil {
			return err
		}
		line, _ = a.secrets.RedactJSON(line)
		if _, err := bw.Write(escapeForTerminal(line)); err != nil {
			return err
		}
		return bw.WriteByte('\n')
	})
	if err != nil {
		if errors.As(err, new(*outputError)) {
			return err
		}
		return archiveErr(err)
	}
	return bw.Flush()
}

func (ho *historyOptions) query(o *watchOptions, now time.Time) (archive.Query, error) {
	q := archive.Query{Status: strings.ToLower(strings.TrimSpace(ho.Status)), Grep: ho.Grep, Limit: ho.Limit}
	if ho.Limit < 0 {
		return q, badUsage("--limit %d: it must not be negative", ho.Limit)
	}
	if q.Status == "canceled" {
		q.Status = "cancelled"
	}
	if !slices.Contains(historyStatuses, q.Status) {
		return q, badUsage("--status %q: use one of %s", text.Sanitize(ho.Status), strings.Join(historyStatuses, ", "))
	}
	if ho.Since != "" {
		t, err := parseAge(ho.Since, now)
		if err != nil {
			return q, badUsage("--since %q: %v", text.Sanitize(ho.Since), err)
		}
		q.Since = t
	}
	if !ho.AllServices {
		q.Service = poller.ResolveBaseURL(o.APIURL)
	}
	return q, nil
}

// archiveService is the runs screen's service over the archive: the live
// service's pages first (when there is one), then the archived runs it no
// longer lists, marked archived, 20 a page.
type archiveService struct {
	live runs.Service // nil: the archive only (history)
	st   archive.Store
	q    archive.Query

	mu       sync.Mutex
	liveSeen map[string]bool // ids the live list gave
	// cursors are the archive pages' cursors handed out, each the key of
	// the last run of the page before (zero for the first page).
	cursors map[int64]archiveKey
}

// archiveKey is where an archive page starts: after the run (at, id), in
// the archive's order (newest first, then by id), a key no two runs share.
type archiveKey struct {
	at time.Time
	id string
}

const archivePageMark = "archive:"

func (s *archiveService) Runs(ctx context.Context, before time.Time) (*poller.RunList, error) {
	s.mu.Lock()
	if before.IsZero() || s.liveSeen == nil {
		s.liveSeen, s.cursors = map[string]bool{}, map[int64]archiveKey{archiveStart.UnixNano(): {}}
	}
	from, inArchive := s.cursors[before.UnixNano()]
	s.mu.Unlock()
	if s.live != nil && !inArchive {
		l, err := s.live.Runs(ctx, before)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		for _, r := range l.Runs {
			s.liveSeen[r.ID] = true
		}
		s.mu.Unlock()
		s.cancelledAsRead(ctx, l.Runs)
		switch {
		case l.Next != "":
			return l, nil
		case len(l.Runs) > 0:
			// The live list ends: the archive's runs follow.
			l.Next, l.NextBefore = archivePageMark, archiveStart
			return l, nil
		}
		// The live list ends with an empty page (the service has
		// forgotten every run): the archive's first page stands in for
		// it, since a page that brings no run stops the paging.
		from = archiveKey{}
	}
	q := s.q
	q.Limit = poller.ListPageSize + 1
	q.Before, q.BeforeID = from.at, from.id
	list, err := s.st.List(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &poller.RunList{}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range list {
		if i == poller.ListPageSize {
			// The cursor handed out stands for the page's last run's
			// key, so that runs that share a creation time across pages
			// are all listed. Cursors go back in time strictly, a
			// millisecond apart (the screen tells pages apart by it),
			// before any real one and the newest page's: -2 ms, -3 ms...
			out.Next, out.NextBefore = archivePageMark, time.UnixMilli(-1-int64(len(s.cursors)))
			last := &list[i-1]
			s.cursors[out.NextBefore.UnixNano()] = archiveKey{at: last.SortAt, id: last.ID}
			break
		}
		r := &list[i]
		if s.liveSeen[r.ID] {
			continue
		}
		out.Runs = append(out.Runs, infoOfArchived(r, now))
	}
	return out, nil
}

// cancelledAsRead shows a live run that the service reports "failed" as
// "cancelled" when the archive read its trace ending so: the service has
// no word for a cancel.
func (s *archiveService) cancelledAsRead(ctx context.Context, list []poller.RunInfo) {
	for i := range list {
		if list[i].Status != "failed" {
			continue
		}
		if r, err := s.st.Get(ctx, s.q.Service, list[i].ID); err == nil && r.Outcome == string(model.OutcomeCancelled) {
			list[i].Status = "cancelled"
		}
	}
}

// archiveStart is the cursor of the archive's first page after the live
// list (a time no real cursor has).
var archiveStart = time.Unix(0, 1)

func infoOfArchived(r *archive.Run, now time.Time) poller.RunInfo {
	ri := poller.RunInfo{ID: r.ID, CreatedAt: r.SortTime(), Status: r.Status, Prompt: text.Sanitize(r.Prompt), Model: text.Sanitize(r.Model),
		Effort: text.Sanitize(r.Effort), CreditsUsed: r.CreditsUsed}
	ri.Label = text.Sanitize(r.Label)
	ri.Archived = true
	if ri.Status == "" {
		ri.Status = "unknown"
	}
	for _, u := range r.URLs {
		ri.URLs = append(ri.URLs, text.Sanitize(u))
	}
	_ = now
	return ri
}

func (s *archiveService) Status(ctx context.Context, jobID string) (*poller.Status, error) {
	if s.live != nil {
		st, err := s.live.Status(ctx, jobID)
		var pe *poller.Error
		if err == nil || !errors.As(err, &pe) || pe.Kind != poller.KindNotFound {
			return st, err
		}
	}
	r, err := s.st.Get(ctx, s.q.Service, jobID)
	if err != nil {
		return nil, err
	}
	st := &poller.Status{Status: r.Status, CreditsUsed: r.CreditsUsed, ExpiresAt: r.ExpiresAt, Model: text.Sanitize(r.Model), Effort: text.Sanitize(r.Effort), Data: r.Result}
	if st.Status == "" {
		st.Status = "archived"
	} else {
		st.Status += " (archived)"
	}
	return st, nil
}

func (s *archiveService) TokenUsage(ctx context.Context) (*poller.TokenUsage, error) {
	if s.live != nil {
		return s.live.TokenUsage(ctx)
	}
	return nil, &poller.Error{Kind: poller.KindNotFound, Op: "token usage"}
}

func (s *archiveService) ActiveCrawls(ctx context.Context) ([]poller.Crawl, error) {
	if s.live != nil {
		return s.live.ActiveCrawls(ctx)
	}
	return nil, nil
}

// errArchiveOnly answers the runs screen's live actions on a run the service
// no longer has, or when the screen shows the archive alone (history).
var errArchiveOnly = errors.New("not available: the run is only in the archive")

// Cancel and StartAgent are the live service's; an archived run has no
// service to ask.
func (s *archiveService) Cancel(ctx context.Context, jobID string) error {
	if s.live == nil || s.archivedOnly(jobID) {
		return errArchiveOnly
	}
	return s.live.Cancel(ctx, jobID)
}

func (s *archiveService) StartAgent(ctx context.Context, req poller.AgentRequest) (string, error) {
	if s.live == nil {
		return "", errors.New("not available: history shows the archive; start runs from the runs screen (firewatch runs)")
	}
	id, err := s.live.StartAgent(ctx, req)
	if err == nil {
		// The service's run, before any list page has shown it: enter
		// watches it live, not from the archive.
		s.mu.Lock()
		if s.liveSeen == nil {
			s.liveSeen = map[string]bool{}
		}
		s.liveSeen[id] = true
		s.mu.Unlock()
	}
	return id, err
}

// archiveRunsLoop is the runs screen over the archive (and the live
// service, when c is set); enter on an archived run shows it read-only.
func (a *app) archiveRunsLoop(cmd *cobra.Command, o *watchOptions, status string, st archive.Store, q archive.Query, live runs.Service) error {
	ctx := cmd.Context()
	svc := &archiveService{live: live, st: st, q: q}
	if status == "" || status == "cancelled" {
		status = "all"
	}
	m := runs.New(runs.Config{Service: svc, Status: status, ASCII: o.ASCII,
		NoColor: o.NoColor || noColorEnv() || os.Getenv("TERM") == "dumb"})
	for {
		if err := runs.Run(ctx, m, runs.RunOptions{Input: a.stdin, Output: a.stdout}); err != nil || m.Interrupted {
			return cmp.Or(err, errInterrupted)
		}
		if m.Chosen == "" {
			return nil
		}
		wo := *o
		wo.Output = OutputTUI
		w, cleanup, err := a.newSession(cmd, &wo)
		if err != nil {
			return err
		}
		w.BackToList = true
		r, rec, err := a.jobFromStore(ctx, st, q.Service, m.Chosen)
		if err != nil {
			cleanup()
			return asUsage(err)
		}
		err = a.showArchived(ctx, w, st, r, rec)
		cleanup()
		if ctx.Err() != nil || !w.Back {
			if w.Interrupted {
				return errInterrupted // Ctrl-C in the run; q leaves with 0
			}
			if ctx.Err() != nil || err != nil && !said(err) {
				return err
			}
			return nil
		}
	}
}

// runsWithArchive is the runs screen's service: the live one, followed by
// the archive's runs when there is an archive (not for the demo).
func (a *app) runsWithArchive(ctx context.Context, live runs.Service, baseURL string) (runs.Service, func()) {
	if a.noArchive {
		return live, func() {}
	}
	dsn, err := a.archiveDSN()
	if err != nil || dsn == archive.Off {
		return live, func() {}
	}
	st, err := archive.Open(ctx, dsn)
	if err != nil {
		fmt.Fprintf(a.stderr, "firewatch: the runs screen shows no archived runs: %s\n", a.secrets.Redact(err.Error()))
		return live, func() {}
	}
	return &archiveService{live: live, st: st, q: archive.Query{Service: baseURL}}, func() { st.Close() }
}

// archivedOnly reports whether id is an archived run the live list did not
// give.
func (s *archiveService) archivedOnly(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live != nil && !s.liveSeen[id]
}

// showArchivedID opens an archived run read-only from the runs screen.
func (a *app) showArchivedID(ctx context.Context, w *watchSession, s *archiveService, id string) error {
	r, rec, err := a.jobFromStore(ctx, s.st, s.q.Service, id)
	if err != nil {
		return asUsage(err)
	}
	return a.showArchived(ctx, w, s.st, r, rec)
}
