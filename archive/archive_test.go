package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/firewatch/firewatch/internal/pgtest"
	"github.com/firewatch/firewatch/internal/testrun"
)

func TestMain(m *testing.M) {
	// Nothing here may touch the user's archive.
	dir, err := os.MkdirTemp("", "firewatch-archive-test")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_DATA_HOME", dir)
	// The tests wait on leases, locks and servers.
	testrun.Waiting(4)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// PostgresDSN is the test server's DSN from FIREWATCH_TEST_POSTGRES; without
// it the test skips, or fails when CI=true.
func postgresDSN(t testing.TB) string {
	dsn := os.Getenv("FIREWATCH_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("FIREWATCH_TEST_POSTGRES is not set and CI=true: the PostgreSQL store must be tested")
		}
		t.Skip("PostgreSQL store not tested: set FIREWATCH_TEST_POSTGRES=postgres://... to a server the test may create schemas on")
	}
	return dsn
}

// freshPostgres is a DSN whose search_path is a new, empty schema.
func freshPostgres(t testing.TB) string {
	return pgtest.Schema(t, postgresDSN(t))
}

var _ = stdlib.GetDefaultDriver

// eachStore runs f against a fresh SQLite archive and a fresh PostgreSQL
// one, one after the other.
func eachStore(t *testing.T, f func(t *testing.T, dsn string, s Store)) {
	stores(t, false, f)
}

// eachStoreAtOnce is eachStore with both at once: for a test that waits
// (on leases, processes, timers) and keeps nothing in its own function
// that f uses, since f runs after that function has returned.
func eachStoreAtOnce(t *testing.T, f func(t *testing.T, dsn string, s Store)) {
	stores(t, true, f)
}

func stores(t *testing.T, atOnce bool, f func(t *testing.T, dsn string, s Store)) {
	t.Run("sqlite", func(t *testing.T) {
		if atOnce {
			t.Parallel()
		}
		dsn := filepath.Join(t.TempDir(), "archive.db")
		s, err := Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		f(t, dsn, s)
	})
	t.Run("postgres", func(t *testing.T) {
		if atOnce {
			t.Parallel()
		}
		dsn := freshPostgres(t)
		s, err := Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		f(t, dsn, s)
	})
}

func tp(t time.Time) *time.Time { return &t }
func fp(f float64) *float64     { return &f }

