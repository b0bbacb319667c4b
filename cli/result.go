package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/cli/internal/exitcode"
	"github.com/firewatch/firewatch/cli/internal/runresult"
	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// The run's answer (internal/runresult): --result on watch, run and
// replay, and firewatch result.

// registerResult adds --result (watch, run, replay).
func (o *watchOptions) registerResult(f *pflag.FlagSet) {
	f.StringVar(&o.Result, "result", "", "write the run's result (the status's data once it completed) as JSON to `FILE` when watching ends (- for stdout, after everything else)")
}

type resultSource = runresult.Source

// writeResult writes --result, when asked for, after the summary.
func (w *watchSession) writeResult(ctx context.Context) error {
	if w.Opts.Result == "" {
		return nil
	}
	return runresult.Write(ctx, w.Opts.Result, w.Stdout, w.Stderr, w.Debug, func(ctx context.Context) ([]byte, string) {
		return runresult.Of(ctx, w.Store.Run(), w.JobID, w.resultOf)
	})
}

// findResult is the result of the run id at service (runresult.Find),
// asking the service with apiKey when the archive's record rec (may be
// nil) does not hold it.
func (a *app) findResult(ctx context.Context, service, apiKey, id string, rec *archive.Run, outcome string) ([]byte, string, error) {
	return runresult.Find(ctx, id, rec, outcome, haveKey(apiKey), a.secrets, func() (*poller.Client, error) {
		svc, err := a.service(service, apiKey)
		if err != nil {
			return nil, err
		}
		return a.client(svc, nil, nil)
	})
}

// archivedResult is a run read from the archive's result source.
func (a *app) archivedResult(r *archive.Run) resultSource {
	return func(ctx context.Context) ([]byte, string) {
		data, why, err := a.findResult(ctx, r.Service, "", r.ID, r, "")
		if err != nil {
			return nil, a.secrets.Redact(err.Error())
		}
		return data, why
	}
}

// firewatch result JOB_ID|FILE

func (a *app) resultCommand() *cobra.Command {
	var apiURL, apiKey string
	cmd := &cobra.Command{
		Use:   "result JOB_ID|FILE",
		Short: "Print a run's result as JSON, from the archive or the service (for | jq)",
		Long: `Print a run's result: the data of its status (GET /v2/agent/{id}) once it
completed, as one line of JSON on stdout, from the archive's copy, else the
service (FIRECRAWL_API_KEY). FILE is a --record recording: its run's result
is looked up the same way.

A run that did not succeed has no result: nothing is printed, stderr says
why, and the exit code is its outcome's (1 failed, 3 cancelled, 4 refused,
5 credit limit; 1 while it is still processing or when the service says it
failed without firewatch knowing how). 6 when the service does not have the
run, 2 for bad usage.`,
		Example: `  firewatch result $JOB | jq '.vendors[].name'
  firewatch run "Extract the plans" --detach | xargs firewatch watch -o plain --result plans.json
  firewatch result run.ndjson > result.json`,
		Args: exactlyOne(sourceArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.resultRun(cmd, args[0], apiURL, apiKey)) },
	}
	sourceFlags(cmd.Flags(), &apiURL, &apiKey)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badUsage("%v", err) })
	return cmd
}

func (a *app) resultRun(cmd *cobra.Command, arg, apiURL, apiKey string) error {
	ctx := cmd.Context()
	service := a.baseURLOf(apiURL)
	var rec *archive.Run
	var id, outcome string
	if archiving.IsJob(arg) {
		id = strings.ToLower(arg)
		r, _, err := a.reader().Job(ctx, service, id)
		switch {
		case err == nil:
			rec = r
		case !isArchiveNotFound(err):
			return err
		}
	} else {
		// A recording: its run and how it ended.
		rr, err := a.readRun(ctx, arg, apiURL, apiKey)
		if err != nil {
			return err
		}
		id, outcome = rr.Store().Run().ID, rr.Figures.Outcome
		if poller.ValidateJobID(id) != nil {
			return badUsage("%s names no run id to look its result up by", rr.Src.Name)
		}
		if r, _, err := a.reader().Job(ctx, service, strings.ToLower(id)); err == nil {
			rec = r
		}
	}
	data, why, err := a.findResult(ctx, service, apiKey, id, rec, outcome)
	if err != nil {
		return err
	}
	if data == nil {
		fmt.Fprintf(a.stderr, "firewatch: %s\n", why)
		if rec != nil && rec.Outcome != "" {
			outcome = rec.Outcome
		}
		code := ExitFailed
		if outcome != "" {
			code = max(OutcomeCode(model.Outcome(outcome)), ExitFailed)
		}
		return &exitcode.NoResult{Code: code}
	}
	_, err = a.print.Write(watchprint.EscapeForTerminal(runresult.Line(data)))
	return err
}
