//go:build linux || darwin || freebsd

package archive

import "syscall"

// freeSpace is the space left to this process on dir's file system.
func freeSpace(dir string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
