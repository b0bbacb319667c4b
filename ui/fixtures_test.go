package ui

import (
	"context"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// The golden tests read trace response bodies from testdata: real bodies
// of the simulator's runs (seed 7, speed 2, clock based at fixtureBase),
// fetched over HTTP by TestGenerateTraces. Regenerate them with
//
//	go test ./ui -run TestGenerateTraces -gen
//
// (about 40 s) and then the goldens with -update.
var gen = flag.Bool("gen", false, "regenerate the trace fixtures in testdata from the simulator")

var fixtureBase = time.Date(2026, 3, 14, 9, 26, 0, 0, time.UTC)

func TestGenerateTraces(t *testing.T) {
	if !*gen {
		t.Skip("run with -gen to regenerate the trace fixtures")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := sim.Start(ctx, sim.Options{
		Scenarios: []string{"research", "failure", "cancel", "refused", "credit-limit"},
		Speed:     2, Seed: 7, RateLimit: -1,
		Now: func() time.Time { return fixtureBase },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	get := func(method, path string) []byte {
		req, _ := http.NewRequestWithContext(ctx, method, s.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+s.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join("testdata", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	jobs := map[string]string{}
	for _, j := range s.Jobs {
		jobs[j.Scenario] = j.ID
	}
	time.Sleep(10 * time.Second)
	get(http.MethodDelete, "/v2/agent/"+jobs["cancel"])
	time.Sleep(3 * time.Second)
	write("running.json", get(http.MethodGet, "/v2/agent/"+jobs["research"]+"/trace?liveView=true"))
	for sc, name := range map[string]string{"research": "succeeded.json", "failure": "failed.json", "cancel": "cancelled.json", "refused": "refused.json", "credit-limit": "credit-limit.json"} {
		if err := s.WaitFinished(ctx, jobs[sc]); err != nil {
			t.Fatal(err)
		}
		write(name, get(http.MethodGet, "/v2/agent/"+jobs[sc]+"/trace"))
	}
}

// loadStore builds a store from a fixture body.
func loadStore(t testing.TB, name string) *model.Store {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s := model.NewStore()
	if _, err := s.Ingest(b); err != nil {
		t.Fatal(err)
	}
	return s
}

// latest is the newest event time of a store: the frozen "now" of a
// fixture.
func latest(s *model.Store) time.Time {
	var t time.Time
	for _, e := range s.Timeline() {
		if e.OccurredAt.After(t) {
			t = e.OccurredAt
		}
	}
	return t
}

// TestGenerateSnapshots writes the content of every artifact version of
// succeeded.json to testdata/snapshots/<snapshotId>, as the simulator's
// snapshot endpoint returns it (the same seed gives the same ids). The
// simulator's random port in screenshot links becomes 127.0.0.1:8080.
// Regenerate with
//
//	go test ./ui -run TestGenerateSnapshots -gen
func TestGenerateSnapshots(t *testing.T) {
	if !*gen {
		t.Skip("run with -gen to regenerate the snapshot fixtures")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := sim.Start(ctx, sim.Options{
		Scenarios: []string{"research", "failure", "cancel", "refused", "credit-limit"},
		Speed:     1e5, Seed: 7, RateLimit: -1,
		Now: func() time.Time { return fixtureBase },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	job := s.Jobs[0].ID
	if err := s.WaitFinished(ctx, job); err != nil {
		t.Fatal(err)
	}
	c, err := poller.New(poller.Config{BaseURL: s.URL, APIKey: s.Key, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	store := loadStore(t, "succeeded.json")
	if store.Run().ID != job {
		t.Fatalf("the simulator's research job is %s, the fixture's %s", job, store.Run().ID)
	}
	dir := filepath.Join("testdata", "snapshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, a := range store.Artifacts() {
		for _, v := range a.Versions {
			snap, err := c.Snapshot(ctx, job, v.Ref.SnapshotID)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.ReplaceAll(snap.Content, s.URL, "http://127.0.0.1:8080")
			if err := os.WriteFile(filepath.Join(dir, v.Ref.SnapshotID), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
