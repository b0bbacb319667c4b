package historytext

import (
	"errors"
	"fmt"
	"github.com/firewatch/firewatch/cli/internal/exitcode"

	"github.com/firewatch/firewatch/poller"
)

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
		return &exitcode.ThreadError{Msg: fmt.Sprintf("thread %s is busy: %s is still running; follow up once it ends (%s)", threadID, run, watch), Err: pe}
	case poller.ThreadExpired:
		return &exitcode.ThreadError{Msg: fmt.Sprintf("thread %s has expired (a thread is kept as long as its runs, 24 hours): start a new one with firewatch run, or rerun a turn with firewatch rerun", threadID), Err: pe}
	case poller.ThreadNotFound:
		return &exitcode.ThreadError{Msg: fmt.Sprintf("thread %s is not known to the service (another team's, or gone): start a new one with firewatch run", threadID), Err: pe}
	case poller.ThreadsDisabled:
		return &exitcode.ThreadError{Msg: "the service has threads turned off for this team: a follow-up cannot be started; start a new run with firewatch run (or firewatch rerun with --prompt)", Err: pe}
	}
	return nil
}
