//go:build !unix

package suspend

import tea "charm.land/bubbletea/v2"

// Sender is a *tea.Program.
type Sender interface{ Send(msg tea.Msg) }

// Listen does nothing where there is no job control (SIGTSTP).
func Listen(Sender) (stop func()) { return func() {} }

// Request does nothing where there is no job control.
func Request() tea.Msg { return nil }
