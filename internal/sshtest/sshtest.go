// Package sshtest is the SSH client side of the hub's tests (hub and cli):
// people with keys, sessions that run a command, and sessions with a PTY
// read through a terminal emulator (charmbracelet/x/vt) the way a person's
// terminal shows them. Only tests import it.
package sshtest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	gossh "golang.org/x/crypto/ssh"
)

// Person is a client's key and the authorized_keys line that lists it,
// with the person's name as its comment.
type Person struct {
	Signer gossh.Signer
	Line   string
}

// NewPerson makes a key for name.
func NewPerson(t testing.TB, name string) Person {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	sp, _ := gossh.NewPublicKey(pub)
	return Person{Signer: s, Line: strings.TrimSpace(string(gossh.MarshalAuthorizedKey(sp))) + " " + name + "\n"}
}

// Dial logs in to addr, whose host key is hostKey, with auth.
func Dial(addr string, hostKey gossh.PublicKey, auth ...gossh.AuthMethod) (*gossh.Client, error) {
	return gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "tester", Auth: auth,
		HostKeyCallback: gossh.FixedHostKey(hostKey), Timeout: 10 * time.Second})
}

// Login logs p in, closing the connection when the test ends.
func Login(t testing.TB, addr string, hostKey gossh.PublicKey, p Person) *gossh.Client {
	t.Helper()
	c, err := Dial(addr, hostKey, gossh.PublicKeys(p.Signer))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Run runs cmd in a session without a PTY: its stdout, stderr and exit
// status.
func Run(t testing.TB, c *gossh.Client, cmd string) (stdout, stderr string, code int) {
	t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var out, errOut bytes.Buffer
	sess.Stdout, sess.Stderr = &out, &errOut
	if cmd == "" {
		err = sess.Shell()
		if err == nil {
			err = sess.Wait()
		}
	} else {
		err = sess.Run(cmd)
	}
	return out.String(), errOut.String(), ExitStatus(t, err)
}

// ExitStatus is the exit status a session's Wait or Run error carries.
func ExitStatus(t testing.TB, err error) int {
	t.Helper()
	var ee *gossh.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitStatus()
	}
	t.Fatalf("session: %v", err)
	return -1
}

// Buffer is a bytes.Buffer safe for one writer and readers.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WaitLine waits until the buffer has a line holding all of parts and
// returns it.
func (s *Buffer) WaitLine(t testing.TB, parts ...string) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		for _, line := range strings.Split(s.String(), "\n") {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(line, p)
			}
			if all {
				return line
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line with %q in:\n%s", parts, s.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Screen is a session with a PTY as a person's terminal shows it.
type Screen struct {
	t      testing.TB
	Sess   *gossh.Session
	keys   io.WriteCloser
	mu     sync.Mutex
	emu    *vt.Emulator
	raw    bytes.Buffer
	done   chan error
	Stderr Buffer
}

// OpenScreen opens a session with a w x h PTY (TERM xterm-256color), the
// environment env sent first (ssh -o SetEnv=NO_COLOR=1), and a shell.
func OpenScreen(t testing.TB, c *gossh.Client, w, h int, env ...string) *Screen {
	t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	s := &Screen{t: t, Sess: sess, emu: vt.NewEmulator(w, h), done: make(chan error, 1)}
	go io.Copy(io.Discard, s.emu) // the terminal's answers to queries go nowhere
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if err := sess.Setenv(k, v); err != nil {
			t.Fatalf("setenv %s: %v", k, err)
		}
	}
	if err := sess.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	s.keys, _ = sess.StdinPipe()
	sess.Stdout = s
	sess.Stderr = &s.Stderr
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := sess.Wait()
		// Ends the reader of the terminal's answers (Emulator.Close would
		// race with it).
		s.emu.InputPipe().(io.Closer).Close()
		s.done <- err
	}()
	return s
}

// Write is what the session sends to the terminal.
func (s *Screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw.Write(p)
	return s.emu.Write(p)
}

// Text is the screen's text now.
func (s *Screen) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.String()
}

// Styled is the screen now with its styles as SGR sequences.
func (s *Screen) Styled() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.Render()
}

// Bytes is everything the session sent to the terminal so far.
func (s *Screen) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.raw.Bytes())
}

// Resize resizes the terminal and tells the session.
func (s *Screen) Resize(w, h int) {
	s.mu.Lock()
	s.emu.Resize(w, h)
	s.mu.Unlock()
	if err := s.Sess.WindowChange(h, w); err != nil {
		s.t.Fatal(err)
	}
}

// Press types keys.
func (s *Screen) Press(keys string) {
	if _, err := io.WriteString(s.keys, keys); err != nil {
		s.t.Fatal(err)
	}
}

// WaitFor waits until the screen shows want.
func (s *Screen) WaitFor(want string) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(s.Text(), want) {
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q:\n%s", want, s.Text())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Ended reports whether the session has ended.
func (s *Screen) Ended() bool {
	select {
	case err := <-s.done:
		s.done <- err
		return true
	default:
		return false
	}
}

// Gone waits for the end of a session the client closed.
func (s *Screen) Gone() {
	s.t.Helper()
	select {
	case err := <-s.done:
		s.done <- err
	case <-time.After(20 * time.Second):
		s.t.Fatal("the session did not end")
	}
}

// PressUntil presses keys until the screen shows want, up to five times
// four seconds apart, for a step whose point is what follows it, not the
// key's delivery: a hub session's first key to a screen was lost in two CI
// runs of many (not seen when run alone, even under load).
func (s *Screen) PressUntil(keys, want string) {
	s.t.Helper()
	for try := 0; !strings.Contains(s.Text(), want); try++ {
		if try == 5 {
			s.t.Fatalf("%q never brought %q:\n%s", keys, want, s.Text())
		}
		s.Press(keys)
		deadline := time.Now().Add(4 * time.Second)
		for !strings.Contains(s.Text(), want) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// QuitWith presses key until the session ends (as PressUntil) and returns
// its exit status.
func (s *Screen) QuitWith(key string) int {
	s.t.Helper()
	for try := 0; try < 5 && !s.Ended(); try++ {
		s.Press(key)
		deadline := time.Now().Add(4 * time.Second)
		for !s.Ended() && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	return s.Exit()
}

// Exit waits for the session's end and returns its exit status.
func (s *Screen) Exit() int {
	s.t.Helper()
	select {
	case err := <-s.done:
		s.done <- err
		return ExitStatus(s.t, err)
	case <-time.After(20 * time.Second):
		s.t.Fatalf("the session did not end:\n%s", s.Text())
	}
	return -1
}
