// Package runresult is a run's answer: its result is the status
// endpoint's data once the run completed (GET /v2/agent/{id}), or the
// archive's copy of it. --result on watch, run and replay writes it when
// watching ends; firewatch result prints it. A run that did not succeed
// has none: nothing is written, the reason goes to stderr and the exit
// code stays the outcome's.
package runresult

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/cli/internal/watchprint"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// Source gives a watch's result once it has finished well: the data, or
// why there is none.
type Source func(ctx context.Context) (data []byte, why string)

// Of is the result of run r (jobID when r has no id yet) for --result, or
// why there is none; src is nil when it cannot be known.
func Of(ctx context.Context, r *model.Run, jobID string, src Source) ([]byte, string) {
	id := r.ID
	if id == "" {
		id = jobID
	}
	id = describe.ShortID(id)
	switch {
	case r.State != model.StateFinished:
		return nil, "run " + id + " has not finished: it has no result yet"
	case r.Outcome != model.OutcomeSucceeded:
		return nil, NoResult(id, string(r.Outcome))
	case src == nil:
		return nil, "the result of run " + id + " is not known here"
	}
	return src(ctx)
}

// NoResult says why a run that ended with outcome has no result.
func NoResult(id, outcome string) string {
	return "run " + id + " ended " + describe.OneLine(outcome, 40) + ": only a run that succeeded has a result"
}

// Logger is the watch's debug log.
type Logger interface {
	Printf(format string, args ...any)
}

// Write writes --result to path ("-": stdout, after everything else);
// result gives it, or why there is none, which is said on stderr.
func Write(ctx context.Context, path string, stdout, stderr io.Writer, debug Logger, result func(context.Context) ([]byte, string)) error {
	if ctx.Err() != nil {
		// Interrupted: one short request at most, on its own clock.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
	}
	data, why := result(ctx)
	if data == nil {
		fmt.Fprintf(stderr, "firewatch: --result: nothing written: %s\n", why)
		return nil
	}
	b := Line(data)
	if path == "-" {
		_, err := stdout.Write(watchprint.EscapeForTerminal(b))
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("--result: %w", err)
	}
	debug.Printf("result written to %s", path)
	return nil
}

// Line is the result as one line of JSON (compacted: the same value as
// the service sent).
func Line(data []byte) []byte {
	v := jsontext.Value(append([]byte(nil), data...))
	if v.Compact() != nil {
		v = jsontext.Value(append([]byte(nil), data...))
	}
	return append(v, '\n')
}

// Live asks the service for the run's status once it has finished (kept
// in *keep for the archive, which stores it too).
func Live(c *poller.Client, jobID string, keep **poller.Status) Source {
	return func(ctx context.Context) ([]byte, string) {
		ctx, cancel := context.WithTimeout(ctx, archiving.WriteTimeout)
		defer cancel()
		st, err := c.Status(ctx, jobID)
		if err != nil {
			return nil, "the run's status could not be read: " + err.Error()
		}
		*keep = st
		return ofStatus(jobID, st)
	}
}

// ofStatus is the result a status gives, or why it gives none.
func ofStatus(jobID string, st *poller.Status) ([]byte, string) {
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

// Find is the result of run id: the archive's copy (rec, the archive's
// record, may be nil), else the service's status when haveKey (client
// makes the client). outcome is the outcome known ("" when not), which
// decides first. The answer is the data, or why there is none, or the
// error that stopped the look-up (a refusal: the service does not have
// the run).
func Find(ctx context.Context, id string, rec *archive.Run, outcome string, haveKey bool, secrets *text.Secrets, client func() (*poller.Client, error)) ([]byte, string, error) {
	short := describe.ShortID(id)
	if rec != nil && rec.Outcome != "" {
		outcome = rec.Outcome
	}
	switch {
	case rec != nil && rec.Result != nil:
		return rec.Result, "", nil
	case outcome != "" && outcome != string(model.OutcomeSucceeded):
		return nil, NoResult(short, outcome), nil
	case !haveKey:
		return nil, "the archive does not hold the result of run " + short + " and there is no API key to ask the service (set FIRECRAWL_API_KEY)", nil
	}
	c, err := client()
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
	res, _ := secrets.RedactJSON(st.Data)
	st.Data = res
	data, why := ofStatus(id, st)
	return data, why, nil
}
