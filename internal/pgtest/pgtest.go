// Package pgtest is a PostgreSQL server of a test's own, for the tests
// that stop and start one (the leases' faults): initdb in a temporary
// folder, a free loopback port, never the shared server of
// FIREWATCH_TEST_POSTGRES. initdb refuses to run as root: as root, the
// server runs as the postgres user (runuser), as .ci/run starts the
// shared one.
package pgtest

import (
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// Server is a private PostgreSQL server, initialised and stopped when the
// test ends; Start and Stop are the test's.
type Server struct {
	bin, dir string
	port     int
	as       []string // the command prefix that runs as the server's user
}

// New initialises a server of t's own; t is skipped (failed when CI=true)
// without FIREWATCH_TEST_POSTGRES (the same rule as the archive's tests),
// without the server's binaries (/usr/lib/postgresql/*/bin), or as root
// without a postgres user.
func New(t testing.TB) *Server {
	t.Helper()
	skip := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	if os.Getenv("FIREWATCH_TEST_POSTGRES") == "" {
		skip("PostgreSQL not tested: set FIREWATCH_TEST_POSTGRES=postgres://... (and have its server binaries) to start a server of the test's own")
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Strings(bins)
	if len(bins) == 0 {
		skip("no PostgreSQL server binaries (/usr/lib/postgresql/*/bin) to start a server of the test's own")
	}
	p := &Server{bin: filepath.Dir(bins[len(bins)-1])}
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

func (p *Server) data() string { return filepath.Join(p.dir, "data") }

func (p *Server) as0() string {
	if len(p.as) > 0 {
		return p.as[0]
	}
	return filepath.Join(p.bin, "pg_ctl")
}

// args is the command line after as0 for the server's program prog.
func (p *Server) args(prog string, args ...string) []string {
	if len(p.as) == 0 {
		return args
	}
	return append(append(append([]string{}, p.as[1:]...), filepath.Join(p.bin, prog)), args...)
}

func (p *Server) run(t testing.TB, prog string, args ...string) {
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

// Start starts the server and waits until it takes connections.
func (p *Server) Start(t testing.TB) {
	t.Helper()
	p.run(t, "pg_ctl", "-D", p.data(), "-l", filepath.Join(p.dir, "log"), "-w", "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", p.port, p.dir), "start")
}

// Stop stops the server (its connections ended at once).
func (p *Server) Stop(t testing.TB) {
	t.Helper()
	p.run(t, "pg_ctl", "-D", p.data(), "-m", "fast", "-w", "stop")
}

// DSN is the server's DSN, with a short connect timeout.
func (p *Server) DSN() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=2", p.port)
}

var schemaN atomic.Int64

// Schema is dsn with its search_path a new, empty schema of t's, dropped
// when t ends: tests on one server share nothing.
func Schema(t testing.TB, dsn string) string {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	name := fmt.Sprintf("fwtest_%d_%d", time.Now().UnixNano(), schemaN.Add(1))
	if _, err := db.Exec(`CREATE SCHEMA ` + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if db, err := sql.Open("pgx", dsn); err == nil {
			db.Exec(`DROP SCHEMA ` + name + ` CASCADE`)
			db.Close()
		}
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + name
}
