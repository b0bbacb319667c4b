// Package testrun is what the test binaries of packages whose tests wait
// (on processes, servers and timers, hardly on the CPU) share.
package testrun

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// Waiting lets more of a package's parallel tests run at once than there
// are cores, unless -parallel says how many: the tests spend their time
// waiting, and two at a time leaves the machine idle. Call it from
// TestMain before m.Run.
func Waiting() {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(max(8, 4*runtime.GOMAXPROCS(0))))
	}
}

// Main is a TestMain that does nothing but Waiting: for a package whose
// tests wait.
func Main(m *testing.M) {
	Waiting()
	os.Exit(m.Run())
}
