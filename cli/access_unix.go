//go:build unix

package cli

import "syscall"

// canCreateIn says whether this process may create a file in dir.
func canCreateIn(dir string) error { return syscall.Access(dir, 2 /* W_OK */) }
