package archive

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// year3000 is an expiry no lease of firewatch's has: a clock-skewed host's,
// a hand-edited row's.
var year3000 = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

// editLease sets what a hand (or another program) writes into k's row.
func editLease(t *testing.T, s Store, k LeaseKey, set string, args ...any) {
	t.Helper()
	ss := s.(*sqlStore)
	args = append(args, k.Service, k.Team, k.Run)
	if _, err := ss.db.Exec(ss.q(`UPDATE fw_leases SET `+set+` WHERE service = ? AND team = ? AND run = ?`), args...); err != nil {
		t.Fatal(err)
	}
}

func hasOdd(l Lease, what string) bool {
	for _, o := range l.Odd() {
		if strings.Contains(o, what) {
			return true
		}
	}
	return false
}

// TestLeaseNeverEnding: a lease whose row says it expires in the year 3000
// (its holder on another machine, gone) is believed only while its holder
// renews it: its TTL after its last renewal it is taken over, and it says
// so while it is read. A renewal dated in the future frees it at once, a
// TTL longer than MaxLeaseTTL counts as MaxLeaseTTL, and a token at the
// top of its range does not overflow: the next holder's is 1.
func TestLeaseNeverEnding(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, dsn string, a Store) {
		ctx := context.Background()
		b := openAgain(t, dsn)
		k := LeaseKey{Service: svc, Team: team, Run: runID}
		gone := Holder{ID: "gone-holder", Label: "watch", Host: "elsewhere", PID: 4242}
		const ttl = 300 * time.Millisecond
		if _, err := a.Take(ctx, k, gone, ttl); err != nil {
			t.Fatal(err)
		}
		editLease(t, a, k, `expires = ?`, year3000)
		l, err := b.Lease(ctx, k)
		if err != nil || l.Left > ttl || !hasOdd(l, "expiry far in the future") {
			t.Fatalf("a lease that says it ends in the year 3000: %+v (odd: %q) %v", l, l.Odd(), err)
		}
		me := NewHolder("watch")
		if _, err := b.Take(ctx, k, me, time.Minute); !errors.Is(err, ErrLeaseHeld) {
			t.Fatalf("taken before its TTL since its renewal: %v", err)
		}
		got, took := waitTake(t, b, k, me, time.Minute, 5*time.Second)
		if got.ID != me.ID || got.Token != 2 {
			t.Fatalf("taken over: %+v", got)
		}
		t.Logf("taken over %s after a year-3000 expiry (TTL %s)", took, ttl)

		// Renewed in the year 3000: no renewal firewatch made; free now.
		editLease(t, a, k, `holder = ?, host = ?, renewed = ?, expires = ?`, gone.ID, gone.Host, year3000, year3000)
		l, _ = b.Lease(ctx, k)
		if l.Left > 0 || !hasOdd(l, "renewed in the future") {
			t.Fatalf("renewed in the year 3000: %+v (odd: %q)", l, l.Odd())
		}
		if _, err := a.Take(ctx, k, NewHolder("hub"), time.Minute); err != nil {
			t.Fatalf("a lease renewed in the future: %v", err)
		}

		// A TTL of a year, renewed now: believed for MaxLeaseTTL at most.
		editLease(t, a, k, `holder = ?, host = ?, ttl_ms = ?, expires = ?`, gone.ID, gone.Host, int64(365*24*time.Hour/time.Millisecond), year3000)
		l, _ = b.Lease(ctx, k)
		if l.Left <= 0 || l.Left > MaxLeaseTTL || !hasOdd(l, "TTL") {
			t.Fatalf("a TTL of a year: %+v (odd: %q)", l, l.Odd())
		}
		if _, err := b.Take(ctx, k, me, time.Minute); !errors.Is(err, ErrLeaseHeld) {
			t.Fatalf("a renewed lease was taken: %v", err)
		}

		// Not renewed for an hour, expiring in the year 3000: free, and said so.
		hourAgo := time.Now().Add(-time.Hour).UnixMilli()
		editLease(t, a, k, `holder = ?, host = ?, token = ?, renewed = ?, ttl_ms = 6000`, gone.ID, gone.Host, int64(math.MaxInt64), hourAgo)
		l, _ = b.Lease(ctx, k)
		if l.Left > 0 || !hasOdd(l, "not renewed for 1h0m0s") || !hasOdd(l, "token at its limit") {
			t.Fatalf("not renewed for an hour: %+v (odd: %q)", l, l.Odd())
		}
		ls, err := b.Leases(ctx, svc, team)
		if err != nil || len(ls) != 1 || ls[0].Left > 0 {
			t.Fatalf("the leases: %+v %v", ls, err)
		}
		// The token at the top of its range: taken, and its next is 1.
		got, err = b.Take(ctx, k, me, time.Minute)
		if err != nil || got.Token != 1 || got.ID != me.ID {
			t.Fatalf("a lease whose token is at its limit: %+v %v", got, err)
		}
		if _, err := b.AppendLeased(ctx, got, time.Now(), pollLine(`{"trace":{}}`)); err != nil {
			t.Fatalf("storing under the token after the limit: %v", err)
		}
		// Its holder gone from this machine: taken over with a token that
		// does not overflow either.
		editLease(t, a, k, `token = ?`, int64(math.MaxInt64))
		got.Token = math.MaxInt64
		if _, err := a.Renew(ctx, got); err != nil {
			t.Fatal(err)
		}
		if err := a.Release(ctx, got); err != nil {
			t.Fatal(err)
		}
		if got, err = a.Take(ctx, k, NewHolder("hub"), time.Minute); err != nil || got.Token != 1 {
			t.Fatalf("taken after a release at the limit: %+v %v", got, err)
		}
	})
}
