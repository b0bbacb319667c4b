package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// team is the leases' team in these tests.
var team = TeamOf("fc-team-key-0123456789")

const runID = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5e"

// openAgain is another process's store on the same archive.
func openAgain(t testing.TB, dsn string) Store {
	t.Helper()
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func pollLine(s string) []Poll {
	return []Poll{{ReceivedAt: time.Now(), Line: []byte(s)}}
}

// waitTake takes k for h as a follower would, trying again until it is
// free, for at most within; it says how long it took.
func waitTake(t *testing.T, s Store, k LeaseKey, h Holder, ttl, within time.Duration) (Lease, time.Duration) {
	t.Helper()
	ctx := context.Background()
	start := time.Now()
	for {
		l, err := s.Take(ctx, k, h, ttl)
		if err == nil {
			return l, time.Since(start)
		}
		var he *HeldError
		if !errors.As(err, &he) {
			t.Fatalf("take: %v", err)
		}
		if time.Since(start) > within {
			t.Fatalf("not taken within %s: %v", within, err)
		}
		time.Sleep(min(max(he.Lease.Left, time.Millisecond), 50*time.Millisecond))
	}
}

// TestLeaseTakeRenewRelease: a lease is taken when free, refused while
// another holds it (saying who, and for how long), renewed by its holder,
// listed with its holder, and free again once released; each new holder
// gets a greater token.
func TestLeaseTakeRenewRelease(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, dsn string, a Store) {
		ctx := context.Background()
		b := openAgain(t, dsn)
		ha, hb := NewHolder("hub"), NewHolder("watch")
		k := LeaseKey{Service: svc, Team: team, Run: runID}
		la, err := a.Take(ctx, k, ha, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if la.Token != 1 || la.ID != ha.ID || la.Expires.Sub(la.Renewed) != time.Minute || la.Since != la.Renewed {
			t.Fatalf("taken: %+v", la)
		}
		_, err = b.Take(ctx, k, hb, time.Minute)
		var he *HeldError
		if !errors.As(err, &he) || !errors.Is(err, ErrLeaseHeld) {
			t.Fatalf("taking a held lease: %v", err)
		}
		host, _ := os.Hostname()
		if he.Lease.ID != ha.ID || he.Lease.Label != "hub" || he.Lease.PID != os.Getpid() || he.Lease.Host != host ||
			he.Lease.Left <= 50*time.Second || he.Lease.Left > time.Minute {
			t.Fatalf("held by %+v", he.Lease)
		}
		if !strings.Contains(err.Error(), "hub on "+host) {
			t.Errorf("said as %q", err)
		}
		again, err := a.Take(ctx, k, ha, time.Minute)
		if err != nil || again.Token != la.Token || !again.Since.Equal(la.Since) {
			t.Fatalf("taken again by its holder: %+v %v", again, err)
		}
		time.Sleep(5 * time.Millisecond)
		r, err := a.Renew(ctx, la)
		if err != nil || !r.Renewed.After(la.Renewed) || r.Token != la.Token {
			t.Fatalf("renewed: %+v %v", r, err)
		}
		ls, err := b.Leases(ctx, svc, team)
		if err != nil || len(ls) != 1 || ls[0].ID != ha.ID || ls[0].Run != runID || ls[0].Left <= 0 || ls[0].TTL != time.Minute {
			t.Fatalf("who holds what: %+v %v", ls, err)
		}
		if err := a.Release(ctx, r); err != nil {
			t.Fatal(err)
		}
		lb, err := b.Take(ctx, k, hb, time.Minute)
		if err != nil || lb.Token != 2 || lb.ID != hb.ID {
			t.Fatalf("taken after the release: %+v %v", lb, err)
		}
		if _, err := a.Renew(ctx, r); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("renewing a released lease: %v", err)
		}
		if err := a.Release(ctx, r); err != nil {
			t.Fatalf("releasing a lost lease: %v", err)
		}
		if ls, _ := a.Leases(ctx, "", ""); len(ls) != 1 || ls[0].ID != hb.ID {
			t.Fatalf("released lease taken by the other: %+v", ls)
		}
	})
}

