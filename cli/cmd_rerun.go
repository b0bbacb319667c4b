package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/spf13/cobra"

	"github.com/firewatch/firewatch/cli/internal/comparetext"
	"github.com/firewatch/firewatch/cli/internal/exitcode"
	"github.com/firewatch/firewatch/cli/internal/rerun"
	"github.com/firewatch/firewatch/compare"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// firewatch rerun JOB_ID: the run's request again with the changes given,
// watched like run, then compared with the original.

func (a *app) rerunCommand() *cobra.Command {
	o := &watchOptions{}
	ro := &rerun.Options{}
	cmd := &cobra.Command{
		Use:   "rerun JOB_ID",
		Short: "Start a run again with one change, watch it, and compare it with the original",
		Long: `Start a run with the request of JOB_ID and the changes given, watch it as run
does, and when it ends print its comparison with the original (the same as
firewatch compare JOB_ID NEW_ID): a screen on a terminal, else text, or with
--output json the events then one line {"comparison": ...}.

The original's request is the archive's record of it (the body firewatch sent
when it started the run), else the service's list item. The list does not
carry the cap (maxCredits) nor strictConstrainToURLs: a rerun of a run known
only from the list needs --max-credits, and says which fields it could not
know. A run whose request is not known at all (expired, not listed) needs
--prompt.

The changes: --prompt, --url (replaces the URLs; repeat for several),
--add-url (one more), --schema FILE (a JSON Schema: anything else is refused
before a request), --model, --effort, --max-credits, --strict-urls. --dry-run
prints the request it would send, each changed field marked with *, and sends
nothing. --detach prints the new run's id and exits.

The archive keeps the new run's lineage (rerunOf and the changed fields;
history -o json, compare --previous).

Exit codes: with --fail-on, the gate's (0 no threshold crossed, 1 crossed;
see compare), else the new run's as run gives them; 2 bad usage (an unknown
model or effort, a schema that is not JSON Schema, a field the original's
request lacks); 6 the service refused.`,
		Example: `  firewatch rerun $JOB --effort low --fail-on creditsUsed:+10%
  firewatch rerun $JOB --max-credits 150 --dry-run
  firewatch rerun $JOB --add-url https://example.com/pricing --schema plans.schema.json`,
		Args: exactlyOne("the JOB_ID of the run to start again"),
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.rerun(cmd, o, ro, args[0])) },
	}
	f := cmd.Flags()
	f.StringVar(&ro.Prompt, "prompt", "", "the new prompt")
	f.StringArrayVar(&ro.URLs, "url", nil, "the URLs the agent starts from, instead of the original's (repeat for several)")
	f.StringArrayVar(&ro.AddURLs, "add-url", nil, "one more URL besides the original's (repeat for several)")
	f.StringVar(&ro.Schema, "schema", "", "JSON Schema of the result: a `FILE`, or the JSON itself")
	f.StringVar(&ro.Model, "model", "", "the model: spark-2 (spark-1-* are routed to it)")
	f.StringVar(&ro.Effort, "effort", "", "effort: "+strings.Join(poller.Efforts, ", "))
	f.BoolVar(&ro.StrictURLs, "strict-urls", false, "keep the agent to the URLs (strictConstrainToURLs)")
	f.BoolVar(&ro.Detach, "detach", false, "print the new run's id on stdout and exit without watching")
	f.BoolVar(&ro.DryRun, "dry-run", false, "print the request it would send, changes marked, and send nothing")
	f.StringVar(&ro.FailOn, "fail-on", "", "thresholds of the comparison that make it exit 1 (as compare's)")
	_ = cmd.RegisterFlagCompletionFunc("effort", cobra.FixedCompletions(poller.Efforts, cobra.ShellCompDirectiveNoFileComp))
	o.register(cmd, flagsConnection|flagsPolling|flagsOutput|flagsOTLP|flagsNotify)
	o.registerResult(f)
	if mc := f.Lookup("max-credits"); mc != nil {
		mc.Usage = "the new run's credit cap, a whole number sent as maxCredits (default: the original's)"
		mc.Value = wholeNumber{mc.Value}
	} else {
		f.String("max-credits", "", "the new run's credit cap (maxCredits; default: the original's)")
	}
	return cmd
}

