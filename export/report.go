package export

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// ReportOptions configure a report.
type ReportOptions struct {
	// Version is firewatch's version, named in the footer.
	Version string
	// Secrets (the API key, any other) are replaced by [redacted] wherever
	// they appear.
	Secrets *text.Secrets
	// Result is the latest content of the result artifact, when it could
	// be fetched (a report of a job id); nil otherwise.
	Result *ResultContent
	// MaxCredits is the run's cap for the attention tracker's budget item;
	// 0 assumes the service's default.
	MaxCredits float64
	// Facts, when set, are the run's figures from firewatch's record of it
	// (what history, cost and compare show): the report shows them rather
	// than work them out from the store alone.
	Facts *Facts
}

// Facts are a run's figures as firewatch's one record of it has them: its
// bill by the one rule (model.BillOf), whether it was read to its end,
// what needed a look, each agent's estimated credits and the result.
type Facts struct {
	Bill model.Bill
	// Complete is false for a run known only in part (a watch left
	// early, the trace gone since): its figures are not final.
	Complete       bool
	Attention      []attention.SummaryItem
	CreditsByAgent map[string]float64 // by agent id
	// Result is the status endpoint's data once the run completed (JSON),
	// nil when not known.
	Result []byte
	// StartedBy and CancelledBy name who started or cancelled the run
	// through a hub ("" when nobody did there).
	StartedBy, CancelledBy string
}

// ResultContent is an artifact version's content.
type ResultContent struct {
	ArtifactID string
	SnapshotID string
	Kind       model.ArtifactKind
	Content    string // as the service sent it; escaped when written
}

// attentionRows is what package attention found, for the report.
type attentionRows struct {
	Items []attentionItem
	Costs []agentCost
}

// attentionItem is one thing that needed a look during the run.
type attentionItem struct {
	Level, Kind, Agent, At, Message string
	Open                            bool // not cleared when the report was made
}

// agentCost is an agent's estimated share of the credits.
type agentCost struct {
	Agent   string
	Credits string
}

// maxRows bounds the waterfall and the tool list of a huge run; the report
// says how many were left out.
const maxRows = 400

// maxContent bounds one folded parameters/result block.
const maxContent = 64 << 10

// report is what the templates read. Every string in it comes from the
// store as it is (sanitised for a terminal by the model); the templates
// escape it for its context.
type report struct {
	Title    string
	JobID    string
	State    string
	Outcome  string
	Level    string // good, warn, bad, run
	Duration string
	Started  string
	Finished string
	Credits  string
	// Incomplete says why the figures are not final ("" when they are).
	Incomplete string
	Tokens     string
	Events     int
	Cancel     string
	// StartedBy and CancelledBy are the hub's people who did (Facts).
	StartedBy, CancelledBy string
	RunError               *errRow
	Agents                 []agentRow
	Tree                   []*agentNode
	Tools                  []toolRow
	ToolsLeft              int
	Errors                 []errRow
	Artifacts              []artifactRow
	Result                 *resultRow
	Attention              *attentionRows
	Chart                  chart
	Version                string
	CSS                    template.CSS
	CSP                    string
	Request                requestRow
}

// requestRow is what the run was asked to do, as far as firewatch knows.
type requestRow struct {
	Prompt, Model, Effort string
	URLs                  []string
	Cap                   string // "2,500", or "2,500 (assumed)" when not known
	Known                 bool   // anything besides the cap is known
}

type agentRow struct {
	Name, Role, ID, State, Outcome, Level, Duration string
	Depth, Tools, Errors                            int
	Indent                                          string // for Markdown
	Unfinished, Orphan                              bool
}

type agentNode struct {
	agentRow
	Children []*agentNode
}

type toolRow struct {
	Name, ID, Agent, State, Duration, Level string
	Params, Result                          string
	ParamsCut, ResultCut                    bool
	Failed                                  bool
	Errors                                  []string
}

type errRow struct {
	At, Agent, Code, Source, Message, Explanation string
	Retryable, Fatal                              bool
}

type artifactRow struct {
	ID, Kind, Path string
	Versions       []versionRow
}

type versionRow struct {
	At, Change, Snapshot, Items, Fields, Tool string
}

type resultRow struct {
	ID, Kind, Snapshot, Content string
	Cut                         bool
	Lines                       int  // of Content
	Fold                        bool // long: folded in the HTML, in <details> in Markdown
}

