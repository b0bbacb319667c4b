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
  id, status, outcome, complete, prompt, model, effort, maxCredits,
  createdAt, finishedAt, creditsUsed, billedCredits, attention,
  creditsByAgent, cancelRequested, expired
(null when unknown). status is "cancelled" when the trace says so (the
service says failed); complete is false for a run known only in part (a
watch left early): its figures are what was read, and the next listing of
the team's runs (the runs screen, an archive pass) completes it.
billedCredits follows the one billing rule (docs/archive.md): null while
the outcome is not known. expired: the service no longer has the run.

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

// historyLine is one run of history's JSON output: exactly these fields,
// the run's figures (figuresOf).
type historyLine struct {
	ID              string             `json:"id"`
	Status          *string            `json:"status"`
	Outcome         *string            `json:"outcome"`
	Complete        bool               `json:"complete"`
	Prompt          *string            `json:"prompt"`
	Model           *string            `json:"model"`
	Effort          *string            `json:"effort"`
	MaxCredits      *float64           `json:"maxCredits"`
	CreatedAt       *time.Time         `json:"createdAt"`
	FinishedAt      *time.Time         `json:"finishedAt"`
	CreditsUsed     *float64           `json:"creditsUsed"`
	BilledCredits   *float64           `json:"billedCredits"`
	Attention       *int               `json:"attention"`
	CreditsByAgent  map[string]float64 `json:"creditsByAgent"`
	CancelRequested bool               `json:"cancelRequested"`
	Expired         bool               `json:"expired"`
}

