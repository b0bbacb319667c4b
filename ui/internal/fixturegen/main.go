// Command fixturegen writes the terminal UI's test fixtures from the
// simulator: the trace response bodies in ui/testdata (real bodies of its
// runs, seed 7, speed 2, the clock based at Base, fetched over HTTP) and
// the content of every artifact version of succeeded.json in
// ui/testdata/snapshots, as the snapshot endpoint returns it (the same
// seed gives the same ids; the simulator's random port in screenshot
// links becomes 127.0.0.1:8080). It runs from the ui package's folder:
//
//	go generate ./ui
//
// takes about 40 s; then go test ./ui -update rewrites the goldens.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// Base is the simulator's clock at the start (ui's fixtureBase).
var Base = time.Date(2026, 3, 14, 9, 26, 0, 0, time.UTC)

var scenarios = []string{"research", "failure", "cancel", "refused", "credit-limit"}

func main() {
	for _, step := range []func() error{traces, snapshots} {
		if err := step(); err != nil {
			fmt.Fprintln(os.Stderr, "fixturegen:", err)
			os.Exit(1)
		}
	}
}

// traces writes each scenario's trace once it finished, and the research
// run's while it runs (running.json); the cancel run is cancelled 10 s in.
func traces() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := sim.Start(ctx, sim.Options{Scenarios: scenarios, Speed: 2, Seed: 7, RateLimit: -1, Now: func() time.Time { return Base }})
	if err != nil {
		return err
	}
	defer s.Close()
	get := func(method, path string) ([]byte, error) {
		req, _ := http.NewRequestWithContext(ctx, method, s.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+s.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		return io.ReadAll(resp.Body)
	}
	save := func(name, path string) error {
		b, err := get(http.MethodGet, path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join("testdata", name), b, 0o644)
	}
	jobs := map[string]string{}
	for _, j := range s.Jobs {
		jobs[j.Scenario] = j.ID
	}
	time.Sleep(10 * time.Second) // the simulator's runs take their time: speed 2
	if _, err := get(http.MethodDelete, "/v2/agent/"+jobs["cancel"]); err != nil {
		return err
	}
	time.Sleep(3 * time.Second)
	if err := save("running.json", "/v2/agent/"+jobs["research"]+"/trace?liveView=true"); err != nil {
		return err
	}
	for sc, name := range map[string]string{"research": "succeeded.json", "failure": "failed.json", "cancel": "cancelled.json", "refused": "refused.json", "credit-limit": "credit-limit.json"} {
		if err := s.WaitFinished(ctx, jobs[sc]); err != nil {
			return err
		}
		if err := save(name, "/v2/agent/"+jobs[sc]+"/trace"); err != nil {
			return err
		}
	}
	return nil
}

// snapshots writes the content of every artifact version of
// succeeded.json.
func snapshots() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := sim.Start(ctx, sim.Options{Scenarios: scenarios, Speed: 1e5, Seed: 7, RateLimit: -1, Now: func() time.Time { return Base }})
	if err != nil {
		return err
	}
	defer s.Close()
	job := s.Jobs[0].ID
	if err := s.WaitFinished(ctx, job); err != nil {
		return err
	}
	c, err := poller.New(poller.Config{BaseURL: s.URL, APIKey: s.Key, Timeout: 5 * time.Second})
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join("testdata", "succeeded.json"))
	if err != nil {
		return err
	}
	store := model.NewStore()
	if _, err := store.Ingest(b); err != nil {
		return err
	}
	if store.Run().ID != job {
		return fmt.Errorf("the simulator's research job is %s, the fixture's %s", job, store.Run().ID)
	}
	dir := filepath.Join("testdata", "snapshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, a := range store.Artifacts() {
		for _, v := range a.Versions {
			snap, err := c.Snapshot(ctx, job, v.Ref.SnapshotID)
			if err != nil {
				return err
			}
			content := strings.ReplaceAll(snap.Content, s.URL, "http://127.0.0.1:8080")
			if err := os.WriteFile(filepath.Join(dir, v.Ref.SnapshotID), []byte(content), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
