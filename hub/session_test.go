package hub

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/firewatch/firewatch/internal/sshtest"
	"github.com/firewatch/firewatch/sim"
)

// Unknown keys, passwords and keyboard-interactive logins are refused
// before anything is shown: no screen or command runs, and each refusal is
// one line of the log saying why.
func TestRefusedLogins(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	th := startHub(t, func(c *Config) {
		c.Screens = func(context.Context, *Session) int { ran.Add(1); return 0 }
		c.Command = func(context.Context, *Session) int { ran.Add(1); return 0 }
	})
	mallory := sshtest.NewPerson(t, "mallory")
	for _, tc := range []struct {
		name string
		auth gossh.AuthMethod
		log  string
	}{
		{"unknown key", gossh.PublicKeys(mallory.Signer), "key " + gossh.FingerprintSHA256(mallory.Signer.PublicKey()) + " is not in the authorized keys"},
		// The hub offers keys only: a client that has none to give asks
		// for nothing else and leaves.
		{"password", gossh.Password("hunter2"), "no key offered: the hub takes SSH keys only, no password, no keyboard-interactive"},
		{"keyboard-interactive", gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) {
			return []string{"hunter2"}, nil
		}), "no key offered: the hub takes SSH keys only"},
	} {
		c, err := th.dial(tc.auth)
		if err == nil {
			c.Close()
			t.Fatalf("%s: logged in", tc.name)
		}
		if !strings.Contains(err.Error(), "unable to authenticate") {
			t.Errorf("%s: %v", tc.name, err)
		}
		line := th.log.WaitLine(t, "refused", tc.log)
		if strings.Contains(line, "hunter2") {
			t.Errorf("the log holds the password: %s", line)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("%d screens or commands ran for refused logins", n)
	}
	// A key removed from the file is refused at the next login.
	if err := os.WriteFile(th.viewers, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := th.dial(gossh.PublicKeys(th.bob.Signer)); err == nil {
		c.Close()
		t.Fatal("bob logged in after his key was removed")
	}
}

// A viewer is told that only operators may change runs; an operator gets
// the confirmation. The person's name is the key's comment.
func TestViewerAndOperator(t *testing.T) {
	t.Parallel()
	th := startHub(t, func(c *Config) { c.Screens = simRuns(t, 1) })
	bob := sshtest.OpenScreen(t, th.login(t, th.bob), 120, 40, "LANG=C.UTF-8")
	bob.WaitFor("expires")
	bob.Press("c")
	bob.WaitFor("only the hub's operators may cancel or start runs (bob is a viewer)")
	bob.Press("n")
	bob.WaitFor("only the hub's operators may")
	if strings.Contains(bob.Text(), "New run") {
		t.Error("the viewer's n opened the prompt")
	}
	bob.Press("q")
	bob.Exit()
	th.log.WaitLine(t, "login bob (viewer, SHA256:", "the runs screen at 120x40")
	th.log.WaitLine(t, "logout bob (viewer", "exit 0")

	alice := sshtest.OpenScreen(t, th.login(t, th.alice), 120, 40, "LANG=C.UTF-8")
	alice.WaitFor("expires")
	alice.Press("2") // processing runs: one to cancel
	alice.WaitFor("● processing")
	alice.Press("c")
	alice.WaitFor("yes, cancel the run") // armed: it takes an answer
	if strings.Contains(alice.Text(), "only the hub's operators") {
		t.Error("the operator was told only operators may")
	}
	alice.Press("n")
	alice.WaitFor("not cancelled")
	alice.Press("q")
	alice.Exit()
	th.log.WaitLine(t, "login alice (operator, SHA256:")
}

// Without a PTY the session runs one command: the hub hands it the words
// and passes its exit status on as the SSH exit status; with neither a PTY
// nor a command, the command runner decides (it refuses).
func TestCommandSessions(t *testing.T) {
	t.Parallel()
	th := startHub(t, func(c *Config) {
		c.Command = func(_ context.Context, s *Session) int {
			fmt.Fprintf(s.Stdout, "%d words: %q\n", len(s.Args), s.Args)
			fmt.Fprintf(s.Stderr, "as %s\n", s.Person.Name)
			if len(s.Args) == 0 {
				return 2
			}
			return len(s.Args)
		}
	})
	c := th.login(t, th.alice)
	for _, tc := range []struct {
		cmd  string
		out  string
		code int
	}{
		{`watch 019a-job -o json --summary -`, `6 words: ["watch" "019a-job" "-o" "json" "--summary" "-"]`, 6},
		{`report 'a b' "c"`, `3 words: ["report" "a b" "c"]`, 3},
		{``, `0 words: []`, 2},
	} {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		sess.Stdout, sess.Stderr = &out, &errOut
		if tc.cmd == "" {
			err = sess.Shell()
			if err == nil {
				err = sess.Wait()
			}
		} else {
			err = sess.Run(tc.cmd)
		}
		if code := sshtest.ExitStatus(t, err); code != tc.code {
			t.Errorf("%q: exit %d, want %d", tc.cmd, code, tc.code)
		}
		if got := strings.TrimSpace(out.String()); got != tc.out {
			t.Errorf("%q: stdout %q, want %q", tc.cmd, got, tc.out)
		}
		if !strings.Contains(errOut.String(), "as alice") {
			t.Errorf("%q: stderr %q", tc.cmd, errOut.String())
		}
	}
	th.log.WaitLine(t, "login alice (operator", "command watch 019a-job -o json --summary -")
	th.log.WaitLine(t, "logout alice", "exit 6")
	th.log.WaitLine(t, "login alice (operator", "no command and no terminal")
}

// Past --max-sessions a session is refused with a reason, and the next one
// is let in once a place is free.
func TestMaxSessions(t *testing.T) {
	t.Parallel()
	th := startHub(t, func(c *Config) { c.MaxSessions = 1 })
	first := sshtest.OpenScreen(t, th.login(t, th.bob), 80, 24)
	deadline := time.Now().Add(10 * time.Second)
	for th.Sessions() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the first session never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	second := sshtest.OpenScreen(t, th.login(t, th.alice), 80, 24)
	if code := second.Exit(); code != 1 {
		t.Errorf("the session past the limit: exit %d", code)
	}
	if got := second.Stderr.String(); !strings.Contains(got, "the hub is full (1 sessions, its --max-sessions)") {
		t.Errorf("the refused session was told %q", got)
	}
	th.log.WaitLine(t, "refused alice (operator", "the hub is full")
	first.Sess.Close()
	first.Gone()
	deadline = time.Now().Add(10 * time.Second)
	for th.Sessions() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the first session's place was never freed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	third := sshtest.OpenScreen(t, th.login(t, th.alice), 80, 24)
	third.Sess.Close()
	third.Gone()
}

// A terminal session that sends no key for --idle-timeout ends, told why;
// keys keep it open.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	// The typing session presses a key twenty times per idle timeout: it
	// ends only if the machine holds a key back for the whole timeout.
	const idle = time.Second
	th := startHub(t, func(c *Config) { c.IdleTimeout = idle })
	typing := sshtest.OpenScreen(t, th.login(t, th.alice), 80, 24)
	quiet := sshtest.OpenScreen(t, th.login(t, th.bob), 80, 24)
	start := time.Now()
	for time.Since(start) < 2*idle {
		typing.Press("j")
		time.Sleep(idle / 20)
	}
	if code := quiet.Exit(); code != 0 {
		t.Errorf("idle session: exit %d", code)
	}
	if got := quiet.Stderr.String(); !strings.Contains(got, "no key for 1s (the hub's --idle-timeout): this session ends") {
		t.Errorf("the idle session was told %q", got)
	}
	if typing.Ended() {
		t.Fatal("the session that typed ended")
	}
	th.log.WaitLine(t, "logout bob", "no key was pressed for the idle timeout")
	typing.Sess.Close()
}