// historyLineOf is a run's line.
func historyLineOf(f *runFigures) historyLine {
	hl := historyLine{ID: f.ID, Status: strOrNil(f.Status), Outcome: strOrNil(f.Outcome), Complete: f.Complete, Prompt: strOrNil(f.Prompt),
		Model: strOrNil(f.Model), Effort: strOrNil(f.Effort), MaxCredits: f.MaxCredits, CreatedAt: f.CreatedAt, FinishedAt: f.FinishedAt,
		CreditsUsed: f.CreditsUsed, BilledCredits: f.Bill.BilledCredits(), CreditsByAgent: f.CreditsByAgent,
		CancelRequested: f.CancelRequested, Expired: f.Expired}
	if f.Read {
		n := f.Attention
		hl.Attention = &n
	}
	return hl
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
	fmt.Fprintln(tw, "STATUS\tOUTCOME\tID\tCREATED\tCREDITS\tBILLED\tMODEL\tPROMPT")
	err = st.Each(ctx, q, func(r *archive.Run) error {
		f := figuresOf(r, now)
		credits, billed := "-", "-"
		if f.CreditsUsed != nil {
			credits = describe.Tokens(*f.CreditsUsed)
			if !f.Complete {
				credits += " so far"
			}
		}
		if b := f.Bill.BilledCredits(); b != nil {
			billed = describe.Tokens(*b)
		}
		st := orDash(describe.OneLine(f.Status, 12))
		if f.Expired {
			st += " (expired)"
		}
		outcome := describe.OneLine(f.Outcome, 20)
		if !f.Complete {
			outcome = "incomplete"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", st, orDash(outcome), f.ID, orDash(text.Age(now, r.SortTime())),
			credits, billed, orDash(describe.OneLine(f.Model, 20)), orDash(runs.FirstLine(a.secrets.Sanitize(f.Prompt), 60)))
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
		f := figuresOf(r, now)
		line, err := json.Marshal(historyLineOf(&f), json.Deterministic(true), json.FormatNilMapAsNull(true))
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
	// bg completes, in the background, the runs the live list shows that
	// the archive holds in part (nil: history, or no client).
	bg *backgroundCompleter

	mu       sync.Mutex
	liveSeen map[string]bool // ids the live list gave
	// cursors are the archive pages' cursors handed out, each the key of
	// the last run of the page before (zero for the first page).
	cursors map[int64]archiveKey
	failed  string // the first write to the archive that failed, said when the screen closes
}

// note keeps the first failed write to the archive (the screen is up: it
// is said on stderr when the screen closes).
func (s *archiveService) note(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed == "" {
		s.failed = err.Error()
	}
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
		s.knownLive(ctx, l.Runs)
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

// knownLive adds to the live list's runs what the archive's record says
// (the outcome as the trace says it: the service reports a cancelled or
// credit-limited run as failed), and has the runs it holds in part
// completed in the background once they are over.
func (s *archiveService) knownLive(ctx context.Context, list []poller.RunInfo) {
	ids := make([]string, len(list))
	for i := range list {
		ids[i] = list[i].ID
	}
	held, err := s.st.Held(ctx, s.q.Service, ids)
	if err != nil {
		return
	}
	for i := range list {
		h, ok := held[list[i].ID]
		if !ok {
			continue
		}
		if h.Outcome != "" {
			list[i].Known = &poller.Known{Outcome: h.Outcome, Complete: h.Complete}
		}
		over := (&poller.Status{Status: list[i].Status}).Terminal()
		if over && !h.Complete || h.Complete && (!h.HasItem || !h.HasStatus) {
			s.bg.add(list[i], h)
		}
	}
}

// archiveStart is the cursor of the archive's first page after the live
// list (a time no real cursor has).
var archiveStart = time.Unix(0, 1)

func infoOfArchived(r *archive.Run, now time.Time) poller.RunInfo {
	f := figuresOf(r, now)
	ri := poller.RunInfo{ID: f.ID, CreatedAt: r.SortTime(), Status: f.Status, Prompt: text.Sanitize(f.Prompt), Model: text.Sanitize(f.Model),
		Effort: text.Sanitize(f.Effort), CreditsUsed: f.CreditsUsed, Known: knownOf(&f)}
	ri.Label = text.Sanitize(r.Label)
	ri.Archived = true
	if ri.Status == "" {
		ri.Status = "unknown"
	}
	for _, u := range f.URLs {
		ri.URLs = append(ri.URLs, text.Sanitize(u))
	}
	return ri
}

// knownOf is what the runs screen shows of a record beyond the service's
// words.
func knownOf(f *runFigures) *poller.Known {
	return &poller.Known{Outcome: f.Outcome, Complete: f.Complete}
}

func (s *archiveService) Status(ctx context.Context, jobID string) (*poller.Status, error) {
	if s.live != nil {
		st, err := s.live.Status(ctx, jobID)
		var pe *poller.Error
		if err == nil {
			// What the archive read of the run: the same outcome as its row.
			if held, herr := s.st.Held(ctx, s.q.Service, []string{jobID}); herr == nil {
				if h, ok := held[jobID]; ok && h.Outcome != "" {
					st.Known = &poller.Known{Outcome: h.Outcome, Complete: h.Complete}
				}
			}
		}
		if err == nil || !errors.As(err, &pe) || pe.Kind != poller.KindNotFound {
			return st, err
		}
	}
	r, err := s.st.Get(ctx, s.q.Service, jobID)
	if err != nil {
		return nil, err
	}
	f := figuresOf(r, time.Now())
	st := &poller.Status{Status: f.Status, CreditsUsed: f.CreditsUsed, ExpiresAt: r.ExpiresAt, Model: text.Sanitize(f.Model), Effort: text.Sanitize(f.Effort),
		Data: r.Result, Known: knownOf(&f)}
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
	if err := s.live.Cancel(ctx, jobID); err != nil {
		return err
	}
	// Recorded: the run's outcome follows from its trace, read once it is
	// over (by the screen's next listing, or the next archive pass).
	if err := s.st.PutRun(ctx, &archive.Run{Service: s.q.Service, ID: jobID, CancelRequested: true}); err != nil {
		s.note(err)
	}
	s.bg.afterCancel(jobID)
	return nil
}

func (s *archiveService) StartAgent(ctx context.Context, req poller.AgentRequest) (string, error) {
	if s.live == nil {
		return "", errors.New("not available: history shows the archive; start runs from the runs screen (firewatch runs)")
	}
	id, err := s.live.StartAgent(ctx, req)
	if err == nil {
		// What it was asked, kept: whoever reads the run knows its cap.
		if perr := s.st.PutRun(ctx, withID(archiveSeedOf(&req), s.q.Service, id)); perr != nil {
			s.note(perr)
		}
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
		r, polls, err := jobFromStore(ctx, st, q.Service, m.Chosen)
		if err != nil {
			cleanup()
			return asUsage(err)
		}
		err = a.showArchived(ctx, w, st, r, recordingOf(r, polls))
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
// the archive's runs when there is an archive (not for the demo); c, when
// set, completes in the background the runs it holds in part.
func (a *app) runsWithArchive(ctx context.Context, live runs.Service, c *poller.Client, svc service) (runs.Service, func()) {
	baseURL := svc.baseURL
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
	s := &archiveService{live: live, st: st, q: archive.Query{Service: baseURL}}
	if c != nil {
		s.bg = newBackgroundCompleter(ctx, &completer{c: c, st: st, secrets: a.secrets, service: baseURL, team: archive.TeamOf(svc.key)}, s.note)
	}
	return s, func() {
		s.bg.stop()
		st.Close()
		if s.failed != "" {
			fmt.Fprintf(a.stderr, "firewatch: the archive could not record everything: %s\n", a.secrets.Redact(s.failed))
		}
	}
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
	r, polls, err := jobFromStore(ctx, s.st, s.q.Service, id)
	if err != nil {
		return asUsage(err)
	}
	return a.showArchived(ctx, w, s.st, r, recordingOf(r, polls))
}
