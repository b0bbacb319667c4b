package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firewatch/firewatch/internal/hostile"
)

// TestForeignDatabaseLeftAlone: another program's SQLite database is never
// written into, whatever its journal mode: in WAL mode (which firewatch's
// own archives use) as in rollback-journal mode, it is named as not an
// archive, its bytes and its tables stay as they were. A PostgreSQL schema
// whose fw_ tables are not firewatch's is refused alike.
func TestForeignDatabaseLeftAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, mode := range []string{"wal", "delete"} {
		t.Run(mode, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "notes.db")
			db, err := sql.Open("sqlite3", "file:"+path+"?_pragma=journal_mode("+mode+")")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')`); err != nil {
				t.Fatal(err)
			}
			db.Close()
			before := sum(t, path)
			s, err := Open(ctx, path)
			var ce *CorruptError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), "not a firewatch archive") {
				if s != nil {
					s.Close()
				}
				t.Fatalf("another program's %s database opened: %v", mode, err)
			}
			if sum(t, path) != before {
				t.Fatal("the database was changed")
			}
			db, _ = sql.Open("sqlite3", "file:"+path+"?mode=ro")
			defer db.Close()
			var n int
			if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'fw_%'`).Scan(&n); err != nil || n != 0 {
				t.Fatalf("%d firewatch tables in it (%v)", n, err)
			}
		})
	}
	t.Run("postgres", func(t *testing.T) {
		dsn := freshPostgres(t)
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`CREATE TABLE fw_runs (x INTEGER)`); err != nil {
			t.Fatal(err)
		}
		if s, err := Open(ctx, dsn); err == nil || !strings.Contains(err.Error(), "not a firewatch archive") {
			if s != nil {
				s.Close()
			}
			t.Fatalf("a schema with another fw_runs opened: %v", err)
		}
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'fw_meta'`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("fw_meta created (%d, %v)", n, err)
		}
	})
}

// TestLockWaitedForWithABound: a write that finds another program's write
// lock on the archive waits for it, says so once (Options.Waiting), and
// after LockWait fails with ErrLocked; the writes after it, the lock still
// held, try for one slice of it only (a watch's last writes would each wait
// the whole bound otherwise); once the lock is gone, writes go through
// again, and the next lock is waited for the whole bound again.
func TestLockWaitedForWithABound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "archive.db")
	var waits atomic.Int32
	const bound = 4 * sqliteBusySlice
	s, err := OpenWith(ctx, path, Options{LockWait: bound, Waiting: func() { waits.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// write is one locked write and how long it took.
	write := func(what string) time.Duration {
		t.Helper()
		began := time.Now()
		err := s.PutRun(ctx, &Run{Service: svc, ID: "r1"})
		if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "another program holds the archive's write lock") {
			t.Fatalf("%s, under another's lock: %v", what, err)
		}
		return time.Since(began)
	}
	tx := holdLock(t, path)
	if d := write("the first write"); d < bound-sqliteBusySlice {
		t.Fatalf("the first write gave up after %s; want the bound, %s", d, bound)
	}
	// The deadline is the bound's for the first write and none for the
	// second: the second makes one try (one slice of SQLite's own wait).
	if d := write("the second write"); d >= bound-sqliteBusySlice {
		t.Fatalf("the second write waited %s, as long as the first", d)
	}
	if n := waits.Load(); n != 1 {
		t.Fatalf("the wait was said %d times, want once", n)
	}
	tx.Rollback()
	if err := s.PutRun(ctx, &Run{Service: svc, ID: "r1"}); err != nil {
		t.Fatalf("after the lock: %v", err)
	}
	tx = holdLock(t, path)
	defer tx.Rollback()
	if d := write("a write under a lock taken again"); d < bound-sqliteBusySlice {
		t.Fatalf("a write after one that went through gave up after %s; want the bound, %s", d, bound)
	}
}

// TestFullArchiveSaysNoSpace: a write that finds the archive full (SQLite's
// "database or disk is full", here from a page limit; the same code as a
// full disk) fails with ErrNoSpace, whose words say so.
func TestFullArchiveSaysNoSpace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "archive.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ss := s.(*sqlStore)
	var pages int
	if err := ss.db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.db.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages+2)); err != nil {
		t.Fatal(err)
	}
	var werr error
	for i := range 200 {
		line := append(fmt.Appendf(nil, `{"n":%d,"pad":"`, i), randomText(8<<10)...)
		if werr = s.AppendPolls(ctx, svc, "r1", time.Now(), []Poll{{ReceivedAt: time.Now(), Line: append(line, `"}`...)}}); werr != nil {
			break
		}
	}
	if !errors.Is(werr, ErrNoSpace) || !strings.Contains(werr.Error(), "no space left") {
		t.Fatalf("a full archive: %v", werr)
	}
}

