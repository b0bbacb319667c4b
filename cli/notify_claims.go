package cli

import (
	"context"
	"os"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/notify"
)

// The notification moments of the team's sinks (--notify-url,
// --notify-command) are claimed in the archive when there is one
// (notify/claims.go, archive/moments.go): of the processes that share it
// (hubs, watches, runs, on one machine or many), the one that claims a
// moment sends it; the others, and a process restarted, do not. Without an
// archive the process decides alone, as the debug log (the hub's log)
// says once.

// envClaimTTL sets the claims' lease (a Go duration, at most
// archive.MaxClaimTTL): how long a claimer that died holds its moment up.
// For tests; the default is notify.DefaultClaimTTL.
const envClaimTTL = "FIREWATCH_NOTIFY_CLAIM_TTL"

// claimTTL is $FIREWATCH_NOTIFY_CLAIM_TTL, else 0 (the default).
func claimTTL() time.Duration {
	d, err := time.ParseDuration(os.Getenv(envClaimTTL))
	if err != nil || d <= 0 {
		return 0
	}
	return min(d, archive.MaxClaimTTL)
}

// claimsOpenTimeout bounds opening the archive for the claims.
const claimsOpenTimeout = 2 * time.Second

// openClaims opens the archive for the claims of a command's notifier
// (watch, run, the runs screen, crawl): nil and why when there is none to
// claim in (off, or it cannot be opened now: this process decides alone).
func (a *app) openClaims(svc service) (*notify.ArchiveClaims, string) {
	if _, err := a.archiveDSN(); err != nil {
		return nil, a.secrets.Redact(err.Error())
	}
	// Bounded: the watch waits for it before its first poll, and a
	// PostgreSQL that does not answer leaves the moments to this process.
	ctx, cancel := context.WithTimeout(context.Background(), claimsOpenTimeout)
	defer cancel()
	st, err := a.openArchive(ctx, keepArchive, &lockNote{quiet: true})
	switch {
	case err != nil:
		return nil, a.secrets.Redact(err.Error())
	case st == nil:
		return nil, "the archive is off"
	case archive.ReadOnly(st):
		st.Close()
		return nil, "the archive is read-only"
	}
	m := notify.NewArchiveClaims(st, svc.baseURL, svc.key, "watch", true)
	if m == nil {
		st.Close()
		return nil, "the archive cannot claim"
	}
	return m, ""
}
