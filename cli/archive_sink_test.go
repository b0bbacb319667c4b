package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/firewatch/firewatch/sim"
)

// A watch that joins a long run late gets the whole trace in its first
// poll, which the recorder writes in parts: the archived run still replays
// as its --record file does.
func TestLongRunArchivedReplaysAsRecorded(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioLarge}, Events: 3000, Speed: 500})
	id := srv.Jobs[0].ID
	if err := srv.WaitFinished(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db, rec := filepath.Join(dir, "a.db"), filepath.Join(dir, "run.ndjson")
	if _, errOut, code := run(t, context.Background(), "watch", id, "-o", "json", "--interval", "100ms", "--record", rec, "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key); code != 0 {
		t.Fatalf("watch: %d %s", code, errOut)
	}
	if b, err := os.ReadFile(rec); err != nil || len(bytes.SplitN(b, []byte("\n"), 3)[1]) < 256<<10 {
		t.Fatalf("the first poll's line is not long enough to come in parts (%v)", err)
	}
	fromFile, _, code1 := run(t, context.Background(), "replay", rec, "-o", "json", "--summary", "-", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key)
	fromArchive, errOut, code2 := run(t, context.Background(), "replay", id, "-o", "json", "--summary", "-", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key)
	if code1 != 0 || code2 != 0 || fromFile != fromArchive || fromFile == "" {
		t.Fatalf("replay of the archived run differs from the recording's (%d, %d): %s", code1, code2, errOut)
	}
}