const svc = "https://api.firecrawl.dev"

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, _ string, s Store) {
		ctx := context.Background()
		id := "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
		created := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
		if err := s.PutRun(ctx, &Run{Service: svc, ID: id, Prompt: "find the CEO", Model: "spark-1-mini", URLs: []string{"https://a.example"},
			Status: "processing", CreatedAt: &created, CreditsUsed: fp(3)}); err != nil {
			t.Fatal(err)
		}
		big := []byte(`{"receivedAt":"2026-11-20T10:00:02Z","trace":{"events":[` + strings.Repeat(`{"eventId":"e","type":"agent.thought","data":{"text":"thinking hard"}},`, 50) + `{}]}}`)
		polls := []Poll{{ReceivedAt: created.Add(time.Second), Line: []byte(`{"receivedAt":"2026-11-20T10:00:01Z","trace":{"events":[]}}`)}, {ReceivedAt: created.Add(2 * time.Second), Line: big}}
		if err := s.AppendPolls(ctx, svc, id, created, polls[:1]); err != nil {
			t.Fatal(err)
		}
		if err := s.AppendPolls(ctx, svc, id, created, polls[1:]); err != nil {
			t.Fatal(err)
		}
		// A later write of other fields keeps the known ones.
		if err := s.PutRun(ctx, &Run{Service: svc, ID: id, Status: "completed", CreditsUsed: fp(12.5)}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutSnapshot(ctx, svc, id, "snap-1", "# report\n"+strings.Repeat("line\n", 100)); err != nil {
			t.Fatal(err)
		}
		if err := s.SetDerived(ctx, &Run{Service: svc, ID: id, Outcome: "succeeded", Events: 51, ToolCalls: 2, Summary: []byte(`{"runId":"x"}`), Complete: true}); err != nil {
			t.Fatal(err)
		}
		r, err := s.Get(ctx, svc, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Prompt != "find the CEO" || r.Model != "spark-1-mini" || r.Status != "completed" || *r.CreditsUsed != 12.5 || !r.CreatedAt.Equal(created) ||
			r.Outcome != "succeeded" || r.Events != 51 || !r.Complete || string(r.Summary) != `{"runId":"x"}` || len(r.URLs) != 1 || r.Polls != 2 {
			t.Fatalf("got %+v", r)
		}
		if r.PollBytes >= int64(len(big)) {
			t.Errorf("poll bytes %d: the large poll was not compressed (%d raw)", r.PollBytes, len(big))
		}
		got, err := s.Polls(ctx, svc, id)
		if err != nil || len(got) != 2 || !bytes.Equal(got[1].Line, big) || !got[0].ReceivedAt.Equal(polls[0].ReceivedAt) {
			t.Fatalf("polls: %v %d", err, len(got))
		}
		if c, err := s.Snapshot(ctx, svc, id, "snap-1"); err != nil || !strings.HasPrefix(c, "# report") {
			t.Fatalf("snapshot: %q %v", c, err)
		}
		if _, err := s.Snapshot(ctx, svc, id, "nope"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("missing snapshot: %v", err)
		}
		if _, err := s.Get(ctx, svc, "019a2b3c-0000-7f60-8a9b-0c1d2e3f4a5b"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("missing run: %v", err)
		}
		// Found under another service when asked for any.
		if r, err := s.Get(ctx, "http://127.0.0.1:1", id); err != nil || r.Service != svc {
			t.Fatalf("any service: %v", err)
		}
		held, err := s.Held(ctx, svc, []string{id, "other"})
		if err != nil || len(held) != 1 || !held[id].Complete || held[id].HasItem {
			t.Fatalf("held: %v %v", held, err)
		}
		// Who acted through a hub, for the runs screen's details.
		if err := s.PutRun(ctx, &Run{Service: svc, ID: id, CancelRequested: true, CancelledBy: "alice", StartedBy: "bob"}); err != nil {
			t.Fatal(err)
		}
		if held, err := s.Held(ctx, svc, []string{id}); err != nil || held[id].CancelledBy != "alice" || held[id].StartedBy != "bob" {
			t.Fatalf("held names: %+v %v", held, err)
		}
	})
}

func TestListAndPrune(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, _ string, s Store) {
		ctx := context.Background()
		base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		for i := range 10 {
			st := []string{"completed", "failed", "processing", "cancelled", "canceled"}[i%5]
			service := svc
			if i == 9 {
				service = "http://127.0.0.1:3002"
			}
			r := &Run{Service: service, ID: fmt.Sprintf("run-%02d", i), Prompt: fmt.Sprintf("Prompt %d_%%x", i), Status: st, CreatedAt: tp(base.Add(time.Duration(i) * 24 * time.Hour))}
			if err := s.PutRun(ctx, r); err != nil {
				t.Fatal(err)
			}
			if err := s.AppendPolls(ctx, service, r.ID, base, []Poll{{ReceivedAt: base, Line: []byte(`{}`)}}); err != nil {
				t.Fatal(err)
			}
		}
		all, err := s.List(ctx, Query{})
		if err != nil || len(all) != 10 || all[0].ID != "run-09" || all[9].ID != "run-00" {
			t.Fatalf("all: %v %d", err, len(all))
		}
		mine, _ := s.List(ctx, Query{Service: svc, Status: "cancelled"})
		if len(mine) != 3 || mine[0].ID != "run-08" || mine[1].ID != "run-04" || mine[2].ID != "run-03" {
			t.Fatalf("cancelled: %+v", mine)
		}
		since, _ := s.List(ctx, Query{Service: svc, Since: base.Add(5 * 24 * time.Hour), Limit: 2})
		if len(since) != 2 || since[0].ID != "run-08" {
			t.Fatalf("since: %+v", since)
		}
		grep, _ := s.List(ctx, Query{Grep: "prompt 4_%"})
		if len(grep) != 1 || grep[0].ID != "run-04" {
			t.Fatalf("grep: %+v", grep)
		}
		p, err := s.Prune(ctx, "", base.Add(3*24*time.Hour), "")
		if err != nil || p.Runs != 3 || p.Polls != 3 {
			t.Fatalf("prune: %+v %v", p, err)
		}
		p, err = s.Prune(ctx, "", time.Time{}, "run-05")
		if err != nil || p.Runs != 1 {
			t.Fatalf("prune id: %+v %v", p, err)
		}
		st, err := s.Stats(ctx)
		if err != nil || st.Runs != 6 || st.Polls != 6 {
			t.Fatalf("stats: %+v %v", st, err)
		}
	})
}

