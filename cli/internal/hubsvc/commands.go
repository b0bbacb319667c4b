package hubsvc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/poller"
)

// What a hub's session without a terminal may run: one command that
// reads, whose output goes to the session and nowhere else. The hub's host
// is not the session's: nothing a session runs may write a file there,
// change the hub's archive, use another key or service, send the run to an
// address of its choosing, or start or cancel anything.

// Commands are the commands offered.
var Commands = []string{"runs", "watch", "history", "report", "result", "mcp"}

// outputTUI is --output's value for the terminal UI.
const outputTUI = "tui"

// flagRule is what a flag may be given over the hub.
type flagRule int

const (
	flagOK     flagRule = iota + 1 // as on the command line
	flagStdout                     // only "-": to the session's stdout
	flagNoTUI                      // any value but tui
	flagSlow                       // no shorter than the hub's --interval
)

// flags are the flags offered, with their rule; refused says why the
// others a command may have are not. A flag in neither is not offered (a
// new flag is refused until it is given a rule here).
var flags = map[string]flagRule{
	"help": flagOK, "output": flagNoTUI, "format": flagOK,
	"no-color": flagOK, "ascii": flagOK, "heartbeat": flagOK,
	"stall": flagOK, "max-credits": flagOK, "timeout": flagOK, "tail": flagOK,
	"live-view": flagOK, "latest": flagOK, "interval": flagSlow,
	"status": flagOK, "limit": flagOK, "since": flagOK, "grep": flagOK, "kind": flagOK,
	"thread": flagOK, "reruns": flagOK,
	"summary": flagStdout, "result": flagStdout, "file": flagStdout,
	"allow-actions": flagOK, "budget": flagOK,
}

var refusedFlags = map[string]string{
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

// Check says why args may not run for a hub session, nil when they may;
// it gives the args to run: a command that polls, with no --interval, polls
// at the hub's (every). Flags are read by cobra itself, on the command as it
// will run, so that every spelling (-ojson, --output=json, a flag before
// the command) is the one that is checked.
// root is firewatch's root command, usage marks an error as bad usage.
func Check(root *cobra.Command, usage func(error) error, args []string, every time.Duration) ([]string, error) {
	badUsage := func(format string, args ...any) error { return usage(fmt.Errorf(format, args...)) }
	offer := "a session without a terminal runs one command: " + strings.Join(Commands, ", ") +
		" (e.g. ssh HUB runs -o json); ssh -t HUB opens the runs screen"
	if len(args) == 0 {
		return nil, badUsage("%s", offer)
	}
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root || cmd.Parent() != root || !slices.Contains(Commands, cmd.Name()) {
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
			refused = flagCheck(badUsage, cmd.Name(), f, every)
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

// flagCheck applies a flag's rule; every is the hub's --interval.
func flagCheck(badUsage func(string, ...any) error, cmd string, f *pflag.Flag, every time.Duration) error {
	v := f.Value.String()
	switch flags[f.Name] {
	case flagOK:
		return nil
	case flagStdout:
		if v == "-" {
			return nil
		}
		return badUsage("%s --%s %q is not offered over the hub: it writes a file on the hub's host (--%s - writes to this session)", cmd, f.Name, v, f.Name)
	case flagNoTUI:
		if !strings.EqualFold(strings.TrimSpace(v), outputTUI) {
			return nil
		}
		return badUsage("%s --%s tui needs a terminal: ssh -t HUB opens the runs screen, a command prints plain or json", cmd, f.Name)
	case flagSlow:
		if d, err := time.ParseDuration(v); err == nil && d >= every {
			return nil
		}
		return badUsage("%s --%s %s is not offered over the hub: the team shares one rate limit, so a session polls no faster than the hub, every %s", cmd, f.Name, v, every)
	}
	if why := refusedFlags[f.Name]; why != "" {
		return badUsage("%s --%s is not offered over the hub: %s", cmd, f.Name, why)
	}
	return badUsage("%s --%s is not offered over the hub", cmd, f.Name)
}

// Ruled reports whether a flag of a command offered over the hub has a
// rule: offered with one, or refused with a reason.
func Ruled(flag string) bool { return flags[flag] != 0 || refusedFlags[flag] != "" }

// Context is ctx with its end seen by the commands as an interrupt
// (interrupted: the command layer's, given why) whose reason is the hub's
// (the watch then says it and exits 130). It keeps ctx's values: the
// session's panic handler (internal/panics).
func Context(ctx context.Context, interrupted func(why string) error) (context.Context, func()) {
	out, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		why := "interrupted"
		if c := context.Cause(ctx); c != nil {
			why = c.Error()
		}
		cancel(interrupted(why))
	})
	return out, func() { stop(); cancel(nil) }
}
