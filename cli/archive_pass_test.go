package cli

// The archive pass and the runs screen completing what the archive holds
// in part.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/runs"
)

// TestArchivePassRequests: a pass fetches each run it does not hold with one
// trace request, a second pass none.
func TestArchivePassRequests(t *testing.T) {
	t.Parallel()
	// Two pages of the list (sim.ListPageSize).
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, History: 24})
	const runs = 25
	db := filepath.Join(t.TempDir(), "a.db")
	waitSimFinished(t, srv)
	before := srv.Stats().ByRoute["GET trace"]
	if _, errOut, code := run(t, context.Background(), "archive", "--once", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key); code != 0 {
		t.Fatalf("first pass: %d %s", code, errOut)
	}
	traces := srv.Stats().ByRoute["GET trace"] - before
	if traces != runs {
		t.Fatalf("first pass: %d trace requests for %d runs", traces, runs)
	}
	_, errOut, code := run(t, context.Background(), "archive", "--once", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key)
	if code != 0 || srv.Stats().ByRoute["GET trace"]-before != runs {
		t.Fatalf("second pass fetched again: %d %s", srv.Stats().ByRoute["GET trace"]-before-runs, errOut)
	}
	if !strings.Contains(errOut, "25 runs seen, 0 fetched") {
		t.Errorf("second pass said %q", errOut)
	}
	out, _, code := run(t, context.Background(), "history", "-o", "json", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key)
	if code != 0 || strings.Count(out, "\n") != runs {
		t.Fatalf("history: %d lines, exit %d", strings.Count(out, "\n"), code)
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &line); err != nil {
		t.Fatal(err)
	}
	want := []string{"id", "status", "outcome", "complete", "prompt", "model", "effort", "maxCredits", "createdAt", "finishedAt", "creditsUsed",
		"billedCredits", "attention", "creditsByAgent", "cancelRequested", "cancelledBy", "startedBy", "cancelledVia", "startedVia", "expired", "rerunOf", "threadId", "threadTurn"}
	if len(line) != len(want) {
		t.Fatalf("history JSON fields: %v", line)
	}
	for _, k := range want {
		if _, ok := line[k]; !ok {
			t.Errorf("history JSON lacks %q", k)
		}
	}
}

func waitSimFinished(t *testing.T, srv *sim.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, j := range srv.Jobs {
		if err := srv.WaitFinished(ctx, j.ID); err != nil {
			t.Fatal(err)
		}
	}
}

// listOnly is a runs service that gives one page and nothing else.
type listOnly struct {
	runs.Service
	page []poller.RunInfo
}

func (l listOnly) Runs(context.Context, time.Time) (*poller.RunList, error) {
	return &poller.RunList{Runs: append([]poller.RunInfo(nil), l.page...)}, nil
}

