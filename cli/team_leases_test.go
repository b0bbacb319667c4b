package cli

import (
	"context"
	"database/sql"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/internal/pgtest"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// TestTeamShowsEveryLeaseRow: firewatch team lists every lease row the
// archive holds for the service, held or not, and flags the odd ones: an
// expiry in the year 3000 (held only as long as its holder renews it), a
// lease not renewed for an hour whose row still says it is held, a token
// at the top of its range; a time past the year 9999 does not break -o
// json. On SQLite and PostgreSQL.
func TestTeamShowsEveryLeaseRow(t *testing.T) {
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 1, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	run := func(n int) string { return "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5" + string(rune('a'+n)) }
	year3000 := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	check := func(t *testing.T, dsn, driver, dbDSN string, dollar bool) {
		ctx := context.Background()
		st, err := archive.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		elsewhere := archive.Holder{ID: "gone-holder", Label: "watch", Host: "elsewhere", PID: 4242}
		for i := range 5 {
			if _, err := st.Take(ctx, archive.LeaseKey{Service: srv.URL, Run: run(i)}, elsewhere, time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		st.Close()
		db, err := sql.Open(driver, dbDSN)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		hourAgo := time.Now().Add(-time.Hour).UnixMilli()
		for _, e := range []struct {
			set  string
			args []any
			run  string
		}{
			{"expires = ?", []any{year3000}, run(1)},
			{"renewed = ?, since = ?, expires = ?", []any{hourAgo, hourAgo, year3000}, run(2)},
			{"token = ?", []any{int64(math.MaxInt64)}, run(3)},
			{"expires = ?", []any{int64(math.MaxInt64)}, run(4)},
		} {
			q := `UPDATE fw_leases SET ` + e.set + ` WHERE run = ?`
			if dollar {
				for n := 1; strings.Contains(q, "?"); n++ {
					q = strings.Replace(q, "?", "$"+string(rune('0'+n)), 1)
				}
			}
			if _, err := db.Exec(q, append(e.args, e.run)...); err != nil {
				t.Fatal(err)
			}
		}
		noWait := poller.Retry{Sleep: func(ctx context.Context, _ time.Duration) bool { return ctx.Err() == nil }}
		var out, errOut strings.Builder
		if code := execute(ctx, []string{"--archive", dsn, "team"}, strings.NewReader(""), &out, &errOut, noWait); code != ExitOK {
			t.Fatalf("exit %d:\n%s\n%s", code, out.String(), errOut.String())
		}
		plain := out.String()
		t.Logf("team:\n%s", plain)
		lineOf := func(id string) string {
			for _, l := range strings.Split(plain, "\n") {
				if strings.Contains(l, id) {
					return l
				}
			}
			return ""
		}
		for i, want := range []string{"since", "expiry far in the future", "not renewed for 1h0m0s", "token at its limit", "expiry far in the future"} {
			if l := lineOf(run(i)); !strings.Contains(l, "watch on elsewhere (pid 4242)") || !strings.Contains(l, want) {
				t.Errorf("run %d's lease: %q, want %q in it:\n%s", i, l, want, plain)
			}
		}
		if !strings.Contains(plain, "Polled by      4 leases") || !strings.Contains(plain, "Free leases    1 lease") ||
			!strings.Contains(lineOf(run(2)), "ended, last watch") {
			t.Errorf("the held and the free leases:\n%s", plain)
		}
		out.Reset()
		if code := execute(ctx, []string{"--archive", dsn, "team", "-o", "json"}, strings.NewReader(""), &out, &errOut, noWait); code != ExitOK {
			t.Fatalf("json: exit %d:\n%s\n%s", code, out.String(), errOut.String())
		}
		var said struct {
			Leases []struct {
				Run  string   `json:"run"`
				Held bool     `json:"held"`
				Odd  []string `json:"odd"`
			} `json:"leases"`
		}
		if err := json.Unmarshal([]byte(out.String()), &said, json.RejectUnknownMembers(false)); err != nil || len(said.Leases) != 5 {
			t.Fatalf("json: %v %+v\n%s", err, said, out.String())
		}
		for _, l := range said.Leases {
			if (l.Run == run(2)) == l.Held || (l.Run != run(0)) != (len(l.Odd) > 0) {
				t.Errorf("json: %+v", l)
			}
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		dsn := filepath.Join(t.TempDir(), "archive.db")
		check(t, dsn, "sqlite3", "file:"+dsn+"?_pragma=busy_timeout(5000)", false)
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := os.Getenv("FIREWATCH_TEST_POSTGRES")
		if dsn == "" {
			if os.Getenv("CI") == "true" {
				t.Fatal("FIREWATCH_TEST_POSTGRES is not set and CI=true: the leases must be tested on PostgreSQL")
			}
			t.Skip("PostgreSQL not tested: set FIREWATCH_TEST_POSTGRES=postgres://...")
		}
		dsn = pgtest.Schema(t, dsn)
		check(t, dsn, "pgx", dsn, true)
	})
}
