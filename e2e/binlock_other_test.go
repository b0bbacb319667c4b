//go:build !unix

package e2e

// lockDir: no lock here, so no binary kept between runs.
func lockDir(string) bool { return false }
