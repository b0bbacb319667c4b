package sim

import (
	"testing"

	"github.com/firewatch/firewatch/internal/testrun"
)

// The tests wait (on servers, sockets and timers), hardly on the CPU.
func TestMain(m *testing.M) { testrun.Main(m) }
