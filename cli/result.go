package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/cli/internal/exitcode"
	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// The run's answer: its result is the status endpoint's data once the run
// completed (GET /v2/agent/{id}), or the archive's copy of it. --result on
// watch, run and replay writes it when watching ends; firewatch result
// prints it. A run that did not succeed has none: nothing is written, the
// reason goes to stderr and the exit code stays the outcome's.

// registerResult adds --result (watch, run, replay).
func (o *watchOptions) registerResult(f *pflag.FlagSet) {
	f.StringVar(&o.Result, "result", "", "write the run's result (the status's data once it completed) as JSON to `FILE` when watching ends (- for stdout, after everything else)")
}

// resultSource gives a watch's result once it has finished well: the
// data, or why there is none.
type resultSource func(ctx context.Context) (data []byte, why string)

// result is the run's result for --result, or why there is none.
func (w *watchSession) result(ctx context.Context) ([]byte, string) {
	r := w.Store.Run()
	id := describe.ShortID(cmpOr(r.ID, w.JobID))
	switch {
	case r.State != model.StateFinished:
		return nil, "run " + id + " has not finished: it has no result yet"
	case r.Outcome != model.OutcomeSucceeded:
		return nil, noResult(id, string(r.Outcome))
	case w.resultOf == nil:
		return nil, "the result of run " + id + " is not known here"
	}
	return w.resultOf(ctx)
}

// noResult says why a run that ended with outcome has no result.
func noResult(id, outcome string) string {
	return "run " + id + " ended " + describe.OneLine(outcome, 40) + ": only a run that succeeded has a result"
}

// writeResult writes --result, when asked for, after the summary.
func (w *watchSession) writeResult(ctx context.Context) error {
	if w.Opts.Result == "" {
		return nil
	}
	if ctx.Err() != nil {
		// Interrupted: one short request at most, on its own clock.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
	}
	data, why := w.result(ctx)
	if data == nil {
		fmt.Fprintf(w.Stderr, "firewatch: --result: nothing written: %s\n", why)
		return nil
	}
	b := resultLine(data)
	if w.Opts.Result == "-" {
		_, err := w.Stdout.Write(watchprint.EscapeForTerminal(b))
		return err
	}
	if err := os.WriteFile(w.Opts.Result, b, 0o644); err != nil {
		return fmt.Errorf("--result: %w", err)
	}
	w.Debug.Printf("result written to %s", w.Opts.Result)
	return nil
}

// resultLine is the result as one line of JSON (compacted: the same
// value as the service sent).
func resultLine(data []byte) []byte {
	v := jsontext.Value(append([]byte(nil), data...))
	if v.Compact() != nil {
		v = jsontext.Value(append([]byte(nil), data...))
	}
	return append(v, '\n')
}

// liveResult asks the service for the run's status once it has finished
// (kept for the archive, which stores it too).
func liveResult(w *watchSession, c *poller.Client, jobID string, keep *(*poller.Status)) resultSource {
	return func(ctx context.Context) ([]byte, string) {
		ctx, cancel := context.WithTimeout(ctx, archiving.WriteTimeout)
		defer cancel()
		st, err := c.Status(ctx, jobID)
		if err != nil {
			return nil, "the run's status could not be read: " + err.Error()
		}
		*keep = st
		return statusResult(jobID, st)
	}
}

// statusResult is the result a status gives, or why it gives none.
func statusResult(jobID string, st *poller.Status) ([]byte, string) {
	id := describe.ShortID(jobID)
	switch strings.ToLower(st.Status) {
	case "completed":
		if st.Data == nil {
			return nil, "the service's status of run " + id + " holds no data"
		}
		return st.Data, ""
	case "processing":
		return nil, "run " + id + " is still processing: it has no result yet"
	}
	return nil, "the service says run " + id + " is " + describe.OneLine(st.Status, 40) + ": only a run that completed has a result"
}

// findResult is the result of the run id at service: the archive's copy
// (rec, the archive's record, may be nil), else the service's status when
// there is a key. outcome is the outcome known ("" when not), which decides
// first. The answer is the data, or why there is none, or the error that
// stopped the look-up (a refusal: the service does not have the run).
func (a *app) findResult(ctx context.Context, service, apiKey, id string, rec *archive.Run, outcome string) ([]byte, string, error) {
	short := describe.ShortID(id)
	if rec != nil && rec.Outcome != "" {
		outcome = rec.Outcome
	}
	switch {
	case rec != nil && rec.Result != nil:
		return rec.Result, "", nil
	case outcome != "" && outcome != string(model.OutcomeSucceeded):
		return nil, noResult(short, outcome), nil
	case !haveKey(apiKey):
		return nil, "the archive does not hold the result of run " + short + " and there is no API key to ask the service (set FIRECRAWL_API_KEY)", nil
	}
	svc, err := a.service(service, apiKey)
	if err != nil {
		return nil, "", err
	}
	c, err := a.client(svc, nil, nil)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	st, err := c.Status(ctx, id)
	var pe *poller.Error
	if errors.As(err, &pe) && pe.Kind == poller.KindNotFound && rec != nil {
		return nil, "the service no longer has run " + short + " and the archive does not hold its result", nil
	}
	if err != nil {
		return nil, "", err
	}
	res, _ := a.secrets.RedactJSON(st.Data)
	st.Data = res
	data, why := statusResult(id, st)
	return data, why, nil
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

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
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
	_, err = a.print.Write(watchprint.EscapeForTerminal(resultLine(data)))
	return err
}
