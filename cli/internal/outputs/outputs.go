// Package outputs guards what a watch writes besides stderr: stdout,
// --record, --debug (and --summary, written at the end). The files are
// created only once every flag has been checked (a usage error leaves no
// file behind). The first failed write of each output is kept and reported
// once, on stderr and in the debug log; the exit code is then 8 unless the
// run's outcome says more (package exitcode). A stdout that cannot be
// written any more (a closed pipe: firewatch ... | head -1) ends watching
// cleanly: the summary is still written.
package outputs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/charmbracelet/x/term"

	"github.com/firewatch/firewatch/cli/internal/exitcode"
)

// Logger is the watch's debug log (a nil *debugLog discards).
type Logger interface {
	Printf(format string, args ...any)
}

// Outputs are one watch's outputs.
type Outputs struct {
	// Stderr is where failures are said.
	Stderr io.Writer
	// Debug is the watch's debug log, once it is open (nil: none).
	Debug Logger
	// Defer: the terminal UI owns the screen; failures are said at the end.
	Defer bool
	// StdoutTTY: stdout is a terminal.
	StdoutTTY bool

	mu      sync.Mutex
	failed  []*exitcode.OutputError
	pending []string // messages not yet shown (deferred)
	stop    context.CancelCauseFunc
	closers []func()
}

func (o *Outputs) debugf(format string, args ...any) {
	if o.Debug != nil {
		o.Debug.Printf(format, args...)
	}
}

// fail records the first failure of an output and says so once (stdout's
// when watching ends, in Finish: it also ends watching).
func (o *Outputs) fail(oe *exitcode.OutputError) {
	name := oe.Name
	o.mu.Lock()
	o.failed = append(o.failed, oe)
	msg := oe.Error()
	switch name {
	case "--record":
		msg += "; the recording stops here"
	case "--debug":
		msg += "; the debug log stops here"
	}
	show := !o.Defer && name != "stdout" // stdout's ends watching: the end message says it
	if !show && name != "stdout" {
		o.pending = append(o.pending, msg)
	}
	stop := o.stop
	o.mu.Unlock()
	if name != "--debug" { // the debug log's own failure: its Printf holds its lock
		o.debugf("%s", msg)
	}
	if show {
		fmt.Fprintf(o.Stderr, "firewatch: %s\n", msg)
	}
	if name == "stdout" && stop != nil {
		stop(oe)
	}
}

// all is every output that failed.
func (o *Outputs) all() []*exitcode.OutputError {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]*exitcode.OutputError(nil), o.failed...)
}

// failure is the first failure of any output, nil when all went well.
func (o *Outputs) failure() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.failed) == 0 {
		return nil
	}
	return o.failed[0]
}

// flush shows the messages kept while the terminal UI had the screen.
func (o *Outputs) flush() {
	o.mu.Lock()
	p := o.pending
	o.pending = nil
	o.mu.Unlock()
	for _, msg := range p {
		fmt.Fprintf(o.Stderr, "firewatch: %s\n", msg)
	}
}

// Guard is an output's writer: after its first failure it writes nothing
// more and returns that error.
type Guard struct {
	mu   sync.Mutex
	name string
	w    io.Writer
	o    *Outputs
	err  error
}

func (g *Guard) Write(b []byte) (int, error) {
	g.mu.Lock()
	if g.err != nil {
		err := g.err
		g.mu.Unlock()
		return 0, err
	}
	n, err := g.w.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	var oe *exitcode.OutputError
	if err != nil {
		oe = &exitcode.OutputError{Name: g.name, Err: err}
		g.err = oe
	}
	g.mu.Unlock()
	if oe != nil {
		g.o.fail(oe)
		return n, oe
	}
	return n, nil
}

// Guarded wraps w as the output name.
func (o *Outputs) Guarded(name string, w io.Writer) *Guard {
	return &Guard{name: name, w: w, o: o}
}

// File is a created output file, closed at cleanup; a failed close
// (the last data not written) is a failed write too.
type File struct {
	*Guard
	f *os.File
}

func (g File) Close() error {
	err := g.f.Close()
	if err != nil {
		g.mu.Lock()
		first := g.err == nil
		oe := &exitcode.OutputError{Name: g.name, Err: err}
		g.err = oe
		g.mu.Unlock()
		if first {
			g.o.fail(oe)
		}
	}
	return err
}

