package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/anmitsu/go-shlex"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// CommandTimeout is how long a --notify-command may run before it is
// killed. It runs in a process group of its own (unix), killed with it,
// and when it ends: what it left behind does not outlive it.
const CommandTimeout = 10 * time.Second

// maxOutput bounds what is kept of a command's output for the log.
const maxOutput = 8 << 10

// outputWait bounds the wait for a command's output once it has ended.
const outputWait = time.Second

// SplitCommand splits --notify-command into the program and its arguments
// the way a shell splits words (go-shlex's POSIX rules, as the hub splits
// a session's command), and nothing more: white space separates words,
// single quotes keep everything up to the next one, double quotes keep
// everything but a backslash before " or \, a backslash outside quotes
// keeps the next character; quotes with nothing between make no argument. No
// variable, glob, pipe or redirection: those characters are taken as they
// are, and nothing is ever handed to a shell.
func SplitCommand(s string) ([]string, error) {
	words, err := shlex.Split(s, true)
	switch {
	case errors.Is(err, shlex.ErrNoClosing):
		// Which quote: one more single quote closes a single one.
		if _, err := shlex.Split(s+"'", true); err == nil {
			return nil, errors.New("a single quote is not closed")
		}
		return nil, errors.New("a double quote is not closed")
	case errors.Is(err, shlex.ErrNoEscaped):
		return nil, errors.New("it ends with a backslash that escapes nothing")
	case err != nil:
		return nil, err
	case len(words) == 0:
		return nil, errors.New("it names no program")
	}
	return words, nil
}

// command runs the user's program for each moment: its argv with the
// moment's text appended, what happened in FIREWATCH_* variables.
type command struct {
	argv    []string
	n       *Notifier
	timeout time.Duration
}

func newCommand(argv []string, n *Notifier) (*command, error) {
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, fmt.Errorf("--notify-command: %s cannot be run: %v", describe.OneLine(argv[0], 80), errors.Unwrap(err))
	}
	return &command{argv: argv, n: n, timeout: CommandTimeout}, nil
}

func (c *command) name() string { return "--notify-command" }

func (c *command) deliver(ctx context.Context, m *Moment) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.argv[0], append(c.argv[1:len(c.argv):len(c.argv)], m.Text)...)
	cmd.Env = Env(os.Environ(), m)
	cmd.Stdin = nil
	// The output goes to a pipe of ours, read with a bound: a child that
	// keeps it open (a "sleep 30 &") neither holds Wait nor the sink.
	pr, pw, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("--notify-command %s: %v", describe.OneLine(c.argv[0], 80), err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	ownGroup(cmd)
	// Once cancelled (the timeout), Wait gives up on the process a
	// second after the kill.
	cmd.WaitDelay = time.Second
	start := time.Now()
	err = cmd.Start()
	_ = pw.Close()
	if err != nil {
		_ = pr.Close()
		return fmt.Errorf("--notify-command %s: %v", describe.OneLine(c.argv[0], 80), err)
	}
	var out limitedBuffer
	read := make(chan struct{})
	go func() {
		_, _ = io.Copy(&out, pr)
		close(read)
	}()
	// The command is over: what it left running in its group goes with it.
	err = waitGroup(cmd)
	select {
	case <-read:
	case <-time.After(outputWait):
		// A child outside the group (it made its own) still holds the
		// pipe: not waited for (closing it ends the read on unix).
		c.n.logf("notify: --notify-command: its output is still open %s after it ended: not read further", text.Duration(outputWait))
	}
	_ = pr.Close()
	for line := range strings.Lines(out.String()) {
		c.n.logf("notify: --notify-command: %s", strings.TrimRight(line, "\n"))
	}
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return fmt.Errorf("--notify-command %s was killed after %s", describe.OneLine(c.argv[0], 80), text.Duration(c.timeout))
	case err != nil:
		return fmt.Errorf("--notify-command %s: %v", describe.OneLine(c.argv[0], 80), err)
	}
	c.n.logf("notify: --notify-command ran in %s for %s", time.Since(start).Round(time.Millisecond), m.Key)
	return nil
}

