//go:build unix

// Package suspend lets the terminal UI be suspended and resumed like any
// shell job: Ctrl-Z in the UI and a SIGTSTP from outside (kill -TSTP, a job
// control shell) both leave the terminal as it was before the UI (main
// screen, cursor shown, cooked mode), stop the process, and on SIGCONT
// give the terminal back to the UI, which redraws.
//
// Bubble Tea suspends on a tea.SuspendMsg by releasing the terminal and
// sending SIGTSTP to the process group, which stops the process only when
// SIGTSTP has its default action. So SIGTSTP is caught only while the UI
// runs normally: on one, Listen stops catching it and sends the program a
// SuspendMsg; Bubble Tea's own SIGTSTP then stops the process; SIGCONT
// re-arms the catch. Ctrl-Z (a key in raw mode) goes the same way: Request
// sends the process a SIGTSTP.
package suspend

import (
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	tea "charm.land/bubbletea/v2"
)

// Sender is a *tea.Program.
type Sender interface{ Send(msg tea.Msg) }

// listening says whether a Listen is active: without one, Request does
// nothing (a SIGTSTP would stop the process with the terminal in raw mode).
var listening atomic.Int32

// Listen catches SIGTSTP for p until stop is called.
func Listen(p Sender) (stop func()) {
	listening.Add(1)
	tstp := make(chan os.Signal, 1)
	cont := make(chan os.Signal, 1)
	done := make(chan struct{})
	finished := make(chan struct{})
	signal.Notify(tstp, syscall.SIGTSTP)
	go func() {
		defer close(finished)
		defer signal.Stop(tstp)
		defer signal.Stop(cont)
		for {
			select {
			case <-tstp:
			case <-done:
				return
			}
			// Bubble Tea's SIGTSTP, after it released the terminal,
			// must stop the process: stop catching it.
			signal.Stop(tstp)
			signal.Notify(cont, syscall.SIGCONT)
			p.Send(tea.SuspendMsg{})
			select {
			case <-cont:
			case <-done:
				return
			}
			signal.Stop(cont)
			signal.Notify(tstp, syscall.SIGTSTP)
		}
	}()
	return func() {
		close(done)
		<-finished
		listening.Add(-1)
	}
}

// Request is the command of Ctrl-Z: it sends this process a SIGTSTP, which
// Listen turns into a clean suspend.
func Request() tea.Msg {
	if listening.Load() == 0 {
		return nil
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGTSTP)
	return nil
}
