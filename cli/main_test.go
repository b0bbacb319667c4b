package cli

import (
	"os"
	"testing"

	"github.com/firewatch/firewatch/internal/testrun"
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
	// The simulators of the tests have no rate limit: the background
	// work is not paced to the service's (the tests of the budget set it).
	os.Setenv("FIREWATCH_RATE_LIMIT", "1000000/1s")
	// A watch sets the process's soft memory limit from its own trace
	// (follow.Budget): in this process dozens run at once, and a limit of
	// one watch's size kept the collector running for all of them.
	os.Setenv("GOMEMLIMIT", "off")
	// The tests mostly wait on simulated services, not on the processor:
	// sixteen a core keep the machine busy while they wait.
	testrun.Waiting(16)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
