package export

import (
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
)

// mdEscaper makes service text inert in Markdown: every character that
// can start inline markup (emphasis, links and images, HTML, code, table
// cells, strike-through) is backslash-escaped or written as an entity, and
// line breaks become spaces, so a string stays plain text on one line of a
// table or list item (which never starts with it, so block markup such as
// headings cannot start either).
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "|", `\|`, "~", `\~`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "\r\n", " ", "\n", " ", "\r", " ", "\t", " ",
)

func md(s string) string { return mdEscaper.Replace(s) }

// mermaidText keeps only what a mermaid gantt label can hold safely:
// letters, digits, spaces and a few harmless marks; anything else becomes
// a space (a ':' or '#' or ';' would end or break the task line).
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r), r == ' ', r == '-', r == '_', r == '.', r == '/':
			b.WriteRune(r)
		default:
			b.WriteByte(' ')
		}
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	if out == "" {
		out = "unnamed"
	}
	if r := []rune(out); len(r) > 60 {
		out = string(r[:60])
	}
	// A line that starts with a keyword is a directive, not a task
	// ("click ... href", "section ...").
	first, _, _ := strings.Cut(strings.ToLower(out), " ")
	switch first {
	case "section", "title", "dateformat", "axisformat", "tickinterval", "excludes", "includes", "todaymarker",
		"weekday", "weekend", "click", "acctitle", "accdescr", "inclusiveenddates", "topaxis", "displaymode", "gantt", "call", "href":
		out = "_" + out
	}
	return out
}

// markdown is the report for a GitHub issue or a support ticket: a summary
// table, the agent tree, the errors and a mermaid gantt.
func markdown(s *model.Store, rep *report) string {
	var b strings.Builder
	w := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	w("## firewatch report: run `", strings.ReplaceAll(rep.JobID, "`", ""), "`\n\n")
	w("| | |\n|---|---|\n")
	row := func(k, v string) { w("| ", k, " | ", v, " |\n") }
	row("Outcome", "**"+md(rep.Outcome)+"**")
	if rep.Duration != "" {
		row("Duration", md(rep.Duration))
	}
	if rep.Started != "" {
		row("Started", md(rep.Started))
	}
	if rep.Finished != "" {
		row("Finished", md(rep.Finished))
	}
	row("Credits", md(rep.Credits))
	row("Tokens", md(rep.Tokens))
	row("Agents", strconv.Itoa(len(rep.Agents)))
	tools := strconv.Itoa(len(s.ToolCalls()))
	row("Tool calls", tools)
	row("Errors", strconv.Itoa(len(rep.Errors)))
	row("Events", strconv.Itoa(rep.Events))
	if rep.StartedBy != "" {
		row("Started by", md(describe.ViaHub(rep.StartedBy)))
	}
	if rep.Cancel != "" {
		row("Cancel requested", md(rep.Cancel))
	}
	if rep.CancelledBy != "" {
		row("Cancelled by", md(describe.ViaHub(rep.CancelledBy)))
	}
	if rep.Incomplete != "" {
		w("\n**Incomplete**: ", md(rep.Incomplete), ".\n")
	}
	if e := rep.RunError; e != nil {
		w("\n**", md(e.Code), "**: ", md(e.Message), "  \n", md(e.Explanation), "\n")
	}

	w("\n### What was asked\n\n")
	if q := rep.Request; q.Known {
		if q.Prompt != "" {
			w("> ", strings.ReplaceAll(md(q.Prompt), "\n", "\n> "), "\n\n")
		}
		if q.Model != "" {
			w("- Model: ", md(q.Model), "\n")
		}
		if q.Effort != "" {
			w("- Effort: ", md(q.Effort), "\n")
		}
		for _, u := range q.URLs {
			w("- URL: ", md(u), "\n")
		}
		w("- Credit cap: ", md(q.Cap), "\n")
	} else {
		w("Not known: the recording or trace does not say. Credit cap ", md(q.Cap), ".\n")
	}

	if at := rep.Attention; at != nil {
		w("\n### Needed a look\n\n")
		if len(at.Items) == 0 {
			w("Nothing: no stall, loop, slow tool, failing streak or budget warning.\n")
		}
		for _, it := range at.Items {
			w("- **", md(it.Kind), "** ")
			if it.Agent != "" {
				w(md(it.Agent), ": ")
			}
			w(md(it.Message), " (", md(it.At))
			if it.Open {
				w(", still open")
			}
			w(")\n")
		}
		if len(at.Costs) > 0 {
			w("\n| Agent | Credits (estimated) |\n|---|---:|\n")
			for _, c := range at.Costs {
				w("| ", md(c.Agent), " | ", md(c.Credits), " |\n")
			}
		}
	}

	w("\n### Agents\n\n")
	if len(rep.Agents) == 0 {
		w("No agent has reported yet.\n")
	}
	for _, a := range rep.Agents {
		state := a.Outcome
		if a.Unfinished {
			state = "unfinished"
		}
		w(a.Indent, "- **", md(a.Name), "** (", md(a.Role), ", ", md(state))
		if a.Duration != "" {
			w(", ", md(a.Duration))
		}
		w(", ", describe.Count(a.Tools, "tool call"))
		if a.Errors > 0 {
			w(", ", describe.Count(a.Errors, "error"))
		}
		w(")\n")
	}

	w("\n### Errors\n\n")
	if len(rep.Errors) == 0 {
		w("No errors.\n")
	}
	for _, e := range rep.Errors {
		tags := md(e.Source)
		if e.Retryable {
			tags += ", retryable"
		}
		if e.Fatal {
			tags += ", fatal"
		}
		w("- **", md(e.Code), "** (", tags, ")")
		if e.Agent != "" {
			w(" in ", md(e.Agent))
		}
		w(" at ", md(e.At), ": ", md(e.Message), "  \n  ", md(e.Explanation), "\n")
	}

	if r := rep.Result; r != nil {
		w("\n### Result\n\n")
		if r.Snapshot != "" {
			w(md(r.ID), ", latest snapshot `", strings.ReplaceAll(r.Snapshot, "`", ""), "`")
		} else {
			w("The run's data, as the service's status gives it")
		}
		w(" (", describe.Count(r.Lines, "line"))
		if r.Cut {
			w(", cut")
		}
		w(").\n\n")
		if r.Fold {
			w("<details><summary>Show the result</summary>\n\n")
		}
		fence := codeFence(r.Content)
		lang := ""
		if r.Kind == string(model.KindJSON) {
			lang = "json"
		}
		w(fence, lang, "\n", r.Content, "\n", fence, "\n")
		if r.Fold {
			w("\n</details>\n")
		}
	}

	w(gantt(s))
	if rep.Version != "" {
		w("\n<sub>firewatch ", md(rep.Version), "</sub>\n")
	}
	return b.String()
}

