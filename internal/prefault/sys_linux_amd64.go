package prefault

import "unsafe"

// On linux/amd64 the package makes its system calls itself (sys_linux_amd64.s)
// rather than through package syscall, so that it depends on nothing and is
// initialised among the first packages: package syscall is initialised after
// a dozen others, whose start-up then faults on the text one page at a time.
// The calls are raw (the scheduler is not told): they run once, during
// package initialisation, and none of them blocks for long.

func rawSyscall(trap, a1, a2, a3 uintptr) (r1, errno uintptr)

const (
	sysRead    = 0
	sysClose   = 3
	sysMadvise = 28
	sysOpenat  = 257

	atFDCWD  = ^uintptr(99) // -100
	oRDONLY  = 0
	oCLOEXEC = 0x80000
)

var mapsPath = [...]byte{'/', 'p', 'r', 'o', 'c', '/', 's', 'e', 'l', 'f', '/', 'm', 'a', 'p', 's', 0}

func openMaps() (uintptr, bool) {
	fd, errno := rawSyscall(sysOpenat, atFDCWD, uintptr(unsafe.Pointer(&mapsPath[0])), oRDONLY|oCLOEXEC)
	return fd, errno == 0
}

func read(fd uintptr, b []byte) int {
	n, errno := rawSyscall(sysRead, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if errno != 0 {
		return -1
	}
	return int(n)
}

func closeFD(fd uintptr) { rawSyscall(sysClose, fd, 0, 0) }

func madvise(addr, n, advice uintptr) (errno uintptr) {
	_, errno = rawSyscall(sysMadvise, addr, n, advice)
	return errno
}
