package hub

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/firewatch/firewatch/internal/sshtest"
)

// ended waits, a bounded while, for s to end; false if it did not.
func ended(s *sshtest.Screen, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for !s.Ended() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// stays checks that s is still open a while (many rechecks) after the
// recheck that would have ended it.
func stays(t *testing.T, s *sshtest.Screen, who string) {
	t.Helper()
	if ended(s, 200*time.Millisecond) {
		t.Fatalf("%s's session ended", who)
	}
}

// replace puts a new file with body and mode at path, as an editor that
// writes a copy and renames it does.
func replace(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "new")
	if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// two opens alice's and bob's terminal sessions and waits for both to be
// logged in.
func (th *testHub) two(t *testing.T) (alice, bob *sshtest.Screen) {
	t.Helper()
	alice = sshtest.OpenScreen(t, th.login(t, th.alice), 80, 24)
	bob = sshtest.OpenScreen(t, th.login(t, th.bob), 80, 24)
	th.log.WaitLine(t, "login alice", "the runs screen")
	th.log.WaitLine(t, "login bob", "the runs screen")
	return alice, bob
}

// Removing a person's line ends their open session, with a word to them
// and a line in the log; the others go on.
func TestRemovedKeyEndsItsSession(t *testing.T) {
	t.Parallel()
	th := startHub(t, func(c *Config) { c.Recheck = 10 * time.Millisecond })
	alice, bob := th.two(t)
	if err := os.WriteFile(th.viewers, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !ended(bob, 5*time.Second) {
		t.Fatal("bob's session went on after his key was removed")
	}
	if got := bob.Stderr.String(); !strings.Contains(got, "your key was removed from the hub's keys: session ended") {
		t.Errorf("bob was told %q", got)
	}
	th.log.WaitLine(t, "revoked bob (viewer,", gossh.FingerprintSHA256(th.bob.Signer.PublicKey()))
	th.log.WaitLine(t, "logout bob", ErrRevoked.Error())
	stays(t, alice, "alice")
	if n := th.Sessions(); n != 1 {
		t.Errorf("%d sessions open, want alice's", n)
	}
}

// An operator whose key is moved to the viewers ends their session: the
// role is decided once, at login.
func TestDemotedOperatorEndsItsSession(t *testing.T) {
	t.Parallel()
	th := startHub(t, func(c *Config) { c.Recheck = 10 * time.Millisecond })
	alice, bob := th.two(t)
	// Each file replaced whole, as an editor saves it: a recheck between
	// os.WriteFile's truncation and its write would see no viewers at all.
	replace(t, th.viewers, th.bob.Line+"\n"+th.alice.Line, 0o644)
	replace(t, th.ops, "", 0o600)
	if !ended(alice, 5*time.Second) {
		t.Fatal("alice's operator session went on after she was made a viewer")
	}
	if got := alice.Stderr.String(); !strings.Contains(got, "no longer an operator's") {
		t.Errorf("alice was told %q", got)
	}
	th.log.WaitLine(t, "revoked alice (operator,", ErrDemoted.Error())
	stays(t, bob, "bob")
	// She may log in again, as a viewer.
	sshtest.OpenScreen(t, th.login(t, th.alice), 80, 24)
	th.log.WaitLine(t, "login alice (viewer,")
}

// A keys file that cannot be read (missing, or refused by the checks)
// ends no one's session: the last list read stands, and it is said once.
func TestUnreadableKeysEndNobody(t *testing.T) {
	t.Parallel()
	th := startHub(t, func(c *Config) { c.Recheck = 10 * time.Millisecond })
	alice, bob := th.two(t)
	// The viewers file, without bob, but writable by anyone: refused.
	replace(t, th.viewers, "", 0o666)
	if err := os.Remove(th.ops); err != nil {
		t.Fatal(err)
	}
	th.log.WaitLine(t, "cannot read the keys again", th.viewers)
	th.log.WaitLine(t, "cannot read the keys again", th.ops)
	stays(t, bob, "bob")
	stays(t, alice, "alice")
	if strings.Contains(th.log.String(), "revoked") {
		t.Fatalf("a session was revoked for a file that cannot be read:\n%s", th.log)
	}
	// The viewers file made right, still without bob: he goes, alice
	// (whose file is still missing) stays.
	replace(t, th.viewers, "", 0o644)
	if !ended(bob, 5*time.Second) {
		t.Fatal("bob's session went on after his key was removed")
	}
	th.log.WaitLine(t, "the keys of "+th.viewers+" can be read again")
	th.log.WaitLine(t, "revoked bob")
	stays(t, alice, "alice (her file missing)")
	// Said once, whichever of stat and open found it gone (it went between
	// them once).
	n := 0
	for _, l := range strings.Split(th.log.String(), "\n") {
		if strings.Contains(l, "cannot read the keys again: ") && strings.Contains(l, th.ops+":") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the missing file was said %d times:\n%s", n, th.log)
	}
}

// A keys file saved in place is empty for a moment: a look in that moment
// ends no one, the next look with the file written again keeps everyone,
// and a removal two looks agree on ends the session.
func TestFileSavedInPlaceEndsNoOne(t *testing.T) {
	t.Parallel()
	th := startHub(t, func(c *Config) { c.Recheck = time.Hour }) // the test looks itself
	alice, bob := th.two(t)
	files := th.watchKeys()
	lookNow := func(pending map[*Session]bool) map[*Session]bool {
		for _, f := range files {
			f.refresh(th.Hub)
		}
		return th.look(files, pending)
	}
	if err := os.WriteFile(th.viewers, nil, 0o644); err != nil { // truncated, not yet written
		t.Fatal(err)
	}
	pending := lookNow(nil)
	if len(pending) != 1 {
		t.Fatalf("%d sessions found lacking, want bob's", len(pending))
	}
	stays(t, bob, "bob")
	if err := os.WriteFile(th.viewers, []byte(th.bob.Line), 0o644); err != nil { // written
		t.Fatal(err)
	}
	if pending = lookNow(pending); len(pending) != 0 {
		t.Fatalf("%d sessions still lacking with the file written again", len(pending))
	}
	stays(t, bob, "bob")
	if err := os.WriteFile(th.viewers, nil, 0o644); err != nil { // removed for good
		t.Fatal(err)
	}
	lookNow(lookNow(nil))
	if !ended(bob, 5*time.Second) {
		t.Fatal("bob's session went on after two looks found his key removed")
	}
	stays(t, alice, "alice")
}