// Create creates the output file of flag (--record, --debug), now that
// usage is valid.
func (o *Outputs) Create(flag, path string) (File, error) {
	f, err := os.Create(path)
	if err != nil {
		return File{}, exitcode.BadUsage("%s: %v", flag, err)
	}
	g := File{Guard: o.Guarded(flag, f), f: f}
	o.closers = append(o.closers, func() { _ = g.Close() })
	return g, nil
}

// Close closes the files created, last first.
func (o *Outputs) Close() {
	for i := len(o.closers) - 1; i >= 0; i-- {
		o.closers[i]()
	}
	o.closers = nil
}

// CheckWritable says, without creating or changing anything, whether path
// can be written: the file exists and opens for writing, or its directory
// exists and is writable. A usage error otherwise.
func CheckWritable(flag, path string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return exitcode.BadUsage("%s %q: it is a directory", flag, path)
	case err == nil:
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return exitcode.BadUsage("%s: %v", flag, err)
		}
		_ = f.Close()
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return exitcode.BadUsage("%s: %v", flag, err)
	}
	dir := filepath.Dir(path)
	di, err := os.Stat(dir)
	if err != nil {
		return exitcode.BadUsage("%s %q: %v", flag, path, err)
	}
	if !di.IsDir() {
		return exitcode.BadUsage("%s %q: %s is not a directory", flag, path, dir)
	}
	if err := CanCreateIn(dir); err != nil {
		return exitcode.BadUsage("%s %q: cannot create a file in %s: %v", flag, path, dir, err)
	}
	return nil
}

// CheckTUI refuses the terminal UI without a terminal to draw on and read
// keys from, before Bubble Tea would fail with its own words.
func CheckTUI(stdin io.Reader, stdoutTerminal bool) error {
	if !stdoutTerminal {
		return exitcode.BadUsage("--output tui needs a terminal, and stdout is not one; use --output plain or --output json")
	}
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(f.Fd()) {
		return nil
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return exitcode.BadUsage("--output tui needs a terminal to read keys from: stdin is not one and /dev/tty cannot be opened; use --output plain or --output json")
	}
	_ = tty.Close()
	return nil
}

// Context is ctx, ended (cause: the *exitcode.OutputError) when stdout
// fails.
func (o *Outputs) Context(ctx context.Context) (context.Context, context.CancelCauseFunc) {
	ctx, stop := context.WithCancelCause(ctx)
	o.mu.Lock()
	o.stop = stop
	o.mu.Unlock()
	return ctx, stop
}

// Finish closes the output files (a failed close is a failed write), shows
// what was kept while the UI had the screen, and turns the watch's result
// err into the exit code exitcode gives an output that failed.
func (o *Outputs) Finish(err error) error {
	o.Close()
	o.flush()
	fail := o.failure()
	if fail == nil {
		return err
	}
	if o.terminalGone(err) {
		return err
	}
	for _, f := range o.all() {
		if f.Name == "stdout" {
			// Said here, once: the end message leaves it out.
			fmt.Fprintf(o.Stderr, "firewatch: %s; watching stopped\n", f)
		}
	}
	return &exitcode.OutputsFailed{Err: err}
}

// terminalGone reports whether the only output that failed is stdout on a
// terminal, in a watch a signal ended: the terminal went away (SIGHUP, the
// window closed or the SSH session dropped) and took the last writes with
// it. That is the interrupt's 130, not a full disk's 8, and there is no
// terminal left to say it on.
func (o *Outputs) terminalGone(err error) bool {
	var we *exitcode.WatchEnd
	if !o.StdoutTTY || !errors.As(err, &we) || !errors.As(we.Err, new(*exitcode.InterruptedError)) {
		return false
	}
	for _, f := range o.all() {
		if f.Name != "stdout" {
			return false
		}
	}
	return true
}

// WriteGuard writes through to W and keeps the first error.
type WriteGuard struct {
	W   io.Writer
	mu  sync.Mutex
	err error
}

func (g *WriteGuard) Write(b []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		// Nothing after a failed write: an answer with a hole in it is
		// worse than one cut short.
		return 0, g.err
	}
	n, err := g.W.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	g.err = err
	return n, err
}

// Failed is the first write error, nil when none.
func (g *WriteGuard) Failed() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}
