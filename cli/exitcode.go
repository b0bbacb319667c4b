package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// Every exit code is chosen in this file. Commands return errors that say
// what happened (bad usage, a refusal, an interrupt, how a watch ended, a
// failed write); codeOf alone turns them into the code.

// Exit codes: a contract with scripts (also a table in the README).
const (
	ExitOK          = 0   // the run succeeded, or a command other than watching succeeded
	ExitFailed      = 1   // the run failed (or ended with an outcome firewatch does not know); firewatch itself failed
	ExitUsage       = 2   // bad usage: unknown flag, bad flag value, an id that is not a UUID, an unreadable file, no key
	ExitCancelled   = 3   // the run was cancelled
	ExitRefused     = 4   // the run was refused
	ExitCreditLimit = 5   // the run hit its credit limit
	ExitRejected    = 6   // the service refused the request: a 4xx (a 429 still there after the retries), or a follow-up it will not take
	ExitTimeout     = 7   // --timeout passed before the run finished
	ExitOutput      = 8   // an output could not be written (stdout closed, --record, --summary or --debug failing, e.g. a full disk)
	ExitKilled      = 124 // a one-shot interact call killed by its --timeout (like timeout(1))
	ExitInterrupted = 130 // interrupted (SIGINT, SIGTERM, SIGHUP, quitting the UI) before the run finished
)

// OutcomeCode is the exit code of a finished run's outcome. An outcome value
// the spec does not name counts as a failure: the run did not succeed as far
// as firewatch can tell.
func OutcomeCode(o model.Outcome) int {
	if code, ok := outcomeCodes[o]; ok {
		return code
	}
	return ExitFailed
}

var outcomeCodes = map[model.Outcome]int{
	model.OutcomeSucceeded:          ExitOK,
	model.OutcomeFailed:             ExitFailed,
	model.OutcomeCancelled:          ExitCancelled,
	model.OutcomeRefused:            ExitRefused,
	model.OutcomeCreditLimitReached: ExitCreditLimit,
}

