package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/sim"
)

// claimTTLEnv is the claims' lease in these tests: a claimer killed before
// it delivered holds its moment up for this long.
const claimTTLEnv = "FIREWATCH_NOTIFY_CLAIM_TTL=1s"

// momentReceiver is the team's webhook: it counts the moments it accepted
// (answered 200) by the webhook's "id" (the moment's key). The first POST
// of the moment hold names is held unanswered (held gets its id) until
// the test ends: its sender is killed meanwhile, and that delivery never
// completes.
type momentReceiver struct {
	*httptest.Server
	hold string
	held chan string

	mu     sync.Mutex
	counts map[string]int
	once   bool
}

func newMomentReceiver(t *testing.T, hold string) *momentReceiver {
	rc := &momentReceiver{hold: hold, held: make(chan string, 1), counts: map[string]int{}}
	release := make(chan struct{})
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(b, &m, json.RejectUnknownMembers(false))
		rc.mu.Lock()
		first := !rc.once && strings.HasSuffix(m.ID, rc.hold)
		if first {
			rc.once = true
		} else {
			rc.counts[m.ID]++
		}
		rc.mu.Unlock()
		if first {
			rc.held <- m.ID
			select {
			case <-release:
			case <-r.Context().Done():
			}
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(func() {
		close(release)
		rc.Close()
	})
	return rc
}

func (rc *momentReceiver) count() map[string]int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	c := make(map[string]int, len(rc.counts))
	for k, v := range rc.counts {
		c[k] = v
	}
	return c
}

// await waits until every one of keys was accepted at least once.
func (rc *momentReceiver) await(t *testing.T, limit time.Duration, keys ...string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		c, all := rc.count(), true
		for _, k := range keys {
			all = all && c[k] > 0
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the receiver has %v within %s, want each of %q", c, limit, keys)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// once checks that every moment the receiver accepted was accepted once,
// and that want are among them; it returns the counts, said.
func (rc *momentReceiver) onlyOnce(t *testing.T, want ...string) string {
	t.Helper()
	c := rc.count()
	var said []string
	for k, n := range c {
		said = append(said, k+"="+itoa(n))
		if n != 1 {
			t.Errorf("moment %s POSTed %d times, want once", k, n)
		}
	}
	for _, k := range want {
		if c[k] == 0 {
			t.Errorf("moment %s never POSTed (lost)", k)
		}
	}
	sort.Strings(said)
	return strings.Join(said, " ")
}

func itoa(n int) string { return strconv.Itoa(n) }

// readFileOK is a file's text, or the error reading it.
func readFileOK(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

// stop ends p as a service manager does (SIGTERM) and waits for it.
func stop(t *testing.T, p *proc, what string) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, 20*time.Second); code != 0 {
		t.Errorf("%s exited %d when stopped:\n%s", what, code, tailOf(p.stderr.String()))
	}
}

// TestMomentsOnceForTheTeam: two hubs on one PostgreSQL archive notify one
// webhook of the runs they follow. Each moment is POSTed once for the
// team: the hub that claims the run's attention item (a loop: the hub has
// no --stall, and the stall's 60 s would be a minute of test) is killed
// (SIGKILL) while its POST is held, a hub is started again in its place
// mid-run, and the moment is still POSTed once, by a survivor, once the
// dead claimer's claim expires; the run's end too. A hub started after
// the run's end that shows the run POSTs nothing.
func TestMomentsOnceForTheTeam(t *testing.T) {
	t.Parallel()
	dsn := sharedPostgres(t)
	srv := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioLoop}, Speed: 20, Held: true})
	id := srv.Jobs[0].ID
	loop, end := "run:"+id+":attention:loop", "run:"+id+":finished"
	rc := newMomentReceiver(t, ":attention:loop")
	env := append(simEnv(srv), "FIREWATCH_ARCHIVE="+dsn, claimTTLEnv)
	notifyArgs := []string{"--notify-url", rc.URL}
	ha, hb := startTeamHub(t, env, notifyArgs...), startTeamHub(t, env, notifyArgs...)
	// Both hubs follow the run from its start: a viewer of each opens it.
	ha.watch(t, id)
	awaitLease(t, dsn, archive.LeaseKey{Service: srv.URL, Run: id}, 10*time.Second, "the run's lease taken", func(l archive.Lease) bool { return l.Left > 0 })
	hb.watch(t, id)
	awaitCount(t, hb.p, 10*time.Second, "hub B following the run", "lease: following the lease of run "+id, 1)
	srv.Release()

	// The loop's first POST is held: its claimer is killed before it is
	// answered.
	var held string
	select {
	case held = <-rc.held:
	case <-time.After(runLimit):
		t.Fatalf("no loop POST within %s\nhub A:\n%s\nhub B:\n%s", runLimit, tailOf(ha.p.stderr.String()), tailOf(hb.p.stderr.String()))
	}
	// The claimer logs its claim before it POSTs, but the line crosses its
	// stderr pipe while the POST crosses the network: wait for it.
	claimed := held + " claimed for the team"
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(ha.p.stderr.String(), claimed) && !strings.Contains(hb.p.stderr.String(), claimed) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	claimer, survivor := ha, hb
	if !strings.Contains(ha.p.stderr.String(), claimed) {
		claimer, survivor = hb, ha
	}
	if !strings.Contains(claimer.p.stderr.String(), claimed) || strings.Contains(survivor.p.stderr.String(), claimed) {
		t.Fatalf("not one claimer of %s\nhub A:\n%s\nhub B:\n%s", held, tailOf(ha.p.stderr.String()), tailOf(hb.p.stderr.String()))
	}
	srv.Hold() // the run goes on once the claimer is gone and one is back
	if err := claimer.p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-claimer.p.done
	// Restarted in its place, mid-run, on the same archive.
	again := startTeamHub(t, env, append(notifyArgs, "--follow-processing")...)
	srv.Release()

	rc.await(t, runLimit, loop, end)
	stop(t, survivor.p, "the surviving hub")
	stop(t, again.p, "the restarted hub")
	counts := rc.onlyOnce(t, loop, end)
	t.Logf("the receiver's POSTs by moment (two hubs, the loop's claimer killed, one restarted): %s", counts)
	if !strings.Contains(survivor.p.stderr.String()+again.p.stderr.String(), loop+" claimed for the team") {
		t.Errorf("no survivor says it claimed the loop")
	}

	// After the run's end: a hub that shows the run POSTs nothing.
	late := startTeamHub(t, env, notifyArgs...)
	s := late.watch(t, id)
	s.WaitFor("Run succeeded")
	stop(t, late.p, "the hub started after the end")
	if got := rc.onlyOnce(t, loop, end); got != counts {
		t.Errorf("after a hub started after the run's end: %s, before %s", got, counts)
	}
}

