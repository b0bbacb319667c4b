//go:build !unix

package notify

import "os/exec"

// killGroup leaves cmd as it is: the timeout kills the process alone.
func killGroup(*exec.Cmd) {}
