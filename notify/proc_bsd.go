//go:build unix && !linux

package notify

import "os/exec"

// waitGroup waits for the started cmd, then kills what it left running in
// its group (the children that would outlive it). While any of them lives
// the group's id stays taken.
func waitGroup(cmd *exec.Cmd) error {
	err := cmd.Wait()
	_ = killGroup(cmd.Process.Pid)
	return err
}
