package archive

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestMerge is the rule by which what firewatch learns of a run joins the
// record: the later and more specific answer wins.
func TestMerge(t *testing.T) {
	t.Parallel()
	service := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	local := service.Add(2 * time.Second)
	first, later := service.Add(time.Minute), service.Add(2*time.Minute)
	sum := []byte(`{"runId":"x"}`)
	part := []byte(`{"runId":"x","part":true}`)
	for _, tc := range []struct {
		name     string
		held, in *Run
		want     *Run
	}{
		{"a start, nothing held",
			nil,
			&Run{Service: svc, ID: "a", Prompt: "p", Model: "spark-2", MaxCredits: fp(300), CreatedAt: &local, CreatedAtLocal: true, Status: "processing"},
			&Run{Service: svc, ID: "a", Prompt: "p", Model: "spark-2", MaxCredits: fp(300), CreatedAt: &local, CreatedAtLocal: true, Status: "processing"}},
		{"the service's createdAt replaces firewatch's clock",
			&Run{CreatedAt: &local, CreatedAtLocal: true},
			&Run{CreatedAt: &service},
			&Run{CreatedAt: &service}},
		{"firewatch's clock never replaces the service's createdAt",
			&Run{CreatedAt: &service},
			&Run{CreatedAt: &local, CreatedAtLocal: true},
			&Run{CreatedAt: &service}},
		{"a later request field wins, an absent one keeps what is held",
			&Run{Prompt: "old", Model: "spark-1-mini", MaxCredits: fp(300), URLs: []string{"https://a"}},
			&Run{Prompt: "new", Effort: "high"},
			&Run{Prompt: "new", Model: "spark-1-mini", Effort: "high", MaxCredits: fp(300), URLs: []string{"https://a"}}},
		{"the trace's cancelled beats the service's later failed",
			&Run{Status: "cancelled", Outcome: "cancelled", Complete: true, Events: 9},
			&Run{Status: "failed", CreditsUsed: fp(266)},
			&Run{Status: "cancelled", Outcome: "cancelled", Complete: true, Events: 9, CreditsUsed: fp(266)}},
		{"a derivation's cancelled replaces the service's earlier failed",
			&Run{Status: "failed"},
			&Run{Outcome: "cancelled", Summary: sum, Complete: true, Events: 9},
			&Run{Status: "cancelled", Outcome: "cancelled", Summary: sum, Complete: true, Events: 9}},
		{"a credit-limited run's status is the service's failed",
			&Run{Status: "processing"},
			&Run{Outcome: "credit_limit_reached", Summary: sum, Complete: true},
			&Run{Status: "failed", Outcome: "credit_limit_reached", Summary: sum, Complete: true}},
		{"processing never replaces a finished status",
			&Run{Status: "completed"},
			&Run{Status: "processing"},
			&Run{Status: "completed"}},
		{"a finished status replaces processing",
			&Run{Status: "processing"},
			&Run{Status: "failed"},
			&Run{Status: "failed"}},
		{"a watch left early never replaces a complete read",
			&Run{Complete: true, Outcome: "succeeded", Status: "completed", Events: 131, Attention: 1, CreditsByAgent: map[string]float64{"o": 280}, CreditsUsed: fp(280)},
			&Run{Summary: part, Events: 40, CreditsByAgent: map[string]float64{"o": 46}, CreditsUsed: fp(46)},
			&Run{Complete: true, Outcome: "succeeded", Status: "completed", Events: 131, Attention: 1, CreditsByAgent: map[string]float64{"o": 280}, CreditsUsed: fp(280)}},
		{"a complete read replaces a watch left early, as a whole",
			&Run{Events: 40, Attention: 2, ToolCalls: 5, CreditsByAgent: map[string]float64{"o": 46}, CreditsUsed: fp(46), Status: "processing"},
			&Run{Summary: sum, Complete: true, Outcome: "succeeded", Events: 131, CreditsByAgent: map[string]float64{"o": 280}, CreditsUsed: fp(280)},
			&Run{Summary: sum, Complete: true, Outcome: "succeeded", Status: "completed", Events: 131, CreditsByAgent: map[string]float64{"o": 280}, CreditsUsed: fp(280)}},
		{"a later partial derivation replaces an earlier partial one",
			&Run{Events: 10},
			&Run{Summary: part, Events: 40},
			&Run{Summary: part, Events: 40}},
		{"credits only rise",
			&Run{CreditsUsed: fp(280)},
			&Run{CreditsUsed: fp(46)},
			&Run{CreditsUsed: fp(280)}},
		{"the result, the item and expiresAt: the later one",
			&Run{Result: nil, ExpiresAt: &first},
			&Run{Result: []byte(`{"a":1}`), Item: []byte(`{}`), ExpiresAt: &later},
			&Run{Result: []byte(`{"a":1}`), Item: []byte(`{}`), ExpiresAt: &later}},
		{"flags stay set, the first start stays",
			&Run{Complete: true, Expired: true, CancelRequested: true, StartedAt: &first},
			&Run{StartedAt: &later},
			&Run{Complete: true, Expired: true, CancelRequested: true, StartedAt: &first}},
		{"a cancel is recorded",
			&Run{Status: "processing"},
			&Run{CancelRequested: true},
			&Run{Status: "processing", CancelRequested: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Merge(tc.held, tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Merge(%+v, %+v)\n got %+v\nwant %+v", tc.held, tc.in, got, tc.want)
			}
		})
	}
}

