// Package exitcode chooses firewatch's exit codes. Commands return errors
// that say what happened (bad usage, a refusal, an interrupt, how a watch
// ended, a failed write); Code alone turns them into the code.
package exitcode

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// Exit codes: a contract with scripts (also a table in the README).
const (
	OK          = 0   // the run succeeded, or a command other than watching succeeded
	Failed      = 1   // the run failed (or ended with an outcome firewatch does not know); firewatch itself failed
	Usage       = 2   // bad usage: unknown flag, bad flag value, an id that is not a UUID, an unreadable file, no key
	Cancelled   = 3   // the run was cancelled
	Refused     = 4   // the run was refused
	CreditLimit = 5   // the run hit its credit limit
	Rejected    = 6   // the service refused the request: a 4xx (a 429 still there after the retries), or a follow-up it will not take
	Timeout     = 7   // --timeout passed before the run finished
	Output      = 8   // an output could not be written (stdout closed, --record, --summary or --debug failing, e.g. a full disk)
	Killed      = 124 // a one-shot interact call killed by its --timeout (like timeout(1))
	Interrupted = 130 // interrupted (SIGINT, SIGTERM, SIGHUP, quitting the UI) before the run finished
)

// OutcomeCode is the exit code of a finished run's outcome. An outcome value
// the spec does not name counts as a failure: the run did not succeed as far
// as firewatch can tell.
func OutcomeCode(o model.Outcome) int {
	if code, ok := outcomeCodes[o]; ok {
		return code
	}
	return Failed
}

var outcomeCodes = map[model.Outcome]int{
	model.OutcomeSucceeded:          OK,
	model.OutcomeFailed:             Failed,
	model.OutcomeCancelled:          Cancelled,
	model.OutcomeRefused:            Refused,
	model.OutcomeCreditLimitReached: CreditLimit,
}

// UsageError is bad usage: a flag, an argument, a file or a key.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// BadUsage is a usage error with a message.
func BadUsage(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// AsUsage marks err (a bad id, an unreadable file, a key that cannot be
// sent) as bad usage.
func AsUsage(err error) error { return &UsageError{err} }

// Failure is firewatch failing at what it was asked to do (the network,
// the service, a file it reads): everything a command returns that is not
// one of the other kinds.
type Failure struct{ Err error }

func (e *Failure) Error() string { return e.Err.Error() }
func (e *Failure) Unwrap() error { return e.Err }

// InterruptedError ends a command early at the user's word: a signal
// (SIGINT, SIGTERM, SIGHUP) or quitting the terminal UI.
type InterruptedError struct{ Why string }

func (e *InterruptedError) Error() string { return e.Why }

var (
	// ErrInterrupted is the context cause on SIGINT, SIGTERM or SIGHUP.
	ErrInterrupted error = &InterruptedError{"interrupted"}
	// ErrQuit is what the terminal UI returns when the user quits it.
	ErrQuit error = &InterruptedError{"quit"}
)

// ErrTimeout is the context cause when --timeout passes.
var ErrTimeout = errors.New("--timeout passed")

// OutputError is the failure of an output (stdout, --record, a file).
type OutputError struct {
	Name string
	Err  error
}

func (e *OutputError) Error() string {
	msg := e.Err.Error()
	if errors.Is(e.Err, syscall.EPIPE) {
		msg = "the reader went away (closed pipe)"
	}
	return fmt.Sprintf("%s: cannot write: %s", e.Name, msg)
}

func (e *OutputError) Unwrap() error { return e.Err }

// ThreadError is a follow-up the service refused for its thread: the words
// say why and what to do; its code is Rejected (the service refused).
type ThreadError struct {
	Msg string
	Err *poller.Error
}

func (e *ThreadError) Error() string { return e.Msg }
func (e *ThreadError) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}

// WatchEnd is how a watch ended, once everything about it was said: the
// run (finished or not, and its outcome), the error that stopped watching
// (nil: the source ended) and an output that failed (--summary, stdout).
type WatchEnd struct {
	Run    *model.Run
	Err    error
	Output error
}

func (e *WatchEnd) Error() string { return fmt.Sprintf("exit status %d", Code(e)) }

