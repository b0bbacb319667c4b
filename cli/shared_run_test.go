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
	srv := startSim(t, sim.Options{Speed: 10})
	id := srv.Jobs[0].ID
	db := filepath.Join(t.TempDir(), "hubs.db")
	const interval = 100 * time.Millisecond
	var logs [2]lockedBuffer
	runs := [2]*follow.Run{}
	var wg sync.WaitGroup
	began := time.Now()
	for i := range runs {
		secrets := text.NewSecrets()
		a := &app{stderr: &scrubWriter{w: &strings.Builder{}, secrets: secrets}, secrets: secrets, archiveFlag: db}
		feed, err := a.sharedSource(context.Background(), service{baseURL: srv.URL, key: srv.Key}, id, interval, newDebugLog(nopCloser{&logs[i]}, secrets))
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
	traces := srv.Stats().ByRoute["GET trace"]
	if stream := int(wall / interval); traces > stream*3/2 {
		t.Errorf("%d trace requests in %s: more than one stream (%d at most)", traces, wall, stream)
	}
	both := logs[0].String() + logs[1].String()
	// One took it and the other followed (a busy machine may hand it over
	// meanwhile: a takeover is said so).
	if !strings.Contains(both, "lease: took the lease of run "+id) || !strings.Contains(both, "lease: following the lease of run "+id) {
		t.Errorf("the debug logs do not say one took the lease and the other followed:\n%s", both)
	}
}
