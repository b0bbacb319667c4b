// Package rerun is firewatch rerun's request: the original's request as
// far as it is known (the archive's record, else the service's list), the
// flags' changes applied and checked before any request, and the dry run
// that shows them. cli starts, watches and compares the new run.
package rerun

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/cli/internal/exitcode"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// Options are rerun's changes, the values of its flags.
type Options struct {
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

// Original is what is known of a run's request, and from where.
type Original struct {
	Req     poller.AgentRequest
	From    string   // "the archive" or "the service's list"
	Unknown []string // body fields the source does not carry
	CapSet  bool     // Req.MaxCredits is the run's (else unknown)
}

// bodyFields are POST /v2/agent's fields in their documented order.
var bodyFields = []string{"prompt", "urls", "schema", "maxCredits", "strictConstrainToURLs", "model", "effort"}

// Unknown is the original of a run whose request is not known at all.
func Unknown() *Original {
	return &Original{From: "nowhere", Unknown: slices.Clone(bodyFields)}
}

// OfLookup is the request the service's status and list item give.
func OfLookup(l poller.Lookup) *Original {
	or := &Original{From: "the service's list", Req: poller.AgentRequest{Prompt: l.Request.Prompt, URLs: l.Request.URLs,
		Model: l.Request.Model, Effort: l.Request.Effort}}
	if l.Request.MaxCredits > 0 {
		or.Req.MaxCredits, or.CapSet = int(l.Request.MaxCredits), true
	} else {
		or.Unknown = append(or.Unknown, "maxCredits")
	}
	or.Unknown = append(or.Unknown, "strictConstrainToURLs")
	if l.Item != nil {
		var item struct {
			Options struct {
				Schema jsontext.Value `json:"schema"`
			} `json:"options"`
		}
		if json.Unmarshal(l.Item.Raw, &item) == nil && item.Options.Schema.Kind() == '{' {
			or.Req.Schema = item.Options.Schema.Clone()
		}
	} else {
		or.Unknown = append(or.Unknown, "schema")
	}
	if or.Req.Prompt == "" {
		or.Unknown = append([]string{"prompt"}, or.Unknown...)
	}
	return or
}

// OfRecord is the request an archive record holds: the body sent
// when firewatch started the run, else the record's fields.
func OfRecord(r *archive.Run) *Original {
	or := &Original{From: "the archive"}
	if req, ok := poller.ParseAgentBody(r.Request); r.Request != nil && ok {
		// A rerun starts a run of its own thread: the original's is not
		// carried over (follow-up continues a thread).
		req.ThreadID = ""
		or.Req = req
		or.CapSet = true // absent: the service's default, as sent
		return or
	}
	or.Req = poller.AgentRequest{Prompt: r.Prompt, URLs: r.URLs, Model: r.Model, Effort: r.Effort}
	if r.Schema != nil {
		or.Req.Schema = jsontext.Value(bytes.Clone(r.Schema))
	}
	if r.MaxCredits != nil && *r.MaxCredits >= 1 {
		or.Req.MaxCredits, or.CapSet = int(*r.MaxCredits), true
	} else {
		or.Unknown = append(or.Unknown, "maxCredits")
	}
	or.Unknown = append(or.Unknown, "strictConstrainToURLs")
	return or
}

// knownModel reports whether the service takes model m.
func knownModel(m string) bool { return m == "spark-2" || strings.HasPrefix(m, "spark-1-") }

// Changes applies the flags to the original's request and returns it with
// the body fields that differ from it. changed says whether a flag was
// given; maxCredits is --max-credits's value; readSchema reads --schema.
// Everything is checked before any request: an unknown model or effort, a
// schema that is not JSON Schema, a field the original lacks that no flag
// gives.
func (ro *Options) Changes(or *Original, changed func(flag string) bool, maxCredits string, readSchema func(string) (jsontext.Value, error)) (poller.AgentRequest, []string, error) {
	req := or.Req
	req.URLs = slices.Clone(req.URLs)
	if changed("prompt") {
		req.Prompt = ro.Prompt
	}
	if changed("url") {
		req.URLs = slices.Clone(ro.URLs)
	}
	req.URLs = append(req.URLs, ro.AddURLs...)
	if changed("model") {
		m := strings.TrimSpace(ro.Model)
		if !knownModel(m) {
			return req, nil, exitcode.BadUsage("--model %q: the service runs spark-2 (spark-1-* are routed to it)", ro.Model)
		}
		req.Model = m
	}
	if changed("effort") {
		e := strings.ToLower(strings.TrimSpace(ro.Effort))
		if !slices.Contains(poller.Efforts, e) {
			return req, nil, exitcode.BadUsage("--effort %q: use one of %s", ro.Effort, strings.Join(poller.Efforts, ", "))
		}
		req.Effort = e
	}
	if changed("strict-urls") {
		req.StrictConstrainToURLs = ro.StrictURLs
	}
	capGiven := false
	if changed("max-credits") {
		n, err := WholeCredits(maxCredits)
		if err != nil {
			return req, nil, err
		}
		req.MaxCredits, capGiven = n, true
	}
	if changed("schema") {
		s, err := readSchema(ro.Schema)
		if err != nil {
			return req, nil, err
		}
		req.Schema = s
	}
	var lacks []string
	if req.Prompt == "" {
		lacks = append(lacks, "its prompt (give --prompt)")
	}
	if !or.CapSet && !capGiven {
		lacks = append(lacks, fmt.Sprintf("its cap, maxCredits (give --max-credits N; the service's default is %d)", poller.DefaultMaxCredits))
	}
	if len(lacks) > 0 {
		return req, nil, exitcode.BadUsage("the request of the run is not known from %s: it lacks %s", or.From, strings.Join(lacks, " and "))
	}
	if err := req.Validate(); err != nil {
		var fe *poller.FieldError
		if errors.As(err, &fe) {
			return req, nil, exitcode.BadUsage("%s: %s", fe.Field, fe.Msg)
		}
		return req, nil, exitcode.AsUsage(err)
	}
	return req, changedFields(or.Req, req), nil
}

// WholeCredits reads --max-credits: a positive whole number.
func WholeCredits(s string) (int, error) {
	var n float64
	if _, err := fmt.Sscan(strings.TrimSpace(s), &n); err != nil || !(n >= 1) || n != float64(int(n)) || n > 1e9 {
		return 0, exitcode.BadUsage("--max-credits %s: it must be a positive whole number of credits", s)
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

// NotSent are the fields the original's source does not say that no
// change gives: the new run is sent without them (maxCredits is asked
// for instead).
func (or *Original) NotSent(changed []string) []string {
	return slices.DeleteFunc(slices.Clone(or.Unknown), func(k string) bool { return slices.Contains(changed, k) || k == "maxCredits" })
}

// DryRun writes to w the request a rerun of id would send, the changed
// fields marked (one line of JSON with jsonOut), the secrets redacted.
func DryRun(w io.Writer, jsonOut bool, secrets *text.Secrets, id string, or *Original, req poller.AgentRequest, changed []string) error {
	fields := requestFields(req)
	was := requestFields(or.Req)
	if jsonOut {
		body, _ := req.Body()
		out, err := json.Marshal(struct {
			RerunOf string         `json:"rerunOf"`
			From    string         `json:"from"`
			Request jsontext.Value `json:"request"`
			Changed []string       `json:"changed"`
			Unknown []string       `json:"unknown"`
			Sent    bool           `json:"sent"`
		}{id, or.From, body, orEmpty(changed), orEmpty(or.Unknown), false}, json.Deterministic(true))
		if err != nil {
			return err
		}
		out, _ = secrets.RedactJSON(out)
		_, err = w.Write(append(out, '\n'))
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "rerun of %s (its request from %s); nothing sent (--dry-run). * marks a change:\n", id, or.From)
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
	_, err := w.Write([]byte(secrets.Redact(b.String())))
	return err
}

// orEmpty is s, or an empty list for JSON's [] rather than null.
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