// The service reports a cancelled or credit-limited run as failed; where
// the archive read the run's trace, the runs screen's live rows carry its
// outcome (which the row and the details pane show).
func TestLiveRowsShowTheArchivedOutcome(t *testing.T) {
	ctx := context.Background()
	st, err := archive.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const svc = "http://service.test"
	for id, outcome := range map[string]string{"run-cancelled": "cancelled", "run-failed": "failed", "run-capped": "credit_limit_reached"} {
		if err := st.PutRun(ctx, &archive.Run{Service: svc, ID: id, Status: "failed"}); err != nil {
			t.Fatal(err)
		}
		if err := st.SetDerived(ctx, &archive.Run{Service: svc, ID: id, Outcome: outcome, Complete: true}); err != nil {
			t.Fatal(err)
		}
	}
	live := listOnly{page: []poller.RunInfo{{ID: "run-cancelled", Status: "failed"}, {ID: "run-failed", Status: "failed"},
		{ID: "run-capped", Status: "failed"}, {ID: "run-unknown", Status: "failed"}}}
	s := archiving.NewListing(live, st, archive.Query{Service: svc})
	l, err := s.Runs(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range l.Runs {
		got[r.ID] = r.Status
		if r.Known != nil {
			got[r.ID] += "/" + r.Known.Outcome
		}
	}
	want := map[string]string{"run-cancelled": "failed/cancelled", "run-failed": "failed/failed", "run-capped": "failed/credit_limit_reached", "run-unknown": "failed"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("statuses %v, want %v", got, want)
	}
}

// The service lists every run it keeps: an archived run of the pass's team
// that a whole pass did not see is marked expired (history says so), one it
// saw is not.
func TestArchivePassMarksForgottenRuns(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}})
	db := filepath.Join(t.TempDir(), "a.db")
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	const forgotten = "0193a1b2-c3d4-4e5f-8a6b-7c8d9e0f1a2b"
	at := time.Now().Add(-time.Hour)
	if err := st.AppendPolls(context.Background(), srv.URL, forgotten, at, []archive.Poll{{ReceivedAt: at, Line: []byte(`{"receivedAt":"2026-11-25T20:50:31Z","trace":{"events":[]}}`)}}); err != nil {
		t.Fatal(err)
	}
	// Archived by a watch with the same key: its team's.
	if err := st.PutRun(context.Background(), &archive.Run{Service: srv.URL, ID: forgotten, Team: archive.TeamOf(srv.Key)}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	args := []string{"archive", "--once", "--api-url", srv.URL, "--api-key", srv.Key, "--archive", db}
	_, errOut, code := run(t, context.Background(), args...)
	if code != 0 || !strings.Contains(errOut, "1 no longer kept by the service") {
		t.Fatalf("first pass: exit %d\n%s", code, errOut)
	}
	if _, errOut, code = run(t, context.Background(), args...); code != 0 || strings.Contains(errOut, "no longer kept") {
		t.Fatalf("second pass: exit %d\n%s", code, errOut)
	}
	out, errOut, code := run(t, context.Background(), "history", "-o", "json", "--api-url", srv.URL, "--archive", db)
	if code != 0 {
		t.Fatalf("history: exit %d\n%s", code, errOut)
	}
	want := map[string]bool{forgotten: true, srv.Jobs[0].ID: false}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var h struct {
			ID      string `json:"id"`
			Expired bool   `json:"expired"`
		}
		if err := json.Unmarshal([]byte(line), &h); err != nil {
			t.Fatal(err)
		}
		if w, ok := want[h.ID]; !ok || w != h.Expired {
			t.Errorf("%s expired %v", h.ID, h.Expired)
		}
		delete(want, h.ID)
	}
	if len(want) > 0 {
		t.Errorf("not in history: %v", want)
	}
}