// TestLeaseKeys: a run under two base URLs, two teams, and a team's list
// are leases of their own.
func TestLeaseKeys(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, dsn string, a Store) {
		ctx := context.Background()
		b := openAgain(t, dsn)
		ha, hb := NewHolder("one"), NewHolder("two")
		for _, k := range []LeaseKey{
			{Service: svc, Team: team, Run: runID},
			{Service: "http://127.0.0.1:8080", Team: team, Run: runID},
			{Service: svc, Team: TeamOf("another key"), Run: runID},
			{Service: svc, Team: team},
		} {
			if _, err := a.Take(ctx, k, ha, time.Minute); err != nil {
				t.Fatalf("%+v: %v", k, err)
			}
			if _, err := b.Take(ctx, k, hb, time.Minute); !errors.Is(err, ErrLeaseHeld) {
				t.Fatalf("%+v taken twice: %v", k, err)
			}
		}
		if ls, _ := b.Leases(ctx, svc, team); len(ls) != 2 || ls[0].Run != "" || ls[1].Run != runID {
			t.Fatalf("the team's leases on the service: %+v", ls)
		}
		if ls, _ := b.Leases(ctx, "", ""); len(ls) != 4 {
			t.Fatalf("every lease: %+v", ls)
		}
	})
}

// TestLeaseFencing: a holder that stops renewing loses the lease after its
// TTL to a follower, which takes it within three TTLs of the last stored
// poll; the paused holder, awake again, can neither store a poll nor renew
// (it is told who holds the lease now), and every stored poll is stored
// once, in order.
func TestLeaseFencing(t *testing.T) {
	t.Parallel()
	eachStoreAtOnce(t, func(t *testing.T, dsn string, a Store) {
		ctx := context.Background()
		b := openAgain(t, dsn)
		ha, hb := NewHolder("paused"), NewHolder("follower")
		k := LeaseKey{Service: svc, Team: team, Run: runID}
		const ttl = 300 * time.Millisecond
		la, err := a.Take(ctx, k, ha, ttl)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			seq, err := a.AppendLeased(ctx, la, time.Now(), pollLine(fmt.Sprintf(`{"by":"a","n":%d}`, i)))
			if err != nil || seq != int64(i) {
				t.Fatalf("append %d: seq %d, %v", i, seq, err)
			}
		}
		// a stops renewing (paused); b takes over.
		lb, took := waitTake(t, b, k, hb, ttl, 3*ttl)
		if lb.Token != la.Token+1 {
			t.Fatalf("token %d after %d", lb.Token, la.Token)
		}
		t.Logf("taken over %s after the last stored poll (TTL %s)", took, ttl)
		if _, err := b.AppendLeased(ctx, lb, time.Now(), pollLine(`{"by":"b","n":3}`)); err != nil {
			t.Fatal(err)
		}
		// a wakes up.
		_, err = a.AppendLeased(ctx, la, time.Now(), pollLine(`{"by":"a","n":4}`))
		var le *LostError
		if !errors.As(err, &le) || le.Now == nil || le.Now.ID != hb.ID || !strings.Contains(err.Error(), "follower on") {
			t.Fatalf("a fenced holder's append: %v", err)
		}
		if _, err := a.Renew(ctx, la); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("a fenced holder's renewal: %v", err)
		}
		if _, err := a.Ring(ctx, la); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("a fenced holder's bell: %v", err)
		}
		ps, err := b.Polls(ctx, svc, runID)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, p := range ps {
			if p.Seq != int64(i) {
				t.Errorf("poll %d has seq %d", i, p.Seq)
			}
			got = append(got, string(p.Line))
		}
		want := []string{`{"by":"a","n":0}`, `{"by":"a","n":1}`, `{"by":"a","n":2}`, `{"by":"b","n":3}`}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("stored %v, want %v", got, want)
		}
		// An expired lease nobody took is still its holder's.
		time.Sleep(ttl + 50*time.Millisecond)
		if _, err := b.Renew(ctx, lb); err != nil {
			t.Fatalf("renewing an expired lease nobody took: %v", err)
		}
	})
}

