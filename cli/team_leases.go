package cli

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

// teamLeases are the held leases of svc in the app's archive: on is false
// when the archive is off; err when it cannot be read (the team's other
// parts are shown all the same).
type teamLeases struct {
	on    bool
	held  []archive.Lease
	err   error
	where string
}

// readLeases reads the leases of the service held now.
func (a *app) readLeases(ctx context.Context, baseURL string) teamLeases {
	st, err := a.openArchive(ctx, keepArchive, nil)
	if err != nil {
		return teamLeases{on: true, err: err}
	}
	if st == nil {
		return teamLeases{}
	}
	defer st.Close()
	t := teamLeases{on: true, where: st.Where()}
	ls, err := st.Leases(ctx, baseURL, "")
	if err != nil {
		t.err = err
		return t
	}
	for _, l := range ls {
		if l.Left > 0 && l.ID != "" {
			t.held = append(t.held, l)
		}
	}
	return t
}

// leaseWhat is what a lease is for: a run's id, or the team's list.
func leaseWhat(l archive.Lease) string {
	if l.Run == "" {
		return "the team's list"
	}
	return describe.OneLine(l.Run, maxIDCells)
}

// leaseAges are how long l has been held and since its last renewal, by
// the database's clock when it was read (so that a machine whose clock
// differs says the same).
func leaseAges(l archive.Lease) (held, renewed time.Duration) {
	now := l.Expires.Add(-l.Left)
	return now.Sub(l.Since), now.Sub(l.Renewed)
}

// plain writes the "Polled by" part of team's plain output.
func (t teamLeases) plain(b *strings.Builder, secrets *text.Secrets) {
	switch {
	case !t.on:
		return
	case t.err != nil:
		fmt.Fprintf(b, "Polled by      unavailable: %s\n", describe.OneLine(secrets.Redact(t.err.Error()), 200))
		return
	case len(t.held) == 0:
		b.WriteString("Polled by      no firewatch holds a lease in the archive now\n")
		return
	}
	fmt.Fprintf(b, "Polled by      %s in the archive\n", plural(len(t.held), "lease", "leases"))
	for _, l := range t.held {
		held, renewed := leaseAges(l)
		fmt.Fprintf(b, "  %s  %s since %s, renewed %s, token %d\n", leaseWhat(l), text.Sanitize(l.Holder.String()),
			text.Ago(held), text.Ago(renewed), l.Token)
	}
}

// leaseJSON is one held lease in team's JSON output.
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
}

// json is the leases part of team's JSON output (nil: the archive is off
// or cannot be read).
func (t teamLeases) json() []leaseJSON {
	if !t.on || t.err != nil {
		return nil
	}
	out := []leaseJSON{}
	for _, l := range t.held {
		out = append(out, leaseJSON{Run: l.Run, Service: l.Service, Label: l.Label, Host: l.Host, PID: l.PID,
			Since: l.Since, Renewed: l.Renewed, Expires: l.Expires, Token: l.Token})
	}
	return out
}
