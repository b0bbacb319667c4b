//go:build !race

package testrun

const race = false
