// Package costtext builds what firewatch cost shows: the archived runs'
// credits per bucket under the one billing rule (Build), the archived
// crawls beside them, and cost --team's ledger of the service's figures
// joined to the archive's (BuildTeam); and writes them as a table, a
// ledger for people or JSON. Everything from the archive or the service
// is sanitised or redacted before it is written.
package costtext

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
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
)

// Bys are cost's --by values.
var Bys = []string{"day", "week", "model", "label", "prompt", "thread"}

// Bucket is one key's runs and credits.
type Bucket struct {
	Key   string `json:"key"`
	Total `json:",inline"`

	used, billed, failed, unknown microSum // micro-credits: sums are exact
}

// Total is the runs and credits of a bucket, or of all of them.
type Total struct {
	Runs           int     `json:"runs"`
	CreditsUsed    float64 `json:"creditsUsed"`
	BilledCredits  float64 `json:"billedCredits"`
	FailedRuns     int     `json:"failedRuns"`
	FailedCredits  float64 `json:"failedCredits"`
	UnknownRuns    int     `json:"unknownRuns"`
	UnknownCredits float64 `json:"unknownCredits"`
}

// Report is cost's output.
type Report struct {
	By      string   `json:"by"`
	Buckets []Bucket `json:"buckets"`
	Total   Total    `json:"total"`
	// Crawls are the archived crawls of the same time (their credits are
	// not in the runs' buckets).
	Crawls Crawls `json:"crawls"`
	// Team is cost --team's ledger: the service's figures.
	Team *Ledger `json:"team,omitempty"`
}

const micro = 1e6

// microSum is an exact sum of micro-credits in 128 bits. A run's credits
// are bounded by model.MaxCredits (1e12), 1e18 micro-credits, which an
// int64 holds once but not ten times: sums of many runs need more.
type microSum struct{ hi, lo uint64 }

func (s *microSum) add(c uint64) {
	var carry uint64
	s.lo, carry = bits.Add64(s.lo, c, 0)
	s.hi += carry
}

func (s microSum) cmp(t microSum) int {
	if c := cmp.Compare(s.hi, t.hi); c != 0 {
		return c
	}
	return cmp.Compare(s.lo, t.lo)
}

// credits is the sum in credits.
func (s microSum) credits() float64 {
	return (float64(s.hi)*0x1p64 + float64(s.lo)) / micro
}

// keyOf is the bucket of r.
func keyOf(by string, r *archive.Run) string {
	t := r.SortTime().UTC()
	switch by {
	case "day":
		return t.Format("2006-01-02")
	case "week":
		y, w := t.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, w)
	case "model":
		return text.Sanitize(r.Model)
	case "label":
		return text.Sanitize(r.Label)
	case "thread":
		return text.Sanitize(r.ThreadID) // "": a run whose thread is not known
	}
	return text.Sanitize(strings.TrimSpace(r.Prompt))
}

// Build sums list's credits per bucket of by (one of Bys); now is the
// clock for the runs' figures.
func Build(by string, list []archive.Run, now time.Time) Report {
	rep := Report{By: by, Buckets: []Bucket{}}
	idx := map[string]int{}
	var all Bucket
	for i := range list {
		r := &list[i]
		f := archiving.FiguresOf(r, now)
		k := keyOf(by, r)
		j, ok := idx[k]
		if !ok {
			j = len(rep.Buckets)
			idx[k] = j
			rep.Buckets = append(rep.Buckets, Bucket{Key: k})
		}
		var c uint64
		if f.CreditsUsed != nil && *f.CreditsUsed > 0 {
			// The archive holds what the model bounded; a figure past
			// the bound (another program's row) counts as the bound.
			c = uint64(math.Round(min(*f.CreditsUsed, model.MaxCredits) * micro))
		}
		for _, b := range []*Bucket{&rep.Buckets[j], &all} {
			b.Runs++
			b.used.add(c)
			switch {
			case !f.Bill.Known:
				b.UnknownRuns++
				b.unknown.add(c)
			case f.Bill.Billed:
				b.billed.add(c)
			default:
				b.FailedRuns++
				b.failed.add(c)
			}
		}
	}
	for i := range rep.Buckets {
		rep.Buckets[i].sums()
	}
	switch by {
	case "day", "week":
		slices.SortFunc(rep.Buckets, func(x, y Bucket) int { return strings.Compare(x.Key, y.Key) })
	default:
		slices.SortStableFunc(rep.Buckets, func(x, y Bucket) int {
			if c := y.used.cmp(x.used); c != 0 {
				return c
			}
			return strings.Compare(x.Key, y.Key)
		})
	}
	all.sums()
	rep.Total = all.Total
	return rep
}

