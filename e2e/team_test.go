package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/internal/pgtest"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// teamInterval is the watches' poll interval in the team's tests: the
// lease's TTL is three of them.
const teamInterval = 200 * time.Millisecond

// takeoverSlack is how long after a lease's end a survivor may take it
// over on a loaded machine (it tries 50 ms after the end).
const takeoverSlack = 2 * time.Second

// threeIntervals says whether ttl is three poll intervals of a holder
// polling every teamInterval, slowed by half at a time while the run
// brings nothing new (the lease's TTL is three of its current
// intervals), to the millisecond the archive stores.
func threeIntervals(ttl time.Duration) bool {
	for iv := teamInterval; ; iv = min(iv*3/2, poller.DefaultMaxInterval) {
		if d := ttl - min(3*iv, archive.MaxLeaseTTL); d > -time.Millisecond && d < time.Millisecond {
			return true
		}
		if iv == poller.DefaultMaxInterval {
			return false
		}
	}
}

// sharedPostgres is a DSN whose search_path is a new schema on the
// server of FIREWATCH_TEST_POSTGRES (skipped without it, failed in CI).
func sharedPostgres(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("FIREWATCH_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("FIREWATCH_TEST_POSTGRES is not set and CI=true: the team's leases must be tested on PostgreSQL")
		}
		t.Skip("PostgreSQL not tested: set FIREWATCH_TEST_POSTGRES=postgres://...")
	}
	return pgtest.Schema(t, dsn)
}

// teamWatch is one of the team's watches: `watch -o json` with a summary,
// a recording and a debug log in its own folder.
func teamWatch(t *testing.T, env []string, id string) *proc {
	return teamWatchEvery(t, env, id, teamInterval)
}

// teamWatchEvery is teamWatch polling every interval when it holds the
// run's lease.
func teamWatchEvery(t *testing.T, env []string, id string, interval time.Duration) *proc {
	return start(t, env, "watch", id, "-o", "json", "--interval", interval.String(),
		"--summary", "summary.json", "--record", "rec.ndjson", "--debug", "debug.log")
}

