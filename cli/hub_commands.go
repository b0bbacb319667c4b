package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// What a hub's session without a terminal may run: one command that
// reads, whose output goes to the session and nowhere else. The hub's host
// is not the session's: nothing a session runs may write a file there,
// change the hub's archive, use another key or service, send the run to an
// address of its choosing, or start or cancel anything.

// hubCommands are the commands offered.
var hubCommands = []string{"runs", "watch", "history", "report", "result", "mcp"}

// hubFlagRule is what a flag may be given over the hub.
type hubFlagRule int

const (
	hubFlagOK     hubFlagRule = iota + 1 // as on the command line
	hubFlagStdout                        // only "-": to the session's stdout
	hubFlagNoTUI                         // any value but tui
	hubFlagSlow                          // no shorter than the hub's --interval
)

// hubFlags are the flags offered, with their rule; hubRefused says why the
// others a command may have are not. A flag in neither is not offered (a
// new flag is refused until it is given a rule here).
var hubFlags = map[string]hubFlagRule{
	"help": hubFlagOK, "output": hubFlagNoTUI, "format": hubFlagOK,
	"no-color": hubFlagOK, "ascii": hubFlagOK, "heartbeat": hubFlagOK,
	"stall": hubFlagOK, "max-credits": hubFlagOK, "timeout": hubFlagOK, "tail": hubFlagOK,
	"live-view": hubFlagOK, "latest": hubFlagOK, "interval": hubFlagSlow,
	"status": hubFlagOK, "limit": hubFlagOK, "since": hubFlagOK, "grep": hubFlagOK, "kind": hubFlagOK,
	"thread": hubFlagOK, "reruns": hubFlagOK,
	"summary": hubFlagStdout, "result": hubFlagStdout, "file": hubFlagStdout,
	"allow-actions": hubFlagOK, "budget": hubFlagOK,
}

var hubRefused = map[string]string{
	"api-key":        "the hub uses its own key, and no other",
	"api-url":        "the hub uses its own service, and no other",
	"archive":        "the hub's archive is its own to choose",
	"all-services":   "the hub shows its own service's runs",
	"record":         "it writes a file on the hub's host",
	"debug":          "it writes a file on the hub's host",
	"pages-dir":      "it writes files on the hub's host",
	"save-dir":       "it names a folder on the hub's host",
	"otlp":           "it sends the run from the hub's host to an address of the session's choosing",
	"otlp-endpoint":  "it sends the run from the hub's host to an address of the session's choosing",
	"otlp-content":   "it belongs to --otlp, which is not offered",
	"notify":         "it notifies on the hub's terminal, not yours",
	"notify-command": "it runs a command on the hub's host",
	"notify-url":     "it sends from the hub's host to an address of the session's choosing",
	"notify-on":      "it belongs to --notify, which is not offered",
	"mouse":          "it is for the terminal UI: a session without a terminal prints plain or JSON",
	"exit-on-finish": "it is for the terminal UI: a session without a terminal prints plain or JSON",
}

// hubCheck says why args may not run for a hub session, nil when they may;
// it gives the args to run: a command that polls, with no --interval, polls
// at the hub's (every). Flags are read by cobra itself, on the command as it
// will run, so that every spelling (-ojson, --output=json, a flag before
// the command) is the one that is checked.
func hubCheck(args []string, every time.Duration) ([]string, error) {
	offer := "a session without a terminal runs one command: " + strings.Join(hubCommands, ", ") +
		" (e.g. ssh HUB runs -o json); ssh -t HUB opens the runs screen"
	if len(args) == 0 {
		return nil, badUsage("%s", offer)
	}
	root := (&app{secrets: text.NewSecrets()}).rootCommand()
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root || cmd.Parent() != root || !slices.Contains(hubCommands, cmd.Name()) {
		return nil, badUsage("%q is not offered over the hub: %s", args[0], offer)
	}
	if err := cmd.ParseFlags(rest); errors.Is(err, pflag.ErrHelp) {
		// -h or --help: cobra prints the command's help and runs nothing,
		// whatever else the line says.
		return args, nil
	} else if err != nil {
		return nil, badUsage("%s: %v", cmd.Name(), err)
	}
	var refused error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if refused == nil {
			refused = hubFlagCheck(cmd.Name(), f, every)
		}
	})
	if refused != nil {
		return nil, refused
	}
	for _, a := range cmd.Flags().Args() {
		if poller.ValidateJobID(a) != nil {
			return nil, badUsage("%s %q: over the hub a run is named by its job id (a UUID), never by a file on the hub's host", cmd.Name(), a)
		}
	}
	if f := cmd.Flags().Lookup("interval"); f != nil && !f.Changed {
		// Before the command, where cobra reads it as the command's own
		// (after the arguments it could follow a "--").
		args = append([]string{"--interval=" + every.String()}, args...)
	}
	return args, nil
}

// hubFlagCheck applies a flag's rule; every is the hub's --interval.
func hubFlagCheck(cmd string, f *pflag.Flag, every time.Duration) error {
	v := f.Value.String()
	switch hubFlags[f.Name] {
	case hubFlagOK:
		return nil
	case hubFlagStdout:
		if v == "-" {
			return nil
		}
		return badUsage("%s --%s %q is not offered over the hub: it writes a file on the hub's host (--%s - writes to this session)", cmd, f.Name, v, f.Name)
	case hubFlagNoTUI:
		if !strings.EqualFold(strings.TrimSpace(v), OutputTUI) {
			return nil
		}
		return badUsage("%s --%s tui needs a terminal: ssh -t HUB opens the runs screen, a command prints plain or json", cmd, f.Name)
	case hubFlagSlow:
		if d, err := time.ParseDuration(v); err == nil && d >= every {
			return nil
		}
		return badUsage("%s --%s %s is not offered over the hub: the team shares one rate limit, so a session polls no faster than the hub, every %s", cmd, f.Name, v, every)
	}
	if why := hubRefused[f.Name]; why != "" {
		return badUsage("%s --%s is not offered over the hub: %s", cmd, f.Name, why)
	}
	return badUsage("%s --%s is not offered over the hub", cmd, f.Name)
}

// hubCommand runs args for a hub session without a terminal, in this
// process, on the session's streams, with the hub's key: what Execute
// would do, once hubCheck allows it. It ends, as an interrupt does (130),
// when ctx does (the session went away, the hub is stopping).
func hubCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, retry poller.Retry, h *hubSession) int {
	args, err := hubCheck(args, h.interval)
	if err != nil {
		fmt.Fprintf(stderr, "firewatch hub: %s\n", text.NewSecrets(h.svc.key).Sanitize(err.Error()))
		return codeOf(err)
	}
	ctx, stop := hubContext(ctx)
	defer stop()
	return executeFor(ctx, args, stdin, stdout, stderr, retry, h)
}

// hubContext is ctx with its end seen by the commands as an interrupt
// whose reason is the hub's (the watch then says it and exits 130). It
// keeps ctx's values: the session's panic handler (internal/panics).
func hubContext(ctx context.Context) (context.Context, func()) {
	out, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		why := "interrupted"
		if c := context.Cause(ctx); c != nil {
			why = c.Error()
		}
		cancel(&interruptedError{Why: why})
	})
	return out, func() { stop(); cancel(nil) }
}
