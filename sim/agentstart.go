package sim

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// POST /v2/agent starts a run.
//
// The body is the real one: prompt (required, at most 10 000 characters,
// counted as JavaScript counts them), urls, schema (a JSON schema object),
// maxCredits (default 2 500), strictConstrainToURLs, model (spark-2;
// spark-1-* are accepted and routed to spark-2), effort (low, medium, high),
// webhook, threadId (a follow-up: threads.go). The answer is
// {"success":true,"id":<uuid>,"threadId":<uuid>,"threadTurn":N}; refusals are 400 with
// the validator's message ({"success":false,"error":"Bad Request: prompt:
// Required",...}; the schema's is "Invalid JSON schema: ..."), 402 when the
// team has no tokens left (or Options.RefuseStart), 403 and 500 with
// Options.RefuseStart, and 429 from the rate limiter.
//
// The prompt picks the scenario the new run plays (its trace is the
// scenario's; the list and the status show the prompt and options sent):
//
//	contains "refuse" or "personal"      refused
//	contains "fail"                      failure
//	contains "monitor" or "keep watching" cancel (works until it is DELETEd, gives up at 10 minutes)
//	anything else                        research (effort low: fewer credits, 3 of the 5 vendors found)
//
// A maxCredits below what the scenario needs ends the run with
// credit_limit_reached when its credits reach it (creditsUsed is capped).

// MaxPromptLen is the longest prompt POST /v2/agent takes, in UTF-16 code
// units (JavaScript's string length).
const MaxPromptLen = 10000

// DefaultAgentMaxCredits is the maxCredits of a run started without one.
const DefaultAgentMaxCredits = 2500

const (
	msgPaymentRequired = "Insufficient credits to perform this request. For more credits, you can upgrade your plan at https://firecrawl.dev/pricing."
	msgAgentForbidden  = "Your plan does not include the agent endpoint."
	msgPassthrough     = "Failed to passthrough agent request."
)

// startScenario is the scenario a started run plays, from its prompt.
func startScenario(prompt string) string {
	p := strings.ToLower(prompt)
	switch {
	case strings.Contains(p, "refuse") || strings.Contains(p, "personal"):
		return ScenarioRefused
	case strings.Contains(p, "fail"):
		return ScenarioFailure
	case strings.Contains(p, "monitor") || strings.Contains(p, "keep watching"):
		return ScenarioCancel
	}
	return ScenarioResearch
}

// badRequest is the validator's 400: {"success":false,"error":"Bad
// Request: <path>: <message>","details":[{code,path,message}]}.
func badRequest(w http.ResponseWriter, code, path, msg string) {
	writeJSON(w, http.StatusBadRequest, jsonOf(obj{"success", false, "error", "Bad Request: " + path + ": " + msg,
		"details", arr{obj{"code", code, "path", []string{path}, "message", msg}}}))
}

// startReq is a validated POST /v2/agent body.
type startReq struct {
	prompt     string
	urls       []string
	schema     raw
	maxCredits int
	strict     bool
	model      string
	effort     string
	threadID   string // a follow-up's thread; "" for a new thread
}

