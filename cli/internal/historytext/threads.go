package historytext

import (
	"errors"
	"fmt"

	"github.com/firewatch/firewatch/poller"
)

// ThreadError is a follow-up the service refused for its thread (or one
// firewatch cannot start: no thread known): Msg says why and what to do;
// Err is the service's refusal, when there was one. The command's exit
// code for it is the service's refusal's.
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

// ThreadRefusal is the follow-up's refusal in words (nil when err is not a
// thread's refusal, or the start was no follow-up): a turn still running
// names it and offers to watch it; an expired thread, one not found and
// threads turned off each say what is left to do.
func ThreadRefusal(err error, threadID string) error {
	var pe *poller.Error
	if threadID == "" || !errors.As(err, &pe) {
		return nil
	}
	switch pe.Code {
	case poller.ThreadBusy:
		run := "a turn"
		watch := "firewatch runs shows it"
		if pe.RunID != "" {
			run, watch = "run "+pe.RunID, "watch it with: firewatch watch "+pe.RunID
		}
		return &ThreadError{fmt.Sprintf("thread %s is busy: %s is still running; follow up once it ends (%s)", threadID, run, watch), pe}
	case poller.ThreadExpired:
		return &ThreadError{fmt.Sprintf("thread %s has expired (a thread is kept as long as its runs, 24 hours): start a new one with firewatch run, or rerun a turn with firewatch rerun", threadID), pe}
	case poller.ThreadNotFound:
		return &ThreadError{fmt.Sprintf("thread %s is not known to the service (another team's, or gone): start a new one with firewatch run", threadID), pe}
	case poller.ThreadsDisabled:
		return &ThreadError{"the service has threads turned off for this team: a follow-up cannot be started; start a new run with firewatch run (or firewatch rerun with --prompt)", pe}
	}
	return nil
}
