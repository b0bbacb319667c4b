// Package theme is the look of firewatch's terminal UI in one place: a
// semantic palette (slots such as Muted, Good, Bad, Running, Selection
// rather than raw colours), dark and light variants of it, the styles built
// once from a palette, and the symbols (Unicode or plain ASCII).
//
// Colours are the 16 ANSI colours, so the terminal's own scheme decides the
// exact shades and every combination stays readable on a 16-colour
// terminal. With no colour (NO_COLOR or --no-color) the styles keep only
// attributes: bold, faint, reverse and underline.
package theme

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/text"
)

// Palette is the set of semantic colour slots. A nil slot means the
// terminal's default colour.
type Palette struct {
	Name string

	Fg        color.Color // body text
	Muted     color.Color // secondary text: times, ids, hints
	Accent    color.Color // the focused pane, titles, keys in help
	Good      color.Color // succeeded, healthy
	Warn      color.Color // retrying, cancel requested, unfinished, credit limit
	Bad       color.Color // failed, errors
	Running   color.Color // running things, the spinner
	Border    color.Color // rules between panes
	Selection color.Color // background of the selected row (reverse video when nil)
	Agent     []color.Color
}

// Dark is the palette for a dark terminal background.
func Dark() Palette {
	return Palette{
		Name:    "dark",
		Muted:   ansi.BrightBlack,
		Accent:  ansi.BrightBlue,
		Good:    ansi.BrightGreen,
		Warn:    ansi.BrightYellow,
		Bad:     ansi.BrightRed,
		Running: ansi.BrightCyan,
		Border:  ansi.BrightBlack,
		Agent:   []color.Color{ansi.BrightMagenta, ansi.BrightCyan, ansi.BrightYellow, ansi.BrightGreen, ansi.BrightBlue},
	}
}

// Light is the palette for a light terminal background: the normal
// (darker) variants of the ANSI colours.
func Light() Palette {
	return Palette{
		Name:    "light",
		Muted:   ansi.BrightBlack,
		Accent:  ansi.Blue,
		Good:    ansi.Green,
		Warn:    ansi.Magenta,
		Bad:     ansi.Red,
		Running: ansi.Cyan,
		Border:  ansi.BrightBlack,
		Agent:   []color.Color{ansi.Magenta, ansi.Blue, ansi.Cyan, ansi.Green, ansi.Red},
	}
}

// Style is a precomputed SGR sequence: rendering is two string
// concatenations, cheap enough for every row of every frame.
type Style struct{ open string }

// Render wraps s in the style. The zero Style returns s unchanged.
func (st Style) Render(s string) string {
	if st.open == "" || s == "" {
		return s
	}
	return st.open + s + ansi.ResetStyle
}

// Open is the SGR sequence that starts the style ("" for none).
func (st Style) Open() string { return st.open }

// IsZero reports whether the style changes nothing.
func (st Style) IsZero() bool { return st.open == "" }

func mk(s ansi.Style) Style {
	if len(s) == 0 {
		return Style{}
	}
	return Style{open: s.String()}
}

// Styles are the styles the UI uses, built once from a palette.
type Styles struct {
	Palette Palette
	NoColor bool

	Text    Style
	Bold    Style
	Muted   Style
	Accent  Style
	Good    Style
	Warn    Style
	Bad     Style
	Running Style
	Border  Style

	Title      Style // a pane's title
	TitleFocus Style // the focused pane's title
	RuleFocus  Style // the focused pane's rule
	Selected   Style // the selected row of the focused pane
	Key        Style // a key in the footer and help
	Match      Style // filter matches

	BadgeRunning Style
	BadgeGood    Style
	BadgeWarn    Style
	BadgeBad     Style

	// Lip Gloss styles for the Bubbles components (help).
	LipText, LipMuted, LipKey lipgloss.Style

	agents []Style
}

func fg(s ansi.Style, c color.Color) ansi.Style {
	if c == nil {
		return s
	}
	return s.ForegroundColor(c)
}

func bg(s ansi.Style, c color.Color) ansi.Style {
	if c == nil {
		return s
	}
	return s.BackgroundColor(c)
}

