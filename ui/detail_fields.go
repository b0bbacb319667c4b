package ui

import (
	"strings"
	"time"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
)

// labelW is the width of a field label.
const labelW = 13

// fields builds the lines of a detail: "label  value" rows, headings and
// text.
type fields struct {
	env   *env
	lines []textLine
}

func (f *fields) field(label, value string) {
	if value == "" {
		return
	}
	f.lines = append(f.lines, textLine{st: f.env.st.Text, text: padRight(label, labelW) + " " + value, hang: labelW + 1})
}

// badField is a field in the error style, wrapped like the others.
func (f *fields) badField(label, value string) {
	if value == "" {
		return
	}
	f.lines = append(f.lines, textLine{st: f.env.st.Bad, text: padRight(label, labelW) + " " + value, hang: labelW + 1})
}

// styledField is a one-line field whose value has its own style (a state,
// an error); it is cut, not wrapped, at the width.
func (f *fields) styledField(label string, st styleText) {
	if st.text == "" {
		return
	}
	text := " " + f.env.st.Text.Render(padRight(label, labelW)+" ") + st.st.Render(flat(st.text))
	f.lines = append(f.lines, textLine{text: text, styled: true})
}

func (f *fields) heading(s string) {
	f.lines = append(f.lines, textLine{}, textLine{st: f.env.st.Bold, text: s})
}

func (f *fields) text(s string) {
	for _, l := range strings.Split(strings.TrimRight(text.Sanitize(s), "\n"), "\n") {
		f.lines = append(f.lines, textLine{st: f.env.st.Text, text: "  " + l})
	}
}

func (f *fields) muted(s string) {
	f.lines = append(f.lines, textLine{st: f.env.st.Muted, text: s})
}

// when is a time in local time and relative to the run's start.
func (f *fields) when(t time.Time) string { return f.env.when(t) }

func (e *env) when(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	s := t.In(e.loc).Format("2006-01-02 15:04:05.000 MST")
	if start := e.store.Run().StartedAt; !start.IsZero() {
		rel := t.Sub(start)
		sign := "+"
		if rel < 0 {
			sign, rel = "-", -rel
		}
		s += "  (" + sign + text.Duration(rel) + " into the run)"
	}
	return s
}

func (e *env) agentName(id string) string {
	if a := e.store.Agent(id); a != nil && a.Name != "" {
		return a.Name + " (" + id + ")"
	}
	return id
}

func (f *fields) traceError(te *model.TraceError) {
	if te == nil {
		return
	}
	f.styledField("error", styleText{f.env.st.Bad, orDash(string(te.Code)) + " · source " + orDash(string(te.Source)) + " · " + retryable(te.Retryable)})
	if te.Message != "" {
		f.field("message", te.Message)
	}
	f.field("meaning", attention.ExplainError(te))
}

type styleText struct {
	st   theme.Style
	text string
}
