package teamview

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/text"
)

// Who polls what: the leases held in the archive the firewatch processes
// of a team share (archiving.Shared), as `firewatch team` shows them.

// Leases are the lease rows of a service in the archive, held or not
// (so that a row that is odd, or believed no more, is seen): on is false
// when the archive is off; err when it cannot be read (the team's other
// parts are shown all the same).
type Leases struct {
	on    bool
	held  []archive.Lease // held now
	free  []archive.Lease // released, ended, or not believed (Lease.Odd)
	err   error
	where string
}

// ReadLeases reads the leases of the service baseURL in the store open
// opens (nil, nil: the archive is off); the store is closed after.
func ReadLeases(ctx context.Context, open func(context.Context) (archive.Store, error), baseURL string) Leases {
	st, err := open(ctx)
	if err != nil {
		return Leases{on: true, err: err}
	}
	if st == nil {
		return Leases{}
	}
	defer st.Close()
	t := Leases{on: true, where: st.Where()}
	ls, err := st.Leases(ctx, baseURL, "")
	if err != nil {
		t.err = err
		return t
	}
	for _, l := range ls {
		if isHeld(l) {
			t.held = append(t.held, l)
		} else {
			t.free = append(t.free, l)
		}
	}
	return t
}

// isHeld reports whether a holder holds l now, by the archive's reading.
func isHeld(l archive.Lease) bool { return l.Left > 0 && l.ID != "" }

// leaseWhat is what a lease is for: a run's id, or the team's list.
func leaseWhat(l archive.Lease, idCells int) string {
	if l.Run == "" {
		return "the team's list"
	}
	return describe.OneLine(l.Run, idCells)
}

// leaseAges are how long l has been held and since its last renewal, by
// the database's clock when it was read (so that a machine whose clock
// differs says the same).
func leaseAges(l archive.Lease) (held, renewed time.Duration) {
	return l.Read.Sub(l.Since), l.Read.Sub(l.Renewed)
}

// leaseOdd is what is odd about l, as a line's tail ("" for nothing).
func leaseOdd(l archive.Lease) string {
	odd := l.Odd()
	if len(odd) == 0 {
		return ""
	}
	return "  (odd: " + strings.Join(odd, "; ") + ")"
}

// plain writes the "Polled by" part of team's plain output: every lease
// held, then every other row the archive keeps, each odd one flagged.
func (t Leases) plain(b *strings.Builder, secrets *text.Secrets, idCells int) {
	switch {
	case !t.on:
		return
	case t.err != nil:
		fmt.Fprintf(b, "Polled by      unavailable: %s\n", describe.OneLine(secrets.Redact(t.err.Error()), 200))
		return
	case len(t.held) == 0:
		b.WriteString("Polled by      no firewatch holds a lease in the archive now\n")
	default:
		fmt.Fprintf(b, "Polled by      %s in the archive\n", text.Plural(len(t.held), "lease", "leases"))
	}
	for _, l := range t.held {
		held, renewed := leaseAges(l)
		fmt.Fprintf(b, "  %s  %s since %s, renewed %s, token %d%s\n", leaseWhat(l, idCells), text.Sanitize(l.Holder.String()),
			text.Ago(held), text.Ago(renewed), l.Token, text.Sanitize(leaseOdd(l)))
	}
	if len(t.free) == 0 {
		return
	}
	fmt.Fprintf(b, "Free leases    %s nobody holds now\n", text.Plural(len(t.free), "lease", "leases"))
	for _, l := range t.free {
		_, renewed := leaseAges(l)
		how := "ended"
		if l.ID == "" {
			how = "released"
		}
		fmt.Fprintf(b, "  %s  %s, last %s, renewed %s, token %d%s\n", leaseWhat(l, idCells), how, text.Sanitize(l.Holder.String()),
			text.Ago(renewed), l.Token, text.Sanitize(leaseOdd(l)))
	}
}

// leaseJSON is one lease row in team's JSON output.
type leaseJSON struct {
	Run     string    `json:"run"` // "" for the team's list
	Service string    `json:"service"`
	Label   string    `json:"label"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Since   time.Time `json:"since"`
	Renewed time.Time `json:"renewed"`
	Expires time.Time `json:"expires"`
	Token   int64     `json:"token"`
	// Held: a holder holds it now (else it is released, or ended: its
	// row is kept a while); Odd, what is odd about its row (Lease.Odd).
	Held bool     `json:"held"`
	Odd  []string `json:"odd,omitempty"`
}

// json is the leases part of team's JSON output, the held ones first
// (nil: the archive is off or cannot be read).
func (t Leases) json() []leaseJSON {
	if !t.on || t.err != nil {
		return nil
	}
	out := []leaseJSON{}
	for _, l := range append(append([]archive.Lease(nil), t.held...), t.free...) {
		out = append(out, leaseJSON{Run: l.Run, Service: l.Service, Label: l.Label, Host: l.Host, PID: l.PID,
			Since: jsonTime(l.Since), Renewed: jsonTime(l.Renewed), Expires: jsonTime(l.Expires), Token: l.Token, Held: isHeld(l), Odd: l.Odd()})
	}
	return out
}

// jsonTime is t within the years JSON's RFC 3339 can say (0001 to 9999):
// a row's time is anyone's, and one past them would fail the whole output.
func jsonTime(t time.Time) time.Time {
	first, last := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	switch {
	case t.Before(first):
		return first
	case t.After(last):
		return last
	}
	return t
}
