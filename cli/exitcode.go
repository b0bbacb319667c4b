package cli

import (
	"errors"
	"fmt"

	"github.com/firewatch/firewatch/model"
)

// Exit codes: a contract with scripts (also a table in the README).
const (
	ExitOK          = 0   // the run succeeded, or a command other than watching succeeded
	ExitFailed      = 1   // the run failed (or ended with an outcome firewatch does not know); firewatch itself failed
	ExitUsage       = 2   // bad usage: unknown flag, bad flag value, an id that is not a UUID, an unreadable file, no key
	ExitCancelled   = 3   // the run was cancelled
	ExitRefused     = 4   // the run was refused
	ExitCreditLimit = 5   // the run hit its credit limit
	ExitRejected    = 6   // the service refused the request: 400, 401, 403 or 404
	ExitTimeout     = 7   // --timeout passed before the run finished
	ExitOutput      = 8   // an output could not be written (stdout closed, --record, --summary or --debug failing, e.g. a full disk)
	ExitInterrupted = 130 // interrupted (Ctrl-C, SIGTERM, quitting the UI) before the run finished
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

// exitError is an error that carries its exit code. Commands return it; the
// top level prints its message (when it has one) and exits with its code.
type exitError struct {
	code int
	err  error // nil: exit quietly, everything was already said
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf is a bad-usage error (exit 2).
func usageErrorf(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// withCode wraps err with an exit code; a nil err gives a quiet exit.
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// codeOf is the exit code for an error returned by a command.
func codeOf(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	// Errors from cobra itself (unknown command or flag, wrong number of
	// arguments, a flag value that does not parse) are usage errors.
	return ExitUsage
}