// CrawlEnd is how a crawl watch ended (crawl, demo --crawl): the crawl's
// last status ("" when none came), the error that stopped watching (nil:
// the crawl ended; ErrTimeout, an interrupt, a refusal) and an output that
// failed (stdout, --pages-dir, --summary; already said).
type CrawlEnd struct {
	Status string
	Err    error
	Output error
}

func (e *CrawlEnd) Error() string {
	switch {
	case errors.Is(e.Err, ErrTimeout):
		return "--timeout passed before the crawl ended; it goes on (firewatch crawl ID watches it again)"
	case e.Err != nil:
		return e.Err.Error()
	}
	return fmt.Sprintf("exit status %d", Code(e))
}

// OrNil is nil for a crawl that completed with every output written.
func (e *CrawlEnd) OrNil() error {
	if Code(e) == OK {
		return nil
	}
	return e
}

// InteractEnd is the end of a one-shot interact call, its answer printed.
type InteractEnd struct{ Res *poller.InteractResult }

func (e *InteractEnd) Error() string { return fmt.Sprintf("exit status %d", Code(e)) }

// NoResult is firewatch result without a result (why was said on
// stderr): the code is the run's outcome's, 1 when that is not known.
type NoResult struct{ Code int }

func (e *NoResult) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// OutputsFailed is err (a command's result) with an output that could not
// be written, already said on stderr.
type OutputsFailed struct{ Err error }

func (e *OutputsFailed) Error() string { return fmt.Sprintf("exit status %d", Code(e)) }

// ThresholdCrossed is a comparison that crossed --fail-on thresholds
// (compare, said on stderr): the regression gate's exit 1.
type ThresholdCrossed struct{ Names []string }

func (e *ThresholdCrossed) Error() string { return "crossed " + strings.Join(e.Names, ", ") }

// GateError is a regression gate's failure other than a crossed threshold
// (an unreadable file or archive, the service, the network): its code is
// never 1, which a script reads as "crossed".
type GateError struct{ Err error }

func (e *GateError) Error() string { return e.Err.Error() }
func (e *GateError) Unwrap() error { return e.Err }

// GateErr marks compare's error as a gate's: nil and a crossed threshold
// stay as they are.
func GateErr(err error) error {
	if err == nil || errors.As(err, new(*ThresholdCrossed)) {
		return err
	}
	return &GateError{err}
}

// Said reports whether everything about err was already said: Execute
// prints no message for it.
func Said(err error) bool {
	var ce *CrawlEnd
	if errors.As(err, &ce) && ce.Err != nil && !errors.As(ce.Err, new(*InterruptedError)) && !errors.Is(ce.Err, context.Canceled) {
		return false // the error that stopped watching is not said yet
	}
	return ce != nil || errors.As(err, new(*WatchEnd)) || errors.As(err, new(*InteractEnd)) ||
		errors.As(err, new(*OutputsFailed)) || errors.As(err, new(*InterruptedError)) ||
		errors.As(err, new(*ThresholdCrossed)) || errors.As(err, new(*NoResult)) ||
		errors.Is(err, context.Canceled)
}

// Ours reports whether err is one of firewatch's kinds; cobra's own errors
// (an unknown command, arguments of a subcommand) are not, and are usage
// errors.
func Ours(err error) bool {
	return Said(err) || errors.As(err, new(*CrawlEnd)) || errors.As(err, new(*GateError)) || errors.As(err, new(*UsageError)) || errors.As(err, new(*Failure)) ||
		errors.As(err, new(*OutputError)) || errors.As(err, new(*poller.Error))
}

