package cli

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firewatch/firewatch/cli/internal/hubsvc"
	"github.com/firewatch/firewatch/hub"
	"github.com/firewatch/firewatch/internal/panics"
	"github.com/firewatch/firewatch/internal/sshtest"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// lookAtSessions makes the hubs started in this process hand each
// session's hubsvc.Session to the test, by the person's name. Not parallel: a
// package variable (set before the hub starts, put back after it stopped).
func lookAtSessions(t *testing.T) func(who string) *hubsvc.Session {
	var mu sync.Mutex
	got := map[string][]*hubsvc.Session{}
	old := hubSessionMade
	hubSessionMade = func(h *hubsvc.Session) {
		mu.Lock()
		defer mu.Unlock()
		got[h.PersonName()] = append(got[h.PersonName()], h)
	}
	t.Cleanup(func() { hubSessionMade = old })
	return func(who string) *hubsvc.Session {
		var h *hubsvc.Session
		waitUntil(t, who+"'s session", func() bool {
			mu.Lock()
			defer mu.Unlock()
			if l := got[who]; len(l) > 0 {
				h, got[who] = l[0], l[1:]
			}
			return h != nil
		})
		return h
	}
}

// recControls records what is asked of a shared run's one poll.
type recControls struct {
	mu  sync.Mutex
	got []string
}

func (r *recControls) add(s string) { r.mu.Lock(); r.got = append(r.got, s); r.mu.Unlock() }
func (r *recControls) SetPaused(p bool) {
	r.add(map[bool]string{true: "pause", false: "resume"}[p])
}
func (r *recControls) PollNow() { r.add("poll now") }
func (r *recControls) SetLiveView(b bool) {
	r.add(map[bool]string{true: "live view on", false: "live view off"}[b])
}
func (r *recControls) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

// forbidden checks that err is the hub's refusal of a viewer's change.
func forbidden(t *testing.T, what string, err error) {
	t.Helper()
	var ae *hub.AccessError
	switch {
	case !errors.Is(err, hub.ErrForbidden):
		t.Errorf("%s by a viewer: %v, want hub.ErrForbidden", what, err)
	case !errors.As(err, &ae) || ae.Who.Name != "bob" || ae.Level != hub.ReadOnlyAccess:
		t.Errorf("%s by a viewer: %#v, want an *hub.AccessError of bob's read-only access", what, err)
	}
}