// A store merges by the same rule: a watch left early after the archive
// pass read the run whole changes nothing, and a later status that says
// "failed" does not undo the trace's "cancelled".
func TestStoreMerges(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, _ string, s Store) {
		ctx := context.Background()
		id := "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5c"
		if err := s.ReplaceRun(ctx, &Run{Service: svc, ID: id, Status: "failed", Outcome: "cancelled", Complete: true, Events: 99,
			CreditsUsed: fp(266), CreditsByAgent: map[string]float64{"o": 200, "s": 66}, Summary: []byte(`{"whole":true}`)},
			[]Poll{{ReceivedAt: time.Now(), Line: []byte(`{}`)}}, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.SetDerived(ctx, &Run{Service: svc, ID: id, Events: 12, CreditsUsed: fp(46), Summary: []byte(`{"part":true}`)}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutRun(ctx, &Run{Service: svc, ID: id, Status: "failed", CancelRequested: true, CancelledBy: "alice", StartedBy: "bob"}); err != nil {
			t.Fatal(err)
		}
		// A later cancel (one the service refused) names nobody new.
		if err := s.PutRun(ctx, &Run{Service: svc, ID: id, CancelledBy: "carol"}); err != nil {
			t.Fatal(err)
		}
		r, err := s.Get(ctx, svc, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != "cancelled" || r.Outcome != "cancelled" || r.Events != 99 || *r.CreditsUsed != 266 || string(r.Summary) != `{"whole":true}` ||
			!r.CancelRequested || r.CreditsByAgent["s"] != 66 || r.CancelledBy != "alice" || r.StartedBy != "bob" {
			t.Fatalf("got %+v", r)
		}
		list, err := s.List(ctx, Query{Service: svc})
		if err != nil || len(list) != 1 || list[0].CreditsByAgent["o"] != 200 || !list[0].CancelRequested || list[0].CancelledBy != "alice" {
			t.Fatalf("list: %+v %v", list, err)
		}
		// SetDerived of a run never held stores nothing.
		gone := "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5d"
		if err := s.SetDerived(ctx, &Run{Service: svc, ID: gone, Summary: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, svc, gone); err != ErrNotFound {
			t.Fatalf("a derivation of a run never held made one: %v", err)
		}
	})
}

// The migration to version 2 removes the empty rows version 1 left for ids
// the service never had, and keeps every other run.
func TestMigrationRemovesEmptyRuns(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dsn := filepath.Join(t.TempDir(), "v1.db")
			if name == "postgres" {
				dsn = freshPostgres(t)
			}
			s, err := Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			st := s.(*sqlStore)
			// Back to version 1, as an older firewatch left it.
			for _, stmt := range []string{`DROP TABLE fw_runs`, `DROP TABLE fw_polls`, `DROP TABLE fw_snapshots`, `DROP TABLE fw_leases`, `DROP TABLE fw_budget`, `DROP TABLE fw_moments`, `DROP TABLE fw_crawls`, `DELETE FROM fw_meta`} {
				if _, err := st.db.ExecContext(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
			for _, stmt := range st.d.migrations()[0][1:] {
				if _, err := st.db.ExecContext(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
			now := time.Now().UnixMilli()
			for _, stmt := range []string{
				`INSERT INTO fw_meta (k, v) VALUES ('schema', '1')`,
				// A watch of an unknown id: its summary and nothing else.
				`INSERT INTO fw_runs (service, id, summary_enc, summary, archived_at, sort_at) VALUES ('s', '00000000-0000-0000-0000-000000000000', 0, 'e30=', ?, ?)`,
				// A run started with --detach: its request only.
				`INSERT INTO fw_runs (service, id, prompt, max_credits, archived_at, sort_at) VALUES ('s', '019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5e', 'p', 300, ?, ?)`,
				// A watched run.
				`INSERT INTO fw_runs (service, id, polls, archived_at, sort_at) VALUES ('s', '019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5f', 3, ?, ?)`,
			} {
				args := []any{}
				if n := len(stmt) - len(replaceQ(stmt)); n > 0 {
					args = []any{now, now}
				}
				if _, err := st.db.ExecContext(ctx, st.q(stmt), args...); err != nil {
					t.Fatal(stmt, err)
				}
			}
			st.Close()
			s, err = Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			list, err := s.List(ctx, Query{})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range list {
				ids = append(ids, r.ID)
			}
			if len(ids) != 2 {
				t.Fatalf("after the migration: %v, want the started and the watched run only", ids)
			}
			if v, _ := s.(*sqlStore).version(ctx, s.(*sqlStore).db); v != SchemaVersion {
				t.Fatalf("version %d", v)
			}
		})
	}
}

func replaceQ(s string) string {
	out := []byte{}
	for i := 0; i < len(s); i++ {
		if s[i] != '?' {
			out = append(out, s[i])
		}
	}
	return string(out)
}
