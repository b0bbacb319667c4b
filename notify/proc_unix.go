//go:build unix

package notify

import (
	"os/exec"
	"syscall"
)

// killGroup starts cmd in a process group of its own and makes the
// timeout kill the whole group: a script's children (a sleep, a curl that
// hangs) go with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