// originalOf finds the request of run id: the archive's record (the body
// sent, else its fields), else the service's status and list item.
func (a *app) originalOf(ctx context.Context, c *poller.Client, service, id string) (*rerun.Original, error) {
	if st, err := a.openArchive(ctx, readArchive, nil); err == nil && st != nil {
		r, gerr := st.Get(ctx, service, id)
		st.Close()
		if gerr == nil && r.Prompt != "" {
			return rerun.OfRecord(r), nil
		}
		if gerr != nil && !isArchiveNotFound(gerr) {
			return nil, archiveErr(gerr)
		}
	} else if err != nil {
		return nil, err
	}
	l, err := c.RunLookup(ctx, id)
	if err != nil {
		var pe *poller.Error
		if errors.As(err, &pe) && pe.Kind == poller.KindNotFound {
			return rerun.Unknown(), nil
		}
		return nil, err
	}
	return rerun.OfLookup(l), nil
}

func (a *app) rerun(cmd *cobra.Command, o *watchOptions, ro *rerun.Options, id string) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	id = strings.ToLower(strings.TrimSpace(id))
	if err := poller.ValidateJobID(id); err != nil {
		return asUsage(err)
	}
	gates, err := parseFailOn(ro.FailOn)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	c, svc, err := a.connect(o)
	if err != nil {
		return err
	}
	or, err := a.originalOf(ctx, c, svc.baseURL, id)
	if err != nil {
		return err
	}
	f := cmd.Flags()
	var maxCredits string
	if mc := f.Lookup("max-credits"); mc != nil {
		maxCredits = mc.Value.String()
	}
	req, changed, err := ro.Changes(or, f.Changed, maxCredits, readJSONSchema)
	if err != nil {
		return err
	}
	if notSent := or.NotSent(changed); len(notSent) > 0 {
		fmt.Fprintf(a.stderr, "firewatch: rerun: the request is from %s, which does not say %s: the new run is sent without (the service's default)\n",
			or.From, strings.Join(notSent, ", "))
	}
	if ro.DryRun {
		return rerun.DryRun(a.print, o.Output == OutputJSON, a.secrets, id, or, req, changed)
	}
	if len(changed) == 0 {
		fmt.Fprintf(a.stderr, "firewatch: rerun: no change to the request of %s: the same request again\n", id)
	}
	started, err := a.startAndWatch(cmd, o, startSpec{what: "rerun", req: req, maxCredits: req.MaxCredits, detach: ro.Detach, rerunOf: id, changed: changed})
	if started.ID == "" || ro.Detach {
		return err
	}
	var we *exitcode.WatchEnd
	if err != nil && (!errors.As(err, &we) || we.Run == nil || we.Run.State != model.StateFinished || we.Output != nil) {
		return err // watching stopped before the run ended: nothing to compare yet
	}
	if ctx.Err() != nil {
		return err
	}
	cmpErr := a.compareAfter(ctx, o, gates, id, started.ID)
	if len(gates) > 0 || cmpErr != nil && !errors.As(cmpErr, new(*exitcode.ThresholdCrossed)) {
		return gateErr(cmpErr)
	}
	return err
}

// compareAfter compares the original with the new run once it ended, as
// compare does, on the watch's output.
func (a *app) compareAfter(ctx context.Context, o *watchOptions, gates compare.Gates, orig, id string) error {
	c, err := a.comparison(ctx, orig, id, gates, o.APIURL, o.APIKey)
	if err != nil {
		return err
	}
	termOut, _ := isTerminal(a.stdout)
	if o.Output == OutputTUI || o.Output == OutputAuto && termOut && a.onTerminal() {
		return a.compareScreen(ctx, o, c, gates)
	}
	var out []byte
	if o.Output == OutputJSON {
		out, err = json.Marshal(struct {
			Comparison *comparison `json:"comparison"`
		}{c}, json.Deterministic(true))
		if err != nil {
			return err
		}
		out, _ = a.secrets.RedactJSON(out)
		out = append(out, '\n')
	} else {
		out = []byte("\n" + a.secrets.Redact(comparetext.Text(c, termOut && !o.NoColor && !a.noColorEnv())))
	}
	if _, err := a.print.Write(out); err != nil {
		return err
	}
	return a.crossed(c)
}