// randomText is n letters that deflate does not shrink much.
func randomText(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = 'a' + byte(x%26)
	}
	return b
}

// TestReadOnlyArchiveIsRead: an archive that cannot be written (its folder
// and file read-only) is opened read-only: its runs are read, and a write
// fails with ErrReadOnly, whose words say so.
func TestReadOnlyArchiveIsRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "archive.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendPolls(ctx, svc, "r1", time.Now(), []Poll{{ReceivedAt: time.Now(), Line: []byte(`{"a":1}`)}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	os.Chmod(path, 0o400)
	ro := hostile.ReadOnlyDir(t, dir)
	s, err = Open(ctx, filepath.Join(ro, "archive.db"))
	if err != nil {
		t.Fatalf("a read-only archive: %v", err)
	}
	defer s.Close()
	if !ReadOnly(s) && os.Geteuid() == 0 {
		t.Error("not said to be read-only")
	}
	if l, err := s.List(ctx, Query{}); err != nil || len(l) != 1 {
		t.Fatalf("list: %d runs, %v", len(l), err)
	}
	if ps, err := s.Polls(ctx, svc, "r1"); err != nil || len(ps) != 1 {
		t.Fatalf("polls: %v %v", ps, err)
	}
	if err := s.PutRun(ctx, &Run{Service: svc, ID: "r2"}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("a write: %v", err)
	}
}

// TestTeamsAndClaim: each run keeps its team; a listing of one team leaves
// the other's out; Claim makes a listed run the lister's and not expired.
func TestTeamsAndClaim(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, _ string, s Store) {
		ctx := context.Background()
		work, home := TeamOf("fc-work-key-0123456789"), TeamOf("fc-home-key-0123456789")
		if work == home || strings.Contains(work, "work") || TeamOf("") != "" {
			t.Fatalf("TeamOf: %q %q", work, home)
		}
		for _, r := range []Run{{ID: "w1", Team: work}, {ID: "h1", Team: home}, {ID: "u1"}} {
			r.Service = svc
			if err := s.PutRun(ctx, &r); err != nil {
				t.Fatal(err)
			}
			if err := s.AppendPolls(ctx, svc, r.ID, time.Now(), []Poll{{ReceivedAt: time.Now(), Line: []byte(`{}`)}}); err != nil {
				t.Fatal(err)
			}
		}
		if l, _ := s.List(ctx, Query{Service: svc, Team: work}); len(l) != 1 || l[0].ID != "w1" || l[0].Team != work {
			t.Fatalf("work's runs: %+v", l)
		}
		if err := s.MarkExpired(ctx, svc, "u1"); err != nil {
			t.Fatal(err)
		}
		if err := s.Claim(ctx, svc, home, []string{"u1"}); err != nil {
			t.Fatal(err)
		}
		h, err := s.Held(ctx, svc, []string{"w1", "h1", "u1"})
		if err != nil || h["u1"].Team != home || h["u1"].Expired || h["w1"].Team != work || h["h1"].Team != home {
			t.Fatalf("held %+v %v", h, err)
		}
	})
}

// TestKeysetPaging: many runs created at one time are listed page by page
// after the last one's (SortAt, id), each once.
func TestKeysetPaging(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, _ string, s Store) {
		ctx := context.Background()
		at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		for i := range 45 {
			if err := s.PutRun(ctx, &Run{Service: svc, ID: fmt.Sprintf("r%02d", i), CreatedAt: &at}); err != nil {
				t.Fatal(err)
			}
		}
		seen := map[string]bool{}
		q := Query{Service: svc, Limit: 20}
		for page := 0; page < 5; page++ {
			l, err := s.List(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range l {
				if seen[r.ID] {
					t.Fatalf("%s twice", r.ID)
				}
				seen[r.ID] = true
			}
			if len(l) < 20 {
				break
			}
			q.Before, q.BeforeID = l[len(l)-1].SortAt, l[len(l)-1].ID
		}
		if len(seen) != 45 {
			t.Fatalf("%d of 45 runs listed", len(seen))
		}
	})
}

// TestPruningDeletesNothing: Pruning counts what Prune would delete and
// deletes nothing.
func TestPruningDeletesNothing(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, _ string, s Store) {
		ctx := context.Background()
		for i := range 3 {
			at := time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC)
			if err := s.PutRun(ctx, &Run{Service: svc, ID: fmt.Sprint("r", i), CreatedAt: &at}); err != nil {
				t.Fatal(err)
			}
		}
		cut := time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)
		p, err := s.Pruning(ctx, "", cut, "")
		if err != nil || p.Runs != 2 {
			t.Fatalf("pruning: %+v %v", p, err)
		}
		if st, _ := s.Stats(ctx); st.Runs != 3 {
			t.Fatalf("Pruning deleted: %d runs left", st.Runs)
		}
		if p2, err := s.Prune(ctx, "", cut, ""); err != nil || p2 != p {
			t.Fatalf("prune %+v, pruning said %+v (%v)", p2, p, err)
		}
	})
}

