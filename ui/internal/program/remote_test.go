package program

import (
	"fmt"
	"io"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/ui/remote"
)

// A program on a remote terminal stops taking keys the moment it is to
// end, not once Bubble Tea has shut it down: a key typed in between is
// the next screen's. Its filter drops a request to suspend.
func TestKeysEndWhenTheProgramQuits(t *testing.T) {
	for _, end := range []tea.Msg{tea.QuitMsg{}, tea.InterruptMsg{}} {
		in, typed := io.Pipe()
		term := remote.New(in, io.Discard, nil, 80, 24)
		keys := term.Keys()
		filter := endKeys(keys)
		if filter(nil, tea.SuspendMsg{}) != nil {
			t.Error("a request to suspend went through")
		}
		if filter(nil, tea.KeyPressMsg{Code: 'j', Text: "j"}) == nil {
			t.Error("a key was dropped")
		}
		if filter(nil, end) == nil {
			t.Errorf("%T was dropped", end)
		}
		go typed.Write([]byte("x"))
		read := make(chan error, 1)
		go func() {
			n, err := keys.Read(make([]byte, 8))
			if err != io.EOF {
				err = fmt.Errorf("read %d bytes (%v), want EOF", n, err)
			} else {
				err = nil
			}
			read <- err
		}()
		select {
		case err := <-read:
			if err != nil {
				t.Fatalf("after %T the program's keys %v", end, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("after %T the program's keys still wait for a key", end)
		}
		next := term.Keys()
		b := make([]byte, 8)
		if n, err := next.Read(b); err != nil || string(b[:n]) != "x" {
			t.Errorf("the next screen read %q (%v), want x", b[:n], err)
		}
		next.Close()
		typed.Close()
		term.Close()
	}
}
