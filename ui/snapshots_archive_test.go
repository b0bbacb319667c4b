package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/model"
)

// TestSnapshotsWithoutBackend: an archived run has no Backend but its
// snapshots (Config.Snapshots); a replay has neither. Either way the run is
// read-only: c says cancel is not available.
func TestSnapshotsWithoutBackend(t *testing.T) {
	var asked []string
	cfg := Config{Snapshots: func(_ context.Context, id string) (string, error) {
		asked = append(asked, id)
		return "archived content of " + id, nil
	}}
	cmd := newSnapshots(cfg).fetch("s1", model.ArtifactKind("text"), nil)
	if cmd == nil {
		t.Fatal("no fetch from Config.Snapshots")
	}
	msg, ok := cmd().(snapshotMsg)
	if !ok || msg.err != nil || msg.content != "archived content of s1" || len(asked) != 1 {
		t.Fatalf("fetched %+v, asked %v", msg, asked)
	}
	replay := newSnapshots(Config{})
	if replay.fetch("s1", model.ArtifactKind("text"), nil) != nil || replay.get("s1").err == "" {
		t.Fatal("a replay fetched a snapshot")
	}
	m := newTestModel(t, "running.json", 120, 40, cfg)
	press(m, "c")
	if !strings.Contains(screenLines(m)[39], "not available") {
		t.Fatalf("c on an archived run: footer %q", screenLines(m)[39])
	}
}