// Env is the command's environment: the process's own without the API key
// and without FIREWATCH_* variables (so that none of ours is mistaken for
// another), then the moment's:
//
//	FIREWATCH_EVENT              finished, failed, attention, budget or team
//	FIREWATCH_KIND               run, crawl or team
//	FIREWATCH_RUN_ID             the run's (or the crawl's) id
//	FIREWATCH_OUTCOME            the outcome (a crawl's status); empty while it runs
//	FIREWATCH_CREDITS            credits used; empty when not known
//	FIREWATCH_DURATION_MS        how long it ran; empty while it runs
//	FIREWATCH_TEXT               the one line for people (also the last argument)
//	FIREWATCH_PROMPT, FIREWATCH_MODEL             a run's
//	FIREWATCH_STARTED_BY, FIREWATCH_CANCELLED_BY  a run's: who did it through a hub; empty when not known
//	FIREWATCH_URL, FIREWATCH_PAGES                a crawl's
//	FIREWATCH_ATTENTION_KIND, FIREWATCH_ATTENTION_AGENT, FIREWATCH_ATTENTION_MESSAGE
//	FIREWATCH_BUDGET_PERCENT, FIREWATCH_CAP       a budget moment's
//	FIREWATCH_PERIOD_START, FIREWATCH_PERIOD_END, FIREWATCH_TEAM_USED, FIREWATCH_TEAM_PLAN
//	                                              a team moment's (KIND team, RUN_ID team), with
//	FIREWATCH_TEAM_PERCENT (team:N%) or FIREWATCH_TEAM_PROJECTED=1 and FIREWATCH_TEAM_LASTS_UNTIL
//	FIREWATCH_KEY                the moment's key (the same for a moment's every delivery)
//	FIREWATCH_DROPPED            moments dropped since the last one run (the command was too slow); 0 mostly
func Env(base []string, m *Moment) []string {
	env := make([]string, 0, len(base)+16)
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if name == "FIRECRAWL_API_KEY" || strings.HasPrefix(name, "FIREWATCH_") {
			continue
		}
		env = append(env, kv)
	}
	add := func(k, v string) { env = append(env, "FIREWATCH_"+k+"="+v) }
	j := &m.Job
	add("EVENT", string(m.Event))
	add("KIND", j.Kind)
	add("RUN_ID", describe.OneLine(j.ID, 100))
	add("OUTCOME", j.Outcome)
	add("CREDITS", optFloat(j.Credits))
	ms := ""
	if j.HasDuration {
		ms = strconv.FormatInt(j.Duration.Milliseconds(), 10)
	}
	add("DURATION_MS", ms)
	add("TEXT", m.Text)
	add("KEY", m.Key)
	add("DROPPED", strconv.Itoa(m.Dropped))
	switch j.Kind {
	case KindTeam:
	case KindCrawl:
		add("URL", j.URL)
		add("PAGES", strconv.Itoa(j.Pages))
	default:
		add("PROMPT", j.Prompt)
		add("MODEL", j.Model)
		by, via := model.SplitActor(j.StartedBy)
		add("STARTED_BY", by)
		add("STARTED_VIA", via)
		by, via = model.SplitActor(j.CancelledBy)
		add("CANCELLED_BY", by)
		add("CANCELLED_VIA", via)
	}
	if a := m.Attention; a != nil {
		add("ATTENTION_KIND", string(a.Kind))
		add("ATTENTION_AGENT", a.Agent)
		add("ATTENTION_MESSAGE", a.Message)
	}
	if b := m.Budget; b != nil {
		add("BUDGET_PERCENT", strconv.FormatFloat(b.Share*100, 'f', -1, 64))
		add("CAP", strconv.FormatFloat(b.Cap, 'f', -1, 64))
	}
	if tm := m.Team; tm != nil {
		add("PERIOD_START", tm.PeriodStart.UTC().Format(time.RFC3339))
		add("PERIOD_END", tm.PeriodEnd.UTC().Format(time.RFC3339))
		add("TEAM_USED", strconv.FormatFloat(tm.Used, 'f', -1, 64))
		add("TEAM_PLAN", strconv.FormatFloat(tm.Plan, 'f', -1, 64))
		if tm.Projected {
			add("TEAM_PROJECTED", "1")
			if tm.LastsUntil != nil {
				add("TEAM_LASTS_UNTIL", tm.LastsUntil.UTC().Format(time.RFC3339))
			}
		} else {
			add("TEAM_PERCENT", pct(tm.Share))
		}
	}
	return env
}

func optFloat(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'f', -1, 64)
}

// limitedBuffer keeps the first maxOutput bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	b   bytes.Buffer
	cut bool
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := maxOutput - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	l.cut = l.cut || l.b.Len() >= maxOutput
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	if l.cut {
		s += "\n(output cut at " + strconv.Itoa(maxOutput) + " bytes)"
	}
	return s
}
