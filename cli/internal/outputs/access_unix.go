//go:build unix

package outputs

import "syscall"

// CanCreateIn says whether this process may create a file in dir.
func CanCreateIn(dir string) error { return syscall.Access(dir, 2 /* W_OK */) }
