package cli

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/export"
	"github.com/firewatch/firewatch/text"
)

type reportOptions struct {
	File       string // --file
	Output     string // -o/--output: html or md
	Format     string // --format, the old name of -o
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
artifacts and their versions. Markdown (-o md): a summary table, the
agent tree, the errors and a mermaid gantt, for a GitHub issue or a ticket.
Live-view links are never included, nor the key.

-o names the output mode, as on every command; the report goes to stdout,
or to --file FILE. FILE|JOB_ID: an existing file (or -) is a file;
otherwise a UUID is a job id.`,
		Example: `  firewatch report run.ndjson --file report.html
  firewatch report $JOB -o md | gh issue create --title "agent run failed" --body-file -`,
		Args: exactlyOne(sourceArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.report(cmd, o, args[0])) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "", "output mode: html or md (default: from the --file extension, else html)")
	f.StringVar(&o.Format, "format", "", "the same as -o (its former name)")
	f.StringVar(&o.File, "file", "", "write the report to `FILE` (default: stdout)")
	f.StringVar(&o.APIURL, "api-url", "", "service base URL for a JOB_ID (default $FIRECRAWL_API_URL, else https://api.firecrawl.dev)")
	f.StringVar(&o.APIKey, "api-key", "", "API key for a JOB_ID; prefer $FIRECRAWL_API_KEY")
	f.Float64Var(&o.MaxCredits, "max-credits", 0, "the run's maxCredits, for the budget warning (default 2500, assumed)")
	for _, name := range []string{"output", "format"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions([]string{export.FormatHTML, export.FormatMarkdown}, cobra.ShellCompDirectiveNoFileComp))
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badUsage("%v", err) })
	return cmd
}

func (a *app) report(cmd *cobra.Command, o *reportOptions, arg string) error {
	mode, flag := o.Output, "-o"
	if o.Output != "" && o.Format != "" && !strings.EqualFold(o.Output, o.Format) {
		return badUsage("-o %q and --format %q disagree: give one", o.Output, o.Format)
	}
	if mode == "" {
		mode, flag = o.Format, "--format"
	}
	format := strings.ToLower(strings.TrimSpace(mode))
	if format == "" {
		format = export.FormatHTML
		if strings.HasSuffix(strings.ToLower(o.File), ".md") || strings.HasSuffix(strings.ToLower(o.File), ".markdown") {
			format = export.FormatMarkdown
		}
	}
	if format == "markdown" {
		format = export.FormatMarkdown
	}
	if format != export.FormatHTML && format != export.FormatMarkdown {
		return badUsage("%s %q is not an output mode: it must be html or md (to write the report to a file, use --file %s)", flag, mode, mode)
	}
	if !(o.MaxCredits >= 0) {
		return badUsage("--max-credits %v: it must not be negative", o.MaxCredits)
	}
	if o.File != "" && o.File != "-" {
		// A file that cannot be made is bad usage, found before any
		// request; a write that fails later (a full disk) is exit 8.
		if err := checkWritable("--file", o.File); err != nil {
			return err
		}
	}
	ctx := cmd.Context()
	ro := export.ReportOptions{Version: Version(), MaxCredits: o.MaxCredits, Secrets: a.secrets}
	apiURL, apiKey := o.APIURL, o.APIKey
	rr, err := a.readRunCapped(ctx, arg, apiURL, apiKey, o.MaxCredits)
	if err != nil {
		return err
	}
	s := rr.Store()
	ro.Facts = rr.Figures.Facts()
	var buf bytes.Buffer
	if err := export.Report(&buf, s, format, ro); err != nil {
		return err
	}
	if o.File == "" || o.File == "-" {
		_, err := a.print.Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(o.File, buf.Bytes(), 0o644); err != nil {
		return &outputError{Name: "--file " + o.File, Err: err}
	}
	fmt.Fprintf(a.stderr, "firewatch: report of run %s written to %s\n", text.Sanitize(s.Run().ID), o.File)
	return nil
}