// parseStart validates the body; it has written the answer when ok is false.
func parseStart(w http.ResponseWriter, body []byte) (q startReq, ok bool) {
	var f map[string]jsontext.Value
	if err := json.Unmarshal(body, &f); err != nil || f == nil {
		writeJSON(w, http.StatusBadRequest, errBody("Bad Request: the body must be a JSON object"))
		return q, false
	}
	str := func(name string) (string, bool, bool) { // value, present, isString
		v, ok := f[name]
		if !ok || v.Kind() == 'n' {
			return "", false, false
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", true, false
		}
		return s, true, true
	}
	p, present, isStr := str("prompt")
	switch {
	case !present:
		badRequest(w, "invalid_type", "prompt", "Required")
		return q, false
	case !isStr:
		badRequest(w, "invalid_type", "prompt", "Expected string")
		return q, false
	case strings.TrimSpace(p) == "":
		badRequest(w, "too_small", "prompt", "String must contain at least 1 character(s)")
		return q, false
	case len(utf16.Encode([]rune(p))) > MaxPromptLen:
		badRequest(w, "too_big", "prompt", "String must contain at most "+strconv.Itoa(MaxPromptLen)+" character(s)")
		return q, false
	}
	q.prompt = p
	if v, ok := f["urls"]; ok && v.Kind() != 'n' {
		if json.Unmarshal(v, &q.urls) != nil {
			badRequest(w, "invalid_type", "urls", "Expected array of strings")
			return q, false
		}
		for _, u := range q.urls {
			if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
				badRequest(w, "invalid_string", "urls", "Invalid url")
				return q, false
			}
		}
	}
	if v, ok := f["schema"]; ok && v.Kind() != 'n' {
		if err := checkSchema(v, ""); err != "" {
			writeJSON(w, http.StatusBadRequest, errBody("Invalid JSON schema: "+err))
			return q, false
		}
		c := v.Clone()
		_ = c.Compact()
		q.schema = raw(c)
	}
	q.maxCredits = DefaultAgentMaxCredits
	if v, ok := f["maxCredits"]; ok && v.Kind() != 'n' {
		var n float64
		if json.Unmarshal(v, &n) != nil {
			badRequest(w, "invalid_type", "maxCredits", "Expected number")
			return q, false
		}
		if !(n > 0) || n != float64(int(n)) {
			badRequest(w, "too_small", "maxCredits", "Number must be a positive integer")
			return q, false
		}
		q.maxCredits = int(n)
	}
	if v, ok := f["strictConstrainToURLs"]; ok && v.Kind() != 'n' {
		if json.Unmarshal(v, &q.strict) != nil {
			badRequest(w, "invalid_type", "strictConstrainToURLs", "Expected boolean")
			return q, false
		}
	}
	q.model = "spark-2"
	if m, present, isStr := str("model"); present {
		if !isStr || (m != "spark-2" && !strings.HasPrefix(m, "spark-1-")) {
			badRequest(w, "invalid_enum_value", "model", "Invalid enum value. Expected 'spark-2', received '"+m+"'")
			return q, false
		}
	}
	if e, present, isStr := str("effort"); present {
		if !isStr || (e != "low" && e != "medium" && e != "high") {
			badRequest(w, "invalid_enum_value", "effort", "Invalid enum value. Expected 'low' | 'medium' | 'high', received '"+e+"'")
			return q, false
		}
		q.effort = e
	}
	return q, true
}

// schemaTypes are JSON schema's type names.
var schemaTypes = map[string]bool{"object": true, "array": true, "string": true, "number": true, "integer": true, "boolean": true, "null": true}

// checkSchema returns what is wrong with a JSON schema ("" when nothing):
// it must be an object, its type(s) JSON schema types, its properties an
// object of schemas, its items a schema, its required an array of strings.
func checkSchema(v jsontext.Value, at string) string {
	var f map[string]jsontext.Value
	if v.Kind() != '{' || json.Unmarshal(v, &f) != nil {
		return "schema at " + where(at) + " must be an object"
	}
	if t, ok := f["type"]; ok {
		var one string
		var many []string
		switch {
		case json.Unmarshal(t, &one) == nil:
			many = []string{one}
		case json.Unmarshal(t, &many) == nil:
		default:
			return where(at+"/type") + " must be a string or an array of strings"
		}
		for _, n := range many {
			if !schemaTypes[n] {
				return fmt.Sprintf("%s: unknown type %q", where(at+"/type"), n)
			}
		}
	}
	if p, ok := f["properties"]; ok {
		var props map[string]jsontext.Value
		if p.Kind() != '{' || json.Unmarshal(p, &props) != nil {
			return where(at+"/properties") + " must be an object"
		}
		for name, ps := range props {
			if e := checkSchema(ps, at+"/properties/"+name); e != "" {
				return e
			}
		}
	}
	if it, ok := f["items"]; ok && it.Kind() == '{' {
		if e := checkSchema(it, at+"/items"); e != "" {
			return e
		}
	}
	if r, ok := f["required"]; ok {
		var names []string
		if json.Unmarshal(r, &names) != nil {
			return where(at+"/required") + " must be an array of strings"
		}
	}
	return ""
}

