// Package cli is firewatch's command line: each command in its own
// cmd_<name>.go (root.go is the bare "firewatch [JOB_ID]"), their flags and
// environment, the plain and JSON outputs, the summary, and the exit code
// (decided in internal/exitcode alone).
package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/cli/internal/hubsvc"
	"github.com/firewatch/firewatch/cli/internal/outputs"
	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// Main runs firewatch with the process's arguments and streams and returns
// the exit code. SIGINT, SIGTERM and SIGHUP end a watch cleanly (summary written,
// exit 130); a second one kills the process.
func Main() int {
	if versionOnly(os.Args[1:]) {
		return Execute(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	}
	// A closed stdout (firewatch ... | head -1) is a failed write that ends
	// watching cleanly (exit 8), not a death by SIGPIPE (141).
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signalContext(context.Background())
	defer stop()
	return Execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// signalContext is cancelled with cause errInterrupted by the first SIGINT,
// SIGTERM or SIGHUP (a closed terminal); after it the signals get their default behaviour back, so a
// second Ctrl-C ends the process at once.
func signalContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case <-ch:
			signal.Stop(ch)
			cancel(errInterrupted)
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}

// app holds the streams of one invocation.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	// print is stdout for the one-shot commands' answers: it keeps the
	// first failed write (exit 8). The terminal UIs and watches use stdout.
	print  *outputs.WriteGuard
	stderr *scrubWriter // redacts the secrets
	// secrets is every secret of this run (the key once resolved, key.go;
	// a DSN's password, archive.go): stderr, the debug log, the client, the
	// store and the printers of server JSON all redact with this one value.
	secrets *text.Secrets
	// retry is the policy of every request but the watch's polls
	// (poller.Retry's defaults; tests replace its Sleep).
	retry poller.Retry

	// archiveFlag is --archive's value (cli/archive.go opens the archive).
	archiveFlag string

	notify *notifications // --notify and its kin, once a watch starts them (notify.go)

	// hub is the hub's session a command runs for (cli/internal/hubsvc),
	// handed to executeFor; nil outside a hub.
	hub *hubsvc.Session
	// httpClient, when set, is the HTTP side every client of the app
	// shares (a hub's: one pool of connections for all its sessions and
	// followers); nil: each client its own.
	httpClient *http.Client
}

// setVersion sets the client's version once per process: invocations
// that share a process (tests) do not write it again.
var setVersion sync.Once

// Execute runs firewatch with args and returns the exit code.
func Execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return execute(ctx, args, stdin, stdout, stderr, poller.Retry{})
}

// execute is Execute with the retry policy of the run's requests (tests
// replace its Sleep).
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, retry poller.Retry) int {
	return executeFor(ctx, args, stdin, stdout, stderr, retry, nil)
}

// executeFor is execute for a hub's session (hub nil: none).
func executeFor(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, retry poller.Retry, hub *hubsvc.Session) int {
	if versionOnly(args) {
		if err := printVersion(stdout); err != nil {
			fmt.Fprintf(stderr, "firewatch: %s\n", &outputError{Name: "stdout", Err: err})
			return codeOf(&outputError{Name: "stdout", Err: err})
		}
		return codeOf(nil)
	}
	// The archive's DSN may hold a password: a secret from the start.
	secrets := text.NewSecrets()
	secrets.AddPassword(archive.Password(os.Getenv(archive.EnvDSN)))
	a := &app{stdin: stdin, stdout: stdout, stderr: &scrubWriter{w: stderr, secrets: secrets}, secrets: secrets, retry: retry, print: &outputs.WriteGuard{W: stdout}, hub: hub}
	if hub != nil {
		secrets.Add(hub.Service().Key)
		secrets.AddPassword(archive.Password(hub.Archive()))
		a.archiveFlag = hub.Archive()
		a.httpClient = hub.HTTP()
	}
	if hub == nil { // a hub's sessions share the process: the hub set it
		setVersion.Do(func() { poller.Version = Version() })
	}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(a.print) // help and completion are answers too
	root.SetErr(a.stderr)
	// The last notifications are waited for (bounded) once all is said.
	defer a.finishNotify(ctx)
	err := a.settle(ctx, root.ExecuteContext(ctx))
	code := codeOf(err)
	if err != nil {
		if !said(err) {
			// Messages can quote arguments, file contents or the service:
			// nothing raw reaches the terminal.
			fmt.Fprintf(a.stderr, "firewatch: %s\n", text.Sanitize(err.Error()))
		}
		if !ours(err) {
			// cobra's own errors: unknown command or flag, arguments.
			fmt.Fprintln(a.stderr, "Run 'firewatch --help' for usage.")
		}
	}
	return code
}

