package hostile

import (
	"os"
	"os/exec"
	"testing"
)

// ReadOnlyDir returns dir made read-only for this process, for a test of a
// file nothing may write: a read-only bind mount of it when the process
// runs as root (to whom file modes do not apply), else dir itself with mode
// 0500. It skips the test when neither can be had (root without the right
// to mount), and undoes it when the test ends.
func ReadOnlyDir(t testing.TB, dir string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Skip(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		return dir
	}
	ro := t.TempDir()
	if out, err := exec.Command("mount", "--bind", dir, ro).CombinedOutput(); err != nil {
		t.Skipf("a read-only folder needs a read-only mount here (running as root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", ro).Run() })
	if out, err := exec.Command("mount", "-o", "remount,ro,bind", ro).CombinedOutput(); err != nil {
		t.Skipf("remount read-only: %v %s", err, out)
	}
	return ro
}