// chart is the SVG waterfall on the trace's time axis.
type chart struct {
	Width, Height, LabelW int
	Rows                  []chartRow
	Ticks                 []chartTick
	Left                  int
	Empty                 bool
}

type chartRow struct {
	Y, TextY, X, W  float64
	Label, Tip, Cls string
	Indent          float64
}

type chartTick struct {
	X     float64
	Label string
	End   bool // near the right edge: the label ends at the line
}

// explain says what an error means for the person reading (package
// attention has the one answer).
func explain(te model.TraceError) string { return attention.ExplainError(&te) }

func level(o model.Outcome, finished bool) string {
	if !finished {
		return "run"
	}
	switch describe.Outcome(o).Level {
	case describe.Good:
		return "good"
	case describe.Warn:
		return "warn"
	}
	return "bad"
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05.000Z")
}

// build gathers the report's data from the store.
func build(s *model.Store, o ReportOptions) *report {
	clean := o.Secrets.Redact
	r := s.Run()
	finished := r.State == model.StateFinished
	rep := &report{
		JobID:   clean(r.ID),
		State:   string(r.State),
		Outcome: string(r.Outcome),
		Level:   level(r.Outcome, finished),
		Started: stamp(r.StartedAt), Finished: stamp(r.FinishedAt),
		Credits: strconv.FormatFloat(r.CreditsUsed, 'f', -1, 64),
		Tokens:  describe.Tokens(r.TokensUsed()),
		Events:  s.Len(),
		Version: o.Version,
	}
	if !finished {
		rep.Outcome = "unfinished"
	}
	bill := model.BillOf(r.Outcome, r.CreditsUsed)
	if !finished {
		bill = model.Bill{}
	}
	if f := o.Facts; f != nil {
		bill = f.Bill
		rep.StartedBy, rep.CancelledBy = clean(f.StartedBy), clean(f.CancelledBy)
		if !f.Complete {
			rep.Incomplete = "firewatch holds this run only in part (watching stopped before it finished, and it has not been read since): these figures are what was read, not final ones"
		}
	}
	rep.Credits = creditsText(rep.Credits, r.Outcome, bill)
	rep.Title = "firewatch report: run " + describe.ShortID(rep.JobID) + " " + rep.Outcome
	if d, ok := r.Duration(); ok {
		rep.Duration = text.Duration(d)
	} else if d, ok := model.Span(r.StartedAt, lastTime(s)); ok {
		rep.Duration = text.Duration(d) + " so far"
	}
	if r.CancelRequested {
		rep.Cancel = clean(r.CancelReason)
		if rep.Cancel == "" {
			rep.Cancel = "requested"
		}
	}
	if r.Error != nil {
		rep.RunError = &errRow{Code: clean(string(r.Error.Code)), Source: clean(string(r.Error.Source)), Message: clean(r.Error.Message), Retryable: r.Error.Retryable, Explanation: explain(*r.Error), Fatal: true}
	}
	nodes := map[*model.Agent]*agentNode{}
	for _, a := range s.Agents() {
		row := agentRow{Name: clean(a.Name), Role: clean(string(a.Role)), ID: clean(a.ID), State: string(a.State), Outcome: clean(string(a.Outcome)),
			Level: level(a.Outcome, a.State == model.StateFinished), Depth: a.Depth, Tools: len(a.ToolCalls), Errors: a.Errors,
			Indent: strings.Repeat("  ", a.Depth), Unfinished: a.State != model.StateFinished, Orphan: a.Orphan}
		if a.HasDuration {
			row.Duration = text.Duration(time.Duration(a.DurationMs) * time.Millisecond)
		}
		rep.Agents = append(rep.Agents, row)
		n := &agentNode{agentRow: row}
		nodes[a] = n
		if p := nodes[a.Parent]; a.Parent != nil && p != nil {
			p.Children = append(p.Children, n)
		} else {
			rep.Tree = append(rep.Tree, n)
		}
	}
	for i, t := range s.ToolCalls() {
		if i >= maxRows {
			rep.ToolsLeft = len(s.ToolCalls()) - maxRows
			break
		}
		row := toolRow{Name: clean(t.Name), ID: clean(t.ID), State: string(t.State), Failed: t.Failed()}
		if t.Agent != nil {
			row.Agent = clean(t.Agent.Name)
		}
		if d, ok := t.Duration(); ok {
			row.Duration = text.Duration(d)
		}
		row.Level = "good"
		switch {
		case row.Failed:
			row.Level = "bad"
		case t.State != model.StateFinished:
			row.Level = "warn"
		}
		row.Params, row.ParamsCut = pretty(clean, t.Parameters)
		row.Result, row.ResultCut = pretty(clean, t.Result)
		for _, e := range t.Errors {
			row.Errors = append(row.Errors, clean(describe.Error(&e.Error)))
		}
		rep.Tools = append(rep.Tools, row)
	}
	for _, e := range s.Errors() {
		row := errRow{At: stamp(e.Event.OccurredAt), Code: clean(string(e.Error.Code)), Source: clean(string(e.Error.Source)),
			Message: clean(e.Error.Message), Retryable: e.Error.Retryable, Fatal: e.Fatal, Explanation: explain(e.Error)}
		if a := s.Agent(e.AgentID); a != nil {
			row.Agent = clean(a.Name)
		}
		rep.Errors = append(rep.Errors, row)
	}
	for _, a := range s.Artifacts() {
		row := artifactRow{ID: clean(a.ID), Kind: clean(string(a.Kind)), Path: clean(a.Path)}
		for _, v := range a.Versions {
			vr := versionRow{At: stamp(v.Event.OccurredAt), Change: clean(string(v.Ref.Change)), Snapshot: clean(v.Ref.SnapshotID),
				Fields: clean(strings.Join(v.Ref.ChangedFields, ", ")), Tool: clean(v.Ref.SourceToolCallID)}
			if v.Ref.HasItemCount {
				vr.Items = describe.Count(v.Ref.ItemCount, "item")
			}
			row.Versions = append(row.Versions, vr)
		}
		rep.Artifacts = append(rep.Artifacts, row)
	}
	res := o.Result
	if f := o.Facts; f != nil && f.Result != nil {
		res = &ResultContent{Kind: model.KindJSON, Content: string(f.Result)}
	}
	if res != nil {
		c := clean(text.Sanitize(res.Content))
		if res.Kind == model.KindJSON {
			if p, _ := pretty(clean, []byte(res.Content)); p != "" {
				c = p
			}
		}
		cut := len(c) > 4*maxContent
		if cut {
			c = cutUTF8(c, 4*maxContent)
		}
		lines := strings.Count(c, "\n") + 1
		rep.Result = &resultRow{ID: clean(res.ArtifactID), Kind: clean(string(res.Kind)), Snapshot: clean(res.SnapshotID), Content: c, Cut: cut,
			Lines: lines, Fold: lines > foldLines}
	}
	rep.Request = requestOf(s, o, clean)
	rep.Attention = attentionOf(s, o, clean)
	rep.Chart = buildChart(s, clean)
	rep.CSS = template.CSS(reportCSS)
	rep.CSP = reportCSP()
	return rep
}

