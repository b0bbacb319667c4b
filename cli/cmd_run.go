package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
)

// firewatch run PROMPT: start an agent run (POST /v2/agent), then watch it
// exactly as watch does.

// runOptions are run's own flags.
type runOptions struct {
	URLs       []string
	Schema     string
	Model      string
	Effort     string
	StrictURLs bool
	Detach     bool
	maxCredits int // from --max-credits, checked
}

func (a *app) runCommand() *cobra.Command {
	o := &watchOptions{}
	ro := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run PROMPT",
		Short: "Start an agent run and watch it",
		Long: `Start an agent run (POST /v2/agent) and watch it like watch does: the terminal
UI, plain or JSON output, --summary, --record and the same exit codes. The new
run's id goes to stderr first ("firewatch: started run <id>") and to the
--debug log; with --detach the id is also printed on stdout and firewatch
exits 0 (8 when stdout cannot be written: the run has started all the same).
An answer without a usable id, a 5xx or no answer says that a run may have
started, and exits 1: look with firewatch runs before starting another.

Everything is checked before the request: an empty prompt, one over 10 000
characters, a schema that is not a JSON object (the error says where), a
--max-credits that is not a positive whole number and an unknown --effort
exit 2. When the service refuses (400 invalid schema, 402 payment required,
403, 429 rate limit) its message is printed and firewatch exits 6; nothing
else is sent.`,
		Example: `  firewatch run "Compare the pricing of the top 5 vector databases"
  firewatch run "Extract the plans" --url https://example.com/pricing --schema plans.schema.json --max-credits 300
  JOB=$(firewatch run "Summarise the docs" --effort low --detach)`,
		Args: exactlyOne("a PROMPT (quote it)"),
		RunE: func(cmd *cobra.Command, args []string) error { return runE(a.run(cmd, o, ro, args[0])) },
	}
	f := cmd.Flags()
	f.StringArrayVar(&ro.URLs, "url", nil, "a URL the agent starts from (repeat for several)")
	f.StringVar(&ro.Schema, "schema", "", "JSON schema of the result: a `FILE`, or the JSON itself")
	f.StringVar(&ro.Model, "model", "", "model (the service's default: spark-2)")
	f.StringVar(&ro.Effort, "effort", "", "effort: "+strings.Join(poller.Efforts, ", "))
	f.BoolVar(&ro.StrictURLs, "strict-urls", false, "keep the agent to the --url pages (strictConstrainToURLs)")
	f.BoolVar(&ro.Detach, "detach", false, "print the new run's id on stdout and exit without watching")
	_ = cmd.RegisterFlagCompletionFunc("effort", cobra.FixedCompletions(poller.Efforts, cobra.ShellCompDirectiveNoFileComp))
	o.register(cmd, flagsConnection|flagsPolling|flagsOutput|flagsOTLP|flagsNotify)
	o.registerResult(f)
	if mc := f.Lookup("max-credits"); mc != nil {
		mc.Usage = "the run's credit cap, a whole number sent as maxCredits (the service's default: 2500); it also drives the burn projection"
		mc.Value = wholeNumber{mc.Value}
	} else {
		// The watch flags may bring --max-credits (the cap the attention
		// features project against); run reads whichever defines it.
		f.String("max-credits", "", "the run's credit cap (maxCredits; the service's default: 2500)")
	}
	return cmd
}

// checkRun validates run's flags and prompt; nothing is sent before.
func (ro *runOptions) request(f *pflag.FlagSet, prompt string) (poller.AgentRequest, error) {
	req := poller.AgentRequest{Prompt: prompt, URLs: ro.URLs, Model: strings.TrimSpace(ro.Model),
		Effort: strings.ToLower(strings.TrimSpace(ro.Effort)), StrictConstrainToURLs: ro.StrictURLs}
	if mc := f.Lookup("max-credits"); mc != nil && mc.Changed {
		n, err := strconv.ParseFloat(strings.TrimSpace(mc.Value.String()), 64)
		if err != nil || !(n >= 1) || n != float64(int(n)) || n > 1e9 {
			return req, badUsage("--max-credits %s: it must be a positive whole number of credits", mc.Value.String())
		}
		ro.maxCredits = int(n)
		req.MaxCredits = ro.maxCredits
	}
	if f.Changed("effort") && req.Effort == "" {
		return req, badUsage("--effort is empty: use one of %s", strings.Join(poller.Efforts, ", "))
	}
	if f.Changed("model") && req.Model == "" {
		return req, badUsage("--model is empty")
	}
	if f.Changed("schema") {
		s, err := readSchema(ro.Schema)
		if err != nil {
			return req, err
		}
		req.Schema = s
	}
	if err := req.Validate(); err != nil {
		var fe *poller.FieldError
		if errors.As(err, &fe) {
			flag := map[string]string{"prompt": "the prompt", "urls": "--url", "schema": "--schema", "maxCredits": "--max-credits", "effort": "--effort"}[fe.Field]
			return req, badUsage("%s: %s", flag, fe.Msg)
		}
		return req, asUsage(err)
	}
	return req, nil
}

