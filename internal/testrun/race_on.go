//go:build race

package testrun

const race = true
