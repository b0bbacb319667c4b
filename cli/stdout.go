package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// stdoutWriter is every command's stdout. It keeps the first failed write
// (a full disk, a closed pipe) as an *outputError, writes nothing after
// it, and returns it to every later write, so that whatever a command
// writes and however it treats the error, settle turns a lost output into
// exit 8.
type stdoutWriter struct {
	w   io.Writer
	mu  sync.Mutex
	err error
}

func (s *stdoutWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		s.err = &outputError{name: "stdout", err: err}
		return n, s.err
	}
	return n, nil
}

// failed is the first failed write, nil when every write went through.
func (s *stdoutWriter) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// settle is a command's result err once what happened around it is
// known: an interrupt (SIGINT, SIGTERM, SIGHUP) that ended a request is
// the interrupt (exit 130), not the request's "context canceled"; a
// stdout that could not be written is said once and is exit 8 unless the
// result says more (outputCode).
func (a *app) settle(ctx context.Context, err error) error {
	var ie *interruptedError
	if err != nil && errors.As(context.Cause(ctx), &ie) && !said(err) && !errors.As(err, new(*usageError)) &&
		!errors.As(err, new(*outputError)) {
		err = ie
	}
	out, ok := a.stdout.(*stdoutWriter)
	if !ok {
		return err
	}
	fail := out.failed()
	if fail == nil || errors.As(err, new(*watchEnd)) || errors.As(err, new(*outputsFailed)) {
		// A watch reports its own outputs (outputs.finish).
		return err
	}
	if errors.As(err, new(*outputError)) {
		return err // said by execute
	}
	fmt.Fprintf(a.stderr, "firewatch: %s\n", fail)
	if err == nil {
		return &outputsFailed{fail}
	}
	return &outputsFailed{err}
}

// screen is the stdout a full-screen program draws on: the process's own
// (a terminal is found by its type), not the guard around it.
func (a *app) screen() io.Writer {
	if s, ok := a.stdout.(*stdoutWriter); ok {
		return s.w
	}
	return a.stdout
}
