//go:build linux && !amd64

package prefault

import "syscall"

// Elsewhere than amd64 the system calls go through package syscall: the
// package is then initialised after syscall, a dozen packages later.

func openMaps() (uintptr, bool) {
	fd, err := syscall.Open("/proc/self/maps", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	return uintptr(fd), err == nil
}

func read(fd uintptr, b []byte) int {
	n, err := syscall.Read(int(fd), b)
	if err != nil {
		return -1
	}
	return n
}

func closeFD(fd uintptr) { syscall.Close(int(fd)) }

func madvise(addr, n, advice uintptr) (errno uintptr) {
	_, _, e := syscall.Syscall(syscall.SYS_MADVISE, addr, n, advice)
	return uintptr(e)
}
