package archive

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"
)

// Coordinator is how the firewatch processes that share one archive agree
// who polls what, with leases: the process that holds a run's lease polls the service and
// stores each poll (AppendLeased); the others follow the run from the
// archive (PollsSince), woken by a doorbell (Listen) on PostgreSQL, reading
// at their interval on SQLite. A lease expires when its holder stops
// renewing it for its TTL, and another process takes it over.
//
// Lease times are the database's clock (now() on PostgreSQL, the one
// machine's on SQLite), so that processes on machines whose clocks differ
// agree on when a lease expires.
type Coordinator interface {
	// TryJoin reports whether this process can take part in the leases
	// now: nil, or an error that Is ErrUnavailable (PostgreSQL cannot be
	// reached: poll on your own, and try again later) or ErrReadOnly.
	TryJoin(ctx context.Context) error
	// Take takes the lease of k for h, for ttl, when it is free, expired,
	// already h's (then it is renewed and keeps its token), or held by a
	// process of h's host that is gone (killed: no need to wait for it to
	// expire; hosts are told apart by name). Held by
	// another: a *HeldError (errors.Is ErrLeaseHeld) saying by whom and
	// for how long.
	Take(ctx context.Context, k LeaseKey, h Holder, ttl time.Duration) (Lease, error)
	// Renew extends l by l.TTL from now. A lease another process has
	// taken over since: a *LostError (errors.Is ErrLeaseLost), and l's
	// holder is a follower from then on.
	Renew(ctx context.Context, l Lease) (Lease, error)
	// Release gives l up at once (a doorbell says it is free); a lease
	// already lost is not an error.
	Release(ctx context.Context, l Lease) error
	// Lease is k's lease as the database holds it now, its Left by the
	// database's clock (<= 0: free); ErrNotFound for one never taken (or
	// long gone).
	Lease(ctx context.Context, k LeaseKey) (Lease, error)
	// Leases says who holds what: every lease of service and team (""
	// for all), held or not (Lease.Left <= 0: free; a released one has
	// no Holder.ID, and says who held it last), by service, team and
	// run.
	Leases(ctx context.Context, service, team string) ([]Lease, error)
	// AppendLeased is AppendPolls for the holder of the run's lease l (its
	// Run is the run's id): in the same transaction it checks that l is
	// still held with its token, renews it, stores the polls and rings the
	// doorbell with the last poll's sequence number, which it returns. A
	// lease taken over meanwhile stores nothing: a *LostError.
	AppendLeased(ctx context.Context, l Lease, startedAt time.Time, polls []Poll) (int64, error)
	// ReplaceLeased is ReplaceRun for the holder of the run's lease l: in
	// the same transaction it checks that l is still held with its token
	// and renews it, so that no holder's polls are ever replaced under it.
	// A lease taken over meanwhile stores nothing: a *LostError.
	ReplaceLeased(ctx context.Context, l Lease, r *Run, polls []Poll, snapshots map[string]string) error
	// Ring renews l and rings its doorbell with a count of its own, for
	// what a holder stores that is not a run's polls (the team's list):
	// its followers read the archive again. Lost: a *LostError.
	Ring(ctx context.Context, l Lease) (int64, error)
	// PollsSince returns a run's polls with a sequence number (Poll.Seq)
	// after after (-1: from the first), in order, at most limit of them
	// (0: all). A run not held has none (no error).
	PollsSince(ctx context.Context, service, id string, after int64, limit int) ([]Poll, error)
	// Listen returns the doorbells of lease k until ctx ends or the
	// store is closed (then the channel is closed), and a Doorbell with
	// Missed whenever some may have been lost (the listening connection
	// dropped and was made again, or the reader was slow): then the
	// subscriber reads what it follows. Every subscriber of one store
	// shares one connection, made when the first subscribes and closed
	// when the last one's ctx ends. A doorbell only says where to read:
	// the tables are the truth, and a follower also reads at its
	// interval. PostgreSQL unreachable for the first subscriber: an
	// error that Is ErrUnavailable. SQLite has no doorbells: the channel
	// is nil (never ready) and the error nil.
	Listen(ctx context.Context, k LeaseKey) (<-chan Doorbell, error)
}

// MaxLeaseTTL is the longest TTL a lease has (a longer one asked is cut
// to it), and how long a lease is believed after its holder's last
// renewal whatever its row's expiry says: a lease that is not renewed
// ends, whoever wrote its row and whatever clock they read.
const MaxLeaseTTL = 5 * time.Minute

// maxToken is the greatest token a lease is given: the next holder's is
// 1 again, and no token overflows.
const maxToken = int64(1) << 62

// LeaseKey names what a lease is for: one run of one team on one service
// (the same run id under two base URLs is two leases), or with Run "" the
// team's list of runs.
type LeaseKey struct {
	Service string // the service's base URL
	Team    string // TeamOf(key): never the key
	Run     string // the run's id; "" for the team's list
}

