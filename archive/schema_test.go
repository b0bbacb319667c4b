package archive

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

var (
	update = flag.Bool("update", false, "write the schema goldens (testdata/schema-*.txt) as this firewatch makes the schema")
	// writeV3 made testdata/archive-v3.db with the firewatch that wrote
	// schema 3; a later one must not write it again.
	writeV3 = flag.Bool("write-archive-v3", false, "write testdata/archive-v3.db (only ever with a firewatch of schema 3)")
)

// schemaOf describes the schema of an open store, one line per table,
// column and index, in a stable order: SQLite's own text of each
// statement, PostgreSQL's catalogue (its schema's name left out).
func schemaOf(t *testing.T, s *sqlStore) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	lines := func(query string, n int) {
		rows, err := s.db.QueryContext(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			v := make([]sql.NullString, n)
			args := make([]any, n)
			for i := range v {
				args[i] = &v[i]
			}
			if err := rows.Scan(args...); err != nil {
				t.Fatal(err)
			}
			for i, x := range v {
				if i > 0 {
					b.WriteString(" | ")
				}
				if x.Valid {
					b.WriteString(x.String)
				} else {
					b.WriteString("NULL")
				}
			}
			b.WriteByte('\n')
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if s.d.name == "sqlite" {
		lines(`SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name`, 4)
		return b.String()
	}
	lines(`SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity FROM information_schema.columns
		WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`, 6)
	lines(`SELECT tablename, indexname, regexp_replace(indexdef, ' ON [a-z0-9_]+\.', ' ON ') FROM pg_indexes
		WHERE schemaname = current_schema() ORDER BY tablename, indexname`, 3)
	return b.String()
}

// TestSchemaAsBefore: a new archive's schema is, statement for statement,
// the one firewatch made before its migrations were files of SQL
// (testdata/schema-*.txt, written with -update by the firewatch of schema
// version 3 that kept them in Go).
func TestSchemaAsBefore(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, dsn string, s Store) {
		ss := s.(*sqlStore)
		got := schemaOf(t, ss)
		golden := filepath.Join("testdata", "schema-"+ss.d.name+".txt")
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Fatalf("the schema differs from %s:\n%s", golden, got)
		}
	})
}

// mainArchive is an archive of schema version 3 made by the firewatch that
// kept its migrations in Go (written by -write-archive-v3 at 1a84f77,
// then kept as it was).
var mainArchive = filepath.Join("testdata", "archive-v3.db")

// TestArchiveFromBeforeOpens: an archive an earlier firewatch made opens,
// is brought to this schema (a new archive's, statement for statement),
// and reads as it was written.
func TestArchiveFromBeforeOpens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if *writeV3 {
		if SchemaVersion != 3 {
			t.Fatal("archive-v3.db is an archive of schema 3: only that firewatch may write it")
		}
		os.Remove(mainArchive)
		s, err := Open(ctx, mainArchive)
		if err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
		r := &Run{Service: svc, ID: "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", Prompt: "Compare the pricing", Model: "spark-2",
			MaxCredits: fp(300), CreatedAt: tp(at), Status: "completed", Outcome: "succeeded", Complete: true, Events: 2,
			CreditsUsed: fp(12), Team: TeamOf("fc-key-0123456789"), CreditsByAgent: map[string]float64{"a1": 12}}
		if err := s.ReplaceRun(ctx, r, []Poll{{ReceivedAt: at, Line: []byte(`{"receivedAt":"2026-11-28T03:00:00Z","trace":{"events":[]}}`)}},
			map[string]string{"019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5c": "# the snapshot"}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutRun(ctx, &Run{Service: svc, ID: "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5d", Prompt: "started with --detach",
			MaxCredits: fp(2500), CreatedAt: tp(at.Add(time.Minute)), Status: "processing"}); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	dst := filepath.Join(t.TempDir(), "archive.db")
	copyFile(t, mainArchive, dst)
	s, err := Open(ctx, dst)
	if err != nil {
		t.Fatalf("opening the archive an earlier firewatch made: %v", err)
	}
	defer s.Close()
	if v, err := s.(*sqlStore).version(ctx, s.(*sqlStore).db); err != nil || v != SchemaVersion {
		t.Fatalf("version %d (%v)", v, err)
	}
	list, err := s.List(ctx, Query{Service: svc})
	if err != nil || len(list) != 2 {
		t.Fatalf("%d runs (%v)", len(list), err)
	}
	r, err := s.Get(ctx, svc, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b")
	if err != nil || r.Prompt != "Compare the pricing" || !r.Complete || r.Outcome != "succeeded" || *r.CreditsUsed != 12 ||
		r.Team != TeamOf("fc-key-0123456789") || r.CreditsByAgent["a1"] != 12 || r.Polls != 1 {
		t.Fatalf("the run: %+v %v", r, err)
	}
	if c, err := s.Snapshot(ctx, svc, r.ID, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5c"); err != nil || c != "# the snapshot" {
		t.Fatalf("its snapshot: %q %v", c, err)
	}
	polls, err := s.Polls(ctx, svc, r.ID)
	if err != nil || len(polls) != 1 || !regexp.MustCompile(`"trace"`).Match(polls[0].Line) {
		t.Fatalf("its polls: %v %v", polls, err)
	}
	if got, want := schemaOf(t, s.(*sqlStore)), readFile(t, filepath.Join("testdata", "schema-sqlite.txt")); got != want {
		t.Fatalf("its schema is not the one a new archive has:\n%s", got)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(fmt.Errorf("%s: %w", name, err))
	}
	return string(b)
}

// TestMigrationFiles: each store's files are read in order and go to
// SchemaVersion; a set with a version missing, a name out of form or a
// statement without its ";" is refused, not run in part.
func TestMigrationFiles(t *testing.T) {
	t.Parallel()
	for _, d := range []dialect{sqliteDialect, postgresDialect} {
		if steps := d.migrations(); len(steps) != SchemaVersion || len(steps[0]) != 7 || len(steps[1]) != 3 || len(steps[2]) != 3 {
			t.Fatalf("%s: %d steps: %q", d.name, len(steps), steps)
		}
	}
	for name, files := range map[string]fstest.MapFS{
		"a version missing": {"m/0001_a.sql": {Data: []byte("CREATE TABLE a (x TEXT);\n")}, "m/0003_c.sql": {Data: []byte("SELECT 1;\n")}},
		"not numbered":      {"m/first.sql": {Data: []byte("SELECT 1;\n")}},
		"no ;":              {"m/0001_a.sql": {Data: []byte("-- a comment\nCREATE TABLE a (x TEXT)\n")}},
		"empty":             {"m/0001_a.sql": {Data: []byte("-- nothing\n")}},
	} {
		if _, err := loadMigrations(files, "m"); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	got, err := splitStatements("-- v1\n\nCREATE TABLE a (\n\tx TEXT);\n\n-- the index\nCREATE INDEX a_x ON a (x);\n")
	if err != nil || len(got) != 2 || got[0] != "CREATE TABLE a (\n\tx TEXT)" || got[1] != "CREATE INDEX a_x ON a (x)" {
		t.Fatalf("%q %v", got, err)
	}
}
