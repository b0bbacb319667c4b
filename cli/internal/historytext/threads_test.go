package historytext

import (
	"errors"
	"fmt"
	"github.com/firewatch/firewatch/cli/internal/exitcode"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/poller"
)

// A follow-up's refusal is said in words that name what to do, and still
// unwraps to the service's error; an error that is no thread's refusal,
// or a start that was no follow-up, is none.
func TestThreadRefusal(t *testing.T) {
	busy := &poller.Error{Status: 409, Code: poller.ThreadBusy, RunID: "r1"}
	for _, c := range []struct {
		err  *poller.Error
		want string
	}{
		{busy, "run r1 is still running; follow up once it ends (watch it with: firewatch watch r1)"},
		{&poller.Error{Code: poller.ThreadBusy}, "a turn is still running; follow up once it ends (firewatch runs shows it)"},
		{&poller.Error{Code: poller.ThreadExpired}, "thread th has expired"},
		{&poller.Error{Code: poller.ThreadNotFound}, "thread th is not known to the service"},
		{&poller.Error{Code: poller.ThreadsDisabled}, "threads turned off"},
	} {
		err := ThreadRefusal(fmt.Errorf("start: %w", c.err), "th")
		var te *exitcode.ThreadError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.err) {
			t.Errorf("%+v: %v, want …%s…", c.err, err, c.want)
		}
	}
	if err := ThreadRefusal(busy, ""); err != nil {
		t.Errorf("no follow-up, refused: %v", err)
	}
	if err := ThreadRefusal(&poller.Error{Status: 500}, "th"); err != nil {
		t.Errorf("a server error read as a refusal: %v", err)
	}
	if err := (&exitcode.ThreadError{Msg: "no thread"}); errors.Unwrap(err) != nil {
		t.Errorf("no service error, unwraps to %v", errors.Unwrap(err))
	}
}
