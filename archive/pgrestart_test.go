package archive

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"
)

// privatePostgres is a PostgreSQL server of the test's own, in a temporary
// folder on a free loopback port, that the test stops and starts again.
// initdb refuses to run as root: as root, the server runs as the postgres
// user (runuser), as .ci/run starts the shared one.
type privatePostgres struct {
	bin, dir string
	port     int
	as       []string // the command prefix that runs as the server's user
}

func newPrivatePostgres(t *testing.T) *privatePostgres {
	t.Helper()
	postgresDSN(t) // the same rule: skipped without PostgreSQL, never in CI
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Strings(bins)
	skip := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	if len(bins) == 0 {
		skip("no PostgreSQL server binaries (/usr/lib/postgresql/*/bin) to start a server of the test's own")
	}
	p := &privatePostgres{bin: filepath.Dir(bins[len(bins)-1])}
	dir, err := os.MkdirTemp("", "firewatch-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p.dir = dir
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			skip("running as root without a postgres user to run a server as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		p.as = []string{"runuser", "-u", "postgres", "--"}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	p.run(t, "initdb", "-D", p.data(), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
	t.Cleanup(func() {
		exec.Command(p.as0(), p.args("pg_ctl", "-D", p.data(), "-m", "immediate", "-w", "stop")...).Run()
	})
	return p
}

func (p *privatePostgres) data() string { return filepath.Join(p.dir, "data") }

func (p *privatePostgres) as0() string {
	if len(p.as) > 0 {
		return p.as[0]
	}
	return filepath.Join(p.bin, "pg_ctl")
}

// args is the command line after as0 for the server's program prog.
func (p *privatePostgres) args(prog string, args ...string) []string {
	if len(p.as) == 0 {
		return args
	}
	return append(append(append([]string{}, p.as[1:]...), filepath.Join(p.bin, prog)), args...)
}

func (p *privatePostgres) run(t *testing.T, prog string, args ...string) {
	t.Helper()
	name := p.as0()
	if len(p.as) == 0 {
		name = filepath.Join(p.bin, prog)
	}
	out, err := exec.Command(name, p.args(prog, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", prog, err, out)
	}
}

func (p *privatePostgres) start(t *testing.T) {
	t.Helper()
	p.run(t, "pg_ctl", "-D", p.data(), "-l", filepath.Join(p.dir, "log"), "-w", "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", p.port, p.dir), "start")
}

func (p *privatePostgres) stop(t *testing.T) {
	t.Helper()
	p.run(t, "pg_ctl", "-D", p.data(), "-m", "fast", "-w", "stop")
}

func (p *privatePostgres) dsn() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=2", p.port)
}

// TestPostgresGoneAndBack: PostgreSQL unreachable when two members start,
// then stopped mid-run and started again. Without it each member polls on
// its own and says so once per outage; with it they share again: one
// polls, the other follows (its doorbells' connection made again), every
// poll stored is stored once, in order, and shown once by each.
func TestPostgresGoneAndBack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	t.Parallel()
	pg := newPrivatePostgres(t)
	svcRun := newFakeService(t, 0)
	k := LeaseKey{Service: svcRun.URL, Team: team, Run: runID}
	ev := newEvents()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	names := []string{"a", "b"}
	for _, name := range names {
		m := &member{name: name, open: func(ctx context.Context) (Store, error) { return Open(ctx, pg.dsn()) },
			key: k, holder: NewHolder(name), interval: teamInterval, ttl: teamTTL, service: svcRun.URL, say: ev.say}
		wg.Add(1)
		go func() { defer wg.Done(); errs <- m.run(ctx) }()
	}
	// Unreachable at the start: each polls on its own.
	owns := func(what string) {
		seen := map[string]int{}
		ev.await(t, 5*time.Second, what, func(e event) bool {
			if e.Kind == "own" {
				seen[e.Member]++
			}
			return seen["a"] >= 3 && seen["b"] >= 3
		})
	}
	owns("both poll on their own while PostgreSQL is down at the start")
	pg.start(t)
	ev.await(t, 10*time.Second, "a member takes the lease", func(e event) bool { return e.Kind == "took" })
	ev.await(t, 5*time.Second, "polls stored and followed", func(e event) bool { return e.Kind == "seen" && e.Seq >= 5 })
	pg.stop(t)
	owns("both poll on their own while PostgreSQL is down mid-run")
	pg.start(t)
	ev.await(t, 10*time.Second, "a member takes the lease again", func(e event) bool { return e.Kind == "took" })
	ev.await(t, 10*time.Second, "a follower's doorbells back", func(e event) bool { return e.Kind == "missed" })
	n0, _ := svcRun.requests()
	svcRun.finishIn(15)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	st := openAgain(t, pg.dsn())
	stored := checkStored(t, st, k)
	all := ev.list()
	for _, name := range names {
		checkSeen(t, name, all, len(stored), true)
		said := 0
		for _, e := range all {
			if e.Member == name && e.Kind == "solo" {
				said++
				t.Logf("%s: %s", name, e.Err)
			}
		}
		if said != 2 {
			t.Errorf("%s said it polls on its own %d times, want once per outage", name, said)
		}
	}
	// Shared again: every trace request from then on is one member's,
	// stored.
	n, by := svcRun.requests()
	t.Logf("%d polls stored, %d trace requests (%v)", len(stored), n, by)
	after := 0
	for _, p := range stored {
		if p.K > n0 {
			after++
		}
	}
	if after != n-n0 {
		t.Errorf("%d trace requests since both joined again, %d of them stored", n-n0, after)
	}
}