// Stopping the hub tells every session, gives each terminal back (the
// screen leaves the alternate screen), and returns once they are gone.
func TestShutdownTellsSessions(t *testing.T) {
	t.Parallel()
	th := startHub(t, func(c *Config) { c.Screens = simRuns(t, sim.MaxSpeed) })
	screens := []*sshtest.Screen{
		sshtest.OpenScreen(t, th.login(t, th.alice), 80, 24, "LANG=C.UTF-8"),
		sshtest.OpenScreen(t, th.login(t, th.bob), 120, 40, "LANG=C.UTF-8"),
	}
	for _, s := range screens {
		s.WaitFor("expires")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := th.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	for i, s := range screens {
		s.Exit()
		if got := s.Stderr.String(); !strings.Contains(got, "the hub is stopping; this session ends") {
			t.Errorf("session %d was told %q", i, got)
		}
		if b := s.Bytes(); !bytes.Contains(b, []byte("\x1b[?1049l")) {
			t.Errorf("session %d: the alternate screen was not left", i)
		}
	}
	if _, err := th.dial(gossh.PublicKeys(th.alice.Signer)); err == nil {
		t.Error("a login after the hub stopped")
	}
}

// A session that drops leaves nothing behind: 100 sessions with the runs
// screen, 25 at a time on one connection (a client may open several), all
// dropped without a word when their connection closes, and the hub is
// back to no session and the goroutines it had.
func TestSessionsDroppedLeaveNothing(t *testing.T) {
	th := startHub(t, func(c *Config) { c.Screens = simRuns(t, sim.MaxSpeed); c.MaxSessions = 250 })
	// A first round, so that what stays between sessions (the client's
	// idle connections to the service) is there before the count.
	openAndDrop(t, th, th.alice, 5)
	waitGoroutines(t, th, -1)
	before, _ := sessionGoroutines()
	for i := range 100 / 25 {
		p := th.bob
		if i%2 == 0 {
			p = th.alice
		}
		openAndDrop(t, th, p, 25)
	}
	waitGoroutines(t, th, before)
}

// openAndDrop opens n sessions on one connection, each showing the runs
// screen, and drops them: the connection closed, nothing said.
func openAndDrop(t *testing.T, th *testHub, p sshtest.Person, n int) {
	t.Helper()
	c, err := th.dial(gossh.PublicKeys(p.Signer))
	if err != nil {
		t.Fatal(err)
	}
	screens := make([]*sshtest.Screen, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { screens[i] = sshtest.OpenScreen(t, c, 80, 24, "LANG=C.UTF-8") })
	}
	wg.Wait()
	for _, s := range screens {
		s.WaitFor("loaded")
	}
	if got := th.Sessions(); got != n {
		t.Fatalf("%d sessions open, want %d", got, n)
	}
	c.Close()
}

