package hub

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/internal/panics"
	"github.com/firewatch/firewatch/internal/sshtest"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/runs"
)

// panickingRuns is a runs service whose list panics: the runs screen asks
// for it from a command of its program, on a goroutine of Bubble Tea's.
type panickingRuns struct{ runs.Service }

func (panickingRuns) Runs(context.Context, time.Time) (*poller.RunList, error) {
	panic("a list the screen cannot read")
}

// A panic on any goroutine of one session (its handler, one it started, a
// watch's source, its screen's program) ends that session alone, with
// exit status 1 and a line of the log that names it and says where; the
// other sessions go on and the hub keeps taking new ones.
func TestPanicEndsOneSession(t *testing.T) {
	screens := simRuns(t, sim.MaxSpeed)
	th := startHub(t, func(c *Config) {
		c.Screens = func(ctx context.Context, s *Session) int {
			switch s.Person.Name {
			case "alice": // the runs screen, its list panicking in its program
				m := runs.New(runs.Config{Service: panickingRuns{}, Terminal: s.Term, ASCII: theme.ASCIIEnv(s.Term.LookupEnv)})
				if err := runs.Run(ctx, m, runs.RunOptions{}); err != nil {
					fmt.Fprintf(s.Stderr, "the screen: %v\n", err)
				}
				return 0
			}
			return screens(ctx, s)
		}
		c.Command = func(ctx context.Context, s *Session) int {
			switch strings.Join(s.Args, " ") {
			case "handler":
				panic("on the handler's goroutine, with the key " + testKey)
			case "goroutine":
				panics.Go(ctx, func() {
					var p *Session
					_ = p.Person.Name // a nil pointer: a runtime error
				})
				<-ctx.Done()
				return 0
			case "stream": // a printer of a watch whose source panics
				updates, wait := follow.Stream(ctx, follow.SourceFunc(func(ctx context.Context, send func(poller.Update)) error {
					send(poller.Update{})
					panic("in the source")
				}), 1, false)
				for range updates {
					fmt.Fprintln(s.Stdout, "an update")
				}
				_ = wait()
				return 0
			}
			fmt.Fprintln(s.Stdout, "ok")
			return 0
		}
	})
	bob := sshtest.OpenScreen(t, th.login(t, th.bob), 120, 40, "LANG=C.UTF-8")
	bob.WaitFor("expires")

	c := th.login(t, th.alice)
	for _, cmd := range []string{"handler", "goroutine", "stream"} {
		_, stderr, code := sshtest.Run(t, c, cmd)
		if code != ExitPanicked {
			t.Errorf("%s: exit %d, want %d", cmd, code, ExitPanicked)
		}
		if !strings.Contains(stderr, "an internal error ended this session") {
			t.Errorf("%s: the session is not told why it ended: %q", cmd, stderr)
		}
	}
	th.log.WaitLine(t, "panic in the session of alice (operator, SHA256:", "on the handler's goroutine", "at hub.TestPanicEndsOneSession")
	th.log.WaitLine(t, "panic in the session of alice (operator, SHA256:", "invalid memory address or nil pointer dereference")
	th.log.WaitLine(t, "panic in the session of alice (operator, SHA256:", "in the source")
	th.log.WaitLine(t, "logout alice (operator, SHA256:", "exit 1, a panic in the session")
	if strings.Contains(th.log.String(), testKey) {
		t.Errorf("the log holds the key:\n%s", th.log)
	}

	// A terminal session whose screen's program panics ends alone too.
	alice := sshtest.OpenScreen(t, th.login(t, th.alice), 80, 24, "LANG=C.UTF-8")
	if code := alice.Exit(); code != ExitPanicked {
		t.Errorf("the panicking screen's session: exit %d, want %d", code, ExitPanicked)
	}
	th.log.WaitLine(t, "panic in the session of alice (operator, SHA256:", "the screen's program panicked")

	// Before the session's handler runs (the hub's own code, through the
	// test's hook), a panic is still the session's alone, in the hub's log.
	var once sync.Once
	panics.SetTesting(func(_ context.Context, where string) {
		if where == "login" {
			once.Do(func() { panic("while logging in") })
		}
	})
	t.Cleanup(func() { panics.SetTesting(nil) })
	if _, _, code := sshtest.Run(t, th.login(t, th.alice), "echo"); code != ExitPanicked {
		t.Errorf("a session that panicked logging in: exit %d, want %d", code, ExitPanicked)
	}
	th.log.WaitLine(t, "panic in a session from 127.0.0.1:", "while logging in")
	panics.SetTesting(nil)

	// The other session went on, and the hub takes new ones.
	bob.Press("c")
	bob.WaitFor("only the hub's operators may cancel or start runs (bob is a viewer)")
	if out, _, code := sshtest.Run(t, th.login(t, th.alice), "echo"); code != 0 || out != "ok\n" {
		t.Errorf("a new session after the panics: exit %d, %q", code, out)
	}
	bob.Press("q")
	if code := bob.Exit(); code != 0 {
		t.Errorf("the other session: exit %d", code)
	}
}
