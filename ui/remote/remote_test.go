package remote

import (
	"io"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// A screen that has ended takes no key: the keys typed after it go to the
// next screen, even though the first was still waiting for one (Bubble
// Tea leaves its reader waiting when a program ends).
func TestKeysGoToTheScreenNow(t *testing.T) {
	in, keys := io.Pipe()
	term := New(in, io.Discard, nil, 80, 24)
	defer term.Close()
	first := term.Keys()
	got := make(chan error, 1)
	go func() {
		_, err := first.Read(make([]byte, 16))
		got <- err
	}()
	first.Close()
	if err := <-got; err != io.EOF {
		t.Fatalf("the ended screen's read: %v, want EOF", err)
	}
	go keys.Write([]byte("jq"))
	next := term.Keys()
	defer next.Close()
	b := make([]byte, 1)
	var read []byte
	for len(read) < 2 {
		n, err := next.Read(b)
		if err != nil {
			t.Fatal(err)
		}
		read = append(read, b[:n]...)
	}
	if string(read) != "jq" {
		t.Errorf("the next screen read %q, want jq (a short read keeps the rest)", read)
	}
	keys.Close()
	select {
	case <-term.Ended():
	case <-time.After(5 * time.Second):
		t.Fatal("the terminal did not see its input end")
	}
	if _, err := next.Read(b); err != io.EOF {
		t.Errorf("read after the input ended: %v", err)
	}
}

type sender chan tea.Msg

func (s sender) Send(m tea.Msg) { s <- m }

// A resize reaches the program drawing now, clamped; the environment is
// the session's, the last value sent winning.
func TestResizeAndEnv(t *testing.T) {
	in, keys := io.Pipe()
	defer keys.Close()
	term := New(in, io.Discard, []string{"TERM=xterm", "NO_COLOR=", "TERM=xterm-256color"}, 0, 0)
	defer term.Close()
	if w, h := term.Size(); w != 80 || h != 24 {
		t.Errorf("no size sent: %dx%d, want 80x24", w, h)
	}
	if v := term.Getenv("TERM"); v != "xterm-256color" {
		t.Errorf("TERM %q", v)
	}
	if v, ok := term.LookupEnv("NO_COLOR"); !ok || v != "" {
		t.Errorf("NO_COLOR %q %v: set, empty", v, ok)
	}
	p := make(sender, 1)
	detach := term.Attach(p, 80, 24)
	go term.Resize(100000, 50)
	if m := <-p; m != (tea.WindowSizeMsg{Width: MaxWidth, Height: 50}) {
		t.Errorf("resize: %#v", m)
	}
	detach()
	term.Resize(90, 30) // no program now: only kept
	if w, h := term.Size(); w != 90 || h != 30 {
		t.Errorf("size %dx%d", w, h)
	}
	p2 := make(sender, 1)
	defer term.Attach(p2, 80, 24)() // started at the old size: told the new one
	if m := <-p2; m != (tea.WindowSizeMsg{Width: 90, Height: 30}) {
		t.Errorf("attached late: %#v", m)
	}
}

// A closed reader takes nothing more, not even what an earlier short
// read left: that is the next reader's.
func TestClosedKeysLeaveWhatIsLeft(t *testing.T) {
	in, keys := io.Pipe()
	defer keys.Close()
	term := New(in, io.Discard, nil, 80, 24)
	defer term.Close()
	first := term.Keys()
	go keys.Write([]byte("abc"))
	b := make([]byte, 1)
	if n, err := first.Read(b); err != nil || string(b[:n]) != "a" {
		t.Fatalf("first read %q %v", b[:n], err)
	}
	first.Close()
	if n, err := first.Read(b); err != io.EOF {
		t.Errorf("a closed reader read %q (%v), want EOF", b[:n], err)
	}
	next := term.Keys()
	defer next.Close()
	rest := make([]byte, 8)
	if n, err := next.Read(rest); err != nil || string(rest[:n]) != "bc" {
		t.Errorf("the next reader read %q (%v), want bc", rest[:n], err)
	}
}

// A key typed while no program reads (a screen still starting, or busy)
// is read from the session at once: it counts against the idle timeout
// then, not when a program gets round to it.
func TestKeysReadWhileNoProgramReads(t *testing.T) {
	in, keys := io.Pipe()
	term := New(in, io.Discard, nil, 80, 24)
	defer term.Close()
	before := term.LastKey()
	for i, key := range []string{"j", "k", "q"} {
		wrote := make(chan error, 1)
		go func() {
			_, err := keys.Write([]byte(key))
			wrote <- err
		}()
		select {
		case err := <-wrote:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("key %d of 3 was never read from the session while no program read", i+1)
		}
	}
	if !term.LastKey().After(before) {
		t.Fatal("the keys read did not count as keys")
	}
	r := term.Keys()
	defer r.Close()
	got := ""
	for len(got) < 3 {
		b := make([]byte, 8)
		n, err := r.Read(b)
		if err != nil {
			t.Fatal(err)
		}
		got += string(b[:n])
	}
	if got != "jkq" {
		t.Fatalf("the program read %q, want the keys in order", got)
	}
}