// waitGoroutines waits until the hub has no session and no more
// goroutines of its sessions than want (-1: until their number stays put).
func waitGoroutines(t *testing.T, th *testHub, want int) {
	t.Helper()
	// Seconds: a timer of a screen left running (the runs screen refreshes
	// every ten) is a leak.
	deadline := time.Now().Add(5 * time.Second)
	last, steady := -1, 0
	for {
		g, _ := sessionGoroutines()
		if th.Sessions() == 0 {
			if want >= 0 && g <= want {
				return
			}
			if g == last {
				steady++
			} else {
				steady = 0
			}
			if want < 0 && steady >= 10 {
				return
			}
		}
		last = g
		if time.Now().After(deadline) {
			_, stacks := sessionGoroutines()
			t.Fatalf("%d sessions and %d of their goroutines left (want %d):\n%s", th.Sessions(), g, want, stacks)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sessionGoroutines counts the goroutines of the SSH server, the sessions
// and their screens (not those of the simulated service or the HTTP
// client's idle connections to it, which outlive a session by design),
// and returns their stacks.
func sessionGoroutines() (int, string) {
	buf := make([]byte, 8<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	var kept []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, mark := range []string{"charm.land/", "firewatch/ui/", "firewatch/hub.", "x/crypto/ssh."} {
			if strings.Contains(g, mark) && !strings.Contains(g, "hub.TestSessionsDropped") && !strings.Contains(g, "hub.waitGoroutines") {
				n++
				kept = append(kept, g)
				break
			}
		}
	}
	return n, strings.Join(kept, "\n\n")
}

// A session's keys reach its own screen only: another session's screen
// does not move.
func TestKeysStayInTheirSession(t *testing.T) {
	t.Parallel()
	th := startHub(t, func(c *Config) { c.Screens = simRuns(t, sim.MaxSpeed) })
	a := sshtest.OpenScreen(t, th.login(t, th.alice), 80, 24, "LANG=C.UTF-8")
	b := sshtest.OpenScreen(t, th.login(t, th.bob), 80, 24, "LANG=C.UTF-8")
	a.WaitFor("expires")
	b.WaitFor("expires")
	// The header's balance comes with the team's figures, later than the
	// list: b's selection is what a's keys must not move.
	before := detailID(b.Text())
	first := detailID(a.Text())
	a.Press("jj")
	deadline := time.Now().Add(10 * time.Second)
	for detailID(a.Text()) == first {
		if time.Now().After(deadline) {
			t.Fatalf("j j did not move the selection:\n%s", a.Text())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if after := detailID(b.Text()); after != before {
		t.Errorf("another session's keys moved this screen's selection from %s to %s:\n%s", before, after, b.Text())
	}
	a.Press("q")
	b.Press("q")
	a.Exit()
	b.Exit()
}

// detailID is the run id the runs screen's details show (the line after
// the rule).
func detailID(screen string) string {
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "────") && i+1 < len(lines) {
			return strings.TrimSpace(lines[i+1])
		}
	}
	return ""
}