func TestReplaceRunIsWhole(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, _ string, s Store) {
		ctx := context.Background()
		r := &Run{Service: svc, ID: "r1", Status: "processing"}
		if err := s.AppendPolls(ctx, svc, "r1", time.Now(), []Poll{{ReceivedAt: time.Now(), Line: []byte(`{"a":1}`)}, {ReceivedAt: time.Now(), Line: []byte(`{"a":2}`)}}); err != nil {
			t.Fatal(err)
		}
		r.Status, r.Complete = "completed", true
		if err := s.ReplaceRun(ctx, r, []Poll{{ReceivedAt: time.Now(), Line: []byte(`{"whole":true}`)}}, map[string]string{"s1": "x"}); err != nil {
			t.Fatal(err)
		}
		// Twice: nothing duplicated.
		if err := s.ReplaceRun(ctx, r, []Poll{{ReceivedAt: time.Now(), Line: []byte(`{"whole":true}`)}}, map[string]string{"s1": "x"}); err != nil {
			t.Fatal(err)
		}
		ps, err := s.Polls(ctx, svc, "r1")
		if err != nil || len(ps) != 1 || string(ps[0].Line) != `{"whole":true}` {
			t.Fatalf("%v %v", ps, err)
		}
		got, _ := s.Get(ctx, svc, "r1")
		if got.Polls != 1 || !got.Complete {
			t.Fatalf("%+v", got)
		}
	})
}

func sum(t *testing.T, paths ...string) string {
	h := sha256.New()
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s:%d:", p, len(b))
		h.Write(b)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func TestNewerAndCorruptLeftAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "archive.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutRun(ctx, &Run{Service: svc, ID: "r1"}); err != nil {
		t.Fatal(err)
	}
	ss := s.(*sqlStore)
	if _, err := ss.db.Exec(`UPDATE fw_meta SET v = '99' WHERE k = 'schema'`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before := sum(t, path, path+"-wal")
	_, err = Open(ctx, path)
	var ne *NewerError
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), path) || ne.Version != 99 {
		t.Fatalf("newer: %v", err)
	}
	if sum(t, path, path+"-wal") != before {
		t.Fatal("the newer database was changed")
	}

	bad := filepath.Join(dir, "bad.db")
	junk := []byte("this is not a database at all, just some text that someone wrote here\n")
	os.WriteFile(bad, junk, 0o600)
	_, err = Open(ctx, bad)
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), bad) {
		t.Fatalf("corrupt: %v", err)
	}
	if b, _ := os.ReadFile(bad); !bytes.Equal(b, junk) {
		t.Fatal("the corrupt file was changed")
	}
	if _, err := os.Stat(bad + "-wal"); err == nil {
		t.Fatal("a -wal file was created next to the corrupt file")
	}

	// A header that says SQLite, with garbage after it.
	half := filepath.Join(dir, "half.db")
	g := append([]byte("SQLite format 3\x00"), bytes.Repeat([]byte{0xAB}, 4096)...)
	os.WriteFile(half, g, 0o600)
	if _, err := Open(ctx, half); !errors.As(err, &ce) {
		t.Fatalf("garbage after the header: %v", err)
	}
	if b, _ := os.ReadFile(half); !bytes.Equal(b, g) {
		t.Fatal("the corrupt file was changed")
	}
}