// readSchema reads --schema: JSON when it starts like JSON, else a file.
// A syntax error says where (file:line:column).
func readSchema(arg string) (jsontext.Value, error) {
	src, name := []byte(arg), "--schema"
	if t := strings.TrimSpace(arg); t == "" {
		return nil, badUsage("--schema is empty: give a FILE or the JSON schema itself")
	} else if t[0] != '{' && t[0] != '[' {
		f, err := os.Open(arg)
		if err != nil {
			return nil, badUsage("--schema: cannot read the schema file: %v", err)
		}
		defer f.Close()
		src, err = io.ReadAll(io.LimitReader(f, 10<<20))
		if err != nil {
			return nil, badUsage("--schema: cannot read the schema file: %v", err)
		}
		name = arg
	}
	v := jsontext.Value(bytes.TrimSpace(src))
	dec := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := dec.ReadValue(); err != nil {
		off := dec.InputOffset()
		var se *jsontext.SyntacticError
		if errors.As(err, &se) {
			off = se.ByteOffset
		}
		line, col := lineCol(v, off)
		return nil, badUsage("%s: not valid JSON at line %d, column %d: %s", name, line, col, syntaxMsg(err))
	}
	if v.Kind() != '{' {
		return nil, badUsage("%s: a JSON schema must be a JSON object, not %s", name, kindName(v.Kind()))
	}
	return v.Clone(), nil
}

// schemaWords are JSON Schema's keywords: a schema has at least one at its
// root (an example result, or any other JSON object, has none).
var schemaWords = []string{"type", "properties", "items", "$schema", "$ref", "$defs", "definitions", "enum", "const",
	"anyOf", "oneOf", "allOf", "required", "additionalProperties", "prefixItems", "not"}

// jsonSchemaTypes are the type names JSON Schema knows.
var jsonSchemaTypes = []string{"object", "array", "string", "number", "integer", "boolean", "null"}

// readJSONSchema is readSchema that also refuses what is not JSON Schema
// (rerun, follow-up): no schema keyword at its root, an unknown type, or
// properties, items or required of the wrong kind; it says where.
func readJSONSchema(arg string) (jsontext.Value, error) {
	v, err := readSchema(arg)
	if err != nil {
		return nil, err
	}
	var root map[string]jsontext.Value
	_ = json.Unmarshal(v, &root)
	if !slices.ContainsFunc(schemaWords, func(k string) bool { _, ok := root[k]; return ok }) {
		return nil, badUsage("--schema: not a JSON Schema: it has none of %s at its root (an example result is not a schema)", strings.Join(schemaWords[:6], ", "))
	}
	if at, why := schemaFault(v, ""); why != "" {
		return nil, badUsage("--schema: not a JSON Schema: %s %s", where(at), why)
	}
	return v, nil
}

func where(at string) string {
	if at == "" {
		return "the root"
	}
	return at
}

// schemaFault finds the first place in schema v (at path at) that JSON
// Schema would not take, and why; "" when none.
func schemaFault(v jsontext.Value, at string) (string, string) {
	var f map[string]jsontext.Value
	if v.Kind() == 't' || v.Kind() == 'f' {
		return "", "" // true and false are schemas
	}
	if v.Kind() != '{' || json.Unmarshal(v, &f) != nil {
		return at, "is not a schema (an object)"
	}
	if t, ok := f["type"]; ok {
		var one string
		var many []string
		switch {
		case json.Unmarshal(t, &one) == nil:
			many = []string{one}
		case json.Unmarshal(t, &many) == nil:
		default:
			return at + "/type", "must be a type name or a list of them"
		}
		for _, n := range many {
			if !slices.Contains(jsonSchemaTypes, n) {
				return at + "/type", fmt.Sprintf("%q is not one of %s", n, strings.Join(jsonSchemaTypes, ", "))
			}
		}
	}
	if p, ok := f["properties"]; ok {
		var props map[string]jsontext.Value
		if p.Kind() != '{' || json.Unmarshal(p, &props) != nil {
			return at + "/properties", "must be an object of schemas"
		}
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			if w, why := schemaFault(props[n], at+"/properties/"+n); why != "" {
				return w, why
			}
		}
	}
	if it, ok := f["items"]; ok {
		if w, why := schemaFault(it, at+"/items"); why != "" {
			return w, why
		}
	}
	if r, ok := f["required"]; ok {
		var names []string
		if json.Unmarshal(r, &names) != nil {
			return at + "/required", "must be a list of property names"
		}
	}
	return "", ""
}

