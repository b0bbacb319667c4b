//go:build linux

package crawlprint

import "golang.org/x/sys/unix"

// flushInput drops what was typed on the terminal fd before a question
// was asked, so that a key typed ahead does not answer it.
func flushInput(fd uintptr) { _ = unix.IoctlSetInt(int(fd), unix.TCFLSH, unix.TCIFLUSH) }
