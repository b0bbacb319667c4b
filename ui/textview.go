package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/internal/scroll"
	"github.com/firewatch/firewatch/ui/internal/textwrap"
)

// textView is a scrollable overlay of prepared lines: the help and the
// minimal details. Lines are styled text; each is cut or padded to the
// width when drawn.
//
// Server text can be anything (one word of 20 MB): it is laid out in time
// linear in its length (textwrap), only the visible rows are styled, and a
// text larger than textwrap.AsyncBytes is laid out in a command, off the
// update loop, again after each change of width (a layout for a width no
// longer wanted is dropped). Until it arrives, the rows of the last width
// are shown, or a line that says the text is being laid out.
type textView struct {
	stackBase
	name  string
	lines []textLine
	off   int
	w, h  int
	ascii bool
	// rows are lines laid out to rowsW; gen counts the layouts asked
	// for; pending says one for w is being made in a command.
	rows    []textwrap.Piece
	rowsW   int
	gen     int
	pending bool
	closeOn []key.Binding // extra keys that close it (? for help)
}

// textLine is one logical line: plain text in a style (wrapped to the
// width), or a pre-styled line drawn as it is (cut to the width).
type textLine struct {
	st     theme.Style
	text   string
	styled bool
	hang   int // continuation lines start at this column
}

func (v *textView) title() string { return v.name }

// setLines replaces the lines; they are laid out anew.
func (v *textView) setLines(lines []textLine) {
	v.lines = lines
	v.rows, v.rowsW, v.pending = nil, 0, false
	v.gen++
}

func (v *textView) setSize(w, h int) tea.Cmd {
	v.w, v.h = w, h
	var cmd tea.Cmd
	if v.rowsW != w && v.w > 0 && textwrap.Big(v.paras()) {
		cmd = v.layoutCmd()
	}
	v.clamp()
	return cmd
}

// paras is the size of each line, for textwrap.Big.
func (v *textView) paras() []textwrap.Para {
	ps := make([]textwrap.Para, len(v.lines))
	for i, l := range v.lines {
		ps[i].Text = l.text
	}
	return ps
}

// layoutCmd asks for the layout to v.w in a command.
func (v *textView) layoutCmd() tea.Cmd {
	v.gen++
	v.pending = true
	lines, w, ascii, gen := v.lines, v.w, v.ascii, v.gen
	return func() tea.Msg {
		return textwrap.LaidMsg{Owner: v, Gen: gen, W: w, Pieces: layoutLines(lines, w, ascii)}
	}
}

// laid takes a layout made in a command, unless another was asked for since.
func (v *textView) laid(msg textwrap.LaidMsg) {
	if msg.Gen != v.gen {
		return
	}
	v.rows, v.rowsW, v.pending = msg.Pieces, msg.W, false
	v.clamp()
}

// layoutLines lays lines out to w: plain text wrapped at spaces (words
// longer than a line cut), continuation rows indented, styled lines as
// they are.
func layoutLines(lines []textLine, w int, ascii bool) []textwrap.Piece {
	out := make([]textwrap.Piece, 0, len(lines))
	for i, l := range lines {
		text := l.text
		if ascii {
			text = asciiOnly(text)
		}
		if l.styled {
			out = append(out, textwrap.Piece{Para: i, Text: text})
			continue
		}
		indent := len(text) - len(strings.TrimLeft(text, " "))
		if l.hang > 0 {
			indent = l.hang
		}
		indent = min(indent, w/2)
		for j, p := range textwrap.Hang(flat(text), max(1, w-2), max(1, w-2-indent)) {
			if j > 0 {
				p = strings.Repeat(" ", indent) + p
			}
			out = append(out, textwrap.Piece{Para: i, Text: p})
		}
	}
	return out
}

// layout is the rows laid out: at once for a small text; for a large one
// the rows of the last layout (a command brings the new one).
func (v *textView) layout() []textwrap.Piece {
	if v.rowsW == v.w && v.rows != nil || v.pending {
		return v.rows
	}
	if textwrap.Big(v.paras()) && v.rows != nil {
		return v.rows // lines replaced while shown: setSize asks again
	}
	v.rows, v.rowsW = layoutLines(v.lines, v.w, v.ascii), v.w
	return v.rows
}

func (v *textView) clamp() {
	v.off = scroll.Clamp(v.off, len(v.layout()), v.h)
}

func (v *textView) update(msg tea.Msg, k keyMap) (overlay, tea.Cmd) {
	if press, ok := msg.(tea.KeyPressMsg); ok && (key.Matches(press, k.Back) || key.Matches(press, v.closeOn...)) {
		return v.back, nil
	}
	v.off, _ = scroll.Move(msg, k.scrolling(), v.off, max(1, v.h-1), len(v.layout()))
	v.clamp()
	return v, nil
}

// render styles the visible rows only.
func (v *textView) render() []string {
	all := v.layout()
	if len(all) == 0 && v.pending {
		n := 0
		for _, l := range v.lines {
			n += len(l.text)
		}
		return []string{padStyled(" laying out "+text.Size(n)+" of text"+v.ellipsis(), v.w)}
	}
	return v.rowsAt(v.off, v.h)
}

// rowsAt styles n rows from row from (fewer at the end).
func (v *textView) rowsAt(from, n int) []string {
	all := v.layout()
	from = min(max(0, from), len(all))
	end := min(len(all), from+max(0, n))
	out := make([]string, 0, end-from)
	for _, p := range all[from:end] {
		l := v.lines[p.Para]
		if l.styled {
			out = append(out, padStyled(p.Text, v.w))
		} else {
			out = append(out, styled(l.st, " "+p.Text, v.w, v.ascii))
		}
	}
	return out
}

func (v *textView) ellipsis() string {
	if v.ascii {
		return "..."
	}
	return "…"
}

func (v *textView) helpKeys(k keyMap) []key.Binding {
	back := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back"))
	return []key.Binding{k.Move, k.PageDown, back}
}

// padStyled cuts or pads an already styled line to w cells.
func padStyled(s string, w int) string {
	sw := ansi.StringWidthWc(s)
	if sw > w {
		return ansi.TruncateWc(s, w, "")
	}
	return s + blank(w-sw)
}