// Version is firewatch's version: the module version it was built at
// (go install github.com/firewatch/firewatch@v1.2.0 gives "v1.2.0"), else
// "dev" with the VCS revision when known.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	v := "dev"
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += "-" + rev + dirty
	}
	return v
}

const rootLong = `firewatch watches a Firecrawl agent run live, from its first trace event to
its final outcome: what every agent is doing, the tools it calls, the
artifacts it writes, what it costs and what went wrong.
Install: go install github.com/firewatch/firewatch@latest

  firewatch                       on a terminal: the team's runs, enter watches one
  firewatch run "PROMPT"          start an agent run and watch it
  firewatch demo                  see it work against the built-in simulator
  firewatch JOB_ID                watch a run (FIRECRAWL_API_KEY must be set)
  firewatch JOB_ID -o json | jq   the events as NDJSON, for scripts

The exit code tells how the run ended: 0 succeeded, 1 failed, 2 bad usage,
3 cancelled, 4 refused, 5 credit limit, 6 the service refused the request,
7 --timeout passed, 8 an output could not be written, 130 interrupted.`

func (a *app) rootCommand() *cobra.Command {
	o := &watchOptions{}
	root := &cobra.Command{
		Use:   "firewatch [JOB_ID]",
		Short: "Watch a Firecrawl agent run live",
		Long:  rootLong,
		Example: `  firewatch demo
  export FIRECRAWL_API_KEY=fc-...
  firewatch 019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b
  firewatch watch 019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b --output json --summary run.json`,
		Version:       Version(),
		Args:          rootArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				if a.onTerminal() {
					return runE(a.firstScreen(cmd, o))
				}
				return cmd.Help()
			}
			return runE(a.watch(cmd, o, args[0]))
		},
	}
	o.register(root, flagsConnection|flagsPolling|flagsOutput|flagsOTLP|flagsNotify)
	root.PersistentFlags().Var(&dsnFlag{a}, "archive", "the archive: a file, postgres://..., or off (default $"+archive.EnvDSN+", else the data folder's firewatch/archive.db)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badUsage("%v", err) })
	root.SetVersionTemplate("firewatch {{.Version}}\n")
	root.AddCommand(a.watchCommand(), a.demoCommand(), a.replayCommand(), a.serveCommand(), a.versionCommand())
	root.AddCommand(a.interactCommand(), a.scrapeCommand(), a.crawlPreviewCommand(), a.crawlCommand())
	root.AddCommand(a.exportCommand(), a.reportCommand(), a.resultCommand())
	root.AddCommand(a.runsCommand(), a.runCommand(), a.teamCommand())
	root.AddCommand(a.archiveCommand(), a.historyCommand(), a.compareCommand(), a.costCommand())
	root.AddCommand(a.hubCmd(), a.mcpCommand())
	root.AddCommand(a.rerunCommand(), a.followUpCommand())
	tidyFlagHelp(root)
	root.SuggestionsMinimumDistance = 2
	return root
}

// rootArgs accepts at most one argument, the job id; a word that is not a
// command is reported as such rather than as a bad id.
func rootArgs(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) > 1:
		return badUsage("unknown command %q, or too many arguments (firewatch JOB_ID takes one job id)", args[0])
	case len(args) == 1 && !strings.Contains(args[0], "-") && len(args[0]) < 20:
		hint := "a job id is a UUID; run firewatch --help for the commands"
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			hint = "did you mean " + strings.Join(s, " or ") + "?"
		}
		return badUsage("unknown command %q for firewatch (%s)", args[0], hint)
	}
	return nil
}

func exactlyOne(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return badUsage("%s needs %s", cmd.CommandPath(), what)
		case len(args) > 1:
			return badUsage("%s takes one argument (%s), got %d", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

// isTerminal reports whether w is a terminal, and its width.
func isTerminal(w io.Writer) (bool, int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return false, 0
	}
	width, _, err := term.GetSize(f.Fd())
	if err != nil || width <= 0 {
		width = watchprint.DefaultTermW
	}
	return true, width
}

// runE marks a command's own errors that are of no kind of ours as
// failures of firewatch itself, not usage errors (cobra's own).
func runE(err error) error {
	if err == nil || ours(err) {
		return err
	}
	return &failure{Err: err}
}
