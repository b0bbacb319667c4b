package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/export"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

type reportOptions struct {
	Out        string
	Format     string
	APIURL     string
	APIKey     string
	MaxCredits float64
}

func (a *app) reportCommand() *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report FILE|JOB_ID",
		Short: "Write a report of a run: one self-contained HTML page, or Markdown for an issue",
		Long: `Write a report of a run, from a recording (--record), a saved trace body, or a
job id (fetched with FIRECRAWL_API_KEY, with the result artifact's latest
content).

HTML (the default): one file with everything inline (no script, nothing
loaded from anywhere, works offline and printed, light and dark): the
outcome, duration, credits and tokens, the agent tree, a waterfall, the tool
calls with their parameters and results folded, the errors explained, the
artifacts and their versions. Markdown (--format md): a summary table, the
agent tree, the errors and a mermaid gantt, for a GitHub issue or a ticket.
Live-view links are never included, nor the key.`,
		Example: `  firewatch report run.ndjson -o report.html
  firewatch report $JOB --format md | gh issue create --title "agent run failed" --body-file -`,
		Args: exactlyOne("a FILE (a --record file or a saved trace body; - for stdin) or a JOB_ID"),
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.report(cmd, o, args[0])) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.Out, "output", "o", "", "write the report to `FILE` (default: stdout)")
	f.StringVar(&o.Format, "format", "", "html or md (default: from the -o file's extension, else html)")
	f.StringVar(&o.APIURL, "api-url", "", "service base URL for a JOB_ID (default $FIRECRAWL_API_URL, else https://api.firecrawl.dev)")
	f.StringVar(&o.APIKey, "api-key", "", "API key for a JOB_ID; prefer $FIRECRAWL_API_KEY")
	f.Float64Var(&o.MaxCredits, "max-credits", 0, "the run's maxCredits, for the budget warning (default 2500, assumed)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{export.FormatHTML, export.FormatMarkdown}, cobra.ShellCompDirectiveNoFileComp))
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badUsage("%v", err) })
	return cmd
}

func (a *app) report(cmd *cobra.Command, o *reportOptions, arg string) error {
	format := strings.ToLower(strings.TrimSpace(o.Format))
	if format == "" {
		format = export.FormatHTML
		if strings.HasSuffix(strings.ToLower(o.Out), ".md") || strings.HasSuffix(strings.ToLower(o.Out), ".markdown") {
			format = export.FormatMarkdown
		}
	}
	if format == "markdown" {
		format = export.FormatMarkdown
	}
	if format != export.FormatHTML && format != export.FormatMarkdown {
		return badUsage("--format %q: it must be html or md", o.Format)
	}
	if !(o.MaxCredits >= 0) {
		return badUsage("--max-credits %v: it must not be negative", o.MaxCredits)
	}
	ctx := cmd.Context()
	ro := export.ReportOptions{Version: Version(), MaxCredits: o.MaxCredits, Secrets: a.secrets}
	var s *model.Store
	if _, statErr := os.Stat(arg); statErr == nil || arg == "-" || poller.ValidateJobID(arg) != nil {
		var err error
		if s, _, err = a.loadRun(ctx, arg); err != nil {
			return err
		}
	} else if _, rec, err := a.jobFromArchive(ctx, poller.ResolveBaseURL(o.APIURL), strings.ToLower(arg)); err == nil {
		// A job id is read from the archive, else from the service.
		if s, err = export.Load(ctx, bytes.NewReader(rec)); err != nil {
			return asUsage(fmt.Errorf("archived run %s: %w", arg, err))
		}
	} else if !isArchiveNotFound(err) {
		return err
	} else {
		svc, err := a.service(o.APIURL, o.APIKey)
		if err != nil {
			return err
		}
		if s, ro.Result, err = a.fetchRun(ctx, svc, arg); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := export.Report(&buf, s, format, ro); err != nil {
		return err
	}
	if o.Out == "" || o.Out == "-" {
		_, err := a.print.Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(o.Out, buf.Bytes(), 0o644); err != nil {
		return badUsage("-o: %v", err)
	}
	fmt.Fprintf(a.stderr, "firewatch: report of run %s written to %s\n", model.Sanitize(s.Run().ID), o.Out)
	return nil
}

// fetchRun gets a run's trace and, when there is one, the latest content
// of its result artifact (a failure to get that leaves it out).
func (a *app) fetchRun(ctx context.Context, svc service, jobID string) (*model.Store, *export.ResultContent, error) {
	c, err := a.client(svc, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	body, err := c.Trace(ctx, jobID, false)
	if err != nil {
		return nil, nil, err
	}
	s := model.NewStore()
	s.SetSecrets(a.secrets)
	if _, err := s.Ingest(body); err != nil {
		return nil, nil, fmt.Errorf("the trace of %s: %w", jobID, err)
	}
	art := s.Artifact("result")
	if art == nil {
		return s, nil, nil
	}
	v := art.Latest().Ref
	snap, err := c.Snapshot(ctx, jobID, v.SnapshotID)
	if err != nil {
		return s, nil, nil
	}
	return s, &export.ResultContent{ArtifactID: art.ID, SnapshotID: v.SnapshotID, Kind: v.Kind, Content: snap.Content}, nil
}
