package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/export"
)

func (a *app) exportCommand() *cobra.Command {
	x := &otlpOptions{}
	var apiURL, apiKey string
	cmd := &cobra.Command{
		Use:   "export FILE|JOB_ID",
		Short: "Send a run to an OpenTelemetry backend over OTLP/HTTP",
		Long: `Send a run as OpenTelemetry spans over OTLP/HTTP (protobuf): a file written by
--record, a saved trace body (- for stdin), or a job id (its trace fetched
with FIRECRAWL_API_KEY; an existing file of that name wins). The same spans
as --otlp sends live, with the same trace and span ids, so sending a run
twice does not duplicate it in a backend that de-duplicates.

The endpoint: --otlp-endpoint, else OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else
OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces), else http://localhost:4318.
Headers (authentication) come from OTEL_EXPORTER_OTLP_HEADERS.`,
		Example: `  firewatch export run.ndjson                        # to a local Jaeger or collector
  OTEL_EXPORTER_OTLP_ENDPOINT=https://api.honeycomb.io \
  OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=$HONEYCOMB_KEY firewatch export run.ndjson`,
		Args: exactlyOne(sourceArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.export(cmd, x, args[0], apiURL, apiKey)) },
	}
	x.registerTarget(cmd)
	sourceFlags(cmd.Flags(), &apiURL, &apiKey)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badUsage("%v", err) })
	return cmd
}

func (a *app) export(cmd *cobra.Command, x *otlpOptions, arg, apiURL, apiKey string) error {
	if err := x.check(true); err != nil {
		return err
	}
	rr, err := a.readRun(cmd.Context(), arg, apiURL, apiKey)
	if err != nil {
		return err
	}
	s := rr.Store()
	if s.Len() == 0 {
		return badUsage("%s holds no trace events: nothing to export", rr.Src.Name)
	}
	facts := rr.Figures.Facts()
	ex, err := export.New(export.Options{Endpoint: x.url, Content: x.Content, Version: Version(), Secrets: a.secrets,
		Facts: func() *export.Facts { return facts }})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
	defer cancel()
	st := ex.Close(ctx, s)
	if st.Err != nil {
		return fmt.Errorf("OTLP export to %s: %d spans not delivered: %s", st.Endpoint, st.Failed, st.Err)
	}
	fmt.Fprintf(a.print, "exported %d spans of run %s to %s (trace id %s)\n", st.Spans, s.Run().ID, st.Endpoint, st.TraceID)
	return nil
}

// openRecording opens a recording or saved trace body, stdin for "-"; a
// file it cannot open is a usage error. name is what messages call it.
func (a *app) openRecording(file string) (in io.Reader, name string, closeIn func(), err error) {
	if file == "-" {
		return a.stdin, "stdin", func() {}, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, file, nil, badUsage("cannot read the recording: %v", err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, file, nil, badUsage("cannot read the recording: %s is a directory", file)
	}
	return f, file, func() { f.Close() }, nil
}