// usageError is bad usage: a flag, an argument, a file or a key.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// badUsage is a usage error with a message.
func badUsage(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// asUsage marks err (a bad id, an unreadable file, a key that cannot be
// sent) as bad usage.
func asUsage(err error) error { return &usageError{err} }

// failure is firewatch failing at what it was asked to do (the network,
// the service, a file it reads): everything a command returns that is not
// one of the other kinds.
type failure struct{ err error }

func (e *failure) Error() string { return e.err.Error() }
func (e *failure) Unwrap() error { return e.err }

// interruptedError ends a command early at the user's word: a signal
// (SIGINT, SIGTERM, SIGHUP) or quitting the terminal UI.
type interruptedError struct{ why string }

func (e *interruptedError) Error() string { return e.why }

var (
	// errInterrupted is the context cause on SIGINT, SIGTERM or SIGHUP.
	errInterrupted error = &interruptedError{"interrupted"}
	// errQuit is what the terminal UI returns when the user quits it.
	errQuit error = &interruptedError{"quit"}
)

// errTimeout is the context cause when --timeout passes.
var errTimeout = errors.New("--timeout passed")

// watchEnd is how a watch ended, once everything about it was said: the
// run (finished or not, and its outcome), the error that stopped watching
// (nil: the source ended) and an output that failed (--summary, stdout).
type watchEnd struct {
	run    *model.Run
	err    error
	output error
}

func (e *watchEnd) Error() string { return fmt.Sprintf("exit status %d", codeOf(e)) }

// crawlEnd is how a crawl watch ended (crawl, demo --crawl): the crawl's
// last status ("" when none came), the error that stopped watching (nil:
// the crawl ended; errTimeout, an interrupt, a refusal) and an output that
// failed (stdout, --pages-dir, --summary; already said).
type crawlEnd struct {
	status string
	err    error
	output error
}

func (e *crawlEnd) Error() string {
	switch {
	case errors.Is(e.err, errTimeout):
		return "--timeout passed before the crawl ended; it goes on (firewatch crawl ID watches it again)"
	case e.err != nil:
		return e.err.Error()
	}
	return fmt.Sprintf("exit status %d", codeOf(e))
}

// orNil is nil for a crawl that completed with every output written.
func (e *crawlEnd) orNil() error {
	if codeOf(e) == ExitOK {
		return nil
	}
	return e
}

// interactEnd is the end of a one-shot interact call, its answer printed.
type interactEnd struct{ res *poller.InteractResult }

func (e *interactEnd) Error() string { return fmt.Sprintf("exit status %d", codeOf(e)) }

// noResultError is firewatch result without a result (why was said on
// stderr): the code is the run's outcome's, 1 when that is not known.
type noResultError struct{ code int }

func (e *noResultError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// outputsFailed is err (a command's result) with an output that could not
// be written, already said on stderr.
type outputsFailed struct{ err error }

func (e *outputsFailed) Error() string { return fmt.Sprintf("exit status %d", codeOf(e)) }

// thresholdCrossed is a comparison that crossed --fail-on thresholds
// (compare, said on stderr): the regression gate's exit 1.
type thresholdCrossed struct{ names []string }

func (e *thresholdCrossed) Error() string { return "crossed " + strings.Join(e.names, ", ") }

// gateError is a regression gate's failure other than a crossed threshold
// (an unreadable file or archive, the service, the network): its code is
// never 1, which a script reads as "crossed".
type gateError struct{ err error }

func (e *gateError) Error() string { return e.err.Error() }
func (e *gateError) Unwrap() error { return e.err }

// gateErr marks compare's error as a gate's: nil and a crossed threshold
// stay as they are.
func gateErr(err error) error {
	if err == nil || errors.As(err, new(*thresholdCrossed)) {
		return err
	}
	return &gateError{err}
}

// said reports whether everything about err was already said: Execute
// prints no message for it.
func said(err error) bool {
	var ce *crawlEnd
	if errors.As(err, &ce) && ce.err != nil && !errors.As(ce.err, new(*interruptedError)) && !errors.Is(ce.err, context.Canceled) {
		return false // the error that stopped watching is not said yet
	}
	return ce != nil || errors.As(err, new(*watchEnd)) || errors.As(err, new(*interactEnd)) ||
		errors.As(err, new(*outputsFailed)) || errors.As(err, new(*interruptedError)) ||
		errors.As(err, new(*thresholdCrossed)) || errors.As(err, new(*noResultError)) ||
		errors.Is(err, context.Canceled)
}

// ours reports whether err is one of firewatch's kinds; cobra's own errors
// (an unknown command, arguments of a subcommand) are not, and are usage
// errors.
func ours(err error) bool {
	return said(err) || errors.As(err, new(*crawlEnd)) || errors.As(err, new(*gateError)) || errors.As(err, new(*usageError)) || errors.As(err, new(*failure)) ||
		errors.As(err, new(*outputError)) || errors.As(err, new(*poller.Error))
}

// codeOf is the exit code for an error returned by a command.
func codeOf(err error) int {
	var (
		we *watchEnd
		ie *interactEnd
		ce *crawlEnd
		of *outputsFailed
		pe *poller.Error
		ge *gateError
	)
	var nr *noResultError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, new(*thresholdCrossed)):
		return ExitFailed
	case errors.As(err, &nr):
		return nr.code
	case errors.As(err, &ge):
		// Usage, an unreadable or newer archive or file, a 5xx or the
		// network: 2; the service refusing an id keeps its 6, an
		// interrupt its 130.
		if c := codeOf(ge.err); c != ExitFailed {
			return c
		}
		return ExitUsage
	case errors.As(err, &we):
		return outputCode(watchCode(we.run, we.err), we.output)
	case errors.As(err, &ie):
		return interactCode(ie.res)
	case errors.As(err, &ce):
		return outputCode(crawlCode(ce.status, ce.err), ce.output)
	case errors.As(err, &of):
		return outputCode(codeOf(of.err), of)
	case errors.As(err, new(*usageError)):
		return ExitUsage
	case errors.As(err, new(*outputError)):
		return ExitOutput
	case errors.As(err, new(*interruptedError)), errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.Is(err, errTimeout):
		return ExitTimeout
	case errors.As(err, new(*threadError)):
		return ExitRejected // the service refused the follow-up (its 503 threads_disabled too)
	case errors.As(err, &pe):
		return serviceCode(pe)
	case errors.As(err, new(*failure)):
		return ExitFailed
	}
	// Errors from cobra itself (unknown command or flag, wrong number of
	// arguments, a flag value that does not parse) are usage errors.
	return ExitUsage
}

