//go:build linux

package notify

import (
	"errors"
	"os/exec"

	"golang.org/x/sys/unix"
)

// waitGroup waits for the started cmd, then kills what it left running in
// its group (the children that would outlive it). The kill comes between
// the exit and the reaping: the process is a zombie then, so its id, the
// group's, cannot have been taken by another process.
func waitGroup(cmd *exec.Cmd) error {
	pid := cmd.Process.Pid
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	_ = killGroup(pid)
	return cmd.Wait()
}
