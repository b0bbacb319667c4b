package cli

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/charmbracelet/x/term"
)

// quitGrace is how long the terminal UI has to stop after SIGINT or SIGTERM
// before the watchdog gives the terminal back and ends the process.
const quitGrace = 3 * time.Second

// uiWatchdog makes quitting always work, even if the UI's update loop were
// stuck (it never is by design: long work runs in commands): once ctx ends
// (SIGINT, SIGTERM, --timeout), the UI has quitGrace to return (close done);
// after that the terminal is restored (its mode as it was, the main
// screen, the cursor, no mouse or paste modes), the reason said, and exit
// called with the interrupt's code.
func uiWatchdog(ctx context.Context, done <-chan struct{}, grace time.Duration, restore func(), stderr io.Writer, exit func(int)) {
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		restore()
		io.WriteString(stderr, "firewatch: the terminal UI did not stop within "+grace.String()+"; leaving without the summary\n")
		exit(watchdogCode())
	}
}

// terminalRestorer saves the state of the terminal the UI is about to
// take (stdin's, else /dev/tty's) and returns what puts it back.
func terminalRestorer(stdin io.Reader, stdout io.Writer) func() {
	fd := ^uintptr(0)
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(f.Fd()) {
		fd = f.Fd()
	} else if tty, err := os.Open("/dev/tty"); err == nil {
		fd = tty.Fd() // kept open for the restore
	}
	var st *term.State
	if fd != ^uintptr(0) {
		st, _ = term.GetState(fd)
	}
	return func() {
		// Mouse, focus, paste and keyboard modes off, the main screen
		// back, the cursor shown.
		io.WriteString(stdout, "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?2004l\x1b[<u\x1b[?1049l\x1b[?25h\r\n")
		if st != nil {
			_ = term.Restore(fd, st)
		}
	}
}
