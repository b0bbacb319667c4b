package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/firewatch/firewatch/cli/internal/exitcode"
)

// settle is a command's result err once what happened around it is
// known: an interrupt (SIGINT, SIGTERM, SIGHUP) that ended a request, a
// read or a query is the interrupt (exit 130), not the request's "context
// canceled" nor the archive's or a file's error it caused; an answer that
// could not be written (a.print: a full disk, a closed pipe) is said once
// and is exit 8 unless the result says more (outputCode).
func (a *app) settle(ctx context.Context, err error) error {
	var ie *interruptedError
	if err != nil && errors.As(context.Cause(ctx), &ie) && !said(err) &&
		!errors.As(err, new(*outputError)) && !errors.As(err, new(*maybeStartedError)) {
		err = ie
	}
	fail := a.print.Failed()
	if fail == nil {
		return err
	}
	fmt.Fprintf(a.stderr, "firewatch: %s\n", &outputError{Name: "stdout", Err: fail})
	if errors.Is(err, fail) {
		err = nil // the command stopped at the failed write: that is all
	}
	return &exitcode.OutputsFailed{Err: err}
}
