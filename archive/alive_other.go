//go:build !unix

package archive

// gone: a holder's process cannot be checked here; its lease expires.
func gone(int) bool { return false }