// codeFence is a fence of backticks longer than any run of them in s, so
// that s cannot end the code block it is put in.
func codeFence(s string) string {
	most, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			most = max(most, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, most+1))
}

// gantt is a mermaid gantt of the agents and their tool calls on the
// trace's time axis (GitHub renders it).
func gantt(s *model.Store) string {
	r := s.Run()
	t0, t1 := r.StartedAt, lastTime(s)
	if t0.IsZero() || !t1.After(t0) || len(s.Agents()) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n### Timeline\n\n```mermaid\ngantt\n    dateFormat x\n    axisFormat %M:%S\n")
	ms := func(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }
	task := func(label, tag string, n int, start, end time.Time) {
		if start.IsZero() {
			start = t0
		}
		if end.IsZero() || !end.After(start) {
			end = start.Add(time.Millisecond)
		}
		b.WriteString("    " + mermaidText(label) + " :" + tag + "t" + strconv.Itoa(n) + ", " + ms(start) + ", " + ms(end) + "\n")
	}
	n, rows := 0, 0
	for _, a := range s.Agents() {
		if rows >= maxRows {
			break
		}
		b.WriteString("    section " + mermaidText(a.Name) + "\n")
		tag := "done, "
		switch {
		case a.State != model.StateFinished:
			tag = "active, "
		case a.Outcome != model.OutcomeSucceeded:
			tag = "crit, "
		}
		end := a.FinishedAt
		if a.State != model.StateFinished {
			end = t1
		}
		n++
		rows++
		task(a.Name, tag, n, a.StartedAt, end)
		for _, t := range a.ToolCalls {
			if rows >= maxRows {
				break
			}
			tag := ""
			if t.Failed() {
				tag = "crit, "
			}
			end := t.FinishedAt()
			if t.State != model.StateFinished {
				end = t1
				if !a.FinishedAt.IsZero() {
					end = a.FinishedAt
				}
			}
			n++
			rows++
			task(t.Name, tag, n, t.StartedAt(), end)
		}
	}
	b.WriteString("```\n")
	return b.String()
}