// New builds the styles of a palette. With noColor the styles use
// attributes only and never a colour.
func New(p Palette, noColor bool) *Styles {
	st := &Styles{Palette: p, NoColor: noColor}
	if noColor {
		st.Bold = mk(ansi.Style{}.Bold())
		st.Muted = mk(ansi.Style{}.Faint())
		st.Accent = mk(ansi.Style{}.Bold())
		st.Good = Style{}
		st.Warn = mk(ansi.Style{}.Bold())
		st.Bad = mk(ansi.Style{}.Bold())
		st.Running = Style{}
		st.Border = Style{}
		st.Title = Style{}
		st.TitleFocus = mk(ansi.Style{}.Bold().Reverse(true))
		st.RuleFocus = mk(ansi.Style{}.Bold())
		st.Selected = mk(ansi.Style{}.Reverse(true))
		st.Key = mk(ansi.Style{}.Bold())
		st.Match = mk(ansi.Style{}.Underline(true))
		st.BadgeRunning = mk(ansi.Style{}.Bold().Reverse(true))
		st.BadgeGood = mk(ansi.Style{}.Bold().Reverse(true))
		st.BadgeWarn = mk(ansi.Style{}.Bold().Reverse(true))
		st.BadgeBad = mk(ansi.Style{}.Bold().Reverse(true))
		st.LipText = lipgloss.NewStyle()
		st.LipMuted = lipgloss.NewStyle().Faint(true)
		st.LipKey = lipgloss.NewStyle().Bold(true)
		return st
	}
	st.Text = mk(fg(ansi.Style{}, p.Fg))
	st.Bold = mk(fg(ansi.Style{}.Bold(), p.Fg))
	st.Muted = mk(fg(ansi.Style{}, p.Muted))
	st.Accent = mk(fg(ansi.Style{}, p.Accent))
	st.Good = mk(fg(ansi.Style{}, p.Good))
	st.Warn = mk(fg(ansi.Style{}, p.Warn))
	st.Bad = mk(fg(ansi.Style{}, p.Bad))
	st.Running = mk(fg(ansi.Style{}, p.Running))
	st.Border = mk(fg(ansi.Style{}, p.Border))
	st.Title = mk(fg(ansi.Style{}.Bold(), p.Fg))
	st.TitleFocus = mk(fg(ansi.Style{}.Bold(), p.Accent))
	st.RuleFocus = mk(fg(ansi.Style{}, p.Accent))
	if p.Selection != nil {
		st.Selected = mk(bg(ansi.Style{}, p.Selection))
	} else {
		st.Selected = mk(ansi.Style{}.Reverse(true))
	}
	st.Key = mk(fg(ansi.Style{}.Bold(), p.Accent))
	st.Match = mk(fg(ansi.Style{}.Underline(true), p.Accent))
	badge := func(c color.Color) Style { return mk(fg(ansi.Style{}.Bold().Reverse(true), c)) }
	st.BadgeRunning = badge(p.Running)
	st.BadgeGood = badge(p.Good)
	st.BadgeWarn = badge(p.Warn)
	st.BadgeBad = badge(p.Bad)
	st.LipText = lipgloss.NewStyle()
	if p.Fg != nil {
		st.LipText = st.LipText.Foreground(p.Fg)
	}
	st.LipMuted = lipgloss.NewStyle().Foreground(p.Muted)
	st.LipKey = lipgloss.NewStyle().Bold(true).Foreground(p.Accent)
	for _, c := range p.Agent {
		st.agents = append(st.agents, mk(fg(ansi.Style{}, c)))
	}
	return st
}

// AgentStyle is the style of the agent with the given ordinal (stable for
// the run: the order in which agents were first seen).
func (st *Styles) AgentStyle(i int) Style {
	if len(st.agents) == 0 || i < 0 {
		return Style{}
	}
	return st.agents[i%len(st.agents)]
}

