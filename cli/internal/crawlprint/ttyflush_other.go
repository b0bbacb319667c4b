//go:build !linux

package crawlprint

// flushInput: nothing to do here (the question still takes one key).
func flushInput(uintptr) {}
