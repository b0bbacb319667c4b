package cli

import (
	"github.com/firewatch/firewatch/cli/internal/exitcode"
	"github.com/firewatch/firewatch/model"
)

// Every exit code is chosen by internal/exitcode (exitcode.Code). The
// names below keep the many call sites in cli short.

// Exit codes: a contract with scripts (also a table in the README).
const (
	ExitOK          = exitcode.OK
	ExitFailed      = exitcode.Failed
	ExitUsage       = exitcode.Usage
	ExitCancelled   = exitcode.Cancelled
	ExitRefused     = exitcode.Refused
	ExitCreditLimit = exitcode.CreditLimit
	ExitRejected    = exitcode.Rejected
	ExitTimeout     = exitcode.Timeout
	ExitOutput      = exitcode.Output
	ExitKilled      = exitcode.Killed
	ExitInterrupted = exitcode.Interrupted
)

// OutcomeCode is the exit code of a finished run's outcome.
func OutcomeCode(o model.Outcome) int { return exitcode.OutcomeCode(o) }

type (
	failure          = exitcode.Failure
	interruptedError = exitcode.InterruptedError
	outputError      = exitcode.OutputError
	threadError      = exitcode.ThreadError
	crawlEnd         = exitcode.CrawlEnd
)

var (
	errInterrupted = exitcode.ErrInterrupted
	errQuit        = exitcode.ErrQuit
	errTimeout     = exitcode.ErrTimeout
	asUsage        = exitcode.AsUsage
	codeOf         = exitcode.Code
	said           = exitcode.Said
	ours           = exitcode.Ours
	gateErr        = exitcode.GateErr
)

// badUsage is a usage error with a message.
func badUsage(format string, args ...any) error { return exitcode.BadUsage(format, args...) }

// Ending kinds for the watch's closing words (watch_session.go), so that
// what is said follows the code without naming one.
func timedOut(code int) bool    { return code == ExitTimeout }
func interrupted(code int) bool { return code == ExitInterrupted }
func rejected(code int) bool    { return code == ExitRejected }

// watchdogCode is the code when the terminal UI does not stop in time
// after an interrupt.
func watchdogCode() int { return ExitInterrupted }