// TestMomentsOnceOnOneMachine: two watches on one machine, sharing its
// SQLite archive, notify one webhook of one run: its stall and its end are
// each POSTed once. The watch that claimed the stall is killed (SIGKILL)
// while its POST is held, another is started in its place, and the stall
// is still POSTed once, by the survivor; a watch started after the run's
// end POSTs nothing.
func TestMomentsOnceOnOneMachine(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{sim.ScenarioStall}, Speed: 20, Held: true})
	id := srv.Jobs[0].ID
	stall, end := "run:"+id+":attention:stall", "run:"+id+":finished"
	rc := newMomentReceiver(t, ":attention:stall")
	db := filepath.Join(t.TempDir(), "archive.db")
	env := append(simEnv(srv), "FIREWATCH_ARCHIVE="+db, claimTTLEnv)
	watch := func() *proc {
		return start(t, env, "watch", id, "-o", "plain", "--interval", "100ms", "--stall", "2s", "--notify-url", rc.URL, "--debug", "debug.log")
	}
	debugOf := func(p *proc) string { return filepath.Join(p.cmd.Dir, "debug.log") }
	wa, wb := watch(), watch()
	for _, w := range []*proc{wa, wb} {
		awaitFile(t, debugOf(w), 10*time.Second, "the watch's notifier", "are claimed in the archive")
		awaitFile(t, debugOf(w), 10*time.Second, "the watch on the run's lease", " the lease of run "+id)
	}
	srv.Release()

	var held string
	select {
	case held = <-rc.held:
	case <-time.After(runLimit):
		t.Fatalf("no stall POST within %s\nwatch A:\n%s", runLimit, tailOf(string(readFile(t, debugOf(wa)))))
	}
	claimed := held + " claimed for the team"
	claimer, survivor := wa, wb
	if b, _ := readFileOK(debugOf(wa)); !strings.Contains(b, claimed) {
		claimer, survivor = wb, wa
	}
	if b, _ := readFileOK(debugOf(claimer)); !strings.Contains(b, claimed) {
		t.Fatalf("no watch claimed %s", held)
	}
	srv.Hold()
	if err := claimer.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-claimer.done
	again := watch()
	awaitFile(t, debugOf(again), 10*time.Second, "the restarted watch on the run's lease", " the lease of run "+id)
	srv.Release()
	for _, w := range []*proc{survivor, again} {
		if code := w.wait(t, runLimit); code != 0 {
			t.Fatalf("a watch exited %d\n%s", code, tailOf(w.stderr.String()))
		}
	}
	counts := rc.onlyOnce(t, stall, end)
	t.Logf("the receiver's POSTs by moment (two watches, the stall's claimer killed, one restarted): %s", counts)

	if r := runFW(t, env, runLimit, "watch", id, "-o", "plain", "--interval", "100ms", "--notify-url", rc.URL); r.code != 0 {
		t.Fatalf("a watch after the end: %s", r)
	}
	if got := rc.onlyOnce(t, stall, end); got != counts {
		t.Errorf("after a watch of the ended run: %s, before %s", got, counts)
	}
}
