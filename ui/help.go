package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/ui/diff"
	"github.com/firewatch/firewatch/ui/internal/scroll"
	"github.com/firewatch/firewatch/ui/jsonview"
)

// newHelpOverlay is the `?` screen: every key, then what the symbols mean.
func newHelpOverlay(m *Model) overlay {
	st, sym := m.env.st, m.env.sym
	v := &textView{name: "Keys", ascii: m.env.ascii, closeOn: []key.Binding{m.keys.Help}}
	// The groups of keys side by side, in as many rows of groups as the
	// width needs: every key is shown, none cut.
	groups := m.keys.fullHelp()
	m.help.SetWidth(0)
	for per := len(groups); per >= 1; per-- {
		var rows []string
		fits := true
		for i := 0; i < len(groups); i += per {
			full := m.help.FullHelpView(groups[i:min(i+per, len(groups))])
			for _, l := range strings.Split(full, "\n") {
				fits = fits && ansi.StringWidthWc(l) <= m.width-2
			}
			rows = append(rows, "", full)
		}
		if fits || per == 1 {
			for _, r := range rows {
				for _, l := range strings.Split(r, "\n") {
					v.lines = append(v.lines, textLine{text: " " + l, styled: true})
				}
			}
			break
		}
	}
	// A section: its name, then its keys on as many lines as the width
	// needs.
	section := func(name string, bindings ...key.Binding) {
		v.lines = append(v.lines, textLine{st: st.Bold, text: name})
		var b strings.Builder
		used := 0
		sep := " · "
		if m.env.ascii {
			sep = " | "
		}
		for _, kb := range bindings {
			h := kb.Help()
			item := width(h.Key) + 1 + width(h.Desc)
			if used > 0 && 2+used+len(sep)+item > m.width-2 {
				v.lines = append(v.lines, textLine{text: "  " + b.String(), styled: true})
				b.Reset()
				used = 0
			}
			if used > 0 {
				b.WriteString(st.Muted.Render(sep))
				used += len(sep)
			}
			b.WriteString(st.Key.Render(h.Key) + " " + st.Text.Render(h.Desc))
			used += item
		}
		v.lines = append(v.lines, textLine{text: "  " + b.String(), styled: true})
	}
	v.lines = append(v.lines, textLine{})
	// The views' own keys come from their key maps (FullHelp), so this
	// screen cannot disagree with them; the scroll keys every view shares
	// are shown once.
	for _, s := range m.viewHelp() {
		section(s.name, s.keys...)
	}
	v.lines = append(v.lines,
		textLine{},
		textLine{st: st.Muted, text: "Selecting an agent in Agents shows only its subtree in the other panes; the root shows everything."},
		textLine{st: st.Muted, text: "The filter (/) matches agent names, tool names, event kinds and messages; lower case ignores case."},
		textLine{},
		textLine{st: st.Bold, text: "Symbols"},
		textLine{text: "  " + sym.Running + " running    " + sym.Succeeded + " succeeded    " + sym.Failed + " failed    " + sym.Cancelled + " cancelled    " +
			sym.Refused + " refused    " + sym.CreditLimit + " credit limit"},
		textLine{text: "  " + sym.Unfinished + " unfinished (the run or its agent ended first)    " + sym.Session + " browser session    " +
			sym.Error + "N errors    " + sym.PhaseArrow + " newest row while following"},
		textLine{},
		textLine{st: st.Muted, text: "y copies with OSC 52: it reaches your own clipboard over SSH; in tmux set set-clipboard on (or allow-passthrough on)."},
		textLine{},
		textLine{st: st.Muted, text: "esc or ? closes this help."},
	)
	return v
}

// helpSection is a titled group of keys on the help screen.
type helpSection struct {
	name string
	keys []key.Binding
}

// viewHelp is the keys of the detail views, the JSON and artifact viewers
// and the waterfall, each from its own key map.
func (m *Model) viewHelp() []helpSection {
	dk := m.env.dk
	sk := scroll.DefaultKeys()
	jk := jsonview.DefaultKeyMap()
	dm := diff.Model{KeyMap: diff.DefaultKeyMap()}
	if m.env.ascii {
		jk = jk.ASCII()
		for _, b := range []*key.Binding{&sk.Up, &sk.Down} {
			scroll.ASCIIHelp(b)
		}
	}
	// Comparing, saving and fetching again need content; a replay of a
	// file has none to fetch.
	artifactKeys := []key.Binding{dk.Focus, dk.Copy, dk.OpenLink}
	if m.env.snaps.canLoad() {
		artifactKeys = append(append([]key.Binding{dk.Focus, dk.Diff}, notScroll(dm.FullHelp())...), dk.Save, dk.Copy, dk.OpenLink, dk.Retry)
		if m.env.noSave != "" { // a remote session saves nothing
			artifactKeys = slices.DeleteFunc(artifactKeys, func(b key.Binding) bool { return b.Help().Key == dk.Save.Help().Key })
		}
	}
	return []helpSection{
		{"Scrolling in a view", []key.Binding{sk.Up, sk.Down, sk.PageUp, sk.PageDown, sk.HalfUp, sk.HalfDown, sk.Top, sk.Bottom}},
		{"In details", []key.Binding{dk.NextTab, dk.PrevTab, m.keys.Move, dk.Open, dk.Copy, dk.OpenLink, dk.Back}},
		{"In JSON", notScroll(jk.FullHelp())},
		{"In an artifact", artifactKeys},
		{"In the waterfall", append(notScroll(m.wf.FullHelp()), dk.Copy, dk.Back)},
	}
}

// notScroll flattens a component's FullHelp without the enabled scroll
// keys (shown once, in their own section) and the disabled bindings.
func notScroll(groups [][]key.Binding) []key.Binding {
	sk := scroll.DefaultKeys()
	scrolls := map[string]bool{}
	for _, b := range []key.Binding{sk.Up, sk.Down, sk.PageUp, sk.PageDown, sk.HalfUp, sk.HalfDown, sk.Top, sk.Bottom} {
		scrolls[strings.Join(b.Keys(), " ")] = true
	}
	var out []key.Binding
	for _, g := range groups {
		for _, b := range g {
			if b.Enabled() && !scrolls[strings.Join(b.Keys(), " ")] {
				out = append(out, b)
			}
		}
	}
	return out
}
