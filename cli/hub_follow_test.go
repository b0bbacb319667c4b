package cli

import (
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/firewatch/firewatch/cli/internal/hubsvc"
	"github.com/firewatch/firewatch/internal/sshtest"
	"github.com/firewatch/firewatch/sim"
)

// lookInHub makes the next hub started in this process hand its followers
// to the test, polling every interval. Not parallel: a package variable.
func lookInHub(t *testing.T, interval time.Duration) <-chan *hubsvc.Hub {
	got := make(chan *hubsvc.Hub, 1)
	old := hubMade
	hubMade = func(f *hubsvc.Hub) {
		f.PollEvery(interval)
		got <- f
	}
	t.Cleanup(func() { hubMade = old })
	return got
}

// waitUntil waits for cond, failing the test with what after 20 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Five sessions watching one run are one follower of it: the service sees
// the trace requests of one watch, the team's list is asked once for the
// five runs screens, and when the last session leaves the run the follower
// stops (a new session makes a new one).
func TestHubFollowsARunOnce(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, Speed: 1000})
	follows := lookInHub(t, 20*time.Millisecond)
	// No archive: the runs screens would complete the finished run in it.
	h := startCLIHub(t, srv.URL, srv.Key, "--archive", "off")
	f := <-follows
	id := srv.Jobs[0].ID

	// The first session follows the run to its end: one watch's requests.
	var screens []*sshtest.Screen
	list := func(p sshtest.Person) *sshtest.Screen {
		s := sshtest.OpenScreen(t, h.login(t, p), 120, 40, "LANG=C.UTF-8")
		s.WaitFor("1 of 1 loaded")
		screens = append(screens, s)
		return s
	}
	watch := func(s *sshtest.Screen) {
		s.Press("\r")
		s.WaitFor("Run succeeded")
	}
	watch(list(h.alice))
	var one *hubsvc.Run
	waitUntil(t, "the hub follows the run", func() bool { one = f.Followed(id); return one != nil })
	<-one.F.Done()
	// Four more runs screens (the service counts a request once it has
	// answered it: the first watch's last one is counted by now).
	for _, p := range []sshtest.Person{h.bob, h.alice, h.bob, h.alice} {
		list(p)
	}
	traces, lists := srv.Stats().ByRoute["GET trace"], srv.Stats().ByRoute["GET list"] // the screens' and the follower's look-up
	before := runtime.NumGoroutine()                                                   // one session watching, four listing
	if traces == 0 || traces > 8 {
		t.Fatalf("one watch of a finished run made %d trace requests", traces)
	}
	if lists != 2 {
		t.Errorf("five runs screens and a follower's look-up made %d list requests, want 2 (one for every screen)", lists)
	}
	for _, s := range screens[1:] {
		watch(s)
	}
	if refs, subs := f.Watchers(id); refs != 5 || subs != 5 {
		t.Errorf("five sessions on the run: %d watching, %d subscribed to its follower", refs, subs)
	}
	st := srv.Stats()
	if n := st.ByRoute["GET trace"]; n != traces {
		t.Errorf("five sessions made %d trace requests, one made %d: not one poll per run", n, traces)
	}
	if n := st.ByRoute["GET list"]; n != lists {
		t.Errorf("five runs screens made %d list requests, one made %d: not one list for all", n, lists)
	}

	// Leaving: each session unsubscribes, the last one stops the follower.
	for i, s := range screens {
		s.Press("\x1b")
		s.WaitFor("1 of 1 loaded")
		want := len(screens) - i - 1
		waitUntil(t, "the session left the run", func() bool { r, s := f.Watchers(id); return r == want && s == want })
	}
	if f.Followed(id) != nil {
		t.Error("nobody watches the run and the hub still follows it")
	}
	// Nothing of the watches is left: fewer goroutines than with one.
	waitUntil(t, "the goroutines of the watches gone", func() bool { return runtime.NumGoroutine() < before })
	watch(screens[0])
	waitUntil(t, "a new follower's polls", func() bool { return srv.Stats().ByRoute["GET trace"] > traces })
	for _, s := range screens {
		s.Press("q")
		s.Exit()
	}
	waitUntil(t, "the last follower gone", func() bool { return f.Followed(id) == nil })
}

