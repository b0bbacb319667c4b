//go:build unix

// Package suspend lets the terminal UI be suspended and resumed like any
// shell job: Ctrl-Z in the UI and a SIGTSTP from outside (kill -TSTP, a job
// control shell) both leave the terminal as it was before the UI (main
// screen, cursor shown, cooked mode), stop the process, and on SIGCONT
// give the terminal back to the UI, which redraws.
//
// Bubble Tea suspends on a tea.SuspendMsg: it releases the terminal, sends
// SIGTSTP to the process group and waits for SIGCONT. That SIGTSTP stops
// the process only while SIGTSTP has its default action, which a Go
// program that ever caught it never gets back (the runtime keeps its
// handler). So Listen catches SIGTSTP all along: the first one (from
// outside, or Request's for Ctrl-Z) becomes a SuspendMsg; the next one is
// Bubble Tea's own, sent once the terminal is released, and Listen then
// stops the process group with SIGSTOP, which cannot be caught. fg (SIGCONT)
// resumes it and Bubble Tea takes the terminal back.
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
	tstp := make(chan os.Signal, 2)
	done := make(chan struct{})
	finished := make(chan struct{})
	signal.Notify(tstp, syscall.SIGTSTP)
	go func() {
		defer close(finished)
		defer signal.Stop(tstp)
		suspending := false
		for {
			select {
			case <-tstp:
			case <-done:
				return
			}
			if !suspending {
				// Ask Bubble Tea to release the terminal.
				suspending = true
				p.Send(tea.SuspendMsg{})
				continue
			}
			// Bubble Tea's own SIGTSTP: the terminal is released, stop.
			suspending = false
			_ = syscall.Kill(0, syscall.SIGSTOP)
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