// TestPollsSince: a follower reads the polls after the last one it has, in
// order, with their sequence numbers; a run not held has none.
func TestPollsSince(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, dsn string, s Store) {
		ctx := context.Background()
		if ps, err := s.PollsSince(ctx, svc, runID, -1, 0); err != nil || len(ps) != 0 {
			t.Fatalf("a run not held: %v %v", ps, err)
		}
		l, err := s.Take(ctx, LeaseKey{Service: svc, Team: team, Run: runID}, NewHolder("t"), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			if _, err := s.AppendLeased(ctx, l, time.Now(), pollLine(fmt.Sprintf(`{"n":%d}`, i))); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			after int64
			limit int
			want  string
		}{{-1, 0, "0 1 2 3 4"}, {2, 0, "3 4"}, {0, 2, "1 2"}, {4, 0, ""}} {
			ps, err := s.PollsSince(ctx, svc, runID, c.after, c.limit)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range ps {
				if string(p.Line) != fmt.Sprintf(`{"n":%d}`, p.Seq) {
					t.Errorf("poll %d is %s", p.Seq, p.Line)
				}
				got = append(got, fmt.Sprint(p.Seq))
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("after %d limit %d: %v, want %s", c.after, c.limit, got, c.want)
			}
		}
		if ps, _ := s.PollsSince(ctx, "http://127.0.0.1:1", runID, -1, 0); len(ps) != 0 {
			t.Fatalf("another service's run: %d polls", len(ps))
		}
	})
}

// recvBell waits for a doorbell of run (others are skipped) for at most 5 s.
func recvBell(t *testing.T, bells <-chan Doorbell, run string, missed bool) Doorbell {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case b, ok := <-bells:
			if !ok {
				t.Fatal("the doorbells' channel closed")
			}
			if b.Run == run && b.Missed == missed {
				return b
			}
		case <-timeout:
			t.Fatalf("no doorbell for %q (missed %v)", run, missed)
		}
	}
}

