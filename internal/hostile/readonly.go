package hostile

import (
	"os"
	"os/exec"
	"strconv"
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

// SmallDisk returns a new folder on a file system of size bytes (a tmpfs
// mount), for a test of a full disk; it skips the test when it cannot
// mount one (not root, or not allowed), and unmounts it when the test ends.
func SmallDisk(t testing.TB, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a full disk needs a small mount, which needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.Itoa(size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount a small tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}
