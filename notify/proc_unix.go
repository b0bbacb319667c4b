//go:build unix

package notify

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own and makes the
// timeout kill the whole group: a script's children (a sleep, a curl that
// hangs) go with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return killGroup(cmd.Process.Pid)
	}
}

func killGroup(pgid int) error {
	if pgid <= 0 {
		return nil
	}
	return syscall.Kill(-pgid, syscall.SIGKILL)
}