// Holder is who holds a lease: one per process (NewHolder), shown to the
// team by Leases.
type Holder struct {
	ID    string // unique to the holder (NewHolder: random)
	Label string // what it is: "watch", "hub", "archive --every"...
	Host  string
	PID   int
}

// NewHolder is this process's holder, labelled label.
func NewHolder(label string) Holder {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	host, _ := os.Hostname()
	return Holder{ID: hex.EncodeToString(b), Label: bound(label, 100), Host: bound(host, 255), PID: os.Getpid()}
}

func bound(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Lease is a lease as the database holds it.
type Lease struct {
	LeaseKey
	Holder
	// Token is the lease's generation: it grows each time another holder
	// takes it, and a write of the holder is fenced with it.
	Token int64
	TTL   time.Duration // the holder's, from its last take or renewal
	// Since is when the holder took it, Renewed its last renewal, Expires
	// when it becomes free unless renewed: the database's clock.
	Since, Renewed, Expires time.Time
	// Left is how long it is still held, by the database's clock when it
	// was read (<= 0: free): until Expires, but no longer than its TTL (at
	// most MaxLeaseTTL) after Renewed. A follower tries to take it over
	// after Left.
	Left time.Duration
	// Read is the database's clock when the lease was read (or written).
	Read time.Time
	// Bell is how many times Ring rang it.
	Bell int64
}

// Odd says what is odd about l's row, as read: an expiry far in the
// future, a renewal in the future or too old for the expiry it claims, a
// TTL over MaxLeaseTTL, a token at its limit. nil: nothing. An odd lease
// is believed only as Left says.
func (l Lease) Odd() []string {
	var odd []string
	if l.Expires.After(l.Read.Add(MaxLeaseTTL)) {
		odd = append(odd, "expiry far in the future ("+l.Expires.Format(time.RFC3339)+"), believed only while renewed")
	}
	switch {
	case l.Renewed.After(l.Read.Add(time.Second)):
		odd = append(odd, "renewed in the future ("+l.Renewed.Format(time.RFC3339)+")")
	case l.ID != "" && l.Left <= 0 && l.Expires.After(l.Read):
		odd = append(odd, fmt.Sprintf("not renewed for %s: free", l.Read.Sub(l.Renewed).Round(time.Second)))
	}
	if l.TTL > MaxLeaseTTL || l.TTL <= 0 {
		odd = append(odd, fmt.Sprintf("TTL %s (believed for %s at most)", l.TTL, MaxLeaseTTL))
	}
	switch {
	case l.Token >= maxToken:
		odd = append(odd, fmt.Sprintf("token at its limit (%d): the next holder's is 1", l.Token))
	case l.Token <= 0:
		odd = append(odd, fmt.Sprintf("token out of range (%d): the next holder's is 1", l.Token))
	}
	return odd
}

// The leases' errors (errors.Is).
var (
	// ErrLeaseHeld: another process holds the lease (a *HeldError).
	ErrLeaseHeld = errors.New("another firewatch holds the lease")
	// ErrLeaseLost: the lease was taken over, or released (a *LostError):
	// its holder wrote nothing and follows from now on.
	ErrLeaseLost = errors.New("the lease was taken over")
	// ErrUnavailable: the shared archive (PostgreSQL) cannot be reached;
	// each process polls on its own until it can again.
	ErrUnavailable = errors.New("the shared archive cannot be reached")
)

// HeldError is Take's answer when another holds the lease.
type HeldError struct{ Lease Lease }

func (e *HeldError) Error() string {
	return fmt.Sprintf("%v: %s for another %s", ErrLeaseHeld, e.Lease.Holder.String(), e.Lease.Left.Round(time.Millisecond))
}

func (e *HeldError) Unwrap() error { return ErrLeaseHeld }

// LostError is the answer to a holder whose lease is no longer its own.
// Now is who holds it now (nil: nobody, or it was released).
type LostError struct {
	Key LeaseKey
	Now *Lease
}

func (e *LostError) Error() string {
	if e.Now == nil || e.Now.Left <= 0 {
		return ErrLeaseLost.Error() + " (it expired)"
	}
	return fmt.Sprintf("%v by %s", ErrLeaseLost, e.Now.Holder.String())
}

func (e *LostError) Unwrap() error { return ErrLeaseLost }

// String says who a holder is: "watch on laptop (pid 4242)".
func (h Holder) String() string {
	return fmt.Sprintf("%s on %s (pid %d)", h.Label, h.Host, h.PID)
}

// Doorbell says that something was stored under a lease: where to read,
// never what (the table is the truth).
type Doorbell struct {
	Service, Team, Run string // the lease's key
	// Seq is the last poll stored (AppendLeased), or the lease's Bell
	// count (Ring).
	Seq int64
	// Free: the lease was released; a follower may take it at once.
	Free bool
	// Missed: the listening connection dropped and was made again (or
	// the reader was too slow): doorbells may have been lost, and every
	// subscriber reads what it follows. It names no key.
	Missed bool
}