// foldLines is the longest result shown open.
const foldLines = 40

// creditsText is the credits line: the credits used and what is billed of
// them by the one rule (bill), with why when that is not all of them.
func creditsText(used string, o model.Outcome, bill model.Bill) string {
	switch {
	case !bill.Known && o == "":
		return used + " used so far; billed: not known until the run's outcome is"
	case !bill.Known:
		return used + " used; billed: not known (an outcome firewatch does not know)"
	case !bill.Billed:
		return used + " used, 0 billed (a failed run is not billed)"
	case o == model.OutcomeCancelled:
		return used + " used, " + used + " billed (a cancelled run is billed for the work done)"
	case o == model.OutcomeCreditLimitReached:
		return used + " used, " + used + " billed (the run reached its cap)"
	}
	return used + " used, " + used + " billed"
}

// attentionOf is what needed a look during the run (a loop, a stall, a
// slow tool, a failing streak, the budget) and the estimated credits of
// each agent: the record's (o.Facts) when given, else package attention
// run over the whole run, its "now" the last event's time, so that the
// report depends on the trace only.
func attentionOf(s *model.Store, o ReportOptions, clean func(string) string) *attentionRows {
	if s.Len() == 0 {
		return nil
	}
	var items []attention.SummaryItem
	var costs []attention.AgentCredits
	if f := o.Facts; f != nil {
		items = f.Attention
		for _, a := range s.Agents() {
			if c, ok := f.CreditsByAgent[a.ID]; ok {
				costs = append(costs, attention.AgentCredits{AgentID: a.ID, Credits: c})
			}
		}
	} else {
		tr := replayAttention(s, attention.Options{MaxCredits: o.MaxCredits})
		items = tr.Summary().Attention
		costs = tr.Estimate()
	}
	rows := &attentionRows{}
	for _, it := range items {
		row := attentionItem{Level: "warn", Kind: clean(string(it.Kind)), At: stamp(it.FirstAt), Message: clean(it.Message), Open: !it.Cleared && !it.Reached}
		switch it.Kind {
		case attention.KindFailingStreak, attention.KindBudget:
			row.Level = "bad"
		}
		if it.AgentID != nil {
			if a := s.Agent(*it.AgentID); a != nil {
				row.Agent = clean(a.Name)
			}
		}
		rows.Items = append(rows.Items, row)
	}
	for _, ac := range costs {
		name := ac.AgentID
		if a := s.Agent(ac.AgentID); a != nil {
			name = a.Name
		}
		rows.Costs = append(rows.Costs, agentCost{Agent: clean(name), Credits: "≈ " + strconv.FormatFloat(ac.Credits, 'f', -1, 64)})
	}
	return rows
}

