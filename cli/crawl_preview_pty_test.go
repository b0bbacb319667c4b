//go:build linux

package cli

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/firewatch/firewatch/sim"
)

// openPTY opens a pseudo-terminal of w×h cells: the side firewatch is
// given, and the side a person types into and reads from.
func openPTY(t *testing.T, w, h int) (tty, pty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(pty.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(pty.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(w), Row: uint16(h)}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close(); pty.Close() })
	return tty, pty
}

// screenLog reads everything written to the terminal.
type screenLog struct {
	mu  sync.Mutex
	b   bytes.Buffer
	pty *os.File
}

func (s *screenLog) read() {
	buf := make([]byte, 32<<10)
	for {
		n, err := s.pty.Read(buf)
		s.mu.Lock()
		s.b.Write(buf[:n])
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// waitFor waits until the terminal has shown want after from bytes; it
// returns where want ends.
func (s *screenLog) waitFor(t *testing.T, from int, want string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		i := bytes.Index(s.b.Bytes()[from:], []byte(want))
		s.mu.Unlock()
		if i >= 0 {
			return from + i + len(want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t.Fatalf("%q never shown; the terminal has:\n%q", want, s.b.String()[from:])
	return 0
}

// crawl-preview answered y on a terminal starts the crawl and opens the
// crawl screen; leaving it prints the closing counts line plain output
// ends with. (It used to start the crawl and only say its id.)
func TestCrawlPreviewOpensScreen(t *testing.T) {
	crawlSim(t, sim.Options{Speed: 50, CrawlPages: 20})
	t.Setenv("TERM", "xterm-256color")
	tty, pty := openPTY(t, 120, 40)
	s := &screenLog{pty: pty}
	go s.read()
	codeCh := make(chan int, 1)
	go func() {
		codeCh <- Execute(context.Background(), []string{"crawl-preview", "https://example.com", "the blog, 30 pages"}, tty, tty, tty)
	}()
	at := s.waitFor(t, 0, "Start this crawl? [y/N]")
	if _, err := pty.Write([]byte("y")); err != nil {
		t.Fatal(err)
	}
	at = s.waitFor(t, at, "firewatch: started crawl ")
	at = s.waitFor(t, at, "\x1b[?1049h") // the screen opens
	at = s.waitFor(t, at, "completed")
	at = s.waitFor(t, at, "watch ended")
	if _, err := pty.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-codeCh:
		if code != ExitOK {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the screen did not end on q")
	}
	at = s.waitFor(t, at, "\x1b[?1049l") // the screen gives the terminal back
	s.waitFor(t, at, " completed: ")
	s.mu.Lock()
	rest := s.b.String()[at:]
	s.mu.Unlock()
	if !strings.Contains(rest, "blocked by robots.txt") || !strings.Contains(rest, "credits") {
		t.Fatalf("no closing counts line after the screen:\n%q", rest)
	}
}
