package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	gossh "golang.org/x/crypto/ssh"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/internal/sshtest"
	"github.com/firewatch/firewatch/sim"
)

// hubInterval is how often a hub's follower polls a run when it holds the
// run's lease (its --interval). The team's CLI watch polls at the same
// interval, so that one stream of trace requests is one number, whoever
// holds the lease.
const hubInterval = 500 * time.Millisecond

// teamHub is a `firewatch hub` process on the team's archive, and the one
// viewer it lets in.
type teamHub struct {
	p       *proc
	addr    string
	hostKey gossh.PublicKey
	viewer  sshtest.Person
}

// startTeamHub starts a hub on 127.0.0.1:0 with a host key and a viewer of
// its own (and extra arguments), and waits until it listens.
func startTeamHub(t *testing.T, env []string, extra ...string) *teamHub {
	t.Helper()
	dir := t.TempDir()
	h := &teamHub{viewer: sshtest.NewPerson(t, "viewer")}
	viewers, hostKey := filepath.Join(dir, "viewers"), filepath.Join(dir, "host")
	if err := os.WriteFile(viewers, []byte(h.viewer.Line), 0o600); err != nil {
		t.Fatal(err)
	}
	h.p = start(t, env, append([]string{"hub", "--listen", "127.0.0.1:0", "--authorized-keys", viewers, "--host-key", hostKey, "--interval", hubInterval.String()}, extra...)...)
	awaitCount(t, h.p, 20*time.Second, "the hub listening", "listening on", 1)
	h.addr = regexp.MustCompile(`listening on (\S+) `).FindStringSubmatch(h.p.stderr.String())[1]
	pub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if h.hostKey, _, _, _, err = gossh.ParseAuthorizedKey(pub); err != nil {
		t.Fatal(err)
	}
	return h
}

// watch logs the viewer in and opens run id from the runs screen: its row
// (found by the run's short id; the only one), enter.
func (h *teamHub) watch(t *testing.T, id string) *sshtest.Screen {
	t.Helper()
	s := sshtest.OpenScreen(t, sshtest.Login(t, h.addr, h.hostKey, h.viewer), 120, 40, "LANG=C.UTF-8")
	s.WaitFor("1 of 1 loaded")
	s.WaitFor(id[:8])
	s.Press("\r")
	s.WaitFor("esc runs")
	return s
}

// screenEvents is the event count of the watch screen's timeline.
var screenEvents = regexp.MustCompile(`Timeline (\d+) events`)

// screenEnd is the watch screen's line for a run that succeeded: its
// credits.
var screenEnd = regexp.MustCompile(`Run succeeded · in \S+ · ([\d,]+) credits`)

