package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/cli/internal/comparetext"
	"github.com/firewatch/firewatch/cli/internal/exitcode"
	"github.com/firewatch/firewatch/compare"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// firewatch rerun JOB_ID: the run's request again with the changes given,
// watched like run, then compared with the original.

type rerunOptions struct {
	Prompt     string
	URLs       []string
	AddURLs    []string
	Schema     string
	Model      string
	Effort     string
	StrictURLs bool
	Detach     bool
	DryRun     bool
	FailOn     string
}

func (a *app) rerunCommand() *cobra.Command {
	o := &watchOptions{}
	ro := &rerunOptions{}
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

// original is what is known of a run's request, and from where.
type original struct {
	req     poller.AgentRequest
	from    string   // "the archive" or "the service's list"
	unknown []string // body fields the source does not carry
	capSet  bool     // req.MaxCredits is the run's (else unknown)
}

// bodyFields are POST /v2/agent's fields in their documented order.
var bodyFields = []string{"prompt", "urls", "schema", "maxCredits", "strictConstrainToURLs", "model", "effort"}

// originalOf finds the request of run id: the archive's record (the body
// sent, else its fields), else the service's status and list item.
func (a *app) originalOf(ctx context.Context, c *poller.Client, service, id string) (*original, error) {
	if st, err := a.openArchive(ctx, readArchive, nil); err == nil && st != nil {
		r, gerr := st.Get(ctx, service, id)
		st.Close()
		if gerr == nil && r.Prompt != "" {
			return originalOfRecord(r), nil
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
			return &original{from: "nowhere", unknown: slices.Clone(bodyFields)}, nil
		}
		return nil, err
	}
	or := &original{from: "the service's list", req: poller.AgentRequest{Prompt: l.Request.Prompt, URLs: l.Request.URLs,
		Model: l.Request.Model, Effort: l.Request.Effort}}
	if l.Request.MaxCredits > 0 {
		or.req.MaxCredits, or.capSet = int(l.Request.MaxCredits), true
	} else {
		or.unknown = append(or.unknown, "maxCredits")
	}
	or.unknown = append(or.unknown, "strictConstrainToURLs")
	if l.Item != nil {
		var item struct {
			Options struct {
				Schema jsontext.Value `json:"schema"`
			} `json:"options"`
		}
		if json.Unmarshal(l.Item.Raw, &item) == nil && item.Options.Schema.Kind() == '{' {
			or.req.Schema = item.Options.Schema.Clone()
		}
	} else {
		or.unknown = append(or.unknown, "schema")
	}
	if or.req.Prompt == "" {
		or.unknown = append([]string{"prompt"}, or.unknown...)
	}
	return or, nil
}

// originalOfRecord is the request an archive record holds: the body sent
// when firewatch started the run, else the record's fields.
func originalOfRecord(r *archive.Run) *original {
	or := &original{from: "the archive"}
	if req, ok := poller.ParseAgentBody(r.Request); r.Request != nil && ok {
		// A rerun starts a run of its own thread: the original's is not
		// carried over (follow-up continues a thread).
		req.ThreadID = ""
		or.req = req
		or.capSet = true // absent: the service's default, as sent
		return or
	}
	or.req = poller.AgentRequest{Prompt: r.Prompt, URLs: r.URLs, Model: r.Model, Effort: r.Effort}
	if r.Schema != nil {
		or.req.Schema = jsontext.Value(bytes.Clone(r.Schema))
	}
	if r.MaxCredits != nil && *r.MaxCredits >= 1 {
		or.req.MaxCredits, or.capSet = int(*r.MaxCredits), true
	} else {
		or.unknown = append(or.unknown, "maxCredits")
	}
	or.unknown = append(or.unknown, "strictConstrainToURLs")
	return or
}

// knownModel reports whether the service takes model m.
func knownModel(m string) bool { return m == "spark-2" || strings.HasPrefix(m, "spark-1-") }

// changes applies the flags to the original's request and returns it with
// the body fields that differ from it. Everything is checked before any
// request: an unknown model or effort, a schema that is not JSON Schema,
// a field the original lacks that no flag gives.
func (ro *rerunOptions) changes(f *pflag.FlagSet, or *original) (poller.AgentRequest, []string, error) {
	req := or.req
	req.URLs = slices.Clone(req.URLs)
	if f.Changed("prompt") {
		req.Prompt = ro.Prompt
	}
	if f.Changed("url") {
		req.URLs = slices.Clone(ro.URLs)
	}
	req.URLs = append(req.URLs, ro.AddURLs...)
	if f.Changed("model") {
		m := strings.TrimSpace(ro.Model)
		if !knownModel(m) {
			return req, nil, badUsage("--model %q: the service runs spark-2 (spark-1-* are routed to it)", ro.Model)
		}
		req.Model = m
	}
	if f.Changed("effort") {
		e := strings.ToLower(strings.TrimSpace(ro.Effort))
		if !slices.Contains(poller.Efforts, e) {
			return req, nil, badUsage("--effort %q: use one of %s", ro.Effort, strings.Join(poller.Efforts, ", "))
		}
		req.Effort = e
	}
	if f.Changed("strict-urls") {
		req.StrictConstrainToURLs = ro.StrictURLs
	}
	capGiven := false
	if mc := f.Lookup("max-credits"); mc != nil && mc.Changed {
		n, err := wholeCredits(mc.Value.String())
		if err != nil {
			return req, nil, err
		}
		req.MaxCredits, capGiven = n, true
	}
	if f.Changed("schema") {
		s, err := readJSONSchema(ro.Schema)
		if err != nil {
			return req, nil, err
		}
		req.Schema = s
	}
	var lacks []string
	if req.Prompt == "" {
		lacks = append(lacks, "its prompt (give --prompt)")
	}
	if !or.capSet && !capGiven {
		lacks = append(lacks, fmt.Sprintf("its cap, maxCredits (give --max-credits N; the service's default is %d)", poller.DefaultMaxCredits))
	}
	if len(lacks) > 0 {
		return req, nil, badUsage("the request of the run is not known from %s: it lacks %s", or.from, strings.Join(lacks, " and "))
	}
	if err := req.Validate(); err != nil {
		var fe *poller.FieldError
		if errors.As(err, &fe) {
			return req, nil, badUsage("%s: %s", fe.Field, fe.Msg)
		}
		return req, nil, asUsage(err)
	}
	return req, changedFields(or.req, req), nil
}

// wholeCredits reads --max-credits: a positive whole number.
func wholeCredits(s string) (int, error) {
	var n float64
	if _, err := fmt.Sscan(strings.TrimSpace(s), &n); err != nil || !(n >= 1) || n != float64(int(n)) || n > 1e9 {
		return 0, badUsage("--max-credits %s: it must be a positive whole number of credits", s)
	}
	return int(n), nil
}

// changedFields are the body fields (bodyFields' names) of b that differ
// from a's.
func changedFields(a, b poller.AgentRequest) []string {
	fa, fb := requestFields(a), requestFields(b)
	var out []string
	for _, k := range bodyFields {
		if !bytes.Equal(fa[k], fb[k]) {
			out = append(out, k)
		}
	}
	return out
}

// requestFields is the request's body as its fields' JSON.
func requestFields(r poller.AgentRequest) map[string]jsontext.Value {
	b, _ := r.Body()
	var m map[string]jsontext.Value
	_ = json.Unmarshal(b, &m)
	return m
}

func (a *app) rerun(cmd *cobra.Command, o *watchOptions, ro *rerunOptions, id string) error {
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
	req, changed, err := ro.changes(cmd.Flags(), or)
	if err != nil {
		return err
	}
	if notSent := slices.DeleteFunc(slices.Clone(or.unknown), func(k string) bool { return slices.Contains(changed, k) || k == "maxCredits" }); len(notSent) > 0 {
		fmt.Fprintf(a.stderr, "firewatch: rerun: the request is from %s, which does not say %s: the new run is sent without (the service's default)\n",
			or.from, strings.Join(notSent, ", "))
	}
	if ro.DryRun {
		return a.printDryRun(o, id, or, req, changed)
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

// printDryRun shows the request a rerun would send, the changed fields
// marked, and sends nothing.
func (a *app) printDryRun(o *watchOptions, id string, or *original, req poller.AgentRequest, changed []string) error {
	fields := requestFields(req)
	was := requestFields(or.req)
	if o.Output == OutputJSON {
		body, _ := req.Body()
		out, err := json.Marshal(struct {
			RerunOf string         `json:"rerunOf"`
			From    string         `json:"from"`
			Request jsontext.Value `json:"request"`
			Changed []string       `json:"changed"`
			Unknown []string       `json:"unknown"`
			Sent    bool           `json:"sent"`
		}{id, or.from, body, nonNil(changed), nonNil(or.unknown), false}, json.Deterministic(true))
		if err != nil {
			return err
		}
		out, _ = a.secrets.RedactJSON(out)
		_, err = a.print.Write(append(out, '\n'))
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "rerun of %s (its request from %s); nothing sent (--dry-run). * marks a change:\n", id, or.from)
	for _, k := range bodyFields {
		v, ok := fields[k]
		old, had := was[k]
		if !ok && !had {
			continue
		}
		mark := " "
		if slices.Contains(changed, k) {
			mark = "*"
		}
		now := "(not sent)"
		if ok {
			now = text.Sanitize(string(v))
		}
		fmt.Fprintf(&b, "%s %-22s %s", mark, k+":", now)
		if mark == "*" {
			prev := "not sent"
			if had {
				prev = text.Sanitize(string(old))
			}
			fmt.Fprintf(&b, "   (was: %s)", prev)
		}
		b.WriteByte('\n')
	}
	if len(changed) == 0 {
		b.WriteString("no change: the same request again\n")
	}
	_, err := a.print.Write([]byte(a.secrets.Redact(b.String())))
	return err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