func syntaxMsg(err error) string {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && se.Err != nil {
		return se.Err.Error()
	}
	return err.Error()
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "that"
}

// lineCol is the 1-based line and column of byte offset off in b.
func lineCol(b []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(b)))
	line := 1 + bytes.Count(b[:off], []byte{'\n'})
	col := int(off) - bytes.LastIndexByte(b[:off], '\n')
	return line, col
}

func (a *app) run(cmd *cobra.Command, o *watchOptions, ro *runOptions, prompt string) error {
	if err := o.check(cmd.Flags()); err != nil {
		return err
	}
	req, err := ro.request(cmd.Flags(), prompt)
	if err != nil {
		return err
	}
	_, err = a.startAndWatch(cmd, o, startSpec{what: "run", req: req, maxCredits: ro.maxCredits, detach: ro.Detach})
	return err
}

// startSpec is a start that run, rerun and follow-up make: the request
// (checked), its cap (0: the service's default), --detach, and the lineage
// the archive keeps for the new run.
type startSpec struct {
	what       string // "run", "rerun", "follow-up": its messages' word
	req        poller.AgentRequest
	maxCredits int
	detach     bool
	rerunOf    string   // the run it reruns
	changed    []string // the request fields the rerun changed
}

// startAndWatch starts the run and, unless detached, watches it as run
// does (its output, archive and exit code); started is the service's
// answer (an empty ID when nothing started).
func (a *app) startAndWatch(cmd *cobra.Command, o *watchOptions, sp startSpec) (started poller.Started, err error) {
	req := sp.req
	c, svc, err := a.connect(o)
	if err != nil {
		return started, err
	}
	// Output files and modes are checked before the run starts; with
	// --detach only the debug log is kept (the id goes to stdout).
	so := o
	if sp.detach {
		d := *o
		d.Output = OutputPlain
		so = &d
	}
	w, cleanup, err := a.newSession(cmd, so)
	if err != nil {
		return started, err
	}
	defer cleanup()
	ctx := cmd.Context()
	st, err := c.Start(ctx, req)
	if err != nil {
		if te := threadRefusal(err, req.ThreadID); te != nil {
			return started, te
		}
		return started, a.startFailed(ctx, "run", "firewatch runs", err, w.Debug)
	}
	started = st
	id := st.ID
	// The run is billed from here: its id is said before anything can
	// fail (stdout on a full disk is then exit 8, the id on stderr).
	a.started("run", id, w.Debug)
	if st.ThreadID != "" && req.ThreadID != "" {
		fmt.Fprintf(a.stderr, "firewatch: %s: turn %d of thread %s\n", sp.what, st.ThreadTurn, st.ThreadID)
	}
	seed := archiving.SeedOf(&req)
	seed.RerunOf, seed.RerunChanged, seed.ThreadID, seed.ThreadTurn = sp.rerunOf, sp.changed, st.ThreadID, st.ThreadTurn
	if sp.detach {
		_, err := fmt.Fprintln(a.print, id)
		a.archiveSeed(ctx, svc.baseURL, id, seed)
		return started, err
	}
	// The run's cap is known, not assumed: the one sent, else the
	// service's default.
	o.StartedMaxCredits = float64(sp.maxCredits)
	if sp.maxCredits == 0 {
		o.StartedMaxCredits = poller.DefaultMaxCredits
	}
	w.Request = model.Request{Prompt: req.Prompt, Model: req.Model, Effort: req.Effort, URLs: req.URLs, MaxCredits: o.StartedMaxCredits}
	kept := a.keepArchiveFor(ctx)
	defer kept.close()
	kept.seed = seed
	w.RerunOf = sp.rerunOf // = on its screen compares them once it ends
	err = a.watchLive(ctx, w, svc, id, liveOptions{archive: kept, label: "run", started: true})
	_, err = a.watchNext(cmd, o, svc, w, err)
	return started, err
}