// The services a viewer's screens and commands are given refuse every
// change themselves, whatever key reaches them: called directly, a
// cancel, a start, a crawl's cancel, a pause and a live view of the shared
// run are refused with hub.ErrForbidden, in the hub's log, and the service
// (and the run's one poll) is asked nothing. An operator's are done.
func TestHubViewerServicesRefuse(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"cancel"}, Speed: 1})
	follows := lookInHub(t, 100*time.Millisecond)
	sessionOf := lookAtSessions(t)
	h := startCLIHub(t, srv.URL, srv.Key, "--archive", "off")
	f := <-follows
	id := srv.Jobs[0].ID
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	c = c.WithRetry(poller.Retry{Tries: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// The run's one follower, its poll recorded.
	r, release := f.Open(id)
	defer release()
	rec := &recControls{}
	r.Controls = rec

	bobScreen := sshtest.OpenScreen(t, h.login(t, h.bob), 120, 40, "LANG=C.UTF-8")
	bobScreen.WaitFor("1 of 1 loaded")
	bob := sessionOf("bob")
	if _, _, code := sshtest.Run(t, h.login(t, h.bob), "runs -o json"); code != 0 {
		t.Fatalf("bob's runs -o json: exit %d", code)
	}
	bobCmd := sessionOf("bob")
	for _, s := range []*hubsvc.Session{bob, bobCmd} {
		forbidden(t, "a cancel", s.RunsService(c).Cancel(ctx, id))
		_, err := s.RunsService(c).StartAgent(ctx, poller.AgentRequest{Prompt: "anything"})
		forbidden(t, "a start", err)
		_, err = s.CrawlService(c).CancelCrawl(ctx, id)
		forbidden(t, "a crawl's cancel", err)
		b := s.Backend(&hubsvc.SharedBackend{R: r, S: s}, id)
		forbidden(t, "the watch screen's cancel", b.Cancel(ctx))
		b.SetPaused(true)
		b.SetLiveView(true)
		b.SetPaused(false)
	}
	if got := rec.seen(); len(got) != 0 {
		t.Errorf("a viewer's backend changed the shared run's poll: %q", got)
	}
	st := srv.Stats()
	for _, route := range []string{"DELETE agent", "POST agent", "DELETE crawl"} {
		if n := st.ByRoute[route]; n != 0 {
			t.Errorf("the service saw %d %s requests from a viewer's services", n, route)
		}
	}
	h.log.WaitLine(t, "refused bob (viewer, SHA256:", "only the hub's operators may cancel run "+id)
	h.log.WaitLine(t, "refused bob (viewer, SHA256:", "only the hub's operators may pause run "+id)

	// An operator's are done, and told.
	aliceScreen := sshtest.OpenScreen(t, h.login(t, h.alice), 120, 40, "LANG=C.UTF-8")
	aliceScreen.WaitFor("1 of 1 loaded")
	alice := sessionOf("alice")
	b := alice.Backend(&hubsvc.SharedBackend{R: r, S: alice}, id)
	b.SetPaused(true)
	b.SetPaused(false)
	if got := rec.seen(); len(got) != 2 {
		t.Errorf("an operator's pause and resume reached the poll as %q", got)
	}
	if err := alice.RunsService(c).Cancel(ctx, id); err != nil {
		t.Errorf("an operator's cancel: %v", err)
	}
	if n := srv.Stats().ByRoute["DELETE agent"]; n != 1 {
		t.Errorf("the service saw %d cancels after the operator's", n)
	}
	h.log.WaitLine(t, "action: alice (operator, SHA256:", "cancelled run "+id)
	for _, s := range []*sshtest.Screen{bobScreen, aliceScreen} {
		s.Press("q")
		s.Exit()
	}
}

// A panic in one session's watch (its source's goroutine, through the
// test's hook) ends that session with exit 1 and a log line naming it;
// another session's runs screen goes on and the hub takes new sessions.
func TestHubPanicEndsOneSession(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, Speed: 1000})
	var once sync.Once
	panics.SetTesting(func(_ context.Context, where string) {
		if where == "stream" {
			once.Do(func() { panic("a source that cannot read its answer") })
		}
	})
	t.Cleanup(func() { panics.SetTesting(nil) })
	h := startCLIHub(t, srv.URL, srv.Key, "--archive", "off")
	bob := sshtest.OpenScreen(t, h.login(t, h.bob), 120, 40, "LANG=C.UTF-8")
	bob.WaitFor("1 of 1 loaded")

	_, stderr, code := sshtest.Run(t, h.login(t, h.alice), "watch "+srv.Jobs[0].ID+" -o json")
	if code != hub.ExitPanicked || !strings.Contains(stderr, "an internal error ended this session") {
		t.Errorf("the panicking watch: exit %d, stderr %q", code, stderr)
	}
	h.log.WaitLine(t, "panic in the session of alice (operator, SHA256:", "a source that cannot read its answer")
	h.log.WaitLine(t, "logout alice (operator, SHA256:", "exit 1, a panic in the session")

	bob.Press("c")
	bob.WaitFor("only the hub's operators may cancel or start runs (bob is a viewer)")
	if out, _, code := sshtest.Run(t, h.login(t, h.bob), "runs -o json"); code != 0 || !strings.Contains(out, srv.Jobs[0].ID) {
		t.Errorf("a new session after the panic: exit %d, %q", code, out)
	}
	bob.Press("q")
	if code := bob.Exit(); code != 0 {
		t.Errorf("the other session: exit %d", code)
	}
}

// A panic in the hub's follower of a run (through the test's hook) ends
// that follower, said in the hub's log and on its viewer's screen; the
// hub and the sessions go on.
func TestHubFollowerPanic(t *testing.T) {
	srv := startSim(t, sim.Options{Scenarios: []string{"research"}, Speed: 1})
	var once sync.Once
	panics.SetTesting(func(_ context.Context, where string) {
		if where == "follower" {
			once.Do(func() { panic("a follower that cannot read its answer") })
		}
	})
	t.Cleanup(func() { panics.SetTesting(nil) })
	h := startCLIHub(t, srv.URL, srv.Key, "--archive", "off")
	bob := sshtest.OpenScreen(t, h.login(t, h.bob), 120, 40, "LANG=C.UTF-8")
	bob.WaitFor("1 of 1 loaded")
	bob.Press("\r")
	h.log.WaitLine(t, "panic in the hub's follower of run "+srv.Jobs[0].ID, "a follower that cannot read its answer")
	bob.WaitFor("a follower that cannot read its answer")
	bob.Press("\x1b")
	bob.WaitFor("1 of 1 loaded")
	if out, _, code := sshtest.Run(t, h.login(t, h.alice), "runs -o json"); code != 0 || !strings.Contains(out, srv.Jobs[0].ID) {
		t.Errorf("a new session after the panic: exit %d, %q", code, out)
	}
	bob.Press("q")
	if code := bob.Exit(); code != 0 {
		t.Errorf("the viewer's session: exit %d", code)
	}
}
