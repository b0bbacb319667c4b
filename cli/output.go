package cli

import (
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/firewatch/firewatch/cli/internal/outputs"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/ui/screen"
)

// What a watch writes besides stderr is guarded by internal/outputs.

var (
	checkWritable = outputs.CheckWritable
	checkTUI      = outputs.CheckTUI
)

// checkOutputs checks every output flag of o before anything is created.
func checkOutputs(o *watchOptions) error {
	for _, f := range []struct{ flag, path string }{{"--debug", o.Debug}, {"--record", o.Record}, {"--summary", o.Summary}, {"--result", o.Result}} {
		if f.path == "" || f.path == "-" && (f.flag == "--summary" || f.flag == "--result") {
			continue
		}
		if err := checkWritable(f.flag, f.path); err != nil {
			return err
		}
	}
	return nil
}

// checkSpeed checks demo's and serve's --speed against what the simulator
// accepts (exit 2 rather than the simulator's refusal, exit 1).
func checkSpeed(v float64) error {
	if !(v >= sim.MinSpeed && v <= sim.MaxSpeed) { // NaN too
		return badUsage("--speed %v: it must be from %v to %v", v, sim.MinSpeed, sim.MaxSpeed)
	}
	return nil
}

// screenStreams are where a watch's and the compare screen's program
// read and draw outside a hub: the command's stdout, and its stdin when
// that is a terminal (else nil: Bubble Tea opens /dev/tty, as checkTUI
// allows). They are the process's in firewatch itself, a test's
// pseudo-terminal in a test.
func (a *app) screenStreams() screen.Streams {
	s := screen.Streams{Output: a.stdout}
	if f, ok := a.stdin.(*os.File); ok && term.IsTerminal(f.Fd()) {
		s.Input = f
	}
	return s
}
