//go:build !linux

package cli

// flushInput: nothing to do here (the question still takes one key).
func flushInput(uintptr) {}
