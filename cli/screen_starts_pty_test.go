//go:build linux

package cli

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"

	"github.com/firewatch/firewatch/sim"
)

// ptyScreen is what a pseudo-terminal shows, read through a terminal
// emulator as a person sees it.
type ptyScreen struct {
	t   *testing.T
	mu  sync.Mutex
	emu *vt.Emulator
	pty io.Writer
}

func newPTYScreen(t *testing.T, w, h int) (tty io.ReadWriter, s *ptyScreen) {
	t.Helper()
	ttyF, ptyF := openPTY(t, w, h)
	s = &ptyScreen{t: t, emu: vt.NewEmulator(w, h), pty: ptyF}
	go io.Copy(io.Discard, s.emu) // the terminal's answers to queries go nowhere
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := ptyF.Read(buf)
			s.mu.Lock()
			s.emu.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return ttyF, s
}

func (s *ptyScreen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.String()
}

func (s *ptyScreen) press(keys string) {
	if _, err := io.WriteString(s.pty, keys); err != nil {
		s.t.Fatal(err)
	}
}

// waitFor waits until the screen shows every one of want at once.
func (s *ptyScreen) waitFor(want ...string) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		txt, all := s.text(), true
		for _, w := range want {
			all = all && strings.Contains(txt, w)
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q:\n%s", want, txt)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWatchRerunHandOver: on a watch's screen R starts a rerun, and the
// command watches the new run on its own screen; once it has ended, =
// opens the compare screen of the original and the rerun; q there leaves
// with 0. The archive keeps the lineage of the run started there.
func TestWatchRerunHandOver(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 400, Seed: 47})
	waitSimFinished(t, srv)
	orig := srv.Jobs[0].ID
	db := filepath.Join(t.TempDir(), "a.db")
	tty, s := newPTYScreen(t, 120, 40)
	var errOut strings.Builder
	code := make(chan int, 1)
	go func() {
		code <- Execute(context.Background(), []string{"watch", orig, "-o", "tui", "--no-color", "--api-url", srv.URL, "--api-key", srv.Key,
			"--archive", db, "--interval", "100ms"}, tty, tty, &errOut)
	}()
	s.waitFor(orig[:8], "succeeded", "watch ended")
	s.press("R")
	s.waitFor("Rerun with changes")
	s.press("\t\t\t\x7f\x7f\x7f\x7f\x7f\x7f\x7flow")
	s.waitFor("was: ")
	s.press("\r")
	rerun := lowEffortStart(t, srv)
	// The new run on its own screen, offering = once it has ended.
	s.waitFor(rerun[:8], "= compare with the original")
	if strings.Contains(s.text(), orig[:8]+" ") && !strings.Contains(s.text(), rerun[:8]) {
		t.Fatalf("the original's screen still shows:\n%s", s.text())
	}
	s.press("=")
	s.waitFor(orig[:8], rerun[:8], "creditsUsed")
	s.press("q")
	select {
	case c := <-code:
		if c != ExitOK {
			t.Fatalf("exit %d:\n%s", c, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("q on the compare screen did not end the watch:\n%s", s.text())
	}
	if !strings.Contains(errOut.String(), "started run "+rerun) {
		t.Errorf("the started run's id is not said:\n%s", errOut.String())
	}
	lines := historyOf(t, context.Background(), "--archive", db, "--api-url", srv.URL)
	if ro, _ := lines[rerun]["rerunOf"].(map[string]any); ro == nil || ro["id"] != orig {
		t.Errorf("the archive has no lineage for the rerun: %v", lines[rerun])
	}
}
