package e2e

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"
)

// ptyProc is firewatch on a pseudo-terminal of 120x40: stdin, stdout and
// stderr are the terminal, as in a person's shell.
type ptyProc struct {
	cmd     *exec.Cmd
	master  *os.File
	tty     *os.File // the terminal's side, kept open to read its modes afterwards
	out     *syncBuffer
	drained chan struct{}
	done    chan struct{}
	code    int
}

// openPTY opens a new pseudo-terminal: its master and its terminal.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	// The ioctls go through the raw descriptor without m.Fd(), which would
	// put the master in blocking mode: a Read blocked in the kernel would
	// then keep Close (hangUp) from closing it.
	rc, err := m.SyscallConn()
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	var n uint32
	cerr := rc.Control(func(fd uintptr) {
		if err = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); err == nil {
			n, err = unix.IoctlGetUint32(int(fd), unix.TIOCGPTN)
		}
	})
	if err = cmp.Or(cerr, err); err != nil {
		m.Close()
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120}); err != nil {
		t.Fatal(err)
	}
	return m, s
}

// startPTY starts firewatch on a new pseudo-terminal, as the leader of
// its own session with the terminal as its controlling terminal.
func startPTY(t *testing.T, env []string, args ...string) *ptyProc {
	t.Helper()
	master, tty := openPTY(t)
	p := &ptyProc{master: master, tty: tty, out: &syncBuffer{}, drained: make(chan struct{}), done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(env, "TERM=xterm-256color")
	p.cmd.Dir = t.TempDir()
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = tty, tty, tty
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.drained)
		b := make([]byte, 32<<10)
		for {
			n, err := master.Read(b)
			p.out.Write(b[:n])
			if err != nil {
				return
			}
		}
	}()
	go func() {
		_ = p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		tty.Close()
		<-p.drained
		master.Close()
	})
	return p
}

// screen is what was written to the terminal, without escape sequences.
func (p *ptyProc) screen() string { return ansi.Strip(p.out.String()) }

// waitScreen waits until the terminal has shown want.
func (p *ptyProc) waitScreen(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(runLimit)
	for !strings.Contains(p.screen(), want) {
		select {
		case <-p.done:
			t.Fatalf("firewatch exited (code %d) before showing %q\n%s", p.code, want, tailOf(p.screen()))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q not shown within %s\n%s", want, runLimit, tailOf(p.screen()))
		}
	}
}

// typeKeys writes s to the terminal as if typed.
func (p *ptyProc) typeKeys(t *testing.T, s string) {
	t.Helper()
	if _, err := p.master.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// exit waits for the process to end and returns its exit code; by then
// everything it wrote to the terminal has been read.
func (p *ptyProc) exit(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("firewatch %s did not exit within 20s\n%s", strings.Join(p.cmd.Args[1:], " "), tailOf(p.screen()))
	}
	return p.code
}

// restored fails unless the terminal is as firewatch found it: the
// alternate screen left (the last switch is the one off), the cursor
// shown, and the line discipline back in its cooked mode (echo,
// canonical input).
func (p *ptyProc) restored(t *testing.T) {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(p.tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if tio.Lflag&unix.ECHO == 0 || tio.Lflag&unix.ICANON == 0 {
		t.Errorf("the terminal is left in raw mode (lflag %#x)", tio.Lflag)
	}
	// Everything written is read once the last holder of the terminal
	// (this test) lets it go.
	p.tty.Close()
	<-p.drained
	out := p.out.String()
	on, off := strings.LastIndex(out, ansi.SetModeAltScreenSaveCursor), strings.LastIndex(out, ansi.ResetModeAltScreenSaveCursor)
	if on < 0 {
		t.Errorf("the alternate screen was never switched on: %q", tailOf(out))
	}
	if off < on {
		t.Errorf("the alternate screen is left on\n%q", tailOf(out[max(0, len(out)-2000):]))
	}
	show, hide := strings.LastIndex(out, ansi.ShowCursor), strings.LastIndex(out, ansi.HideCursor)
	if show < hide {
		t.Errorf("the cursor is left hidden")
	}
}

// hangUp closes the terminal's master side, as a dropped SSH session or a
// closed window does: the kernel sends SIGHUP, and writes to the terminal
// fail from then on.
func (p *ptyProc) hangUp(t *testing.T) {
	t.Helper()
	if err := p.master.Close(); err != nil {
		t.Fatal(err)
	}
}
