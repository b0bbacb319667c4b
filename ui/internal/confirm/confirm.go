// Package confirm is the one yes/no question of the full screens: before
// an action that costs or ends something (cancelling a run on the watch
// and runs screens, a crawl on the crawl screen). It takes no key until it
// has been on the screen ArmAfter: keys typed ahead, already queued when
// it opened ("cy" typed fast, a paste), reach it before its arming message
// and are dropped. Then y answers yes; n, N or esc answer no; any other
// key is ignored. It draws the same lines on every screen; where they go
// is the screen's.
package confirm

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/internal/textwrap"
)

// ArmAfter is how long a question is shown before it takes an answer:
// several frames.
const ArmAfter = 150 * time.Millisecond

// Answer is what a key did to a question.
type Answer int

const (
	None Answer = iota // not an answer (not armed yet, or another key)
	Yes
	No
)

// Keys are the answers' bindings, for the footer and help.
type Keys struct{ Yes, No key.Binding }

// Question is one question on a screen.
type Question struct {
	Title string // "Cancel run 1a2b3c4d (running)?"
	Body  string // what the action does, a paragraph
	Keys  Keys   // with the answers' words: "yes, cancel the run"
	armed bool
}

// New is a question: title, body, and the words of its answers.
func New(title, body, yes, no string) *Question {
	return &Question{Title: title, Body: body, Keys: Keys{
		Yes: key.NewBinding(key.WithKeys("y"), key.WithHelp("y", yes)),
		No:  key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n/esc", no)),
	}}
}

// armMsg arms the question it names (a newer question ignores an older
// one's).
type armMsg struct{ q *Question }

// Arm is the message that arms q: the screen sends it after ArmAfter with
// its own timer.
func (q *Question) Arm() tea.Msg { return armMsg{q} }

// Armed reports whether q takes answers.
func (q *Question) Armed() bool { return q.armed }

// Update takes msg: its own arming message (ok), or a key press, every one
// of which is the question's while it is shown (ok, with the answer). Any
// other message is not its own (ok false).
func (q *Question) Update(msg tea.Msg) (a Answer, ok bool) {
	switch msg := msg.(type) {
	case armMsg:
		if msg.q == q {
			q.armed = true
		}
		return None, msg.q == q
	case tea.KeyPressMsg:
		switch {
		case !q.armed:
		case key.Matches(msg, q.Keys.Yes):
			return Yes, true
		case key.Matches(msg, q.Keys.No):
			return No, true
		}
		return None, true
	}
	return None, false
}

// HelpKeys are the answers once armed, none before.
func (q *Question) HelpKeys() []key.Binding {
	if !q.armed {
		return nil
	}
	return []key.Binding{q.Keys.Yes, q.Keys.No}
}

// Lines are the question drawn w cells wide (each line cut or padded to
// w): a blank line, the title, a blank line, the body wrapped, a blank
// line and the answers (a blank line until it is armed: the answers appear
// when they are taken).
func (q *Question) Lines(st *theme.Styles, w int) []string {
	out := []string{"", " " + st.Bold.Render(q.Title), ""}
	for _, l := range textwrap.Lines(q.Body, max(w-2, 20)) {
		out = append(out, " "+st.Text.Render(l))
	}
	answers := ""
	if q.armed {
		y, n := q.Keys.Yes.Help(), q.Keys.No.Help()
		answers = " " + st.Key.Render("y") + st.Text.Render("  "+y.Desc) + "      " +
			st.Key.Render("n") + st.Muted.Render(" or ") + st.Key.Render("esc") + st.Text.Render("  "+n.Desc)
	}
	out = append(out, "", answers)
	for i, l := range out {
		if ansi.StringWidth(l) > w {
			l = ansi.Truncate(l, w, "")
		}
		out[i] = l + strings.Repeat(" ", max(w-ansi.StringWidth(l), 0))
	}
	return out
}