// replayAttention runs the attention tracker over the run as the watch saw
// it: the events up to each rise of creditsUsed, with that figure, one
// merge at a time, into a fresh store. One merge of the whole run would see
// only the final figure, after the run ended, and never raise the budget
// item the live watch (and a replay) raised. The tracker's "now" is each
// step's trace time, so the report depends on the recording only.
func replayAttention(s *model.Store, o attention.Options) *attention.Tracker {
	fresh := model.NewStore()
	fresh.SetRunID(s.Run().ID)
	fresh.SetRequest(s.Request())
	tr := attention.New(fresh, o)
	tl := s.Timeline()
	i := 0
	var body []byte
	feed := func(upTo time.Time, credits float64, hasCredits bool) {
		body = append(body[:0], `{"success":true,"id":`...)
		body, _ = jsontext.AppendQuote(body, s.Run().ID)
		if hasCredits {
			body = append(body, `,"creditsUsed":`...)
			body = strconv.AppendFloat(body, credits, 'g', -1, 64)
		}
		body = append(body, `,"events":[`...)
		n := 0
		for ; i < len(tl) && (upTo.IsZero() || !tl[i].OccurredAt.After(upTo)); i++ {
			if n > 0 {
				body = append(body, ',')
			}
			body = append(body, tl[i].Raw...)
			n++
		}
		body = append(body, "]}"...)
		if d, err := fresh.Ingest(body); err == nil {
			now := upTo
			if now.IsZero() {
				now = lastTime(fresh)
			}
			tr.Update(d, now)
		}
	}
	for _, p := range s.CreditHistory() {
		if !p.At.IsZero() {
			feed(p.At, p.Credits, true)
		}
	}
	r := s.Run()
	feed(time.Time{}, r.CreditsUsed, r.HasCredits)
	return tr
}

// requestOf is the report's view of the request: the cap is the one the
// options or the request name, else the service's default, assumed.
func requestOf(s *model.Store, o ReportOptions, clean func(string) string) requestRow {
	q := s.Request()
	row := requestRow{Prompt: clean(q.Prompt), Model: clean(q.Model), Effort: clean(q.Effort)}
	for _, u := range q.URLs {
		row.URLs = append(row.URLs, clean(u))
	}
	row.Known = row.Prompt != "" || row.Model != "" || row.Effort != "" || len(row.URLs) > 0
	switch {
	case o.MaxCredits > 0:
		row.Cap = describe.Tokens(o.MaxCredits)
	case q.MaxCredits > 0:
		row.Cap = describe.Tokens(q.MaxCredits)
	default:
		row.Cap = describe.Tokens(attention.DefaultMaxCredits) + " (assumed)"
	}
	return row
}

// pretty indents a JSON value for the folded blocks, cut at maxContent.
func pretty(clean func(string) string, v []byte) (string, bool) {
	if v == nil {
		return "", false
	}
	buf := jsontext.Value(bytes.Clone(v))
	if err := buf.Indent(jsontext.WithIndent("  ")); err != nil {
		buf = v
	}
	s := clean(text.Sanitize(string(buf)))
	if len(s) > maxContent {
		return cutUTF8(s, maxContent), true
	}
	return s, false
}