// sums turns the micro-credit sums into the JSON's figures.
func (b *Bucket) sums() {
	b.CreditsUsed, b.BilledCredits, b.FailedCredits, b.UnknownCredits = b.used.credits(), b.billed.credits(), b.failed.credits(), b.unknown.credits()
}

// AddCrawls counts the archived crawls of the same time beside the runs.
func (rep *Report) AddCrawls(crawls []archive.Crawl) {
	for _, c := range crawls {
		rep.Crawls.Crawls++
		rep.Crawls.CreditsUsed += float64(MicroOf(c.CreditsUsed)) / micro
		if !archive.CrawlEnded(c.Status) {
			rep.Crawls.Unfinished++
		}
	}
}

// WriteJSON writes rep as one JSON object, redacted and escaped for the
// terminal.
func WriteJSON(w io.Writer, rep *Report, secrets *text.Secrets) error {
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	b, _ = secrets.RedactJSON(b)
	_, err = w.Write(append(watchprint.EscapeForTerminal(b), '\n'))
	return err
}

// WriteTable writes rep's buckets and total as a table, then its crawls.
// width is the terminal's (0: not a terminal); on a terminal wide enough
// each bucket gets a bar of its credits (#s when ascii).
func WriteTable(w io.Writer, rep *Report, secrets *text.Secrets, width int, ascii bool) error {
	var most float64
	for _, b := range rep.Buckets {
		most = max(most, b.CreditsUsed)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(rep.By)+"\tRUNS\tCREDITS\tBILLED\tFAILED\tUNKNOWN\t")
	barW := 0
	if width > 0 {
		barW = max(min(width-70, 30), 0)
	}
	for _, b := range rep.Buckets {
		key := describe.OneLine(secrets.Redact(b.Key), 40)
		if key == "" {
			key = `""`
		}
		bar := ""
		if barW > 0 && most > 0 {
			bar = strings.Repeat("█", int(math.Round(b.CreditsUsed/most*float64(barW))))
			if ascii {
				bar = strings.Repeat("#", len([]rune(bar)))
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d (%s)\t%d (%s)\t%s\n", key, b.Runs, text.Fixed(b.CreditsUsed), text.Fixed(b.BilledCredits), b.FailedRuns, text.Fixed(b.FailedCredits),
			b.UnknownRuns, text.Fixed(b.UnknownCredits), bar)
	}
	t := rep.Total
	fmt.Fprintf(tw, "total\t%d\t%s\t%s\t%d (%s)\t%d (%s)\t\n", t.Runs, text.Fixed(t.CreditsUsed), text.Fixed(t.BilledCredits), t.FailedRuns, text.Fixed(t.FailedCredits),
		t.UnknownRuns, text.Fixed(t.UnknownCredits))
	if err := tw.Flush(); err != nil {
		return err
	}
	if c := rep.Crawls; c.Crawls > 0 {
		_, err := fmt.Fprintf(w, "crawls: %s, %s (not in the runs' figures)\n", text.Plural(c.Crawls, "crawl", "crawls"), text.Credits(c.CreditsUsed))
		return err
	}
	return nil
}

// StoreError is the archive failing while the ledger is built, told apart
// from the service's failures: the command says each its own way.
type StoreError struct{ Err error }

func (e *StoreError) Error() string { return e.Err.Error() }
func (e *StoreError) Unwrap() error { return e.Err }
