// Package rerunform is the rerun form R opens on the runs screen and on a
// run's screen: the run's request, one editable field a line, a changed
// field marked * with what it was; and the typing both screens' prompts
// share (a new run's, a follow-up's).
package rerunform

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/internal/cell"
)

// Field is one field of the form: its body name, the original's value as
// text, and the value being edited.
type Field struct {
	Name, Was, Value string
}

// Form is the rerun form.
type Form struct {
	Of     string // the run rerun
	Fields []Field
	At     int // the field being edited
	// CapNote, when set, is said under the fields (where the cap comes
	// from, or that it is not known).
	CapNote string
}

// Original is what the form starts from: the run's request as the screen
// knows it; MaxCredits 0 when the cap is not known.
type Original struct {
	Prompt, Model, Effort string
	URLs                  []string
	MaxCredits            int
}

// New is the form of run of, filled with o.
func New(of string, o Original) *Form {
	f := &Form{Of: of}
	cap := ""
	if o.MaxCredits > 0 {
		cap = strconv.Itoa(o.MaxCredits)
	}
	f.Fields = []Field{
		{Name: "prompt", Was: o.Prompt},
		{Name: "urls", Was: strings.Join(o.URLs, " ")},
		{Name: "model", Was: o.Model},
		{Name: "effort", Was: o.Effort},
		{Name: "maxCredits", Was: cap},
	}
	for i := range f.Fields {
		f.Fields[i].Value = f.Fields[i].Was
	}
	return f
}

// Action is what a key did to the form.
type Action int

const (
	Editing Action = iota // the form stays
	Drop                  // esc: the form is dropped
	Submit                // enter: Request it and start it
)

// Key edits the form: up/down (tab) move between fields, typing and
// backspace edit the one shown, enter submits, esc drops.
func (f *Form) Key(msg tea.KeyPressMsg) Action {
	switch msg.String() {
	case "esc", "ctrl+c":
		return Drop
	case "up", "shift+tab":
		f.At = (f.At + len(f.Fields) - 1) % len(f.Fields)
	case "down", "tab":
		f.At = (f.At + 1) % len(f.Fields)
	case "enter":
		return Submit
	default:
		f.Fields[f.At].Value = Type(f.Fields[f.At].Value, msg)
	}
	return Editing
}

// Type is value after the key msg: backspace takes the last character,
// ctrl+u all, printable text is added while the whole stays within the
// service's prompt length; anything else leaves it.
func Type(value string, msg tea.KeyPressMsg) string {
	switch msg.String() {
	case "backspace":
		if v := []rune(value); len(v) > 0 {
			return string(v[:len(v)-1])
		}
		return value
	case "ctrl+u":
		return ""
	}
	t := msg.Text
	if t == "" && msg.String() == "space" {
		t = " "
	}
	for _, r := range t {
		if r < 0x20 || r == 0x7f {
			return value
		}
	}
	if t != "" && poller.PromptLen(value+t) <= poller.MaxPromptLen {
		return value + t
	}
	return value
}

// Request is the form as a start's body, and the fields changed; bad,
// when set, says what is wrong (the form stays).
func (f *Form) Request() (req poller.AgentRequest, changed []string, bad string) {
	for _, fl := range f.Fields {
		v := strings.TrimSpace(fl.Value)
		if v != strings.TrimSpace(fl.Was) {
			changed = append(changed, fl.Name)
		}
		switch fl.Name {
		case "prompt":
			req.Prompt = v
		case "urls":
			req.URLs = strings.Fields(v)
		case "model":
			if v != "" && v != "spark-2" && !strings.HasPrefix(v, "spark-1-") {
				return req, nil, "model " + strconv.Quote(v) + ": the service runs spark-2"
			}
			req.Model = v
		case "effort":
			req.Effort = strings.ToLower(v)
		case "maxCredits":
			if v != "" {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 {
					return req, nil, "maxCredits " + strconv.Quote(v) + ": a positive whole number of credits"
				}
				req.MaxCredits = n
			}
		}
	}
	if err := req.Validate(); err != nil {
		return req, nil, err.Error()
	}
	return req, changed, ""
}

// Lines draws the form at width: a title, one line a field, the one
// edited marked ›, a changed one * with what it was, then the notes.
func (f *Form) Lines(st *theme.Styles, width int) []string {
	out := []string{st.Bold.Render(" Rerun " + describe.ShortID(f.Of) + ": edit its request"), ""}
	w := width - 18
	for i, fl := range f.Fields {
		cur, mark := "  ", " "
		if i == f.At {
			cur = st.Accent.Render("› ")
		}
		if strings.TrimSpace(fl.Value) != strings.TrimSpace(fl.Was) {
			mark = st.Warn.Render("*")
		}
		val := describe.Truncate(fl.Value, max(w, 8))
		if i == f.At {
			v := []rune(fl.Value)
			for len(v) > 0 && describe.Width(string(v)) > w {
				v = v[1:] // the end of what is typed stays in sight
			}
			val = string(v) + "▏"
		}
		if val == "" {
			val = st.Muted.Render("(none)")
		}
		out = append(out, cur+mark+" "+cell.Fit(fl.Name, 11, "…")+" "+val)
		if mark != " " {
			was := fl.Was
			if was == "" {
				was = "none"
			}
			out = append(out, "               "+st.Muted.Render("was: "+describe.Truncate(was, max(w-5, 8))))
		}
	}
	out = append(out, "")
	if f.CapNote != "" {
		out = append(out, st.Muted.Render(" "+f.CapNote))
	}
	return append(out, st.Muted.Render(" urls: separated by spaces."))
}
