//go:build !linux

package prefault
