//go:build unix

package e2e

import (
	"os"
	"syscall"
)

// lockDir takes dir for this test run alone (released when the process
// ends), or reports that another run has it.
func lockDir(dir string) bool {
	f, err := os.OpenFile(dir+"/lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return false
	}
	return true // f stays open, and locked, until the process ends
}