// TestKeywordDSN: pgx's keyword form is a PostgreSQL DSN; its password is
// found and redacted (quoted, escaped or not); a file name with '=' in it
// is still a file.
func TestKeywordDSN(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][2]string{
		"host=db user=fw password=s3cret dbname=fw":          {"host=db user=fw password=[redacted] dbname=fw", "s3cret"},
		"host=db password = 'it\\'s a secret' sslmode=off":   {"host=db password = [redacted] sslmode=off", "it's a secret"},
		"  dbname=fw   password=a\\ b  ":                     {"  dbname=fw   password=[redacted]  ", "a b"},
		"user=fw host=/var/run/postgresql":                   {"user=fw host=/var/run/postgresql", ""},
		"password=p1 host=db password=p2":                    {"password=[redacted] host=db password=[redacted]", "p2"},
		"/home/me/a=b.db":                                    {"/home/me/a=b.db", ""},
		"mode=ro":                                            {"mode=ro", ""},
		"host=db password='unterminated":                     {"host=db password='unterminated", ""},
		"postgres://fw:s3cret@db/fw?search_path=x&sslmode=x": {"postgres://fw:[redacted]@db/fw?search_path=x&sslmode=x", "s3cret"},
	} {
		if got := RedactDSN(in); got != want[0] {
			t.Errorf("RedactDSN(%q) = %q, want %q", in, got, want[0])
		}
		if got := Password(in); got != want[1] {
			t.Errorf("Password(%q) = %q, want %q", in, got, want[1])
		}
	}
	for dsn, pg := range map[string]bool{"host=db dbname=fw": true, "/home/me/a=b.db": false, "mode=ro": false, "archive.db": false, "dbname=x": true} {
		if IsPostgres(dsn) != pg {
			t.Errorf("IsPostgres(%q) = %v", dsn, !pg)
		}
	}
}

// TestBodyTooLarge: a body larger than the archive stores (compressed) is
// refused with ErrTooLarge, before SQLite is asked (whose fixed memory it
// would exhaust: the driver panics then); the store goes on taking the
// ones that fit.
func TestBodyTooLarge(t *testing.T) {
	// Not parallel: maxStored is the package's.
	defer func(n int) { maxStored = n }(maxStored)
	maxStored = 4 << 10
	eachStore(t, func(t *testing.T, _ string, s Store) {
		ctx := context.Background()
		big := Poll{ReceivedAt: time.Now(), Line: append([]byte(`{"x":"`), randomText(16<<10)...)}
		small := Poll{ReceivedAt: time.Now(), Line: []byte(`{"x":1}`)}
		if err := s.AppendPolls(ctx, svc, "r1", time.Now(), []Poll{small, big}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "at most") {
			t.Fatalf("a poll too large: %v", err)
		}
		if err := s.ReplaceRun(ctx, &Run{Service: svc, ID: "r2"}, []Poll{big}, nil); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("a run with a poll too large: %v", err)
		}
		if err := s.PutSnapshot(ctx, svc, "r1", "s1", string(randomText(16<<10))); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("a snapshot too large: %v", err)
		}
		if err := s.AppendPolls(ctx, svc, "r1", time.Now(), []Poll{small}); err != nil {
			t.Fatal(err)
		}
		if ps, err := s.Polls(ctx, svc, "r1"); err != nil || len(ps) != 1 {
			t.Fatalf("%d polls, %v", len(ps), err)
		}
	})
}

