package cli

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
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/ui/screen"
)

// outputs are what a watch writes besides stderr: stdout, --record, --debug
// (and --summary, written at the end). The files are created only once
// every flag has been checked (a usage error leaves no file behind). The
// first failed write of each output is kept and reported once, on stderr
// and in the debug log; the exit code is then 8 unless the run's
// outcome says more (exitcode.go). A stdout that cannot be written any
// more (a closed pipe: firewatch ... | head -1) ends watching cleanly: the
// summary is still written.
type outputs struct {
	mu      sync.Mutex
	stderr  io.Writer
	debug   *debugLog
	defer_  bool // the terminal UI owns the screen: report at the end
	failed  []error
	pending []string // messages not yet shown (deferred)
	stop    context.CancelCauseFunc
	closers []func()
	// stdoutTTY: stdout is a terminal (newSession).
	stdoutTTY bool
}

// fail records the first failure of an output and says so once (stdout's
// when watching ends, in finish: it also ends watching).
func (o *outputs) fail(oe *outputError) {
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
	show := !o.defer_ && name != "stdout" // stdout's ends watching: the end message says it
	if !show && name != "stdout" {
		o.pending = append(o.pending, msg)
	}
	stop := o.stop
	o.mu.Unlock()
	if name != "--debug" { // the debug log's own failure: its Printf holds its lock
		o.debug.Printf("%s", msg)
	}
	if show {
		fmt.Fprintf(o.stderr, "firewatch: %s\n", msg)
	}
	if name == "stdout" && stop != nil {
		stop(oe)
	}
}

// all is every output that failed.
func (o *outputs) all() []*outputError {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]*outputError, 0, len(o.failed))
	for _, f := range o.failed {
		out = append(out, f.(*outputError))
	}
	return out
}

// failure is the first failure of any output, nil when all went well.
func (o *outputs) failure() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.failed) == 0 {
		return nil
	}
	return o.failed[0]
}

// flush shows the messages kept while the terminal UI had the screen.
func (o *outputs) flush() {
	o.mu.Lock()
	p := o.pending
	o.pending = nil
	o.mu.Unlock()
	for _, msg := range p {
		fmt.Fprintf(o.stderr, "firewatch: %s\n", msg)
	}
}

// guard is an output's writer: after its first failure it writes nothing
// more and returns that error.
type guard struct {
	mu   sync.Mutex
	name string
	w    io.Writer
	o    *outputs
	err  error
}

func (g *guard) Write(b []byte) (int, error) {
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
	if err != nil {
		err = &outputError{Name: g.name, Err: err}
	}
	g.err = err
	g.mu.Unlock()
	if err != nil {
		g.o.fail(err.(*outputError))
	}
	return n, err
}

// guarded wraps w as the output name.
func (o *outputs) guarded(name string, w io.Writer) *guard {
	return &guard{name: name, w: w, o: o}
}

// guardedFile is a created output file, closed at cleanup; a failed close
// (the last data not written) is a failed write too.
type guardedFile struct {
	*guard
	f *os.File
}

func (g guardedFile) Close() error {
	err := g.f.Close()
	if err != nil {
		g.mu.Lock()
		first := g.err == nil
		oe := &outputError{Name: g.name, Err: err}
		g.err = oe
		g.mu.Unlock()
		if first {
			g.o.fail(oe)
		}
	}
	return err
}

// create creates the output file of flag (--record, --debug), now that
// usage is valid.
func (o *outputs) create(flag, path string) (guardedFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return guardedFile{}, badUsage("%s: %v", flag, err)
	}
	g := guardedFile{guard: o.guarded(flag, f), f: f}
	o.closers = append(o.closers, func() { _ = g.Close() })
	return g, nil
}

// close closes the files created, last first.
func (o *outputs) close() {
	for i := len(o.closers) - 1; i >= 0; i-- {
		o.closers[i]()
	}
	o.closers = nil
}

