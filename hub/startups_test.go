package hub

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/firewatch/firewatch/internal/sshtest"
)

// silent opens n connections from 127.0.0.2, 127.0.0.3... to addr that
// never say a word, closed when the test ends.
func silent(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	var conns []net.Conn
	for i := range n {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, byte(i/250), byte(2+i%250))}, Timeout: 5 * time.Second}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		t.Cleanup(func() { c.Close() })
	}
	return conns
}

// closedByPeer reports whether the hub closed c: its banner then the end.
func closedByPeer(c net.Conn, wait time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	_, err := io.Copy(io.Discard, c)
	return err == nil // io.Copy reads to EOF without an error
}

// waitFor polls cond until it holds or a deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Connections that never log in, from many addresses, hold at most
// MaxStartups places: each new one past it closes the oldest, and a
// person's login still succeeds while they are held.
func TestConnectionsNotLoggedInBounded(t *testing.T) {
	t.Parallel()
	const max, n = 8, 40
	th := startHub(t, func(c *Config) {
		c.MaxStartups, c.LoginGrace, c.HandshakeTimeout = max, time.Minute, time.Minute
	})
	conns := silent(t, th.addr, n)
	waitFor(t, "the hub took every connection", func() bool {
		th.pending.mu.Lock()
		defer th.pending.mu.Unlock()
		return th.pending.seen == n
	})
	var mu sync.Mutex
	closed := 0
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			if closedByPeer(c, 500*time.Millisecond) {
				mu.Lock()
				closed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if closed != n-max {
		t.Errorf("the hub closed %d of %d silent connections, want %d: %d held", closed, n, n-max, n-closed)
	}
	if got := th.pending.count(); got != max {
		t.Errorf("%d connections held, want %d", got, max)
	}
	c := th.login(t, th.bob)
	if _, _, code := sshtest.Run(t, c, "runs"); code != 0 {
		t.Errorf("exit %d", code)
	}
	th.pending.mu.Lock()
	most := th.pending.most
	th.pending.mu.Unlock()
	if most > max {
		t.Errorf("%d connections were held at once, more than %d", most, max)
	}
	th.log.WaitLine(t, "closed ", "connection(s) that had not logged in: ", "to make room (at most 8 log in at once)")
	if k := strings.Count(th.log.String(), "had not logged in"); k != 1 {
		t.Errorf("%d lines for one burst, want 1:\n%s", k, th.log.String())
	}
}

// A connection that makes no login attempt within the login grace is
// closed, long before the handshake timeout.
func TestLoginGrace(t *testing.T) {
	t.Parallel()
	th := startHub(t, func(c *Config) { c.LoginGrace, c.HandshakeTimeout = 200*time.Millisecond, time.Minute })
	c := silent(t, th.addr, 1)[0]
	start := time.Now()
	if !closedByPeer(c, 10*time.Second) {
		t.Fatal("a silent connection was held past the login grace")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("closed after %s", d)
	}
	th.log.WaitLine(t, "closed 1 connection(s) that had not logged in: 1 that made no login attempt within 200ms")
}

// One person cannot take every session: past their share they are told
// so, and someone else still gets one.
func TestSessionsPerPerson(t *testing.T) {
	t.Parallel()
	entered := make(chan string, 8)
	th := startHub(t, func(c *Config) {
		c.MaxSessions, c.MaxPersonSessions = 4, 2
		c.Command = func(ctx context.Context, s *Session) int {
			entered <- s.Person.Name
			<-ctx.Done()
			return 0
		}
	})
	bob := th.login(t, th.bob)
	for range 2 {
		sess, err := bob.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		if err := sess.Start("runs"); err != nil {
			t.Fatal(err)
		}
		if who := <-entered; who != "bob" {
			t.Fatalf("%s entered", who)
		}
	}
	// bob's own two sessions in, a second connection of his is refused too.
	for _, c := range []*gossh.Client{bob, th.login(t, th.bob)} {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		var stderr sshtest.Buffer
		sess.Stderr = &stderr
		if err := sess.Start("runs"); err != nil {
			t.Fatal(err)
		}
		ended := make(chan error, 1)
		go func() { ended <- sess.Wait() }()
		select {
		case who := <-entered:
			t.Fatalf("%s's third session was let in", who)
		case err := <-ended:
			if code := sshtest.ExitStatus(t, err); code != 1 ||
				!strings.Contains(stderr.String(), "you already have 2 session(s) open, the most one person may (the hub's --max-person-sessions)") {
				t.Errorf("bob's third session: exit %d, %q", code, stderr.String())
			}
		}
	}
	th.log.WaitLine(t, "refused bob (viewer", "you already have 2 session(s) open")
	alice := th.login(t, th.alice)
	sess, err := alice.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := sess.Start("runs"); err != nil {
		t.Fatal(err)
	}
	if who := <-entered; who != "alice" {
		t.Fatalf("%s entered", who)
	}
	if n := th.Sessions(); n != 3 {
		t.Errorf("%d sessions open, want 3", n)
	}
}

// The default share is a quarter of --max-sessions, at least one.
func TestPersonSessionsDefault(t *testing.T) {
	t.Parallel()
	for max, want := range map[int]int{1: 1, 3: 1, 8: 2, 50: 12} {
		h, err := New(Config{HostKey: testSigner(t), MaxSessions: max,
			Screens: func(context.Context, *Session) int { return 0 }, Command: func(context.Context, *Session) int { return 0 }})
		if err != nil {
			t.Fatal(err)
		}
		if h.cfg.MaxPersonSessions != want {
			t.Errorf("--max-sessions %d: %d per person, want %d", max, h.cfg.MaxPersonSessions, want)
		}
	}
}

func testSigner(t *testing.T) gossh.Signer {
	t.Helper()
	s, _, err := HostKey(filepath.Join(t.TempDir(), "host"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
