package hub

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"flag"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	gossh "golang.org/x/crypto/ssh"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/runs"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixedNow is the simulator's clock and the screen's: the goldens do not
// depend on when the test runs.
var fixedNow = time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC)

// person is a client's key and the line that lists it.
type person struct {
	signer gossh.Signer
	line   string
}

func newPerson(t testing.TB, name string) person {
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
	return person{signer: s, line: strings.TrimSpace(string(gossh.MarshalAuthorizedKey(sp))) + " " + name + "\n"}
}

// testHub is a hub on loopback with bob a viewer and alice an operator.
type testHub struct {
	*Hub
	addr         string
	hostKey      gossh.PublicKey
	alice, bob   person
	viewers, ops string
	log          *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitLog waits until the log has a line holding all of parts.
func (s *syncBuffer) waitLog(t testing.TB, parts ...string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
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
			t.Fatalf("no log line with %q:\n%s", parts, s.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func startHub(t testing.TB, tweak func(*Config)) *testHub {
	t.Helper()
	dir := t.TempDir()
	th := &testHub{alice: newPerson(t, "alice"), bob: newPerson(t, "bob"), log: &syncBuffer{},
		viewers: filepath.Join(dir, "viewers"), ops: filepath.Join(dir, "operators")}
	if err := os.WriteFile(th.viewers, []byte(th.bob.line), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(th.ops, []byte(th.alice.line), 0o600); err != nil {
		t.Fatal(err)
	}
	signer, _, err := HostKey(filepath.Join(dir, "host"))
	if err != nil {
		t.Fatal(err)
	}
	th.hostKey = signer.PublicKey()
	cfg := Config{HostKey: signer, People: People{Viewers: th.viewers, Operators: th.ops}, Log: th.log,
		Secrets: text.NewSecrets(testKey), PerIP: PerIP{Burst: 1000, Every: time.Millisecond},
		Screens: func(ctx context.Context, s *Session) int {
			// Takes the keys, as a screen does, until the session ends.
			keys := s.Term.Keys()
			defer keys.Close()
			go io.Copy(io.Discard, keys)
			<-ctx.Done()
			return 0
		},
		Command: func(ctx context.Context, s *Session) int { return 0 }}
	if tweak != nil {
		tweak(&cfg)
	}
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	th.Hub = h
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	th.addr = ln.Addr().String()
	served := make(chan error, 1)
	go func() { served <- h.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return th
}

// testKey is the team's key the hub redacts from its log.
const testKey = "fc-5ec2e7000000000000000000000000ab"

func (th *testHub) dial(auth ...gossh.AuthMethod) (*gossh.Client, error) {
	return gossh.Dial("tcp", th.addr, &gossh.ClientConfig{User: "tester", Auth: auth,
		HostKeyCallback: gossh.FixedHostKey(th.hostKey), Timeout: 10 * time.Second})
}

func (th *testHub) login(t testing.TB, p person) *gossh.Client {
	t.Helper()
	c, err := th.dial(gossh.PublicKeys(p.signer))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// screen is a PTY session seen through a terminal emulator, as a person
// sees it.
type screen struct {
	t     testing.TB
	sess  *gossh.Session
	keys  io.WriteCloser
	mu    sync.Mutex
	emu   *vt.Emulator
	raw   bytes.Buffer
	done  chan error
	stder syncBuffer
}

// openScreen opens a session with a w x h PTY and env sent first.
func openScreen(t testing.TB, c *gossh.Client, w, h int, env ...string) *screen {
	t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	s := &screen{t: t, sess: sess, emu: vt.NewEmulator(w, h), done: make(chan error, 1)}
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
	sess.Stderr = &s.stder
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

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw.Write(p)
	return s.emu.Write(p)
}

// text is the screen's text now; styled has the styles as SGR sequences.
func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.String()
}

func (s *screen) styled() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.Render()
}

func (s *screen) bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.raw.Bytes())
}

func (s *screen) resize(w, h int) {
	s.mu.Lock()
	s.emu.Resize(w, h)
	s.mu.Unlock()
	if err := s.sess.WindowChange(h, w); err != nil {
		s.t.Fatal(err)
	}
}

func (s *screen) press(keys string) {
	if _, err := io.WriteString(s.keys, keys); err != nil {
		s.t.Fatal(err)
	}
}

// waitFor waits until the screen shows want.
func (s *screen) waitFor(want string) {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(s.text(), want) {
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q:\n%s", want, s.text())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// gone waits for the end of a session the client closed.
func (s *screen) gone() {
	s.t.Helper()
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		s.t.Fatal("the session did not end")
	}
}

// exit waits for the session's end and returns its exit status.
func (s *screen) exit() int {
	s.t.Helper()
	select {
	case err := <-s.done:
		return exitStatus(s.t, err)
	case <-time.After(15 * time.Second):
		s.t.Fatalf("the session did not end:\n%s", s.text())
	}
	return -1
}

func exitStatus(t testing.TB, err error) int {
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

// simRuns is the runs screen of a simulated service on a session's
// terminal, its colours and symbols from the session, as cli shows it.
func simRuns(t testing.TB, speed float64) Screens {
	t.Helper()
	srv, err := sim.Start(context.Background(), sim.Options{History: 30, Speed: speed, RateLimit: -1,
		Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
	if err != nil {
		t.Fatal(err)
	}
	c = c.WithRetry(poller.Retry{Tries: 1})
	return func(ctx context.Context, s *Session) int {
		term := s.Term
		m := runs.New(runs.Config{Service: c, Terminal: term, ReadOnly: s.ReadOnly(),
			NoColor: theme.NoColorEnv(term.LookupEnv), ASCII: theme.ASCIIEnv(term.LookupEnv),
			Now: func() time.Time { return fixedNow.Add(90 * time.Second) }})
		if err := runs.Run(ctx, m, runs.RunOptions{}); err != nil {
			return 1
		}
		return 0
	}
}

// checkGolden compares got with testdata/name (-update writes it).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./hub -run %s -update writes it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file:\n--- want\n%s\n--- got\n%s", name, want, got)
	}
}