// An operator's pause and cancel are said on every viewer's screen of the
// run, with who made them and through which hub (--name), in the hub's
// log, and the cancel in the archive's record; the viewer watching can
// neither cancel nor pause.
func TestHubCancelSaysWho(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Scenarios: []string{"cancel"}, Speed: 1})
	hook := newHook(t, http.StatusOK)
	h := startCLIHub(t, srv.URL, srv.Key, "--interval", "100ms", "--notify-url", hook.URL, "--name", "prod hub!")
	h.log.WaitLine(t, `this hub is "prod-hub"`)
	id := srv.Jobs[0].ID
	watch := func(c *gossh.Client, who string) *sshtest.Screen {
		s := sshtest.OpenScreen(t, c, 120, 40, "LANG=C.UTF-8")
		s.WaitFor("● processing")
		s.WaitFor(who) // who the session is, in the runs screen's title
		s.Press("\r")
		s.WaitFor("esc runs")
		s.WaitFor(who) // and in the run's header
		return s
	}
	bob, alice := watch(h.login(t, h.bob), "bob · viewer"), watch(h.login(t, h.alice), "alice · operator")
	bob.Press("c")
	bob.WaitFor("only the hub's operators may cancel or start runs")
	bob.Press("p")
	bob.WaitFor("only the hub's operators may pause")
	alice.Press("p") // the run's one poll, for every viewer
	bob.WaitFor("alice paused the polling of the run")
	alice.Press("p")
	bob.WaitFor("alice resumed the polling of the run")
	alice.Press("c")
	alice.WaitFor("yes, cancel the run")
	alice.Press("y")
	bob.WaitFor("alice cancelled the run")
	h.log.WaitLine(t, "action: alice (operator, SHA256:", "cancelled run "+id)
	if n := srv.Stats().ByRoute["DELETE agent"]; n != 1 {
		t.Errorf("the service saw %d cancels", n)
	}
	bob.WaitFor("⊘ cancelled") // the run's end, seen by the hub's follower
	// Every viewer's header says who, and so does the runs screen's
	// details once back on the list.
	bob.WaitFor("by alice via hub prod-hub")
	bob.Press("\x1b")
	bob.WaitFor("who      cancelled by alice via hub prod-hub")
	for _, s := range []*sshtest.Screen{bob, alice} {
		s.Press("q")
		s.Exit()
	}
	c := h.login(t, h.bob)
	waitUntil(t, "the archive's record names alice", func() bool {
		out, _, code := sshtest.Run(t, c, "history -o json")
		return code == 0 && strings.Contains(out, `"cancelledBy":"alice"`) && strings.Contains(out, `"cancelledVia":"prod-hub"`)
	})
	// --summary, from the archive's record.
	if out, _, _ := sshtest.Run(t, c, "watch "+id+" -o json --summary -"); !strings.Contains(out, `"cancelledBy":"alice"`) || !strings.Contains(out, `"cancelledVia":"prod-hub"`) {
		t.Errorf("the summary does not name alice and the hub:\n%s", out)
	}
	// The plain closing block and the report.
	if out, _, _ := sshtest.Run(t, c, "watch "+id+" -o plain"); !strings.Contains(out, "by alice via hub prod-hub") {
		t.Errorf("the closing block does not name alice and the hub:\n%s", out)
	}
	if out, _, _ := sshtest.Run(t, c, "report "+id); !strings.Contains(out, "alice via hub prod-hub") {
		t.Errorf("the report does not name alice and the hub:\n%s", out)
	}
	// The team's channel: the end's text and body name alice.
	waitUntil(t, "the end told to the team's channel", func() bool {
		for _, b := range hook.got() {
			if strings.Contains(b, `"event":"finished"`) || strings.Contains(b, `"event":"failed"`) {
				return true
			}
		}
		return false
	})
	for _, b := range hook.got() {
		if strings.Contains(b, `"event":"finished"`) && (!strings.Contains(b, "was cancelled by alice via hub prod-hub") || !strings.Contains(b, `"cancelledBy":"alice"`) ||
			!strings.Contains(b, `"cancelledVia":"prod-hub"`)) {
			t.Errorf("the end does not name alice: %s", b)
		}
	}
}

// The hub tells the team's channel each moment of a run it follows once,
// however many sessions watch the run; with --follow-processing it follows
// the team's processing runs with nobody watching.
func TestHubNotifiesOncePerRun(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"failure", "failure"}, Speed: 100})
	hook := newHook(t, http.StatusOK)
	// Runs once the hub has stopped and flushed its notifier.
	t.Cleanup(func() {
		bodies := hook.got()
		if len(bodies) != 2 {
			t.Errorf("%d POSTs for two failed runs, want one each:\n%s", len(bodies), strings.Join(bodies, "\n"))
		}
		for _, id := range []string{srv.Jobs[0].ID, srv.Jobs[1].ID} {
			if n := strings.Count(strings.Join(bodies, "\n"), `"id":"`+id+`"`); n != 1 {
				t.Errorf("run %s: %d POSTs, want 1", id, n)
			}
		}
	})
	follows := lookInHub(t, 20*time.Millisecond)
	h := startCLIHub(t, srv.URL, srv.Key, "--archive", "off", "--notify-url", hook.URL, "--notify-on", "failed", "--follow-processing")
	f := <-follows
	var screens []*sshtest.Screen
	for _, p := range []sshtest.Person{h.alice, h.bob, h.alice} {
		s := sshtest.OpenScreen(t, h.login(t, p), 120, 40, "LANG=C.UTF-8")
		s.WaitFor("2 of 2 loaded")
		s.Press("\r")
		screens = append(screens, s)
	}
	for _, s := range screens {
		s.WaitFor("failed")
	}
	waitUntil(t, "two POSTs", func() bool { return len(hook.got()) >= 2 })
	for _, s := range screens {
		s.QuitWith("q")
	}
	waitUntil(t, "the followers gone", func() bool {
		return f.Followed(srv.Jobs[0].ID) == nil && f.Followed(srv.Jobs[1].ID) == nil
	})
}