// A watch left early leaves the run incomplete in the archive, and every
// reader says so; the next pass completes it with one status and one
// trace request and only the snapshots the watch did not store, keeping
// the watch's polls; a second pass asks nothing more of it.
func TestPartialRunCompletedByThePass(t *testing.T) {
	t.Parallel()
	// Held at its start until the watch has left (2 s: time for its first
	// polls to be stored under -race and load; a run of 1.5 s after).
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, Speed: 40, Held: true})
	id := srv.Jobs[0].ID
	db := filepath.Join(t.TempDir(), "a.db")
	if _, errOut, code := run(t, context.Background(), "watch", id, "-o", "plain", "--interval", "100ms", "--timeout", "2s", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key); code != ExitTimeout {
		t.Fatalf("watch: exit %d\n%s", code, errOut)
	}
	out, _, _ := run(t, context.Background(), "history", "-o", "json", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key)
	var h struct {
		Complete      bool
		Outcome       *string
		BilledCredits *float64
	}
	if err := json.Unmarshal([]byte(out), &h); err != nil || h.Complete || h.Outcome != nil || h.BilledCredits != nil {
		t.Fatalf("history of the run left early: %s (%v)", out, err)
	}
	if out, _, _ := run(t, context.Background(), "cost", "-o", "json", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key); !strings.Contains(out, `"unknownRuns":1`) {
		t.Fatalf("cost of the run left early: %s", out)
	}
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	held, _ := st.Get(context.Background(), srv.URL, id)
	heldSnaps, _ := st.SnapshotIDs(context.Background(), srv.URL, id)
	st.Close()
	if held == nil || held.Polls == 0 {
		t.Fatalf("the watch left nothing: %+v", held)
	}
	srv.Release()
	waitSimFinished(t, srv)
	before := srv.Stats().ByRoute
	if _, errOut, code := run(t, context.Background(), "archive", "--once", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key); code != 0 {
		t.Fatalf("pass: exit %d\n%s", code, errOut)
	}
	after := srv.Stats().ByRoute
	st, err = archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.Get(context.Background(), srv.URL, id)
	if err != nil || !r.Complete || r.Outcome != "succeeded" || r.Polls != held.Polls+1 || r.Result == nil {
		t.Fatalf("after the pass: %+v %v (the watch left %d polls)", r, err, held.Polls)
	}
	snaps, _ := st.SnapshotIDs(context.Background(), srv.URL, id)
	if got := after["GET snapshot"] - before["GET snapshot"]; got != len(snaps)-len(heldSnaps) || after["GET trace"]-before["GET trace"] != 1 ||
		after["GET status"]-before["GET status"] != 1 {
		t.Errorf("the pass asked %d snapshots (%d held of %d), %d traces, %d statuses", got, len(heldSnaps), len(snaps),
			after["GET trace"]-before["GET trace"], after["GET status"]-before["GET status"])
	}
	again := srv.Stats().ByRoute
	if _, errOut, code := run(t, context.Background(), "archive", "--once", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key); code != 0 || srv.Stats().ByRoute["GET trace"] != again["GET trace"] ||
		srv.Stats().ByRoute["GET status"] != again["GET status"] {
		t.Fatalf("a second pass asked again: exit %d\n%s", code, errOut)
	}
}

// The runs screen completes in the background a run its list shows over
// that the archive holds in part, and a run cancelled from it once it has
// ended; closing the screen stops the work.
func TestRunsScreenCompletesHeldRuns(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research", "cancel"}})
	part, long := srv.Jobs[0].ID, srv.Jobs[1].ID
	db := filepath.Join(t.TempDir(), "a.db")
	t.Setenv("FIREWATCH_ARCHIVE", db)
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	if err := st.AppendPolls(context.Background(), srv.URL, part, at, []archive.Poll{{ReceivedAt: at, Line: []byte(`{"receivedAt":"2026-11-25T20:50:31Z","trace":{"events":[]}}`)}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := srv.WaitFinished(context.Background(), part); err != nil {
		t.Fatal(err)
	}
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	quiet := c.WithRetry(poller.Retry{Tries: 1})
	secrets := text.NewSecrets()
	a := &app{stderr: &scrubWriter{w: &strings.Builder{}, secrets: secrets}, secrets: secrets}
	list, _, closeArchive := a.runsWithArchive(context.Background(), quiet, service{baseURL: srv.URL})
	defer closeArchive()
	if _, err := list.Runs(context.Background(), time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := list.Cancel(context.Background(), long); err != nil {
		t.Fatal(err)
	}
	s := list.(*archiving.Listing)
	deadline := time.Now().Add(20 * time.Second)
	for {
		held, err := s.Store().Held(context.Background(), srv.URL, []string{part, long})
		if err != nil {
			t.Fatal(err)
		}
		if held[part].Outcome == "succeeded" && held[part].Complete && held[long].Outcome == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not completed in the background: %+v", held)
		}
		time.Sleep(20 * time.Millisecond)
	}
	r, err := s.Store().Get(context.Background(), srv.URL, long)
	if err != nil || !r.CancelRequested || r.Status != "cancelled" {
		t.Fatalf("the cancelled run: %+v %v", r, err)
	}
}
