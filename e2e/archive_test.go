package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/sim"
)

// TestTwoProcessesOneArchive: a watch and two archive passes, three real
// firewatch processes, write one SQLite file at once: all succeed, none
// says "database is locked", and nothing is lost.
func TestTwoProcessesOneArchive(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, History: 60})
	db := filepath.Join(t.TempDir(), "shared.db")
	env := append(simEnv(srv), "FIREWATCH_ARCHIVE="+db)
	cmds := [][]string{
		{"watch", srv.Jobs[0].ID, "-o", "json", "--interval", "100ms"},
		{"archive", "--once"},
		{"archive", "--once"},
	}
	var wg sync.WaitGroup
	errs := make([]string, len(cmds))
	codes := make([]int, len(cmds))
	for i, args := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, args...)
			cmd.Env = env
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			errs[i] = stderr.String()
			if ee, ok := err.(*exec.ExitError); ok {
				codes[i] = ee.ExitCode()
			} else if err != nil {
				codes[i] = -1
			}
		}()
	}
	wg.Wait()
	for i := range cmds {
		if codes[i] != 0 || strings.Contains(strings.ToLower(errs[i]), "locked") || strings.Contains(errs[i], "archiving failed") {
			t.Errorf("%v: exit %d, stderr:\n%s", cmds[i], codes[i], errs[i])
		}
	}
	st, err := archive.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(context.Background(), archive.Query{})
	if err != nil || len(list) != 61 {
		t.Fatalf("%d runs archived, want 61 (%v)", len(list), err)
	}
	r, err := st.Get(context.Background(), srv.URL, srv.Jobs[0].ID)
	if err != nil || !r.Complete || r.Polls == 0 {
		t.Fatalf("the watched run: %+v %v", r, err)
	}
}

// TestArchiveKilledHalfway: an archive pass killed (SIGKILL) in the middle
// leaves whole runs only; the next pass completes the work, nothing
// duplicated.
func TestArchiveKilledHalfway(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, History: 150})
	db := filepath.Join(t.TempDir(), "a.db")
	env := append(simEnv(srv), "FIREWATCH_ARCHIVE="+db)
	cmd := exec.Command(bin, "archive", "--once")
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once it has written some runs (and before it is done).
	ctx := context.Background()
	killed := false
	for range 2000 {
		if st, err := archive.Open(ctx, db); err == nil {
			n, _ := st.Stats(ctx)
			st.Close()
			if n.Runs >= 10 {
				killed = cmd.Process.Kill() == nil
				break
			}
		}
		if cmd.ProcessState != nil {
			break
		}
	}
	_ = cmd.Wait()
	if !killed {
		t.Skip("the pass ended before it could be killed")
	}
	st, err := archive.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	half, _ := st.List(ctx, archive.Query{})
	partial := 0 // fetched while processing: the next pass adds the rest
	for _, r := range half {
		if r.Polls != 1 {
			t.Errorf("run %s half-written: %d polls", r.ID, r.Polls)
		}
		if !r.Complete {
			partial++
		}
	}
	st.Close()
	again := exec.Command(bin, "archive", "--once")
	again.Env = env
	if out, err := again.CombinedOutput(); err != nil {
		t.Fatalf("second pass: %v\n%s", err, out)
	}
	st, _ = archive.Open(ctx, db)
	defer st.Close()
	all, _ := st.List(ctx, archive.Query{})
	stats, _ := st.Stats(ctx)
	if len(all) != 151 || stats.Polls != 151+partial {
		t.Fatalf("after the second pass: %d runs, %d polls (want 151 runs, %d polls: one each, and one more for the %d fetched while processing); %d were there after the kill",
			len(all), stats.Polls, 151+partial, partial, len(half))
	}
}