func TestPostgresNewer(t *testing.T) {
	t.Parallel()
	dsn := freshPostgres(t)
	ctx := context.Background()
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.(*sqlStore).db.Exec(`UPDATE fw_meta SET v = $1 WHERE k = 'schema'`, fmt.Sprint(SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(ctx, dsn)
	var ne *NewerError
	if !errors.As(err, &ne) || ne.Version != SchemaVersion+1 {
		t.Fatalf("%v", err)
	}
}

func TestFileMode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "archive.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", st.Mode(), err)
	}
	if st, _ := os.Stat(filepath.Dir(path)); st.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v", st.Mode())
	}
}

func TestDSN(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/tmp/xdg")
	t.Setenv(EnvDSN, "")
	if p, _ := ResolveDSN(""); p != "/tmp/xdg/firewatch/archive.db" {
		t.Errorf("default %q", p)
	}
	t.Setenv(EnvDSN, "off")
	if p, _ := ResolveDSN(""); p != "off" {
		t.Errorf("env %q", p)
	}
	if p, _ := ResolveDSN("/x.db"); p != "/x.db" {
		t.Errorf("flag %q", p)
	}
	if _, err := Open(context.Background(), "off"); !errors.Is(err, ErrOff) {
		t.Errorf("off: %v", err)
	}
	for in, want := range map[string]string{
		"postgres://fw:s3cret@db.example:5432/fw?sslmode=disable": "postgres://fw:[redacted]@db.example:5432/fw?sslmode=disable",
		"postgresql://db.example/fw?password=s3cret":              "postgresql://db.example/fw?password=[redacted]",
		"/home/me/archive.db":                                     "/home/me/archive.db",
	} {
		if got := RedactDSN(in); got != want {
			t.Errorf("RedactDSN(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"postgres://fw:s3cret@db.example:5432/fw":    "s3cret",
		"postgresql://db.example/fw?password=s3cret": "s3cret",
		"postgres://fw@db.example/fw":                "",
		"/home/me/archive.db":                        "",
	} {
		if got := Password(in); got != want {
			t.Errorf("Password(%q) = %q, want %q", in, got, want)
		}
	}
	_, err := Open(context.Background(), "postgres://fw:s3cret@127.0.0.1:1/fw?connect_timeout=1")
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("unreachable: %v", err)
	}
}

func TestTwoWritersOneFile(t *testing.T) {
	t.Parallel()
	// Two stores on one file in one process; the test with two processes
	// is in cli.
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "archive.db")
	a, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i, s := range []Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 100 {
				if err := s.AppendPolls(ctx, svc, fmt.Sprintf("w%d", i), time.Now(), []Poll{{ReceivedAt: time.Now(), Line: []byte(fmt.Sprintf(`{"n":%d}`, n))}}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i := range 2 {
		ps, err := a.Polls(ctx, svc, fmt.Sprintf("w%d", i))
		if err != nil || len(ps) != 100 {
			t.Fatalf("writer %d: %d polls, %v", i, len(ps), err)
		}
	}
}

// fill adds n runs of one service in one transaction (the benchmarks'
// archive).
func fill(tb testing.TB, s Store, n int) {
	ss := s.(*sqlStore)
	ctx := context.Background()
	tx, err := ss.db.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		c := base.Add(time.Duration(i) * time.Minute)
		r := &Run{Service: svc, ID: fmt.Sprintf("019a2b3c-4d5e-7f60-8a9b-%012d", i), Prompt: fmt.Sprintf("Compare the pricing of vendor %d", i),
			Model: "spark-1-mini", Status: []string{"completed", "failed", "cancelled"}[i%3], CreatedAt: &c, CreditsUsed: fp(float64(i % 500))}
		rid, err := ss.upsertRun(ctx, tx, r, true)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := ss.insertPolls(ctx, tx, rid, 0, []Poll{{ReceivedAt: c, Line: []byte(`{"receivedAt":"x","trace":{"events":[]}}`)}}); err != nil {
			tb.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE fw_runs SET polls = 1, complete = 1 WHERE rid = ?`, rid); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkListPage is what the runs screen and history do per key: a
// page of 21 runs, the first one and one far down (by cursor), and a
// filtered page, at 1 000 and 100 000 archived runs.
func BenchmarkListPage(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		path := filepath.Join(b.TempDir(), "archive.db")
		s, err := Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		fill(b, s, n)
		ctx := context.Background()
		mid := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n/2) * time.Minute)
		for _, q := range []struct {
			name string
			q    Query
		}{
			{"first", Query{Service: svc, Limit: 21}},
			{"cursor", Query{Service: svc, Before: mid, Limit: 21}},
			{"status", Query{Service: svc, Status: "failed", Limit: 21}},
			{"grep", Query{Service: svc, Grep: "vendor 7", Limit: 21}},
		} {
			b.Run(fmt.Sprintf("%s/%d", q.name, n), func(b *testing.B) {
				for b.Loop() {
					l, err := s.List(ctx, q.q)
					if err != nil || len(l) == 0 {
						b.Fatal(err)
					}
				}
			})
		}
		s.Close()
	}
}

// BenchmarkOpenClose is the fixed cost archiving adds to a watch: opening
// an existing SQLite archive (checked, migrated if needed, statements
// prepared) and closing it.
func BenchmarkOpenClose(b *testing.B) {
	path := filepath.Join(b.TempDir(), "a.db")
	st, err := Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	for b.Loop() {
		st, err := Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}

// Bodies deflated as they were written (a long poll line in parts, a
// summary) read back as the bytes written, and count as stored.
func TestEncodedBodies(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, _ string, s Store) {
		ctx := context.Background()
		id := "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5c"
		line := []byte(`{"receivedAt":"2026-11-20T10:00:02Z","trace":{"events":[` + strings.Repeat(`{"eventId":"e","type":"agent.thought","data":{"text":"thinking hard"}},`, 5000) + `{}]}}`)
		e := NewEncoder()
		for i := 0; i < len(line); i += 1000 {
			e.Write(line[i:min(len(line), i+1000)])
		}
		enc, err := e.Done()
		if err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 11, 20, 10, 0, 2, 0, time.UTC)
		small := []byte(`{"receivedAt":"2026-11-20T10:00:03Z","trace":{"events":[]}}`)
		if err := s.AppendPolls(ctx, svc, id, at, []Poll{{ReceivedAt: at, Encoded: enc}, {ReceivedAt: at.Add(time.Second), Line: small}}); err != nil {
			t.Fatal(err)
		}
		sum := `{"runId":"` + id + `","timeline":[` + strings.Repeat(`"e",`, 3000) + `"e"]}`
		es, err := Encode(func(w io.Writer) error { _, err := io.WriteString(w, sum); return err })
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetDerived(ctx, &Run{Service: svc, ID: id, Outcome: "succeeded", SummaryEncoded: es, Complete: true}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Polls(ctx, svc, id)
		if err != nil || len(got) != 2 || !bytes.Equal(got[0].Line, line) || !bytes.Equal(got[1].Line, small) || !got[0].ReceivedAt.Equal(at) {
			t.Fatalf("polls: %v %d", err, len(got))
		}
		r, err := s.Get(ctx, svc, id)
		if err != nil || string(r.Summary) != sum || r.PollBytes != int64(enc.Size()+len(small)) || enc.Size() >= len(line)/4 {
			t.Fatalf("run: %v, summary %d bytes, poll bytes %d (encoded %d of %d)", err, len(r.Summary), r.PollBytes, enc.Size(), len(line))
		}
	})
}

// A snapshot of a watched run that was pruned meanwhile is stored with the
// run made again, not left without a run.
func TestSnapshotAfterPrune(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, _ string, s Store) {
		ctx := context.Background()
		id := "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5d"
		at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
		if err := s.AppendPolls(ctx, svc, id, at, []Poll{{ReceivedAt: at, Line: []byte(`{"receivedAt":"2026-11-20T10:00:00Z","trace":{"events":[]}}`)}}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutSnapshot(ctx, svc, id, "s1", "one"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Prune(ctx, svc, time.Time{}, id); err != nil {
			t.Fatal(err)
		}
		if err := s.PutSnapshot(ctx, svc, id, "s2", "two"); err != nil {
			t.Fatal(err)
		}
		if c, err := s.Snapshot(ctx, svc, id, "s2"); err != nil || c != "two" {
			t.Fatalf("after the prune: %q %v", c, err)
		}
		if _, err := s.Snapshot(ctx, svc, id, "s1"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a pruned snapshot: %v", err)
		}
	})
}
