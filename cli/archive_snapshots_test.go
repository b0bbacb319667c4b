package cli

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

// A live watch with archiving on stores every artifact snapshot of the run:
// once the service has forgotten the run (the same run on the same address,
// now past its retention), the archive still gives each snapshot's content
// as the service served it, and watch JOB_ID shows the run from it.
func TestLiveWatchStoresSnapshots(t *testing.T) {
	t.Parallel()
	live := startSim(t, sim.Options{Scenarios: []string{"research"}, Seed: 7})
	id := live.Jobs[0].ID
	db := filepath.Join(t.TempDir(), "a.db")
	if _, errOut, code := run(t, context.Background(), "watch", id, "-o", "plain", "--interval", "100ms", "--archive", db, "--api-url", live.URL, "--api-key", live.Key); code != 0 {
		t.Fatalf("watch: exit %d\n%s", code, errOut)
	}

	// Every snapshot of the run, as the service serves it.
	c, err := poller.New(poller.Config{BaseURL: live.URL, APIKey: live.Key})
	if err != nil {
		t.Fatal(err)
	}
	script, _ := live.Script(id)
	want := map[string]string{}
	for _, e := range script {
		if e.Type != "artifact.updated" {
			continue
		}
		var ev struct {
			Artifact struct {
				SnapshotID string `json:"snapshotId"`
			} `json:"artifact"`
		}
		if err := json.Unmarshal(e.JSON, &ev, json.RejectUnknownMembers(false)); err != nil || ev.Artifact.SnapshotID == "" {
			t.Fatalf("artifact event %s: %v", e.JSON, err)
		}
		s, err := c.Snapshot(context.Background(), id, ev.Artifact.SnapshotID)
		if err != nil {
			t.Fatal(err)
		}
		want[ev.Artifact.SnapshotID] = s.Content
	}
	if len(want) == 0 {
		t.Fatal("the run has no snapshots")
	}
	addr := strings.TrimPrefix(live.URL, "http://")
	live.Close()

	// The same run on the same address, forgotten.
	gone := startSim(t, sim.Options{Scenarios: []string{"research"}, Seed: 7, Addr: addr, Key: live.Key, Retention: time.Nanosecond})
	if gone.URL != live.URL || gone.Jobs[0].ID != id {
		t.Fatalf("not the same service and run: %s %s", gone.URL, gone.Jobs[0].ID)
	}
	if _, err := c.Snapshot(context.Background(), id, firstKey(want)); !isNotFound(err) {
		t.Fatalf("the service still has the snapshot: %v", err)
	}
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	for sid, content := range want {
		got, err := st.Snapshot(context.Background(), gone.URL, id, sid)
		if err != nil || got != content {
			t.Fatalf("snapshot %s from the archive: %v, %d bytes (want %d)", sid, err, len(got), len(content))
		}
	}
	st.Close()
	out, errOut, code := run(t, context.Background(), "watch", id, "-o", "plain", "--archive", db, "--api-url", live.URL, "--api-key", live.Key)
	if code != 0 || !strings.Contains(errOut, "no longer has run") || !strings.Contains(out, "succeeded") {
		t.Fatalf("from the archive: exit %d\n%s\n%s", code, out, errOut)
	}
}

func firstKey(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}

func isNotFound(err error) bool {
	var pe *poller.Error
	return errors.As(err, &pe) && pe.Kind == poller.KindNotFound
}

// When the service has forgotten every run, its list is one empty page:
// the runs screen's list goes on to the archived runs at once (an empty
// page would stop its paging).
func TestRunsScreenListsArchivedWhenTheServiceListsNone(t *testing.T) {
	gone := startSim(t, sim.Options{Scenarios: []string{"research"}, Retention: time.Nanosecond})
	db := filepath.Join(t.TempDir(), "a.db")
	t.Setenv("FIREWATCH_ARCHIVE", db)
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	id := gone.Jobs[0].ID
	at := time.Now()
	if err := st.AppendPolls(context.Background(), gone.URL, id, at, []archive.Poll{{ReceivedAt: at, Line: []byte(`{"receivedAt":"2026-11-25T20:50:31Z","trace":{"events":[]}}`)}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	c, err := poller.New(poller.Config{BaseURL: gone.URL, APIKey: gone.Key})
	if err != nil {
		t.Fatal(err)
	}
	secrets := text.NewSecrets()
	a := &app{stderr: &scrubWriter{w: &strings.Builder{}, secrets: secrets}, secrets: secrets}
	list, _, closeArchive := a.runsWithArchive(context.Background(), c, service{baseURL: gone.URL})
	defer closeArchive()
	page, err := list.Runs(context.Background(), time.Time{})
	if err != nil || len(page.Runs) != 1 || page.Runs[0].ID != id || !page.Runs[0].Archived {
		t.Fatalf("first page: %+v %v", page, err)
	}
}