func cutUTF8(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// The waterfall's geometry (SVG user units).
const (
	chartW      = 1000
	chartLabelW = 280
	rowH        = 18
	axisH       = 24
)

func buildChart(s *model.Store, clean func(string) string) chart {
	c := chart{Width: chartW, LabelW: chartLabelW, Left: chartLabelW + 8}
	r := s.Run()
	t0, t1 := r.StartedAt, lastTime(s)
	if !r.FinishedAt.IsZero() && r.FinishedAt.After(t1) {
		t1 = r.FinishedAt
	}
	if t0.IsZero() || !t1.After(t0) {
		c.Empty = true
		c.Height = axisH
		return c
	}
	span := t1.Sub(t0)
	plotW := float64(chartW - c.Left - 10)
	x := func(t time.Time) float64 {
		if t.IsZero() {
			t = t0
		}
		f := float64(t.Sub(t0)) / float64(span)
		return math.Round((float64(c.Left)+math.Max(0, math.Min(1, f))*plotW)*10) / 10
	}
	add := func(label, tip, cls string, depth int, start, end time.Time) {
		if end.IsZero() || end.Before(start) {
			end = t1
		}
		y := float64(axisH + len(c.Rows)*rowH)
		x0, x1 := x(start), x(end)
		w := math.Max(1.5, math.Round((x1-x0)*10)/10)
		c.Rows = append(c.Rows, chartRow{Y: y + 3, TextY: y + 13, X: x0, W: w, Label: describe.Truncate(label, 40-depth*2), Tip: tip, Cls: cls, Indent: float64(4 + depth*12)})
	}
	rows := 0
	for _, a := range s.Agents() {
		if rows >= maxRows {
			break
		}
		rows++
		cls := "bar " + level(a.Outcome, a.State == model.StateFinished)
		tip := clean(a.Name) + " (" + clean(string(a.Role)) + ")"
		if a.HasDuration {
			tip += ", " + text.Duration(time.Duration(a.DurationMs)*time.Millisecond)
		}
		if a.State == model.StateFinished {
			tip += ", " + clean(string(a.Outcome))
		} else {
			tip += ", unfinished"
		}
		add(clean(a.Name), tip, cls, a.Depth, a.StartedAt, a.FinishedAt)
		for _, t := range a.ToolCalls {
			if rows >= maxRows {
				break
			}
			rows++
			cls := "bar tool"
			if t.Failed() {
				cls = "bar tool bad"
			}
			tip := clean(t.Name)
			if d, ok := t.Duration(); ok {
				tip += ", " + text.Duration(d)
			} else {
				tip += ", " + string(t.State)
			}
			end := t.FinishedAt()
			if t.State != model.StateFinished && !a.FinishedAt.IsZero() {
				end = a.FinishedAt
			}
			add(clean(t.Name), tip, cls, a.Depth+1, t.StartedAt(), end)
		}
	}
	c.Height = axisH + len(c.Rows)*rowH + 6
	// Ticks at a round step: about six across.
	steps := []time.Duration{time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond,
		25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second,
		10 * time.Second, 15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
		30 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour}
	step := steps[len(steps)-1]
	for _, st := range steps {
		if span/st <= 6 {
			step = st
			break
		}
	}
	for d := time.Duration(0); d <= span; d += step {
		tx := x(t0.Add(d))
		c.Ticks = append(c.Ticks, chartTick{X: tx, Label: text.Duration(d), End: tx > chartW-50})
	}
	return c
}

//go:embed report.css
var reportCSS string

// reportCSP forbids scripts, remote loads, frames, forms and plugins (a
// meta policy cannot say frame-ancestors: browsers warn and ignore it): the
// one style sheet is allowed by its hash, images only as data: URLs.
// It and the template are made on first use, not at start-up: commands
// that write no report pay nothing for them.
var reportCSP = sync.OnceValue(func() string {
	sum := sha256.Sum256([]byte(reportCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src data:; base-uri 'none'; form-action 'none'"
})

//go:embed report.html.tmpl
var reportHTML string

var htmlTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"inc": func(i int) int { return i + 1 },
	}).Parse(reportHTML))
})

// Format of a report.
const (
	FormatHTML     = "html"
	FormatMarkdown = "md"
)

// Report writes the run's report: one self-contained HTML page (inline CSS
// and SVG, no script, nothing fetched) or Markdown for an issue.
func Report(w io.Writer, s *model.Store, format string, o ReportOptions) error {
	rep := build(s, o)
	switch format {
	case FormatHTML, "":
		return htmlTmpl().Execute(w, rep)
	case FormatMarkdown:
		_, err := io.WriteString(w, markdown(s, rep))
		return err
	}
	return fmt.Errorf("unknown report format %q (html or md)", format)
}