func where(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// serveStart answers POST /v2/agent.
func (s *Server) serveStart(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 10<<20))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errBody("Bad Request: the body could not be read"))
		return
	}
	var started string
	defer func() {
		st := http.StatusOK
		if rw, ok := w.(*respWriter); ok {
			st = rw.status
		}
		s.logStart(body, st, started)
	}()
	q, ok := parseStart(w, body)
	if !ok {
		return
	}
	tid, bad := threadIDOf(body)
	if bad {
		badRequest(w, "invalid_type", "threadId", "Expected string")
		return
	}
	q.threadID = tid
	switch s.o.RefuseStart {
	case http.StatusPaymentRequired:
		writeJSON(w, http.StatusPaymentRequired, errBody(msgPaymentRequired))
		return
	case http.StatusForbidden:
		writeJSON(w, http.StatusForbidden, errBody(msgAgentForbidden))
		return
	case http.StatusInternalServerError:
		writeJSON(w, http.StatusInternalServerError, errBody(msgPassthrough))
		return
	}
	if s.remainingTokens() <= 0 {
		writeJSON(w, http.StatusPaymentRequired, errBody(msgPaymentRequired))
		return
	}
	r, ok := s.startRun(w, q)
	if !ok {
		return
	}
	started = r.id
	writeJSON(w, http.StatusOK, jsonOf(obj{"success", true, "id", r.id, "threadId", r.thread.id, "threadTurn", r.turn}))
}

// startRun builds the run a POST asked for; it starts now, as turn 1 of
// a new thread or, with q.threadID, the thread's next turn (which has
// answered w when ok is false).
func (s *Server) startRun(w http.ResponseWriter, q startReq) (*run, bool) {
	s.runsMu.Lock() // one at a time: the position picks the id
	defer s.runsMu.Unlock()
	var t *thread
	if q.threadID != "" {
		var ok bool
		if t, ok = s.followUpThreadLocked(w, q.threadID); !ok {
			return nil, false
		}
		if q.schema == nil {
			q.schema = t.schema
		}
	}
	idx := len(s.byIdx)
	o := s.o
	id := randUUID(newRNG(o.Seed, idx, streamIDs)).String()
	t0 := s.simNow()
	wall := time.Duration(float64(t0) / o.Speed)
	b := newBuilder(newRNG(o.Seed, idx, streamScript), id, s.base.Add(wall), o.Speed, s.URL+"/files/"+id)
	sc := startScenario(q.prompt)
	maxCredits := 0
	switch sc {
	case ScenarioRefused:
		refused(b)
	case ScenarioCancel:
		longRun(b, true, 10*time.Minute)
		b.endFailure(10*time.Minute, "", "The run exceeded the maximum duration of 10 minutes")
	default:
		researchAt(b, q.effort == "low")
		if sc == ScenarioFailure {
			b.endFailure(b.between(30*time.Second, 34*time.Second), "docs-analyst",
				"Model provider returned HTTP 529 (overloaded) on 3 consecutive attempts; the run cannot continue")
		}
	}
	if q.maxCredits < b.totalCredits() && b.endCreditLimit(q.maxCredits) {
		maxCredits = q.maxCredits
	}
	b.finalize()
	b.shift(t0, s.base)
	r := &run{s: s, id: id, scenario: sc, changed: make(chan struct{}), createdAt: s.base.Add(wall), b: b,
		info: jobInfo{prompt: q.prompt, urls: q.urls, model: "spark-2", effort: q.effort, maxCredits: maxCredits},
		meta: &runMeta{origin: "api", schema: q.schema, strict: q.strict}}
	r.setView(b.view())
	r.idx = idx
	s.runs[id] = r
	s.byIdx = append(s.byIdx, r)
	if t == nil {
		s.threadOfLocked(r)
	} else {
		t.turns = append(t.turns, r)
		t.schema = q.schema
		r.thread, r.turn = t, len(t.turns)
	}
	return r, true
}

// remainingTokens is the team's token balance now.
func (s *Server) remainingTokens() int {
	return planTokens - 15*s.periodUsed()
}
