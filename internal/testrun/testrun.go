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

// Waiting lets perCore of a package's parallel tests run at once for each
// core, unless -parallel says how many: the tests spend their time
// waiting, and one a core leaves the machine idle. Under the race
// detector the same tests are bound by the processor, and more at once
// only slows them: there at most four a core. Call it from TestMain
// before m.Run.
func Waiting(perCore int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if race {
		perCore = min(perCore, 4)
	}
	if !given {
		flag.Set("test.parallel", strconv.Itoa(max(8, perCore*runtime.GOMAXPROCS(0))))
	}
}

// Main is a TestMain that does nothing but Waiting: for a package whose
// tests wait.
func Main(m *testing.M) {
	Waiting(4)
	os.Exit(m.Run())
}
