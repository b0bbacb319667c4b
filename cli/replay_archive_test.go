package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/sim"
)

// replay JOB_ID says on stderr that the run comes from the archive, and
// from which, as watch does for a run the service forgot; a file says
// nothing of the kind.
func TestReplayArchivedSaysSo(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"failure"}, Speed: 200})
	dir := t.TempDir()
	db, rec := filepath.Join(dir, "a.db"), filepath.Join(dir, "run.ndjson")
	id := srv.Jobs[0].ID
	if _, errOut, code := run(t, context.Background(), "watch", id, "-o", "json", "--interval", "100ms", "--record", rec, "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key); code != ExitFailed {
		t.Fatalf("watch: exit %d %s", code, errOut)
	}
	_, errOut, code := run(t, context.Background(), "replay", id, "-o", "plain", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key)
	if code != ExitFailed || !strings.Contains(errOut, "firewatch: replaying run "+id+" from the archive (finished, "+db+")") {
		t.Errorf("replay %s: exit %d, stderr:\n%s", id, code, errOut)
	}
	if _, errOut, _ := run(t, context.Background(), "replay", rec, "-o", "plain", "--archive", db, "--api-url", srv.URL, "--api-key", srv.Key); strings.Contains(errOut, "archive") {
		t.Errorf("replay of a file speaks of the archive:\n%s", errOut)
	}
}
