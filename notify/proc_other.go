//go:build !unix

package notify

import "os/exec"

// ownGroup leaves cmd as it is: the timeout kills the process alone.
func ownGroup(*exec.Cmd) {}

// waitGroup waits for cmd; what it leaves running is not ended, but the
// wait for its output is bounded all the same.
func waitGroup(cmd *exec.Cmd) error { return cmd.Wait() }
