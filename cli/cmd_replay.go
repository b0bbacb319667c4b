package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/poller"
)

// replay options.
type replayOptions struct {
	Speed   float64
	Instant bool
}

func (a *app) replayCommand() *cobra.Command {
	o := &watchOptions{}
	r := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay FILE|JOB_ID",
		Short: "Show a recorded run (a --record file, a saved trace body, - for stdin, or a JOB_ID)",
		Long: `Show a recorded run: a file written by --record, a saved trace response
body (curl -H "Authorization: Bearer $FIRECRAWL_API_KEY" \
  https://api.firecrawl.dev/v2/agent/$JOB/trace > run.json), or a job id
(its trace fetched once; an existing file of that name wins).

With plain and JSON output it is shown at once (--instant); with --speed, or
in the terminal UI, at its original pace times --speed. The exit code is
the recorded run's.`,
		Example: `  firewatch watch $JOB --record run.ndjson
  firewatch replay run.ndjson --summary -
  firewatch replay run.ndjson --speed 4 --output plain`,
		Args: exactlyOne(sourceArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.replay(cmd, o, r, args[0])) },
	}
	f := cmd.Flags()
	f.Float64Var(&r.Speed, "speed", 1, "pace multiplier over the recorded pace")
	f.BoolVar(&r.Instant, "instant", false, "show everything at once (the default for plain and JSON output)")
	o.register(cmd, flagsOutput|flagsOTLP|flagsConnection)
	o.registerResult(f)
	return cmd
}

func (a *app) replay(cmd *cobra.Command, o *watchOptions, r *replayOptions, file string) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	if !(r.Speed > 0) {
		return badUsage("--speed %v: it must be above 0", r.Speed)
	}
	src, err := a.reader().Open(cmd.Context(), file, o.APIURL, o.APIKey)
	if err != nil {
		return err
	}
	defer src.Close()
	if src.Archived {
		// As watch says of a run it shows from the archive.
		fmt.Fprintf(a.stderr, "firewatch: replaying run %s from the archive (%s)\n", file, archivedState(src.Rec)+", "+a.archiveWhere())
	}
	in, name := src.In, src.Name
	w, cleanup, err := a.newSession(cmd, o)
	if err != nil {
		return err
	}
	defer cleanup()
	w.Store.SetRequest(src.Req)
	instant := r.Instant
	if !cmd.Flags().Changed("instant") {
		instant = w.Output != OutputTUI && !cmd.Flags().Changed("speed")
	}
	w.Replay = true
	w.resultOf = a.replayResult(src, w, o)
	if f, ok := in.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			w.InputBytes = st.Size()
		}
	}
	w.Source = follow.SourceFunc(func(ctx context.Context, sink func(poller.Update)) error {
		err := poller.Replay(ctx, in, poller.ReplayOptions{Speed: r.Speed, Instant: instant}, sink)
		if err != nil && ctx.Err() == nil {
			// The file is not one firewatch can read: bad usage.
			return asUsage(fmt.Errorf("%s: %w", name, err))
		}
		return err
	})
	w.Debug.Printf("replay %s, speed %v, instant %v", name, r.Speed, instant)
	otlp, err := o.OTLP.live(w, a.secrets, nil)
	if err != nil {
		return err
	}
	defer otlp.Finish()
	ctx, stop := w.out.Context(cmd.Context())
	defer stop(nil)
	return w.out.Finish(w.run(ctx))
}

// replayResult is a replay's --result: the archive's copy (the record of a
// JOB_ID read from it, else the archive's record of the run the file
// holds), else the service's status (with a key).
func (a *app) replayResult(src *archiving.Input, w *watchSession, o *watchOptions) resultSource {
	return func(ctx context.Context) ([]byte, string) {
		rec := src.Rec
		id := w.Store.Run().ID
		service := a.baseURLOf(o.APIURL)
		if rec == nil && poller.ValidateJobID(id) == nil {
			if r, _, err := a.reader().Job(ctx, service, strings.ToLower(id)); err == nil {
				rec = r
			}
		}
		if rec != nil {
			service, id = rec.Service, rec.ID
		}
		if id == "" {
			return nil, src.Name + " names no run to look its result up by"
		}
		data, why, err := a.findResult(ctx, service, o.APIKey, id, rec, string(w.Store.Run().Outcome))
		if err != nil {
			return nil, a.secrets.Redact(err.Error())
		}
		return data, why
	}
}
