package cli

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

// TestSharedSourceForTheHub: two hubs' followers of one live run, made by
// sharedSource on one archive, poll it once between them: the service
// sees one trace stream, one follower's polls are the other's, and both
// runs end with every event of the run, once. The debug logs say who
// took the lease and who followed it.
func TestSharedSourceForTheHub(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 40})
	logs, traces, stream := twoHubs(t, srv, [2]string{srv.URL, srv.URL})
	if traces > stream*3/2 {
		t.Errorf("%d trace requests: more than one stream (%d at most)", traces, stream)
	}
	// One took it and the other followed (a busy machine may hand it over
	// meanwhile: a takeover is said so).
	id := srv.Jobs[0].ID
	both := logs[0] + logs[1]
	if !strings.Contains(both, "lease: took the lease of run "+id) || !strings.Contains(both, "lease: following the lease of run "+id) {
		t.Errorf("the debug logs do not say one took the lease and the other followed:\n%s", both)
	}
}

// TestSharedSourceTwoServices: the same run through two base URLs (one
// server, reached as 127.0.0.1 and as localhost) is two leases: each hub
// takes its own and polls, neither follows the other.
func TestSharedSourceTwoServices(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 40})
	logs, _, _ := twoHubs(t, srv, [2]string{srv.URL, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)})
	id := srv.Jobs[0].ID
	for i, l := range logs {
		if !strings.Contains(l, "lease: took the lease of run "+id) || strings.Contains(l, "following") {
			t.Errorf("hub %d did not poll on its own lease:\n%s", i, l)
		}
	}
}

// twoHubs follows srv's run with two sharedSource followers on one
// archive, through urls, to its end: their debug logs, the trace
// requests the service saw, and the most one stream could make.
func twoHubs(t *testing.T, srv *sim.Server, urls [2]string) (logs [2]string, traces, stream int) {
	t.Helper()
	id := srv.Jobs[0].ID
	db := filepath.Join(t.TempDir(), "hubs.db")
	const interval = 100 * time.Millisecond
	var bufs [2]lockedBuffer
	runs := [2]*follow.Run{}
	var wg sync.WaitGroup
	began := time.Now()
	for i := range runs {
		secrets := text.NewSecrets()
		a := &app{stderr: &scrubWriter{w: &strings.Builder{}, secrets: secrets}, secrets: secrets, archiveFlag: db}
		feed, err := a.sharedSource(context.Background(), service{baseURL: urls[i], key: srv.Key}, id, interval, newDebugLog(nopCloser{&bufs[i]}, secrets), nil)
		if err != nil {
			t.Fatal(err)
		}
		r := follow.NewRun()
		runs[i] = &r
		f := follow.NewFollower(feed.Source, runs[i])
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.Start(context.Background())
			<-f.Done()
			feed.Done(runs[i])
		}()
	}
	wg.Wait()
	wall := time.Since(began)
	script, _ := srv.Script(id)
	for i, r := range runs {
		if n := r.Store.Len(); n != len(script) {
			t.Errorf("follower %d holds %d events, the run has %d", i, n, len(script))
		}
	}
	for i := range bufs {
		logs[i] = bufs[i].String()
	}
	return logs, srv.Stats().ByRoute["GET trace"], int(wall / interval)
}

// TestSharedWrongKeySeesNothing: a key the service refuses is shown none of
// the polls another firewatch stored of the run, whether it would follow
// them or take the run's lease over from them: its watch exits 6 with the
// service's refusal, as without an archive.
func TestSharedWrongKeySeesNothing(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioResearch}})
	db := filepath.Join(t.TempDir(), "a.db")
	id := srv.Jobs[0].ID
	if _, errOut, code := run(t, context.Background(), "watch", id, "-o", "json", "--interval", "100ms",
		"--api-url", srv.URL, "--api-key", srv.Key, "--archive", db); code != 0 {
		t.Fatalf("watch: exit %d\n%s", code, errOut)
	}
	out, errOut, code := run(t, context.Background(), "watch", id, "-o", "json", "--interval", "100ms",
		"--api-url", srv.URL, "--api-key", "fc-wrong0000000000000000000000000", "--archive", db)
	if code != ExitRejected || strings.Contains(out, `"type"`) || !strings.Contains(errOut, "Unauthorized") {
		t.Fatalf("a wrong key: exit %d\nstdout %.300s\nstderr %s", code, out, errOut)
	}
}