// awaitLease waits until the run's lease satisfies cond, and returns it.
func awaitLease(t *testing.T, dsn string, k archive.LeaseKey, limit time.Duration, what string, cond func(archive.Lease) bool) archive.Lease {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(limit)
	var last archive.Lease
	var lastErr error
	for time.Now().Before(deadline) {
		st, err := archive.Open(ctx, dsn)
		if err == nil {
			last, err = st.Lease(ctx, k)
			st.Close()
			if err == nil && cond(last) {
				return last
			}
		}
		lastErr = err
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s within %s: the lease is %+v (%v)", what, limit, last, lastErr)
	return last
}

// holding is which of procs holds l (-1: none).
func holding(procs []*proc, l archive.Lease) int {
	for i, p := range procs {
		if p.cmd.Process.Pid == l.PID {
			return i
		}
	}
	return -1
}

// eventIDs is the eventIds of an NDJSON output, in order.
func eventIDs(t *testing.T, out string) []string {
	t.Helper()
	var ids []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e struct {
			EventID string `json:"eventId"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e, json.RejectUnknownMembers(false)); err != nil {
			t.Fatalf("a line that is not JSON: %v\n%s", err, sc.Text())
		}
		if e.EventID != "" {
			ids = append(ids, e.EventID)
		}
	}
	return ids
}

// once fails when ids holds an event twice.
func once(t *testing.T, who string, ids []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Errorf("%s: event %s twice", who, id)
		}
		seen[id] = true
	}
}

// summaryOf reads a watch's --summary: its event count and timeline.
type teamSummary struct {
	Outcome     string   `json:"outcome"`
	CreditsUsed float64  `json:"creditsUsed"`
	EventCount  int      `json:"eventCount"`
	Timeline    []string `json:"timeline"`
}

func summaryOf(t *testing.T, p *proc) teamSummary {
	t.Helper()
	var s teamSummary
	if err := json.Unmarshal(readFile(t, filepath.Join(p.cmd.Dir, "summary.json")), &s, json.RejectUnknownMembers(false)); err != nil {
		t.Fatal(err)
	}
	return s
}

// agree checks what the watches that saw the run to its end printed,
// summarised and recorded: every event of the run once, the same in all;
// the others' (killed) events are some of them, once each.
func agree(t *testing.T, env []string, srv *sim.Server, id string, ended, killed []*proc) {
	t.Helper()
	script, _ := srv.Script(id)
	var first []string
	for i, p := range ended {
		who := fmt.Sprintf("watch %d", i)
		ids := eventIDs(t, p.stdout.String())
		once(t, who+"'s NDJSON", ids)
		if len(ids) != len(script) {
			t.Errorf("%s printed %d events, the run has %d", who, len(ids), len(script))
		}
		s := summaryOf(t, p)
		once(t, who+"'s summary", s.Timeline)
		if s.EventCount != len(ids) || len(s.Timeline) != len(ids) || s.Outcome != "succeeded" {
			t.Errorf("%s's summary: %d events, %d in its timeline, %q; it printed %d", who, s.EventCount, len(s.Timeline), s.Outcome, len(ids))
		}
		sorted := slices.Clone(ids)
		slices.Sort(sorted)
		if first == nil {
			first = sorted
		} else if !slices.Equal(first, sorted) {
			t.Errorf("%s printed other events than watch 0", who)
		}
		rec := runFW(t, env, runLimit, "replay", filepath.Join(p.cmd.Dir, "rec.ndjson"), "-o", "json")
		rids := eventIDs(t, rec.stdout)
		once(t, who+"'s recording", rids)
		if len(rids) != len(ids) {
			t.Errorf("%s's recording replays %d events, it printed %d\n%s", who, len(rids), len(ids), rec.stderr)
		}
	}
	for _, p := range killed {
		ids := eventIDs(t, p.stdout.String())
		once(t, "the killed watch's NDJSON", ids)
		for _, id := range ids {
			if _, ok := slices.BinarySearch(first, id); !ok {
				t.Errorf("the killed watch printed %s, which the others did not", id)
			}
		}
	}
}

// TestTeamFollowsOneRun: three firewatch watches of one live run on one
// archive (PostgreSQL, SQLite) poll it once between them: the service
// sees one trace stream, not three. The leaseholder is killed (SIGKILL)
// mid-run and another takes over within the lease's TTL (three poll
// intervals); every survivor's NDJSON, summary and recording hold each
// event of the run exactly once, and agree.
func TestTeamFollowsOneRun(t *testing.T) {
	t.Parallel()
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		teamOfThree(t, sharedPostgres(t), false)
	})
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		teamOfThree(t, filepath.Join(t.TempDir(), "team.db"), false)
	})
}

// TestTeamHolderPaused: the leaseholder of three watches paused
// (SIGSTOP) past its lease's TTL: another takes the run over; woken
// (SIGCONT), the old holder finds its lease lost, stores nothing more and
// follows; all three print, summarise and record each event once, and
// agree.
func TestTeamHolderPaused(t *testing.T) {
	t.Parallel()
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		teamOfThree(t, sharedPostgres(t), true)
	})
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		teamOfThree(t, filepath.Join(t.TempDir(), "team.db"), true)
	})
}

// teamOfThree follows one run with three watches on dsn; its leaseholder
// is killed mid-run, or paused past its TTL and woken (pause).
func teamOfThree(t *testing.T, dsn string, pause bool) {
	// Held until the three share it, and again while the holder is gone,
	// so that it is gone mid-run however busy the machine; about four
	// seconds long besides.
	srv := startSim(t, sim.Options{Speed: 15, Held: true})
	id := srv.Jobs[0].ID
	env := append(simEnv(srv), "FIREWATCH_ARCHIVE="+dsn)
	k := archive.LeaseKey{Service: srv.URL, Run: id}
	began := time.Now()
	procs := []*proc{teamWatch(t, env, id), teamWatch(t, env, id), teamWatch(t, env, id)}
	l := awaitLease(t, dsn, k, 10*time.Second, "leaseholder among the watches", func(l archive.Lease) bool {
		return l.Left > 0 && holding(procs, l) >= 0
	})
	srv.Release()
	h := holding(procs, l)
	for i, p := range procs {
		p.waitOutput(t, runLimit, fmt.Sprintf("watch %d's first events", i), func(s string) bool { return strings.Count(s, "\n") >= 20 })
	}
	srv.Hold()
	// firewatch team says who polls the run.
	team := runFW(t, env, runLimit, "team")
	if !strings.Contains(team.stdout, "Polled by") || !strings.Contains(team.stdout, fmt.Sprintf("watch on %s (pid %d) since", l.Host, l.PID)) {
		t.Errorf("firewatch team does not say that pid %d polls the run:\n%s", l.PID, team)
	}
	// The lease as it stands just before the kill: its TTL bounds the takeover.
	l = awaitLease(t, dsn, k, time.Second, "lease still held", func(l archive.Lease) bool { return l.Left > 0 })
	sig := syscall.SIGKILL
	if pause {
		sig = syscall.SIGSTOP
	}
	if err := procs[h].cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	if !pause {
		<-procs[h].done
	}
	// The holder's lease as it ended: the last one read before the
	// takeover (a renewal may have landed between l's read and the
	// signal, with a longer TTL if the holder's polls had slowed).
	old := l
	nl := awaitLease(t, dsn, k, 10*time.Second, "takeover", func(nl archive.Lease) bool {
		if nl.Token == l.Token && nl.Renewed.After(old.Renewed) {
			old = nl
		}
		return nl.Token > l.Token && nl.Left > 0
	})
	if pause {
		if err := procs[h].cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
	}
	srv.Release()
	if holding(procs, nl) < 0 || holding(procs, nl) == h {
		t.Fatalf("taken over by %s, none of the survivors", nl.Holder)
	}
	// The lease ends at its expiry, or a TTL after its last renewal; a
	// survivor takes a paused holder's then (plus retakeAfter), never
	// before, and a killed one's as soon as it tries (the holder's pid is
	// gone from the host). The takeover is measured from that end, by the
	// database's clock, not from the signal: how long before the signal
	// the last renewal came is the machine's load, not the lease's.
	end := old.Renewed.Add(old.TTL)
	if old.Expires.Before(end) {
		end = old.Expires
	}
	took, late := nl.Since.Sub(killed), nl.Since.Sub(end)
	t.Logf("%s %s (TTL %s); %s took over %s after the signal, %s after the lease's end", sig, old.Holder, old.TTL, nl.Holder,
		took.Round(time.Millisecond), late.Round(time.Millisecond))
	if pause && late < 0 {
		t.Errorf("taken over %s before the paused holder's lease ended", -late)
	}
	// A survivor's retake timer fires 50 ms after the end; the rest is
	// a loaded machine's scheduling, given takeoverSlack, well below
	// the follower's next chance without it (its safety read, 5 s).
	if late > takeoverSlack {
		t.Errorf("taken over %s after the holder's lease ended (TTL %s), want within %s", late, old.TTL, takeoverSlack)
	}
	if !threeIntervals(old.TTL) {
		t.Errorf("the lease's TTL is %s: not three of the holder's poll intervals (%s, slowed by half each time while the run is idle)", old.TTL, teamInterval)
	}
	var ended []*proc
	for i, p := range procs {
		if i == h && !pause {
			continue
		}
		if code := p.wait(t, runLimit); code != 0 {
			t.Fatalf("watch %d: exit %d\n%s", i, code, tailOf(p.stderr.String()))
		}
		ended = append(ended, p)
	}
	wall := time.Since(began)
	traces := srv.Stats().ByRoute["GET trace"]
	stream := int(wall / teamInterval)
	t.Logf("%d trace requests in %s: one stream at %s is at most %d", traces, wall.Round(time.Millisecond), teamInterval, stream)
	if traces > stream*3/2 {
		t.Errorf("%d trace requests in %s: more than one stream (%d at most)", traces, wall, stream)
		for i, p := range procs {
			t.Logf("watch %d's debug log:\n%s", i, leaseLines(readFile(t, filepath.Join(p.cmd.Dir, "debug.log"))))
		}
	}
	for i, p := range procs {
		if strings.Contains(p.stderr.String(), "cannot be reached") {
			t.Errorf("watch %d says the archive cannot be reached:\n%s", i, p.stderr.String())
		}
	}
	if !pause {
		agree(t, env, srv, id, ended, []*proc{procs[h]})
		return
	}
	// Woken, the old holder found its lease lost and followed.
	if log := string(readFile(t, filepath.Join(procs[h].cmd.Dir, "debug.log"))); !strings.Contains(log, "lease: lost run "+id) {
		t.Errorf("the paused holder's debug log does not say it lost the lease:\n%s", tailOf(log))
	}
	agree(t, env, srv, id, ended, nil)
}

// TestTeamPostgresGoneAndBack: PostgreSQL (a server of the test's own)
// down when three watches of one run start, then up, then stopped
// mid-run and started again: in each outage every watch says once that it
// polls on its own and goes on, then says the archive is back, and they
// share again (one leaseholder, the others following); every event is
// printed, summarised and recorded once by each.
func TestTeamPostgresGoneAndBack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	t.Parallel()
	pg := pgtest.New(t)
	dsn := pg.DSN()
	// Held through both outages, so that the second is mid-run however
	// busy the machine; about four seconds long besides.
	srv := startSim(t, sim.Options{Speed: 15, Held: true})
	id := srv.Jobs[0].ID
	env := append(simEnv(srv), "FIREWATCH_ARCHIVE="+dsn)
	k := archive.LeaseKey{Service: srv.URL, Run: id}
	procs := []*proc{teamWatch(t, env, id), teamWatch(t, env, id), teamWatch(t, env, id)}
	const alone, back = "polling the run on our own", "the shared archive is back"
	outage := func(n int) {
		for i, p := range procs {
			awaitCount(t, p, 10*time.Second, fmt.Sprintf("watch %d saying it polls on its own (outage %d)", i, n), alone, n)
		}
		before := srv.Stats().ByRoute["GET trace"]
		pg.Start(t)
		for i, p := range procs {
			awaitCount(t, p, 15*time.Second, fmt.Sprintf("watch %d saying the archive is back (outage %d)", i, n), back, n)
		}
		up := time.Now()
		l := awaitLease(t, dsn, k, 10*time.Second, "leaseholder once it is back", func(l archive.Lease) bool {
			return l.Left > 0 && holding(procs, l) >= 0 && l.Renewed.After(up.Add(-time.Second))
		})
		t.Logf("outage %d: %d trace requests while they polled on their own; then %s holds the lease", n, srv.Stats().ByRoute["GET trace"]-before, l.Holder)
	}
	// Down at the start.
	outage(1)
	srv.Release()
	for i, p := range procs {
		p.waitOutput(t, runLimit, fmt.Sprintf("watch %d's events", i), func(s string) bool { return strings.Count(s, "\n") >= 20 })
	}
	srv.Hold()
	// Stopped mid-run.
	pg.Stop(t)
	outage(2)
	srv.Release()
	for i, p := range procs {
		if code := p.wait(t, runLimit); code != 0 {
			t.Fatalf("watch %d: exit %d\n%s", i, code, tailOf(p.stderr.String()))
		}
		for _, said := range []string{alone, back} {
			if n := strings.Count(p.stderr.String(), said); n != 2 {
				t.Errorf("watch %d said %q %d times, want once per outage:\n%s", i, said, n, p.stderr.String())
			}
		}
	}
	agree(t, env, srv, id, procs, nil)
	archivedOnce(t, dsn, srv, id)
}

// archivedOnce: the archive at dsn holds every event of the run once, in
// its polls, and says the run is complete.
func archivedOnce(t *testing.T, dsn string, srv *sim.Server, id string) {
	t.Helper()
	ctx := context.Background()
	st, err := archive.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, polls, err := archiving.Load(ctx, st, srv.URL, id)
	if err != nil {
		t.Fatalf("the run in the archive: %v", err)
	}
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	dec := c.NewDecoder()
	var ids []string
	for _, sp := range polls {
		p, _, err := poller.DecodeLine(dec, sp.Line)
		if err != nil {
			t.Fatalf("stored poll %d: %v", sp.Seq, err)
		}
		if p == nil {
			continue
		}
		for _, e := range p.Events {
			ids = append(ids, e.ID)
		}
	}
	once(t, "the archive's polls", ids)
	script, _ := srv.Script(id)
	if len(ids) != len(script) || !r.Complete {
		t.Errorf("the archive holds %d of the run's %d events in %d polls, complete: %v", len(ids), len(script), len(polls), r.Complete)
	}
}

// leaseLines are the lines of a debug log about the leases and the
// requests for the trace: who polled when.
func leaseLines(log []byte) string {
	var b strings.Builder
	for l := range strings.Lines(string(log)) {
		if strings.Contains(l, "lease") || strings.Contains(l, "/trace") || strings.Contains(l, "archive") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// awaitCount waits until p's stderr says want n times.
func awaitCount(t *testing.T, p *proc, limit time.Duration, what, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for strings.Count(p.stderr.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s\nstderr:\n%s", what, limit, tailOf(p.stderr.String()))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