// TestDoorbells: the transaction that stores a poll rings a doorbell that
// carries the run's key and the poll's number and nothing of the poll;
// Ring and Release ring too. SQLite has none (a nil channel).
func TestDoorbells(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	eachStore(t, func(t *testing.T, dsn string, s Store) {
		follower := openAgain(t, dsn)
		bells, err := follower.Listen(ctx, LeaseKey{Service: svc, Team: team, Run: runID})
		if err != nil {
			t.Fatal(err)
		}
		if !IsPostgres(dsn) {
			if bells != nil {
				t.Fatal("doorbells on SQLite")
			}
			return
		}
		listBells, err := follower.Listen(ctx, LeaseKey{Service: svc, Team: team})
		if err != nil {
			t.Fatal(err)
		}
		// What NOTIFY carries, read raw.
		raw, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close(context.Background())
		if _, err := raw.Exec(ctx, "LISTEN "+s.(*sqlStore).channel); err != nil {
			t.Fatal(err)
		}
		l, err := s.Take(ctx, LeaseKey{Service: svc, Team: team, Run: runID}, NewHolder("t"), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		secret := `{"receivedAt":"2026-11-25T20:50:31Z","trace":{"events":[{"text":"the content fc-secret-key"}]}}`
		for i := range 3 {
			if _, err := s.AppendLeased(ctx, l, time.Now(), pollLine(secret)); err != nil {
				t.Fatal(err)
			}
			b := recvBell(t, bells, runID, false)
			if b.Seq != int64(i) || b.Service != svc || b.Team != team || b.Free {
				t.Fatalf("doorbell %d: %+v", i, b)
			}
		}
		wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
		n, err := raw.WaitForNotification(wctx)
		wcancel()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(n.Payload, "content") || strings.Contains(n.Payload, "fc-secret") || len(n.Payload) > 200 {
			t.Fatalf("the doorbell carries more than the key: %s", n.Payload)
		}
		list, err := s.Take(ctx, LeaseKey{Service: svc, Team: team}, NewHolder("t"), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := s.Ring(ctx, list); err != nil || n != 1 {
			t.Fatalf("ring: %d %v", n, err)
		}
		if b := recvBell(t, listBells, "", false); b.Seq != 1 {
			t.Fatalf("the list's doorbell: %+v", b)
		}
		if err := s.Release(ctx, l); err != nil {
			t.Fatal(err)
		}
		if b := recvBell(t, bells, runID, false); !b.Free {
			t.Fatalf("the release's doorbell: %+v", b)
		}
		// A fenced append stores nothing and rings nothing: the next
		// doorbell is the new holder's poll's.
		if _, err := s.AppendLeased(ctx, l, time.Now(), pollLine(`{"by":"released"}`)); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("an append under a released lease: %v", err)
		}
		l2, err := follower.Take(ctx, LeaseKey{Service: svc, Team: team, Run: runID}, NewHolder("t2"), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := follower.AppendLeased(ctx, l2, time.Now(), pollLine(`{"n":3}`)); err != nil {
			t.Fatal(err)
		}
		if b := recvBell(t, bells, runID, false); b.Seq != 3 || b.Free {
			t.Fatalf("after the takeover: %+v", b)
		}
	})
}

// terminateListener ends the doorbells' connection of store s from the
// server's side, as a dropped network or a restarted pooler would.
func terminateListener(t *testing.T, dsn string, s Store) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	app := listenApp + s.(*sqlStore).channel[len("fw_bell_"):]
	deadline := time.Now().Add(5 * time.Second)
	for {
		var n int
		if err := db.QueryRow(`SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no listener to terminate")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestListenerReconnects: a listener whose connection is dropped makes it
// again and says that doorbells were missed; a poll stored meanwhile,
// whose doorbell nobody heard, is read by the follower's catch-up read.
// Closing the store ends the listener.
func TestListenerReconnects(t *testing.T) {
	t.Parallel()
	dsn := freshPostgres(t)
	s := openAgain(t, dsn)
	follower := openAgain(t, dsn)
	follower.(*sqlStore).relistenFirst = 700 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bells, err := follower.Listen(ctx, LeaseKey{Service: svc, Team: team, Run: runID})
	if err != nil {
		t.Fatal(err)
	}
	// Another key's subscriber on the same connection is told too.
	other, err := follower.Listen(ctx, LeaseKey{Service: svc, Team: team, Run: "another"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Take(ctx, LeaseKey{Service: svc, Team: team, Run: runID}, NewHolder("t"), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendLeased(ctx, l, time.Now(), pollLine(`{"n":0}`)); err != nil {
		t.Fatal(err)
	}
	last := recvBell(t, bells, runID, false).Seq
	terminateListener(t, dsn, follower)
	// Stored while nobody listens.
	if _, err := s.AppendLeased(ctx, l, time.Now(), pollLine(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	recvBell(t, bells, "", true)
	recvBell(t, other, "", true)
	ps, err := follower.PollsSince(ctx, svc, runID, last, 0)
	if err != nil || len(ps) != 1 || string(ps[0].Line) != `{"n":1}` {
		t.Fatalf("caught up: %v %v", ps, err)
	}
	if _, err := s.AppendLeased(ctx, l, time.Now(), pollLine(`{"n":2}`)); err != nil {
		t.Fatal(err)
	}
	if b := recvBell(t, bells, runID, false); b.Seq != 2 {
		t.Fatalf("after the reconnection: %+v", b)
	}
	// Closing the store ends its listener.
	follower.Close()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-bells:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatal("the listener outlived its store")
		}
	}
}

// listeners counts the doorbells' connections of store s the server has.
func listeners(t *testing.T, db *sql.DB, s Store) int {
	t.Helper()
	var n int
	app := listenApp + s.(*sqlStore).channel[len("fw_bell_"):]
	if err := db.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDoorbellsShareOneListener: the subscribers of one store, on several
// keys, share one LISTEN connection; each gets its own key's doorbells and
// no other's; the last one to leave closes the connection, and the next
// subscriber makes it again.
func TestDoorbellsShareOneListener(t *testing.T) {
	t.Parallel()
	dsn := freshPostgres(t)
	holder := openAgain(t, dsn)
	follower := openAgain(t, dsn)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const keys, each = 3, 4 // M keys, N = keys*each subscribers
	key := func(i int) LeaseKey { return LeaseKey{Service: svc, Run: fmt.Sprintf("run-%d", i)} }
	type sub struct {
		k     LeaseKey
		bells <-chan Doorbell
	}
	var subs []sub
	subCtx, unsubscribe := context.WithCancel(ctx)
	for i := range keys * each {
		k := key(i % keys)
		bells, err := follower.Listen(subCtx, k)
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, sub{k, bells})
	}
	if n := listeners(t, db, follower); n != 1 {
		t.Fatalf("%d subscribers on %d keys hold %d listening connections, want 1", keys*each, keys, n)
	}
	// Key i gets i+1 polls, so that each subscriber's last doorbell says
	// which key it heard.
	leases := make([]Lease, keys)
	for i := range keys {
		l, err := holder.Take(ctx, key(i), NewHolder("t"), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		leases[i] = l
		for range i + 1 {
			if _, err := holder.AppendLeased(ctx, l, time.Now(), pollLine(`{}`)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, sb := range subs {
		want := int64(0)
		fmt.Sscanf(sb.k.Run, "run-%d", &want)
		timeout := time.After(5 * time.Second)
		for seq := int64(-1); seq < want; {
			select {
			case b := <-sb.bells:
				if b.Missed {
					continue
				}
				if b.Service != sb.k.Service || b.Team != sb.k.Team || b.Run != sb.k.Run {
					t.Fatalf("a subscriber of %s got a doorbell of %s", sb.k.Run, b.Run)
				}
				seq = b.Seq
			case <-timeout:
				t.Fatalf("a subscriber of %s heard up to poll %d, want %d", sb.k.Run, seq, want)
			}
		}
	}
	// Leaving: every channel closed, the connection gone.
	unsubscribe()
	for _, sb := range subs {
		for range sb.bells {
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for listeners(t, db, follower) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("nobody subscribes and the listening connection stays")
		}
		time.Sleep(20 * time.Millisecond)
	}
	bells, err := follower.Listen(ctx, key(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.AppendLeased(ctx, leases[0], time.Now(), pollLine(`{}`)); err != nil {
		t.Fatal(err)
	}
	if b := recvBell(t, bells, "run-0", false); b.Seq != 1 {
		t.Fatalf("a new subscriber's doorbell: %+v", b)
	}
}

// TestUnreachableIsUnavailable: a PostgreSQL that cannot be reached at
// open is ErrUnavailable, with the DSN's password said nowhere.
func TestUnreachableIsUnavailable(t *testing.T) {
	t.Parallel()
	_, err := Open(context.Background(), "postgres://fw:s3cret@127.0.0.1:1/fw?connect_timeout=1")
	if !errors.Is(err, ErrUnavailable) || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("unreachable: %v", err)
	}
}

// BenchmarkFollowerDelay is the archive's part of a follower's delay:
// from the leaseholder's AppendLeased to the follower holding the poll,
// woken by its doorbell on PostgreSQL (on SQLite the follower reads at its
// own interval: here, at once after the write, which is what the archive
// adds to that interval). Each poll's line is a recording line of size
// bytes. Reported: the median, the 99th percentile and the worst, in ms.
func BenchmarkFollowerDelay(b *testing.B) {
	for _, store := range []string{"sqlite", "postgres"} {
		for _, size := range []int{2 << 10, 256 << 10} {
			b.Run(fmt.Sprintf("%s/%dKiB", store, size>>10), func(b *testing.B) {
				dsn := filepath.Join(b.TempDir(), "archive.db")
				if store == "postgres" {
					dsn = freshPostgres(b)
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				holder, follower := openAgain(b, dsn), openAgain(b, dsn)
				bells, err := follower.Listen(ctx, LeaseKey{Service: svc, Team: team, Run: runID})
				if err != nil {
					b.Fatal(err)
				}
				l, err := holder.Take(ctx, LeaseKey{Service: svc, Team: team, Run: runID}, NewHolder("bench"), time.Minute)
				if err != nil {
					b.Fatal(err)
				}
				line := benchLine(size)
				last := int64(-1)
				var delays []time.Duration
				for b.Loop() {
					t0 := time.Now()
					seq, err := holder.AppendLeased(ctx, l, t0, []Poll{{ReceivedAt: t0, Line: line}})
					if err != nil {
						b.Fatal(err)
					}
					for bells != nil {
						bell := <-bells
						if bell.Run == runID && bell.Seq >= seq {
							break
						}
					}
					ps, err := follower.PollsSince(ctx, svc, runID, last, 0)
					if err != nil || len(ps) != 1 || ps[0].Seq != seq {
						b.Fatalf("read %d polls after %d (%v)", len(ps), last, err)
					}
					last = seq
					delays = append(delays, time.Since(t0))
				}
				slices.Sort(delays)
				ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
				b.ReportMetric(ms(delays[len(delays)/2]), "ms-median")
				b.ReportMetric(ms(delays[len(delays)*99/100]), "ms-p99")
				b.ReportMetric(ms(delays[len(delays)-1]), "ms-worst")
			})
		}
	}
}

// benchLine is a recording line of about size bytes: events of a trace.
func benchLine(size int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"receivedAt":"2026-11-25T20:50:31.000Z","trace":{"events":[`)
	for i := 0; sb.Len() < size; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"schemaVersion":1,"eventId":"0190f3a4-0000-7000-8000-%012d","type":"reasoning.summary","agent":{"id":"a","role":"subagent"},"producerSequence":%d,"text":"Rate limits live in the API reference, not on the pricing pages (%d)."}`, i, i, i)
	}
	sb.WriteString(`]}}`)
	return []byte(sb.String())
}

// TestPostgresEndsIdleTransactions: the archive's connections have the
// server end a transaction whose client went silent (stopped inside it),
// so that the lease's row it locked is not held for ever; a DSN that sets
// its own bound keeps it.
func TestPostgresEndsIdleTransactions(t *testing.T) {
	t.Parallel()
	dsn := freshPostgres(t)
	for _, c := range []struct{ dsn, want string }{{dsn, "30s"}, {dsn + "&idle_in_transaction_session_timeout=5000", "5s"}} {
		s := openAgain(t, c.dsn)
		var v string
		if err := s.(*sqlStore).db.QueryRow(`SHOW idle_in_transaction_session_timeout`).Scan(&v); err != nil || v != c.want {
			t.Errorf("idle_in_transaction_session_timeout %q (%v), want %s", v, err, c.want)
		}
	}
}

// TestLeaseOfAGoneProcess: a lease whose holder was a process of this
// machine that is gone (killed) is taken over at once, with the next
// token, and its old holder's writes are refused; one held by a gone
// process of another machine waits for its expiry, as does one whose
// process still runs here.
func TestLeaseOfAGoneProcess(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, dsn string, s Store) {
		ctx := context.Background()
		exited := exec.Command("true")
		if err := exited.Run(); err != nil {
			t.Skip("no process to let end:", err)
		}
		k := LeaseKey{Service: svc, Team: team, Run: runID}
		dead := NewHolder("watch")
		dead.PID = exited.Process.Pid
		old, err := s.Take(ctx, k, dead, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		elsewhere := NewHolder("watch")
		elsewhere.Host += "-other"
		if _, err := s.Take(ctx, k, elsewhere, time.Minute); !errors.Is(err, ErrLeaseHeld) {
			t.Fatalf("another machine took a lease of this one's gone process: %v", err)
		}
		me := NewHolder("watch")
		l, err := openAgain(t, dsn).Take(ctx, k, me, time.Minute)
		if err != nil || l.Token != old.Token+1 || l.ID != me.ID {
			t.Fatalf("the gone process's lease: %+v %v", l, err)
		}
		if _, err := s.AppendLeased(ctx, old, time.Now(), pollLine(`{"trace":{}}`)); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("the gone holder's write: %v", err)
		}
		other := NewHolder("watch") // this process: it runs
		if _, err := s.Take(ctx, k, other, time.Minute); !errors.Is(err, ErrLeaseHeld) {
			t.Fatalf("a live process's lease was taken: %v", err)
		}
	})
}
