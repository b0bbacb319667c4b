package archiving

import (
	"testing"

	"github.com/firewatch/firewatch/internal/testrun"
)

// The tests wait (on leases' TTLs, locks, servers stopped and started,
// the simulator's runs), hardly on the CPU.
func TestMain(m *testing.M) { testrun.Main(m) }