// Code is the exit code for an error returned by a command.
func Code(err error) int {
	var (
		we *WatchEnd
		ie *InteractEnd
		ce *CrawlEnd
		of *OutputsFailed
		pe *poller.Error
		ge *GateError
	)
	var nr *NoResult
	switch {
	case err == nil:
		return OK
	case errors.As(err, new(*ThresholdCrossed)):
		return Failed
	case errors.As(err, &nr):
		return nr.Code
	case errors.As(err, &ge):
		// Usage, an unreadable or newer archive or file, a 5xx or the
		// network: 2; the service refusing an id keeps its 6, an
		// interrupt its 130.
		if c := Code(ge.Err); c != Failed {
			return c
		}
		return Usage
	case errors.As(err, &we):
		return outputCode(WatchCode(we.Run, we.Err), we.Output)
	case errors.As(err, &ie):
		return interactCode(ie.Res)
	case errors.As(err, &ce):
		return outputCode(crawlCode(ce.Status, ce.Err), ce.Output)
	case errors.As(err, &of):
		return outputCode(Code(of.Err), of)
	case errors.As(err, new(*UsageError)):
		return Usage
	case errors.As(err, new(*OutputError)):
		return Output
	case errors.As(err, new(*InterruptedError)), errors.Is(err, context.Canceled):
		return Interrupted
	case errors.Is(err, ErrTimeout):
		return Timeout
	case errors.As(err, new(*ThreadError)):
		return Rejected // the service refused the follow-up (its 503 threads_disabled too)
	case errors.As(err, &pe):
		return serviceCode(pe)
	case errors.As(err, new(*Failure)):
		return Failed
	}
	// Errors from cobra itself (unknown command or flag, wrong number of
	// arguments, a flag value that does not parse) are usage errors.
	return Usage
}

// serviceCode is the code of a failed call: 2 for an id refused before any
// request, 6 when the service refused the request (a 4xx, a 429 still there
// after the retries included), 1 otherwise (a 5xx, the network).
func serviceCode(pe *poller.Error) int {
	switch {
	case pe.Kind == poller.KindInvalidID && pe.Status == 0:
		return Usage
	case pe.Refusal(), pe.Status >= 400 && pe.Status < 500 && pe.Kind != poller.KindTimeout:
		return Rejected
	}
	return Failed
}

// WatchCode maps how watching ended to the exit code. A run that finished
// has its outcome's code however watching ended (an interrupt or the
// timeout during the tail window included).
func WatchCode(r *model.Run, endErr error) int {
	var pe *poller.Error
	if errors.As(endErr, &pe) && pe.Refusal() {
		return Rejected
	}
	if r.State == model.StateFinished {
		return OutcomeCode(r.Outcome)
	}
	switch {
	case endErr == nil:
		// The source ended without the run finishing: a recording that
		// stops early. The outcome is unknown.
		return Failed
	case errors.Is(endErr, ErrTimeout):
		return Timeout
	case errors.As(endErr, new(*InterruptedError)), errors.Is(endErr, context.Canceled):
		return Interrupted
	case errors.As(endErr, new(*UsageError)):
		return Usage // a replay's file that cannot be read
	case errors.As(endErr, new(*OutputError)):
		return Output // stdout failed
	}
	return Failed
}

// outputCode is the exit code once an output failed: Output when the
// run succeeded or watching stopped without an outcome (code 0 or the
// interrupt's 130), else the run's own code, which says more.
func outputCode(code int, failure error) int {
	if failure != nil && (code == OK || code == Interrupted) {
		return Output
	}
	return code
}

// crawlCode maps how a crawl watch ended to the exit code: the README's
// table with "run" read as "crawl". A crawl that ended has its status's
// code however watching ended.
func crawlCode(status string, endErr error) int {
	switch strings.ToLower(status) {
	case "completed":
		return OK
	case "cancelled", "canceled":
		return Cancelled
	case "failed":
		return Failed
	}
	var pe *poller.Error
	switch {
	case errors.Is(endErr, ErrTimeout):
		return Timeout
	case errors.As(endErr, new(*InterruptedError)), errors.Is(endErr, context.Canceled):
		return Interrupted
	case errors.As(endErr, &pe):
		return serviceCode(pe) // 6 for a refusal or a 429 after the retries
	}
	return Failed
}

// interactCode is the exit code of a call: 124 killed, 1 an exception,
// else the code's own (0 when none was sent; 1 when it does not fit).
func interactCode(res *poller.InteractResult) int {
	switch {
	case res.Killed:
		return Killed
	case res.Error != "":
		return Failed
	case res.ExitCode == nil:
		return OK
	case *res.ExitCode < 0 || *res.ExitCode > 255:
		return Failed
	}
	return *res.ExitCode
}
