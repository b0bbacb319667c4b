//go:build unix

package hub

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/firewatch/firewatch/internal/sshtest"
)

// nobody is a uid that is neither the tests' user nor root.
const nobody = 65534

// A viewers file swapped for a FIFO refuses the logins it would grant at
// once, saying why, instead of holding each one in open(2) until the
// handshake times out; so does one owned by another user.
func TestKeysFileNotRegularOrNotOurs(t *testing.T) {
	t.Parallel()
	th := startHub(t, func(c *Config) { c.HandshakeTimeout = 30 * time.Second })
	if err := os.Remove(th.viewers); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(th.viewers, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Lets go of any open(2) still waiting on the FIFO (without the fix).
		if f, err := os.OpenFile(th.viewers, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	refusedSoon := func() {
		t.Helper()
		done := make(chan error, 1)
		go func() {
			c, err := th.dial(gossh.PublicKeys(th.bob.Signer))
			if err == nil {
				c.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("bob logged in")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the login waited on the keys file")
		}
	}
	refusedSoon()
	th.log.WaitLine(t, "refused 127.0.0.1:", th.viewers+" is not a regular file (a FIFO)")
	// The operators file is read as before.
	sshtest.Login(t, th.addr, th.hostKey, th.alice).Close()

	if err := os.Remove(th.viewers); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(th.viewers, []byte(th.bob.Line), 0o644); err != nil {
		t.Fatal(err)
	}
	sshtest.Login(t, th.addr, th.hostKey, th.bob).Close()

	if os.Geteuid() != 0 {
		return // chown needs root
	}
	if err := os.Chown(th.viewers, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	refusedSoon()
	th.log.WaitLine(t, "refused 127.0.0.1:", th.viewers+" is owned by uid 65534")
}

// What OpenSSH's StrictModes refuses, the hub refuses: a keys file others
// may write, or in a folder (or above it) others may write or own, or
// reached through a link someone else owns. A sticky folder (/tmp) is
// taken for what is the user's in it.
func TestKeysFileStrictModes(t *testing.T) {
	t.Parallel()
	bob := sshtest.NewPerson(t, "bob")
	root := os.Geteuid() == 0
	for _, tc := range []struct {
		name     string
		needRoot bool
		// setup makes the file to read under dir and returns its path.
		setup func(t *testing.T, dir string) string
		want  string // "" when it is read
	}{
		{"a file of the user's", false, func(t *testing.T, dir string) string {
			return keysFile(t, filepath.Join(dir, "a", "keys"), bob.Line)
		}, ""},
		{"group may write the file", false, func(t *testing.T, dir string) string {
			p := keysFile(t, filepath.Join(dir, "a", "keys"), bob.Line)
			chmod(t, p, 0o664)
			return p
		}, "can be written by others (mode 0664)"},
		{"others may write its folder", false, func(t *testing.T, dir string) string {
			p := keysFile(t, filepath.Join(dir, "a", "keys"), bob.Line)
			chmod(t, filepath.Dir(p), 0o777)
			return p
		}, "/a can be written by others (mode 0777)"},
		{"group may write a folder above", false, func(t *testing.T, dir string) string {
			p := keysFile(t, filepath.Join(dir, "a", "b", "keys"), bob.Line)
			chmod(t, filepath.Join(dir, "a"), 0o775)
			return p
		}, "/a can be written by others (mode 0775)"},
		{"a sticky folder others may write", false, func(t *testing.T, dir string) string {
			p := keysFile(t, filepath.Join(dir, "a", "keys"), bob.Line)
			chmod(t, filepath.Dir(p), 0o777|os.ModeSticky)
			return p
		}, ""},
		{"a link to a file in a folder others may write", false, func(t *testing.T, dir string) string {
			p := keysFile(t, filepath.Join(dir, "open", "keys"), bob.Line)
			chmod(t, filepath.Dir(p), 0o777)
			link := filepath.Join(dir, "safe", "keys")
			if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../open/keys", link); err != nil {
				t.Fatal(err)
			}
			return link
		}, "/open can be written by others"},
		{"a link to a file of the user's", false, func(t *testing.T, dir string) string {
			keysFile(t, filepath.Join(dir, "real", "keys"), bob.Line)
			link := filepath.Join(dir, "keys")
			if err := os.Symlink(filepath.Join(dir, "real", "keys"), link); err != nil {
				t.Fatal(err)
			}
			return link
		}, ""},
		{"the file is another user's", true, func(t *testing.T, dir string) string {
			p := keysFile(t, filepath.Join(dir, "a", "keys"), bob.Line)
			chown(t, p)
			return p
		}, "keys is owned by uid 65534"},
		{"a folder above is another user's", true, func(t *testing.T, dir string) string {
			p := keysFile(t, filepath.Join(dir, "a", "b", "keys"), bob.Line)
			chown(t, filepath.Join(dir, "a"))
			return p
		}, "/a is owned by uid 65534"},
		{"another user's link in a sticky folder", true, func(t *testing.T, dir string) string {
			keysFile(t, filepath.Join(dir, "real", "keys"), bob.Line)
			sticky := filepath.Join(dir, "tmp")
			if err := os.Mkdir(sticky, 0o700); err != nil {
				t.Fatal(err)
			}
			chmod(t, sticky, 0o777|os.ModeSticky)
			link := filepath.Join(sticky, "keys")
			if err := os.Symlink(filepath.Join(dir, "real", "keys"), link); err != nil {
				t.Fatal(err)
			}
			if err := os.Lchown(link, nobody, nobody); err != nil {
				t.Fatal(err)
			}
			return link
		}, "tmp/keys is owned by uid 65534"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needRoot && !root {
				t.Skip("chown needs root")
			}
			dir := t.TempDir()
			p := People{Viewers: tc.setup(t, dir)}
			got, ok, err := p.Find(bob.Signer.PublicKey())
			if tc.want == "" {
				if !ok || err != nil || got.Name != "bob" {
					t.Fatalf("%+v ok %v err %v", got, ok, err)
				}
				return
			}
			if ok || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ok %v err %v, want an error with %q", ok, err, tc.want)
			}
		})
	}
}

// A host key is not made, nor read, in a folder others may write: they
// could put their own key in its place and pose as the hub.
func TestHostKeyFolderOthersMayWrite(t *testing.T) {
	t.Parallel()
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	chmod(t, open, 0o777)
	path := filepath.Join(open, "data", "hub_ed25519")
	if _, _, err := HostKey(path); err == nil || !strings.Contains(err.Error(), "the folder "+open+" can be written by others") {
		t.Fatalf("made in a folder others may write: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("something was made there: %v", err)
	}
	// One made in a safe folder that is opened up later is refused too.
	chmod(t, open, 0o700)
	if _, _, err := HostKey(path); err != nil {
		t.Fatal(err)
	}
	chmod(t, filepath.Dir(path), 0o777)
	if _, _, err := HostKey(path); err == nil || !strings.Contains(err.Error(), "can be written by others") {
		t.Fatalf("read from a folder others may write: %v", err)
	}
}

// A read of a keys file that never ends holds one goroutine: the logins
// after it wait no longer than the timeout and start no read of their own;
// once it ends, the next login reads the file afresh.
func TestFileReadsBounded(t *testing.T) {
	t.Parallel()
	f := &flights{by: map[string]*flight{}}
	release := make(chan struct{})
	var reads atomic.Int32
	stuck := func() ([]byte, error) {
		reads.Add(1)
		<-release
		return []byte("old"), nil
	}
	var wg sync.WaitGroup
	start := time.Now()
	for range 20 {
		wg.Go(func() {
			if _, err := f.do("keys", 200*time.Millisecond, stuck); !errors.Is(err, errTooSlow) {
				t.Errorf("a stuck read: %v", err)
			}
		})
	}
	wg.Wait()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the logins waited %s", d)
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("%d reads started, want 1", n)
	}
	close(release)
	b, err := f.do("keys", time.Second, func() ([]byte, error) { reads.Add(1); return []byte("new"), nil })
	if err != nil || string(b) != "new" || reads.Load() != 2 {
		t.Errorf("after the stuck read: %q %v (%d reads)", b, err, reads.Load())
	}
}

func keysFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func chown(t *testing.T, path string) {
	t.Helper()
	if err := os.Chown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
}