// TestMigrateToTeams: an archive of schema 1 (written before teams were
// kept) is brought to this version on open: its runs are read as they
// were, with no team and no gaps, and the new columns are written.
func TestMigrateToTeams(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, dsn string, s Store) {
		ctx := context.Background()
		ss := s.(*sqlStore)
		db := ss.db
		for _, stmt := range []string{`DROP TABLE fw_meta`, `DROP TABLE fw_runs`, `DROP TABLE fw_polls`, `DROP TABLE fw_snapshots`, `DROP TABLE fw_leases`, `DROP TABLE fw_budget`, `DROP TABLE fw_moments`, `DROP TABLE fw_crawls`} {
			if _, err := db.Exec(stmt); err != nil {
				t.Fatal(err)
			}
		}
		for _, stmt := range ss.d.migrations()[0] {
			if _, err := db.Exec(stmt); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Exec(ss.q(`INSERT INTO fw_meta (k, v) VALUES ('schema', '1')`)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ss.q(`INSERT INTO fw_runs (service, id, prompt, archived_at, sort_at, polls) VALUES (?, 'r1', 'old run', 1, 1, 1)`), svc); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s2, err := Open(ctx, dsn)
		if err != nil {
			t.Fatalf("opening a schema 1 archive: %v", err)
		}
		defer s2.Close()
		if v, err := s2.(*sqlStore).version(ctx, s2.(*sqlStore).db); err != nil || v != SchemaVersion {
			t.Fatalf("version %d after the migration (%v)", v, err)
		}
		r, err := s2.Get(ctx, svc, "r1")
		if err != nil || r.Prompt != "old run" || r.Team != "" || r.Gaps != 0 {
			t.Fatalf("the old run: %+v %v", r, err)
		}
		if err := s2.Claim(ctx, svc, TeamOf("fc-key-0123456789"), []string{"r1"}); err != nil {
			t.Fatal(err)
		}
		if h, _ := s2.Held(ctx, svc, []string{"r1"}); h["r1"].Team != TeamOf("fc-key-0123456789") {
			t.Fatalf("held %+v", h)
		}
	})
}

// TestWatchWritesKeepTheRules: a watch's later polls and its snapshots
// (written on SQLite's own connection, sqlite_hot.go) wait for another
// program's lock as every write does (said once, ErrLocked after the
// bound), are written once it is gone, start the run again when it was
// pruned meanwhile, and leave nothing that keeps the store from closing.
func TestWatchWritesKeepTheRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "archive.db")
	var waits atomic.Int32
	s, err := OpenWith(ctx, path, Options{LockWait: 600 * time.Millisecond, Waiting: func() { waits.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	poll := func(n int) error {
		return s.AppendPolls(ctx, svc, "r1", time.Now(), []Poll{{ReceivedAt: time.Now(), Line: fmt.Appendf(nil, `{"n":%d}`, n)}})
	}
	if err := poll(0); err != nil {
		t.Fatal(err)
	}
	tx := holdLock(t, path)
	if err := poll(1); !errors.Is(err, ErrLocked) {
		t.Fatalf("a poll under another's lock: %v", err)
	}
	if err := s.PutSnapshot(ctx, svc, "r1", "s1", "one"); !errors.Is(err, ErrLocked) {
		t.Fatalf("a snapshot under another's lock: %v", err)
	}
	if n := waits.Load(); n != 1 {
		t.Fatalf("the wait was said %d times, want once", n)
	}
	tx.Rollback()
	if err := poll(1); err != nil {
		t.Fatalf("after the lock: %v", err)
	}
	if err := s.PutSnapshot(ctx, svc, "r1", "s1", "one"); err != nil {
		t.Fatal(err)
	}
	ps, err := s.Polls(ctx, svc, "r1")
	if err != nil || len(ps) != 2 || ps[0].Seq != 0 || ps[1].Seq != 1 || string(ps[1].Line) != `{"n":1}` {
		t.Fatalf("polls: %v %+v", err, ps)
	}
	if _, err := s.Prune(ctx, svc, time.Time{}, "r1"); err != nil {
		t.Fatal(err)
	}
	if err := poll(2); err != nil {
		t.Fatal(err)
	}
	if ps, err := s.Polls(ctx, svc, "r1"); err != nil || len(ps) != 1 || ps[0].Seq != 0 || string(ps[0].Line) != `{"n":2}` {
		t.Fatalf("after the prune: %v %+v", err, ps)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
}

// holdLock takes the write lock of the SQLite file at path as another
// program would, until the transaction ends (or the test does).
func holdLock(t *testing.T, path string) *sql.Tx {
	t.Helper()
	other, err := sql.Open("sqlite3", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	tx, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// An archive is in WAL mode whatever mode it was left in: one made by
// firewatch is opened again as it is (its mode is the file's own), and
// one set back to a rollback journal by another program is put in WAL
// mode again on its next open.
func TestArchiveStaysInWALMode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a.db")
	mode := func() string {
		t.Helper()
		db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var m string
		if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	reopen := func(id string) {
		t.Helper()
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.PutRun(ctx, &Run{Service: "http://x", ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	reopen("019a2b3c-4d5e-7f60-8a9b-0c1d2e3f0001")
	reopen("019a2b3c-4d5e-7f60-8a9b-0c1d2e3f0002")
	if m := mode(); m != "wal" {
		t.Fatalf("a reopened archive is in %s mode", m)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?_pragma=journal_mode(delete)")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if m := mode(); m != "delete" {
		t.Fatalf("the case is not made: the archive is in %s mode", m)
	}
	reopen("019a2b3c-4d5e-7f60-8a9b-0c1d2e3f0003")
	if m := mode(); m != "wal" {
		t.Fatalf("an archive found in rollback-journal mode stayed in %s mode", m)
	}
}
