// Package remote is a terminal at the other end of a connection, a hub's
// SSH session, for the full-screen programs: the keys it sends, where they
// draw, its environment (TERM, COLORTERM, NO_COLOR, the locale), its size
// and its resizes. A program drawn on one reads, writes and measures
// nothing of the process's own: not its terminal, not its environment, not
// its desktop (no browser is opened, no file saved), and it is never
// suspended (a Ctrl-Z would stop the process and every other session).
//
// The screens of one session run one after another on the same terminal
// (the runs screen, a run, the runs screen again): each program reads the
// keys through a Keys of its own, closed when it ends, so that a program
// that has ended never takes a key meant for the next one.
package remote

import (
	"io"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// Largest size a terminal is taken to have: a screen is a buffer of
// width x height cells, and a client must not make the process allocate
// what it likes.
const (
	MaxWidth  = 512
	MaxHeight = 256
)

// NoSave is what a save key says on a remote terminal: a file would be
// written on the machine the program runs on, not the person's.
const NoSave = "not saved: s writes files on the machine firewatch runs on, not yours, over a hub session (y copies instead)"

// keyReads is how many of the session's reads wait for a program that is
// slow to take them (one starting, or busy drawing). The reader goes on
// reading meanwhile, so that a key typed counts against the idle timeout
// at once, and a client sending without end is held at keyReads reads of
// 4 KiB.
const keyReads = 64

// Program is what a terminal tells its size to: a *tea.Program.
type Program interface{ Send(tea.Msg) }

// Terminal is one session's terminal. Make it with New; Close it when the
// session ends.
type Terminal struct {
	out io.Writer
	env []string

	keys   chan []byte   // what the reader took from the session, one read at a time (keyReads of them)
	ended  chan struct{} // closed when the session's input ended
	closed chan struct{} // closed by Close
	once   sync.Once

	mu      sync.Mutex
	w, h    int
	prog    Program   // the program drawing now, if any
	last    time.Time // the last key
	pending []byte    // what a program's Keys took and could not hand over
}

// New is the terminal of a session that sends its keys on in and shows
// out, with the environment it sent (TERM from its PTY request among it)
// and its size. One goroutine reads in until it ends or Close is called.
func New(in io.Reader, out io.Writer, env []string, width, height int) *Terminal {
	t := &Terminal{out: out, env: append([]string(nil), env...), keys: make(chan []byte, keyReads),
		ended: make(chan struct{}), closed: make(chan struct{}), last: time.Now()}
	t.w, t.h = clamp(width, height)
	go t.read(in)
	return t
}

// read hands what the session sends to the program reading now; it ends
// when the input does (the session closed) or the terminal is closed.
func (t *Terminal) read(in io.Reader) {
	defer close(t.ended)
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			t.mu.Lock()
			t.last = time.Now()
			t.mu.Unlock()
			select {
			case t.keys <- append([]byte(nil), buf[:n]...):
			case <-t.closed:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Close stops reading the session's keys. The reading goroutine ends then,
// or, if it is waiting on the session, once the session's input closes.
func (t *Terminal) Close() { t.once.Do(func() { close(t.closed) }) }

// Ended is closed when the session's input has ended: it went away.
func (t *Terminal) Ended() <-chan struct{} { return t.ended }

// LastKey is when the session last sent anything (New's time before).
func (t *Terminal) LastKey() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

// Out is where programs draw.
func (t *Terminal) Out() io.Writer { return t.out }

// Env is the session's environment, KEY=value.
func (t *Terminal) Env() []string { return append([]string(nil), t.env...) }

// LookupEnv is os.LookupEnv in the session's environment (the last value
// sent for a name wins).
func (t *Terminal) LookupEnv(key string) (string, bool) {
	for i := len(t.env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(t.env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// Getenv is os.Getenv in the session's environment.
func (t *Terminal) Getenv(key string) string {
	v, _ := t.LookupEnv(key)
	return v
}

// Profile is the colours the session's terminal takes, from its TERM,
// COLORTERM, NO_COLOR and CLICOLOR_FORCE.
func (t *Terminal) Profile() colorprofile.Profile { return colorprofile.Env(t.env) }

// Size is the terminal's size now.
func (t *Terminal) Size() (width, height int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.w, t.h
}

// Resize records a new size and tells the program drawing now, if any. It
// waits until that program has taken it (or has ended).
func (t *Terminal) Resize(width, height int) {
	width, height = clamp(width, height)
	t.mu.Lock()
	t.w, t.h = width, height
	p := t.prog
	t.mu.Unlock()
	if p != nil {
		p.Send(tea.WindowSizeMsg{Width: width, Height: height})
	}
}

// Attach makes p the program drawing now, started at width x height: a
// resize since then is sent to it. detach ends that.
func (t *Terminal) Attach(p Program, width, height int) (detach func()) {
	t.mu.Lock()
	t.prog = p
	w, h := t.w, t.h
	t.mu.Unlock()
	if w != width || h != height {
		// Resized while the program was being made: it has not started
		// yet, and Send waits until it runs.
		go p.Send(tea.WindowSizeMsg{Width: w, Height: h})
	}
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.prog == p {
			t.prog = nil
		}
	}
}

// Keys is a reader of the session's keys for one program. Close it when
// the program has ended: its Read then returns io.EOF, and the keys go to
// the next program.
func (t *Terminal) Keys() *Keys { return &Keys{t: t, done: make(chan struct{})} }

// Keys reads a terminal's keys for one program.
type Keys struct {
	t    *Terminal
	done chan struct{}
	once sync.Once
}

// Read returns what the session sent, or io.EOF once the reader is closed
// or the session's input has ended. A read that takes keys as its reader
// is closed gives them back: they are the next program's.
func (k *Keys) Read(p []byte) (int, error) {
	t := k.t
	if k.isClosed() {
		return 0, io.EOF
	}
	t.mu.Lock()
	if len(t.pending) > 0 {
		n := copy(p, t.pending)
		t.pending = t.pending[n:]
		t.mu.Unlock()
		return n, nil
	}
	t.mu.Unlock()
	select {
	case b := <-t.keys:
		t.mu.Lock()
		defer t.mu.Unlock()
		if k.isClosed() {
			t.pending = append(b, t.pending...)
			return 0, io.EOF
		}
		n := copy(p, b)
		t.pending = append(t.pending, b[n:]...)
		return n, nil
	case <-k.done:
		return 0, io.EOF
	case <-t.ended:
		select {
		case b := <-t.keys: // read before the input ended: still this program's
			t.mu.Lock()
			defer t.mu.Unlock()
			n := copy(p, b)
			t.pending = append(t.pending, b[n:]...)
			return n, nil
		default:
			return 0, io.EOF
		}
	}
}

func (k *Keys) isClosed() bool {
	select {
	case <-k.done:
		return true
	default:
		return false
	}
}

// Close ends the reader.
func (k *Keys) Close() error {
	k.once.Do(func() { close(k.done) })
	return nil
}

// clamp keeps a size a client sent within what a screen is drawn at: 80x24
// for none, at most MaxWidth x MaxHeight.
func clamp(w, h int) (int, int) {
	if w <= 0 || h <= 0 {
		return 80, 24
	}
	return min(w, MaxWidth), min(h, MaxHeight)
}
