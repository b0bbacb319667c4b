package ui

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/firewatch/firewatch/model"
)

// The golden tests read trace response bodies from testdata: real bodies
// of the simulator's runs (seed 7, speed 2, clock based at fixtureBase),
// and the content of succeeded.json's artifact versions
// (testdata/snapshots). Regenerate them with
//
//	go generate ./ui
//
// (about 40 s; internal/fixturegen) and then the goldens with
// go test ./ui -update.
//
//go:generate go run ./internal/fixturegen
var fixtureBase = time.Date(2026, 3, 14, 9, 26, 0, 0, time.UTC)

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