// serviceCode is the code of a failed call: 2 for an id refused before any
// request, 6 when the service refused the request (a 4xx, a 429 still there
// after the retries included), 1 otherwise (a 5xx, the network).
func serviceCode(pe *poller.Error) int {
	switch {
	case pe.Kind == poller.KindInvalidID && pe.Status == 0:
		return ExitUsage
	case pe.Refusal(), pe.Status >= 400 && pe.Status < 500 && pe.Kind != poller.KindTimeout:
		return ExitRejected
	}
	return ExitFailed
}

// watchCode maps how watching ended to the exit code. A run that finished
// has its outcome's code however watching ended (an interrupt or the
// timeout during the tail window included).
func watchCode(r *model.Run, endErr error) int {
	var pe *poller.Error
	if errors.As(endErr, &pe) && pe.Refusal() {
		return ExitRejected
	}
	if r.State == model.StateFinished {
		return OutcomeCode(r.Outcome)
	}
	switch {
	case endErr == nil:
		// The source ended without the run finishing: a recording that
		// stops early. The outcome is unknown.
		return ExitFailed
	case errors.Is(endErr, errTimeout):
		return ExitTimeout
	case errors.As(endErr, new(*interruptedError)), errors.Is(endErr, context.Canceled):
		return ExitInterrupted
	case errors.As(endErr, new(*usageError)):
		return ExitUsage // a replay's file that cannot be read
	case errors.As(endErr, new(*outputError)):
		return ExitOutput // stdout failed
	}
	return ExitFailed
}

// outputCode is the exit code once an output failed: ExitOutput when the
// run succeeded or watching stopped without an outcome (code 0 or the
// interrupt's 130), else the run's own code, which says more.
func outputCode(code int, failure error) int {
	if failure != nil && (code == ExitOK || code == ExitInterrupted) {
		return ExitOutput
	}
	return code
}

// crawlCode maps how a crawl watch ended to the exit code: the README's
// table with "run" read as "crawl". A crawl that ended has its status's
// code however watching ended.
func crawlCode(status string, endErr error) int {
	switch strings.ToLower(status) {
	case "completed":
		return ExitOK
	case "cancelled", "canceled":
		return ExitCancelled
	case "failed":
		return ExitFailed
	}
	var pe *poller.Error
	switch {
	case errors.Is(endErr, errTimeout):
		return ExitTimeout
	case errors.As(endErr, new(*interruptedError)), errors.Is(endErr, context.Canceled):
		return ExitInterrupted
	case errors.As(endErr, &pe):
		return serviceCode(pe) // 6 for a refusal or a 429 after the retries
	}
	return ExitFailed
}

// interactCode is the exit code of a call: 124 killed, 1 an exception,
// else the code's own (0 when none was sent; 1 when it does not fit).
func interactCode(res *poller.InteractResult) int {
	switch {
	case res.Killed:
		return ExitKilled
	case res.Error != "":
		return ExitFailed
	case res.ExitCode == nil:
		return ExitOK
	case *res.ExitCode < 0 || *res.ExitCode > 255:
		return ExitFailed
	}
	return *res.ExitCode
}

// Ending kinds for the watch's closing words (watch_session.go), so that
// what is said follows the code without naming one.
func timedOut(code int) bool    { return code == ExitTimeout }
func interrupted(code int) bool { return code == ExitInterrupted }
func rejected(code int) bool    { return code == ExitRejected }

// watchdogCode is the code when the terminal UI does not stop in time
// after an interrupt.
func watchdogCode() int { return ExitInterrupted }
