// Package historytext builds what firewatch history shows of the archive:
// the filters' query, each run's JSON line and table row, a thread's or a
// rerun's lineage in order, the archived crawls, and the hint naming the
// other services the archive holds runs of. Everything of a run's own is
// sanitised or redacted before it is written.
package historytext

import (
	"bufio"
	"context"
	"errors"
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
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/runs"
)

// Statuses are history's --status values.
var Statuses = []string{"all", "processing", "completed", "failed", "cancelled"}

// Kinds are history's --kind values.
var Kinds = []string{"run", "crawl"}

// Kind is the --kind value kind names; an error is bad usage.
func Kind(kind string) (string, error) {
	k := strings.ToLower(strings.TrimSpace(kind))
	if slices.Contains(Kinds, k) {
		return k, nil
	}
	return "", fmt.Errorf("--kind %q: use one of %s", text.Sanitize(kind), strings.Join(Kinds, ", "))
}

// ParseAge reads an age (a Go duration, Nd, Nw) as now minus it, or an
// RFC 3339 date or time.
func ParseAge(s string, now time.Time) (time.Time, error) {
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

// Filter is the flags history and cost select runs with.
type Filter struct {
	Since, Status, Grep string
	Limit               int
	AllServices         bool
}

// Query is the archive's query of the filter; service is the runs'
// service (unless AllServices). An error is bad usage.
func (f Filter) Query(service string, now time.Time) (archive.Query, error) {
	q := archive.Query{Status: strings.ToLower(strings.TrimSpace(f.Status)), Grep: f.Grep, Limit: f.Limit}
	if f.Limit < 0 {
		return q, fmt.Errorf("--limit %d: it must not be negative", f.Limit)
	}
	if q.Status == "canceled" {
		q.Status = "cancelled"
	}
	if !slices.Contains(Statuses, q.Status) {
		return q, fmt.Errorf("--status %q: use one of %s", text.Sanitize(f.Status), strings.Join(Statuses, ", "))
	}
	if f.Since != "" {
		t, err := ParseAge(f.Since, now)
		if err != nil {
			return q, fmt.Errorf("--since %q: %v", text.Sanitize(f.Since), err)
		}
		q.Since = t
	}
	if !f.AllServices {
		q.Service = service
	}
	return q, nil
}

// Line is one run of history's JSON output: exactly these fields, the
// run's figures (archiving.FiguresOf).
type Line struct {
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
	CancelledBy     *string            `json:"cancelledBy"`
	StartedBy       *string            `json:"startedBy"`
	// CancelledVia and StartedVia: the hub's name it was done through.
	CancelledVia *string `json:"cancelledVia"`
	StartedVia   *string `json:"startedVia"`
	Expired      bool    `json:"expired"`
	RerunOf      *Rerun  `json:"rerunOf"`
	ThreadID     *string `json:"threadId"`
	ThreadTurn   *int    `json:"threadTurn"`
}

// Rerun is the run a run was rerun from, and the request fields the rerun
// changed.
type Rerun struct {
	ID      string   `json:"id"`
	Changed []string `json:"changed"`
}

// LineOf is a run's line.
func LineOf(f *archiving.Figures) Line {
	hl := Line{ID: f.ID, Status: StrOrNil(f.Status), Outcome: StrOrNil(f.Outcome), Complete: f.Complete, Prompt: StrOrNil(f.Prompt),
		Model: StrOrNil(f.Model), Effort: StrOrNil(f.Effort), MaxCredits: f.MaxCredits, CreatedAt: f.CreatedAt, FinishedAt: f.FinishedAt,
		CreditsUsed: f.CreditsUsed, BilledCredits: f.Bill.BilledCredits(), CreditsByAgent: f.CreditsByAgent,
		CancelRequested: f.CancelRequested, Expired: f.Expired}
	hl.CancelledBy, hl.CancelledVia = model.ActorFields(text.Sanitize(f.CancelledBy))
	hl.StartedBy, hl.StartedVia = model.ActorFields(text.Sanitize(f.StartedBy))
	if f.Read {
		n := f.Attention
		hl.Attention = &n
	}
	if f.RerunOf != "" {
		changed := f.RerunChanged
		if changed == nil {
			changed = []string{}
		}
		hl.RerunOf = &Rerun{ID: f.RerunOf, Changed: changed}
	}
	hl.ThreadID = StrOrNil(f.ThreadID)
	if f.ThreadTurn > 0 {
		n := f.ThreadTurn
		hl.ThreadTurn = &n
	}
	return hl
}

// StrOrNil is s, or nil (JSON's null) when it is empty.
func StrOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Writer writes runs one at a time as the archive gives them (an Each's
// function), then Flush.
type Writer interface {
	Add(ctx context.Context, r *archive.Run) error
	Flush() error
	// Len is how many runs were added.
	Len() int
}

// Table writes runs as history's table.
type Table struct {
	tw      *tabwriter.Writer
	secrets *text.Secrets
	now     time.Time
	n       int
}

// NewTable is a table on w; now is the clock for ages and figures.
func NewTable(w io.Writer, secrets *text.Secrets, now time.Time) *Table {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tOUTCOME\tID\tCREATED\tCREDITS\tBILLED\tMODEL\tPROMPT")
	return &Table{tw: tw, secrets: secrets, now: now}
}

// Add writes r's row.
func (t *Table) Add(_ context.Context, r *archive.Run) error {
	t.n++
	f := archiving.FiguresOf(r, t.now)
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
	st := watchprint.OrDash(describe.OneLine(f.Status, 12))
	if f.Expired {
		st += " (expired)"
	}
	fmt.Fprintf(t.tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", st, watchprint.OrDash(outcome(&f)), f.ID, watchprint.OrDash(text.Age(t.now, r.SortTime())),
		credits, billed, watchprint.OrDash(describe.OneLine(f.Model, 20)), watchprint.OrDash(runs.FirstLine(t.secrets.Sanitize(f.Prompt), 60)))
	return nil
}

// outcome is a run's outcome for a table: "incomplete" while the run is
// known only in part.
func outcome(f *archiving.Figures) string {
	if !f.Complete {
		return "incomplete"
	}
	return describe.OneLine(f.Outcome, 20)
}

// Flush writes the table.
func (t *Table) Flush() error { return t.tw.Flush() }

// Len is how many rows were added.
func (t *Table) Len() int { return t.n }

// JSONLines writes runs as history's JSON lines, in constant memory and
// time per run: each line is made, redacted and escaped alone and goes
// out through a buffer, the first ones at once; a cancelled ctx stops it
// between two runs.
type JSONLines struct {
	bw      *bufio.Writer
	secrets *text.Secrets
	now     time.Time
	n       int
}

// NewJSONLines writes lines on w; now is the clock for the figures.
func NewJSONLines(w io.Writer, secrets *text.Secrets, now time.Time) *JSONLines {
	return &JSONLines{bw: bufio.NewWriterSize(w, 64<<10), secrets: secrets, now: now}
}

// Add writes r's line.
func (j *JSONLines) Add(ctx context.Context, r *archive.Run) error {
	j.n++
	if err := ctx.Err(); err != nil {
		return err
	}
	f := archiving.FiguresOf(r, j.now)
	line, err := json.Marshal(LineOf(&f), json.Deterministic(true), json.FormatNilMapAsNull(true))
	if err != nil {
		return err
	}
	line, _ = j.secrets.RedactJSON(line)
	if _, err := j.bw.Write(watchprint.EscapeForTerminal(line)); err != nil {
		return err
	}
	return j.bw.WriteByte('\n')
}

// Flush writes what the buffer holds.
func (j *JSONLines) Flush() error { return j.bw.Flush() }

// Len is how many lines were added.
func (j *JSONLines) Len() int { return j.n }

// WriteJSONLines writes n values as JSON lines (value(i) marshalled with
// opts), each redacted and escaped for the terminal, in one write.
func WriteJSONLines(w io.Writer, secrets *text.Secrets, n int, value func(i int) any, opts ...json.Options) error {
	var b []byte
	for i := range n {
		line, err := json.Marshal(value(i), opts...)
		if err != nil {
			return err
		}
		line, _ = secrets.RedactJSON(line)
		b = append(append(b, watchprint.EscapeForTerminal(line)...), '\n')
	}
	_, err := w.Write(b)
	return err
}

// errEnough stops an Each that has what it needs.
var errEnough = errors.New("enough")

// OtherServicesHint is what history says on stderr when it found nothing
// at the service q asks about ("" when nothing): which other services the
// archive holds runs of for the same filters, the usual cause being a
// service URL (--api-url, FIRECRAWL_API_URL) other than the one the runs
// were archived under. It reads at most a few hundred runs and names at
// most three services.
func OtherServicesHint(ctx context.Context, st archive.Store, q archive.Query, secrets *text.Secrets) string {
	if q.Service == "" {
		return ""
	}
	service := q.Service
	q.Service, q.Limit = "", 500
	var others []string
	_ = st.Each(ctx, q, func(r *archive.Run) error {
		if r.Service != service && !slices.Contains(others, r.Service) {
			others = append(others, r.Service)
		}
		if len(others) == 3 {
			return errEnough
		}
		return nil
	})
	if len(others) == 0 {
		return ""
	}
	for i, s := range others {
		others[i] = secrets.Sanitize(s)
	}
	return fmt.Sprintf("firewatch: no archived runs of %s; the archive holds runs of %s: give that service with --api-url, or --all-services\n",
		secrets.Sanitize(service), strings.Join(others, ", "))
}
