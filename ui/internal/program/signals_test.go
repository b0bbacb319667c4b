package program_test

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/ui/internal/program"
)

// blockModel's Update holds the event loop on a blockMsg until release is
// closed, as a long Update would.
type blockModel struct{ busy, release chan struct{} }

type blockMsg struct{}

func (m blockModel) Init() tea.Cmd { return nil }
func (m blockModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(blockMsg); ok {
		close(m.busy)
		<-m.release
	}
	return m, nil
}
func (m blockModel) View() tea.View { return tea.NewView("x") }

// firewatch ends its programs on SIGINT and SIGTERM by cancelling their
// context (cli's signal context). Bubble Tea must not listen for them too:
// its handler sends a QuitMsg without watching the context, so when the
// context won the race its goroutine blocked on the send for ever and
// Run, waiting for it, never returned (the terminal UI stayed up until the
// watchdog gave up and left without the summary). Each round sends SIGTERM
// while the event loop is busy and cancels the context, as cli does.
func TestSIGTERMAndCancelledContextEndTheProgram(t *testing.T) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM) // cli's handler; keeps the test process alive
	defer signal.Stop(sig)
	for round := 0; round < 30; round++ {
		ctx, cancel := context.WithCancel(context.Background())
		m := blockModel{busy: make(chan struct{}), release: make(chan struct{})}
		in, inw := io.Pipe()
		p := tea.NewProgram(m, program.Options(ctx, in, io.Discard, 80, 24, true)...)
		done := make(chan error, 1)
		go func() {
			_, _, err := program.Run(ctx, p)
			done <- err
		}()
		p.Send(blockMsg{})
		<-m.busy
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		<-sig
		cancel()
		close(m.release)
		select {
		case <-done:
		case <-time.After(10 * time.Second): // a deadlock, not a slow machine
			t.Fatalf("round %d: the program did not return after SIGTERM and its context's end", round)
		}
		inw.Close()
	}
}
