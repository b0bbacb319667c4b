package program

import (
	"io"
	"os"
	"sync"
)

// Guard is out (the process's stdout when nil) with its first failed
// write kept: a screen whose output cannot be written (a full disk, a
// closed terminal) ends with that error for the exit code (8), instead of
// drawing into nothing. A terminal stays one for Bubble Tea: the *os.File
// is embedded, so its descriptor (size, raw mode, colours) is still seen.
func Guard(out io.Writer) (io.Writer, func() error) {
	if out == nil {
		out = os.Stdout
	}
	g := &guard{}
	if f, ok := out.(*os.File); ok {
		return &fileGuard{f, g}, g.failed
	}
	return &writerGuard{out, g}, g.failed
}

type guard struct {
	mu  sync.Mutex
	err error
}

func (g *guard) keep(err error) {
	if err == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err == nil {
		g.err = err
	}
}

func (g *guard) failed() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

type fileGuard struct {
	*os.File
	g *guard
}

func (f *fileGuard) Write(b []byte) (int, error) {
	n, err := f.File.Write(b)
	f.g.keep(err)
	return n, err
}

type writerGuard struct {
	io.Writer
	g *guard
}

func (w *writerGuard) Write(b []byte) (int, error) {
	n, err := w.Writer.Write(b)
	w.g.keep(err)
	return n, err
}
