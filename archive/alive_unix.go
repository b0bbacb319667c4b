//go:build unix

package archive

import (
	"errors"
	"syscall"
)

// gone reports whether no process pid runs on this machine (a holder
// killed here): signal 0 checks, and sends nothing.
func gone(pid int) bool {
	return pid > 0 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