// eventsOn is the event count a watch screen shows (-1: none).
func eventsOn(s *sshtest.Screen) int {
	m := screenEvents.FindStringSubmatch(s.Text())
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// awaitEventsOn waits until a watch screen shows events.
func awaitEventsOn(t *testing.T, s *sshtest.Screen, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for eventsOn(s) <= 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no events on the screen within %s:\n%s", limit, s.Text())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// awaitFile waits until the file at path holds want.
func awaitFile(t *testing.T, path string, limit time.Duration, what, want string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s: %s holds\n%s", what, limit, path, tailOf(string(b)))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTeamTwoHubsAndAWatch: two hubs, each with a viewer watching the run
// through SSH, and a CLI watch follow one live run on one PostgreSQL
// archive. The service sees one stream of trace requests, not three. The
// hub that holds the run's lease is killed (SIGKILL) mid-run and a
// survivor takes over within the lease's TTL (three poll intervals); the
// watch's NDJSON, summary and recording hold each event once, the other
// hub's viewer sees the run's end with as many events as the watch's
// summary, and the hubs' logs say who took, followed and took over the
// lease.
func TestTeamTwoHubsAndAWatch(t *testing.T) {
	t.Parallel()
	dsn := sharedPostgres(t)
	// Held until the three share it, and again while hub A is gone, so
	// that it is gone mid-run however busy the machine.
	srv := startSim(t, sim.Options{Speed: 24, Held: true})
	id := srv.Jobs[0].ID
	script, _ := srv.Script(id)
	env := append(simEnv(srv), "FIREWATCH_ARCHIVE="+dsn)
	k := archive.LeaseKey{Service: srv.URL, Run: id}
	ha, hb := startTeamHub(t, env), startTeamHub(t, env)

	// The run held at its start: hub A's viewer opens it first (A takes
	// its lease), then hub B's and the watch follow A's polls.
	began := time.Now()
	va := ha.watch(t, id)
	l := awaitLease(t, dsn, k, 10*time.Second, "lease taken by hub A", func(l archive.Lease) bool {
		return l.Left > 0 && l.PID == ha.p.cmd.Process.Pid
	})
	vb := hb.watch(t, id)
	awaitCount(t, hb.p, 10*time.Second, "hub B following hub A", "lease: following the lease of run "+id, 1)
	cli := teamWatchEvery(t, env, id, hubInterval)
	debug := filepath.Join(cli.cmd.Dir, "debug.log")
	awaitFile(t, debug, 10*time.Second, "the watch following hub A", "lease: following the lease of run "+id)
	srv.Release()

	// Mid-run: every viewer has events, the run (held from the watch's
	// twentieth event on) has more to come.
	cli.waitOutput(t, runLimit, "the watch's first events", func(s string) bool { return strings.Count(s, "\n") >= 20 })
	srv.Hold()
	for _, v := range []*sshtest.Screen{va, vb} {
		awaitEventsOn(t, v, 10*time.Second)
	}
	// firewatch team says who polls the run: hub A, the one to kill.
	team := runFW(t, env, runLimit, "team", "-o", "json")
	var said struct {
		Leases []struct {
			Run   string `json:"run"`
			Label string `json:"label"`
			PID   int    `json:"pid"`
		} `json:"leases"`
	}
	if err := json.Unmarshal([]byte(team.stdout), &said, json.RejectUnknownMembers(false)); err != nil || team.code != 0 {
		t.Fatalf("firewatch team -o json: %v\n%s", err, team)
	}
	holders := 0
	for _, tl := range said.Leases {
		if tl.Run == id {
			holders++
			if tl.Label != "hub" || tl.PID != ha.p.cmd.Process.Pid {
				t.Errorf("firewatch team says %s pid %d polls the run, not hub A (pid %d)", tl.Label, tl.PID, ha.p.cmd.Process.Pid)
			}
		}
	}
	if holders != 1 {
		t.Errorf("firewatch team names %d holders of the run's lease, want 1:\n%s", holders, team.stdout)
	}
	l = awaitLease(t, dsn, k, time.Second, "hub A's lease still held", func(nl archive.Lease) bool {
		return nl.Left > 0 && nl.Token == l.Token
	})
	if err := ha.p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	<-ha.p.done
	if shown := len(eventIDs(t, cli.stdout.String())); shown >= len(script) {
		t.Fatalf("hub A killed after the run's %d events: not mid-run", shown)
	}
	nl := awaitLease(t, dsn, k, 3*hubInterval+5*time.Second, "takeover", func(nl archive.Lease) bool {
		return nl.Token > l.Token && nl.Left > 0
	})
	srv.Release()
	survivors := map[int]string{hb.p.cmd.Process.Pid: "hub B", cli.cmd.Process.Pid: "the watch"}
	who, ok := survivors[nl.PID]
	if !ok {
		t.Fatalf("taken over by %s, none of the survivors", nl.Holder)
	}
	took := nl.Since.Sub(killed)
	t.Logf("killed hub A, %s (lease TTL %s); %s (%s) took over %s later", l.Holder, l.TTL, who, nl.Holder, took.Round(time.Millisecond))
	if l.TTL > 3*hubInterval || took > l.TTL+300*time.Millisecond {
		t.Errorf("taken over %s after the kill; the lease's TTL was %s (three intervals: %s)", took, l.TTL, 3*hubInterval)
	}

	// The watch saw the run to its end; hub B's viewer sees its end too.
	if code := cli.wait(t, runLimit); code != 0 {
		t.Fatalf("the watch: exit %d\n%s", code, tailOf(cli.stderr.String()))
	}
	wall := time.Since(began)
	agree(t, env, srv, id, []*proc{cli}, nil)
	sum := summaryOf(t, cli)
	vb.WaitFor("Run succeeded")
	if n := eventsOn(vb); n != sum.EventCount {
		t.Errorf("hub B's viewer sees %d events, the watch's summary %d:\n%s", n, sum.EventCount, vb.Text())
	}
	if m := screenEnd.FindStringSubmatch(vb.Text()); m == nil || strings.ReplaceAll(m[1], ",", "") != strconv.FormatFloat(sum.CreditsUsed, 'f', -1, 64) {
		t.Errorf("hub B's viewer's end line %q, the watch's summary %v credits:\n%s", m, sum.CreditsUsed, vb.Text())
	}
	vb.Press("q")
	if code := vb.Exit(); code != 0 {
		t.Errorf("hub B's session ended with %d", code)
	}
	if err := hb.p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := hb.p.wait(t, 20*time.Second); code != 0 {
		t.Errorf("hub B exited %d when stopped:\n%s", code, tailOf(hb.p.stderr.String()))
	}

	// One stream of trace requests, not three.
	traces := srv.Stats().ByRoute["GET trace"]
	stream := int(wall/hubInterval) + 1
	t.Logf("%d trace requests in %s: one stream at %s is at most %d (%v)", traces, wall.Round(time.Millisecond), hubInterval, stream, srv.Stats().ByRoute)
	if traces > stream*3/2 {
		t.Errorf("%d trace requests in %s: more than one stream (%d at most)", traces, wall, stream)
	}

	snaps := map[string]bool{}
	for _, m := range regexp.MustCompile(`"snapshotId":"([^"]+)"`).FindAllStringSubmatch(cli.stdout.String(), -1) {
		snaps[m[1]] = true
	}
	// The holder fetches each snapshot for the team; a killed holder's
	// last fetch may not have been stored, and is fetched again.
	t.Logf("%d snapshot requests for the run's %d snapshots", srv.Stats().ByRoute["GET snapshot"], len(snaps))
	if n := srv.Stats().ByRoute["GET snapshot"]; n > len(snaps)+1 {
		t.Errorf("%d snapshot requests for the run's %d snapshots: not fetched once for the team", n, len(snaps))
	}

	// The lease's story in the hubs' logs (and the watch's debug log).
	logA, logB, logW := ha.p.stderr.String(), hb.p.stderr.String(), string(readFile(t, debug))
	lines := []struct{ who, log, want string }{
		{"hub A", logA, fmt.Sprintf("lease: took the lease of run %s at %s: hub on %s (pid %d)", id, srv.URL, l.Host, l.PID)},
		{"hub B", logB, fmt.Sprintf("lease: following the lease of run %s at %s: hub on %s (pid %d)", id, srv.URL, l.Host, l.PID)},
		{"the watch", logW, fmt.Sprintf("lease: following the lease of run %s at %s: hub on %s (pid %d)", id, srv.URL, l.Host, l.PID)},
	}
	if nl.PID == hb.p.cmd.Process.Pid {
		lines = append(lines, struct{ who, log, want string }{"hub B", logB, fmt.Sprintf("lease: took over the lease of run %s at %s: %s", id, srv.URL, nl.Holder)})
	} else {
		lines = append(lines,
			struct{ who, log, want string }{"the watch", logW, fmt.Sprintf("lease: took over the lease of run %s at %s: %s", id, srv.URL, nl.Holder)},
			struct{ who, log, want string }{"hub B", logB, fmt.Sprintf("lease: following the lease of run %s at %s: %s", id, srv.URL, nl.Holder)})
	}
	for _, l := range lines {
		if !strings.Contains(l.log, l.want) {
			t.Errorf("%s's log does not say %q:\n%s", l.who, l.want, tailOf(l.log))
		}
	}
	for _, line := range strings.Split(logB, "\n") {
		if strings.Contains(line, "lease:") {
			t.Logf("hub B: %s", line)
		}
	}
}
