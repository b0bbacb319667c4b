package hub

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/firewatch/firewatch/internal/sshtest"
)

// New connections from one address past the limit are closed before the
// SSH handshake, and said once in the log, not once per connection.
func TestPerAddressLimit(t *testing.T) {
	t.Parallel()
	th := startHub(t, func(c *Config) { c.PerIP = PerIP{Burst: 3, Every: time.Hour} })
	for i := range 3 {
		c, err := th.dial(gossh.PublicKeys(th.bob.Signer))
		if err != nil {
			t.Fatalf("connection %d: %v", i+1, err)
		}
		c.Close()
	}
	for range 5 {
		if c, err := th.dial(gossh.PublicKeys(th.bob.Signer)); err == nil {
			c.Close()
			t.Fatal("a connection past the limit logged in")
		}
	}
	th.log.WaitLine(t, "refused 127.0.0.1:", "too many new connections from this address (at most 3 at once, then one every 1h0m0s)")
	if n := strings.Count(th.log.String(), "too many new connections"); n != 1 {
		t.Errorf("%d refusals logged for one address in a burst, want 1", n)
	}
}

// A session's environment is capped: past 64 variables the hub refuses
// them (the SSH library would keep every one for the session's life), and
// it never takes a person's agent.
func TestSessionRequestsBounded(t *testing.T) {
	got := make(chan []string, 1)
	th := startHub(t, func(c *Config) {
		c.Command = func(_ context.Context, s *Session) int { got <- s.Args; return 0 }
	})
	c := th.login(t, th.bob)
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	refused := 0
	for i := range 100 {
		if err := sess.Setenv("V"+strings.Repeat("x", i%5)+string(rune('A'+i%26)), "1"); err != nil {
			refused++
		}
	}
	if refused != 100-maxEnv {
		t.Errorf("%d environment variables refused, want %d", refused, 100-maxEnv)
	}
	if err := sess.Setenv("BIG", strings.Repeat("x", maxEnvSize)); err == nil {
		t.Error("a variable larger than the cap was taken")
	}
	if ok, err := sess.SendRequest("auth-agent-req@openssh.com", true, nil); ok || err != nil {
		t.Errorf("agent forwarding: ok %v, err %v", ok, err)
	}
	if err := sess.Run("runs"); err != nil {
		t.Fatal(err)
	}
	if args := <-got; len(args) != 1 || args[0] != "runs" {
		t.Errorf("command %q", args)
	}
}

// The host key is made once, 0600 with its public half beside it, and the
// same key is read back after; a key file others can read is refused.
func TestHostKey(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "data", "hub_ed25519")
	s1, made, err := HostKey(path)
	if err != nil || !made {
		t.Fatalf("made %v, err %v", made, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("host key mode %#o", m)
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("its folder's mode %#o", di.Mode().Perm())
	}
	pub, err := os.ReadFile(path + ".pub")
	if err != nil || !strings.HasPrefix(string(pub), "ssh-ed25519 ") {
		t.Errorf("public key %q, %v", pub, err)
	}
	s2, made, err := HostKey(path)
	if err != nil || made {
		t.Fatalf("second start: made %v, err %v", made, err)
	}
	if gossh.FingerprintSHA256(s1.PublicKey()) != gossh.FingerprintSHA256(s2.PublicKey()) {
		t.Error("the host key changed between starts")
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := HostKey(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a host key others can read: %v", err)
	}
}

// The people files: the comment is the name (sanitised), a key in both is
// an operator's, keys with options are ignored and said, a file others can
// write to is refused.
func TestPeople(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	alice, bob, carol := sshtest.NewPerson(t, "alice"), sshtest.NewPerson(t, "bob"), sshtest.NewPerson(t, "carol")
	evil := sshtest.NewPerson(t, "\x1b]0;pwned\x07eve\u202e")
	viewers := filepath.Join(dir, "viewers")
	ops := filepath.Join(dir, "ops")
	write := func(path, s string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	write(viewers, "# the team\n"+bob.Line+alice.Line+`from="10.0.0.0/8" `+carol.Line+"not a key\n"+evil.Line, 0o644)
	write(ops, alice.Line, 0o600)
	p := People{Viewers: viewers, Operators: ops}
	for _, tc := range []struct {
		who  sshtest.Person
		name string
		role Role
		ok   bool
	}{
		{alice, "alice", Operator, true},
		{bob, "bob", Viewer, true},
		{carol, "", 0, false},
		{evil, "eve", Viewer, true},
	} {
		got, ok, err := p.Find(tc.who.Signer.PublicKey())
		if err != nil || ok != tc.ok || ok && (got.Name != tc.name || got.Role != tc.role) {
			t.Errorf("%s: %+v ok %v err %v", tc.name, got, ok, err)
		}
	}
	warnings, err := p.Check()
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(warnings, "\n")
	for _, want := range []string{viewers + ":4: key options (from=\"10.0.0.0/8\")", viewers + ":5: not a public key"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings %q lack %q", warnings, want)
		}
	}
	write(viewers, bob.Line, 0o666)
	if _, ok, err := p.Find(bob.Signer.PublicKey()); ok || err == nil || !strings.Contains(err.Error(), "chmod go-w") {
		t.Errorf("a file others can write: ok %v err %v", ok, err)
	}
	if _, err := (People{}).Check(); err == nil {
		t.Error("no file at all is accepted")
	}
}

// What a client sends reaches the log inert, and the log never holds the
// key: its user name with escape sequences, a command quoting the key.
func TestLogIsInert(t *testing.T) {
	t.Parallel()
	th := startHub(t, nil)
	cfg := &gossh.ClientConfig{User: "\x1b[2J\x1b]0;owned\x07root\u202e", Auth: []gossh.AuthMethod{gossh.Password("x")},
		HostKeyCallback: gossh.FixedHostKey(th.hostKey), Timeout: 10 * time.Second}
	if c, err := gossh.Dial("tcp", th.addr, cfg); err == nil {
		c.Close()
	}
	alice := th.login(t, th.alice)
	sshtest.Run(t, alice, "watch --api-key "+testKey+" \x1b[31mred")
	th.log.WaitLine(t, "command watch --api-key")
	th.log.WaitLine(t, "refused", `as "root"`)
	log := th.log.String()
	if strings.ContainsAny(log, "\x1b\x07\u202e") {
		t.Errorf("the log holds control or bidi characters: %q", log)
	}
	if strings.Contains(log, testKey) {
		t.Errorf("the log holds the key:\n%s", log)
	}
	if !strings.Contains(log, "[redacted]") || !strings.Contains(log, `as "root"`) {
		t.Errorf("the log:\n%s", log)
	}
}
