package e2e

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/sim"
)

// TestTwoProcessesOneArchive: a watch and two archive passes, three real
// firewatch processes, write one SQLite file at once: all succeed, none
// says "database is locked", and nothing is lost.
func TestTwoProcessesOneArchive(t *testing.T) {
	t.Parallel()
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
// duplicated. A front holds the pass's eleventh trace request: it is
// killed there, after ten runs, however fast the machine.
func TestArchiveKilledHalfway(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, History: 40})
	target, _ := url.Parse(srv.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var traces atomic.Int32
	var open atomic.Bool
	stuck, release := make(chan struct{}), make(chan struct{})
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/trace") && !open.Load() && traces.Add(1) == 11 {
			close(stuck)
			select {
			case <-release:
			case <-r.Context().Done():
			}
			http.Error(w, "held", http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	defer close(release)
	db := filepath.Join(t.TempDir(), "a.db")
	env := append(baseEnv("FIRECRAWL_API_URL="+front.URL, "FIRECRAWL_API_KEY="+srv.Key), "FIREWATCH_ARCHIVE="+db)
	cmd := exec.Command(bin, "archive", "--once")
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-stuck: // ten runs fetched and written, one at a time
	case err := <-exited:
		t.Fatalf("the pass ended before its eleventh trace: %v", err)
	case <-time.After(runLimit):
		t.Fatal("the pass never asked for its eleventh trace")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	open.Store(true)
	ctx := context.Background()
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
	if len(half) < 10 || len(all) != 41 || stats.Polls != 41+partial {
		t.Fatalf("after the second pass: %d runs, %d polls (want 41 runs, %d polls: one each, and one more for the %d fetched while processing); %d were there after the kill",
			len(all), stats.Polls, 41+partial, partial, len(half))
	}
}
