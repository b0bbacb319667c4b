package textwrap

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Para is one logical line to lay out: its text (no newlines) and the
// column its continuation rows start at.
type Para struct {
	Text   string
	Indent int
}

// Piece is one row of a layout: the Para it comes from and its text,
// continuation indent included.
type Piece struct {
	Para int
	Text string
}

// Layout wraps paras to w cells (the continuation rows of a Para are
// indented by its Indent, at most half the width), in time linear in the
// text's length.
func Layout(paras []Para, w int) []Piece {
	w = max(1, w)
	var out []Piece
	for i, p := range paras {
		indent := min(max(0, p.Indent), w/2)
		for j, row := range Hang(p.Text, w, max(1, w-indent)) {
			if j > 0 && indent > 0 {
				row = strings.Repeat(" ", indent) + row
			}
			out = append(out, Piece{Para: i, Text: row})
		}
	}
	return out
}

// AsyncBytes is the size of text above which a layout is made in a command,
// off the UI's update loop (about a millisecond of work below it).
const AsyncBytes = 64 << 10

// Big reports whether laying paras out should happen off the update loop.
func Big(paras []Para) bool {
	n := 0
	for _, p := range paras {
		if n += len(p.Text); n > AsyncBytes {
			return true
		}
	}
	return false
}

// LaidMsg is the result of a LayoutCmd: Owner and Gen say whose layout it
// is and for which request (an older one is dropped), W the width.
type LaidMsg struct {
	Owner  any
	Gen    int
	W      int
	Pieces []Piece
}

// LayoutCmd lays paras out to w in a command. paras must not change
// afterwards (the caller hands over its slice).
func LayoutCmd(owner any, gen int, paras []Para, w int) tea.Cmd {
	return func() tea.Msg {
		return LaidMsg{Owner: owner, Gen: gen, W: w, Pieces: Layout(paras, w)}
	}
}