// checkWritable says, without creating or changing anything, whether path
// can be written: the file exists and opens for writing, or its directory
// exists and is writable. A usage error otherwise.
func checkWritable(flag, path string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return badUsage("%s %q: it is a directory", flag, path)
	case err == nil:
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return badUsage("%s: %v", flag, err)
		}
		_ = f.Close()
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return badUsage("%s: %v", flag, err)
	}
	dir := filepath.Dir(path)
	di, err := os.Stat(dir)
	if err != nil {
		return badUsage("%s %q: %v", flag, path, err)
	}
	if !di.IsDir() {
		return badUsage("%s %q: %s is not a directory", flag, path, dir)
	}
	if err := canCreateIn(dir); err != nil {
		return badUsage("%s %q: cannot create a file in %s: %v", flag, path, dir, err)
	}
	return nil
}

// checkOutputs checks every output flag of o before anything is created.
func checkOutputs(o *watchOptions) error {
	for _, f := range []struct{ flag, path string }{{"--debug", o.Debug}, {"--record", o.Record}, {"--summary", o.Summary}, {"--result", o.Result}} {
		if f.path == "" || f.path == "-" && (f.flag == "--summary" || f.flag == "--result") {
			continue
		}
		if err := checkWritable(f.flag, f.path); err != nil {
			return err
		}
	}
	return nil
}

// checkTUI refuses the terminal UI without a terminal to draw on and read
// keys from, before Bubble Tea would fail with its own words.
func checkTUI(stdin io.Reader, stdoutTerminal bool) error {
	if !stdoutTerminal {
		return badUsage("--output tui needs a terminal, and stdout is not one; use --output plain or --output json")
	}
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(f.Fd()) {
		return nil
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return badUsage("--output tui needs a terminal to read keys from: stdin is not one and /dev/tty cannot be opened; use --output plain or --output json")
	}
	_ = tty.Close()
	return nil
}

// context is ctx, ended (cause: the *outputError) when stdout fails.
func (o *outputs) context(ctx context.Context) (context.Context, context.CancelCauseFunc) {
	ctx, stop := context.WithCancelCause(ctx)
	o.mu.Lock()
	o.stop = stop
	o.mu.Unlock()
	return ctx, stop
}

// finish closes the output files (a failed close is a failed write), shows
// what was kept while the UI had the screen, and turns the watch's result
// err into the exit code outputCode says.
func (o *outputs) finish(_ *watchSession, err error) error {
	o.close()
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
			fmt.Fprintf(o.stderr, "firewatch: %s; watching stopped\n", f)
		}
	}
	return &exitcode.OutputsFailed{Err: err}
}

// terminalGone reports whether the only output that failed is stdout on a
// terminal, in a watch a signal ended: the terminal went away (SIGHUP, the
// window closed or the SSH session dropped) and took the last writes with
// it. That is the interrupt's 130, not a full disk's 8, and there is no
// terminal left to say it on.
func (o *outputs) terminalGone(err error) bool {
	var we *exitcode.WatchEnd
	if !o.stdoutTTY || !errors.As(err, &we) || !errors.As(we.Err, new(*interruptedError)) {
		return false
	}
	for _, f := range o.all() {
		if f.Name != "stdout" {
			return false
		}
	}
	return true
}

// checkSpeed checks demo's and serve's --speed against what the simulator
// accepts (exit 2 rather than the simulator's refusal, exit 1).
func checkSpeed(v float64) error {
	if !(v >= sim.MinSpeed && v <= sim.MaxSpeed) { // NaN too
		return badUsage("--speed %v: it must be from %v to %v", v, sim.MinSpeed, sim.MaxSpeed)
	}
	return nil
}

// writeGuard writes through to w and keeps the first error.
type writeGuard struct {
	w   io.Writer
	mu  sync.Mutex
	err error
}

func (g *writeGuard) Write(b []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		// Nothing after a failed write: an answer with a hole in it is
		// worse than one cut short.
		return 0, g.err
	}
	n, err := g.w.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	g.err = err
	return n, err
}

// failed is the first write error, nil when none.
func (g *writeGuard) failed() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// screenStreams are where a watch's and the compare screen's program
// read and draw outside a hub: the command's stdout, and its stdin when
// that is a terminal (else nil: Bubble Tea opens /dev/tty, as checkTUI
// allows). They are the process's in firewatch itself, a test's
// pseudo-terminal in a test.
func (a *app) screenStreams() screen.Streams {
	s := screen.Streams{Output: a.stdout}
	if f, ok := a.stdin.(*os.File); ok && term.IsTerminal(f.Fd()) {
		s.Input = f
	}
	return s
}
