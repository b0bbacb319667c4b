package cli

import (
	"flag"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	// Watches archive what they see: into a folder of the test's own,
	// never the user's archive.
	dir, err := os.MkdirTemp("", "firewatch-cli-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_DATA_HOME", dir)
	os.Unsetenv("FIREWATCH_ARCHIVE")
	// The tests mostly wait on simulated services, not on the processor:
	// those marked parallel run several at once, more than one per
	// processor (go test's default), unless -parallel says how many.
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", "8")
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