// Symbols are the glyphs the UI draws with, Unicode or ASCII.
type Symbols struct {
	ASCII bool

	Rule      string // horizontal rule
	Vertical  string // vertical separator between panes
	Tee       string // where a vertical separator meets a rule below it
	Cross     string // where a rule crosses a separator
	BottomTee string // where a separator meets a rule above it

	Running     string
	Succeeded   string
	Failed      string
	Cancelled   string
	Refused     string
	CreditLimit string
	Unfinished  string
	Pending     string
	Error       string
	Warn        string
	Paused      string
	Stalled     string // an agent with no event for a while (attention)
	Looping     string // an agent repeating the same call (attention)
	Approx      string // an estimate: "≈ 52"
	OK          string
	Session     string
	Arrow       string
	Ellipsis    string
	Up, Down    string

	TreeBranch string // "├─"
	TreeLast   string // "└─"
	TreePipe   string // "│ "
	TreeSpace  string // "  "

	PhaseDone   string // a reached phase
	PhaseNow    string // the current phase
	PhaseTodo   string // a phase not reached yet
	PhaseFill   string // the bar between reached phases
	PhaseEmpty  string // the bar towards phases not reached
	PhaseArrow  string
	Spinner     []string
	SpinnerIdle string
}

// Unicode symbols: light box drawing and a few geometric shapes, all one
// cell wide in every common terminal font.
func Unicode() Symbols {
	return Symbols{
		Rule: "─", Vertical: "│", Tee: "┬", Cross: "┼", BottomTee: "┴",
		Running: "●", Succeeded: "✓", Failed: "✗", Cancelled: "⊘", Refused: "⊖", CreditLimit: "$",
		Unfinished: "◌", Pending: "○", Error: "!", Warn: "▲", Paused: "‖", OK: "✓", Session: "◉",
		Arrow: "→", Ellipsis: "…", Up: "↑", Down: "↓",
		TreeBranch: "├─", TreeLast: "└─", TreePipe: "│ ", TreeSpace: "  ",
		PhaseDone: "●", PhaseNow: "◉", PhaseTodo: "○", PhaseFill: "━", PhaseEmpty: "─", PhaseArrow: "▸",
		Spinner:     []string{"◐", "◓", "◑", "◒"},
		SpinnerIdle: "●",
		Stalled:     "⏸", Looping: "↻", Approx: "≈",
	}
}

// ASCII symbols for terminals and locales without UTF-8. The states' are
// text's fallbacks of the Unicode ones, which the timeline's text and the
// plain output use too: one symbol per state everywhere.
func ASCII() Symbols {
	u := Unicode()
	f := text.Fallback
	return Symbols{
		ASCII: true,
		Rule:  "-", Vertical: "|", Tee: "+", Cross: "+", BottomTee: "+",
		Running: f(u.Running), Succeeded: f(u.Succeeded), Failed: f(u.Failed), Cancelled: f(u.Cancelled), Refused: f(u.Refused), CreditLimit: "$",
		Unfinished: f(u.Unfinished), Pending: f(u.Pending), Error: "!", Warn: f(u.Warn), Paused: f(u.Paused), OK: f(u.OK), Session: f(u.Session),
		Arrow: f("→"), Ellipsis: f("…"), Up: f("↑"), Down: f("↓"),
		TreeBranch: "|-", TreeLast: "`-", TreePipe: "| ", TreeSpace: "  ",
		PhaseDone: "#", PhaseNow: "@", PhaseTodo: "o", PhaseFill: "=", PhaseEmpty: "-", PhaseArrow: ">",
		Spinner:     []string{"|", "/", "-", "\\"},
		SpinnerIdle: "*",
		Stalled:     f(u.Stalled), Looping: f(u.Looping), Approx: f(u.Approx),
	}
}

// NoColorEnv reports whether the environment lookup reads asks for no
// colour: NO_COLOR present and not empty, whatever its value, as
// https://no-color.org says (NO_COLOR= with nothing after it allows
// colour), or TERM=dumb. It is firewatch's one rule: a hub session passes
// its session's environment, the process os.LookupEnv.
func NoColorEnv(lookup func(string) (string, bool)) bool {
	if v, ok := lookup("NO_COLOR"); ok && v != "" {
		return true
	}
	t, _ := lookup("TERM")
	return t == "dumb"
}

// ASCIIEnv reports whether the locale cannot show UTF-8: the first of
// LC_ALL, LC_CTYPE and LANG that is set and not empty decides, the way
// setlocale does; none set means the C locale, which is ASCII.
func ASCIIEnv(lookup func(string) (string, bool)) bool {
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v, ok := lookup(k); ok && v != "" {
			return !isUTF8Locale(v)
		}
	}
	return true
}

func isUTF8Locale(v string) bool {
	v = strings.ToLower(v)
	// "C.UTF-8", "en_US.utf8", "en_US.UTF-8@euro"
	return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
}
