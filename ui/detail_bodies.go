package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/go-json-experiment/json/jsontext"

	artcontent "github.com/firewatch/firewatch/ui/content"
	"github.com/firewatch/firewatch/ui/diff"
	"github.com/firewatch/firewatch/ui/internal/scroll"
	"github.com/firewatch/firewatch/ui/jsonview"
)

// body is what one tab of a detail view shows, in the box it is given: a
// text of fields, a JSON value, an artifact's content, a diff or a list of
// rows. It renders only its visible lines, each exactly w cells.
type body interface {
	component
	update(msg tea.Msg, k keyMap) tea.Cmd
	// copyText is what y copies here ("" when the view has nothing
	// better than the detail's default).
	copyText() (text, what string)
}

// fitLines turns a component's View into exactly h lines of w cells (ASCII
// only in ASCII mode).
func fitLines(view string, w, h int, ascii bool) []string {
	var lines []string
	if view != "" {
		lines = strings.Split(view, "\n")
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if ascii {
			l = asciiOnly(l)
		}
		lines[i] = padStyled(l, w)
	}
	for len(lines) < h {
		lines = append(lines, blank(w))
	}
	return lines
}

// textBody is prepared lines of text, wrapped and scrolled.
type textBody struct {
	tv textView
}

func newTextBody(e *env, lines []textLine) *textBody {
	return &textBody{tv: textView{lines: lines, ascii: e.ascii}}
}

func (b *textBody) setSize(w, h int) tea.Cmd { return b.tv.setSize(w, h) }
func (b *textBody) update(msg tea.Msg, k keyMap) tea.Cmd {
	if km, ok := msg.(tea.KeyPressMsg); ok && key.Matches(km, k.Back) {
		return nil
	}
	b.tv.update(msg, k)
	return nil
}
func (b *textBody) render() []string {
	lines := b.tv.render()
	for len(lines) < b.tv.h {
		lines = append(lines, blank(b.tv.w))
	}
	return lines
}
func (b *textBody) helpKeys(k keyMap) []key.Binding { return []key.Binding{k.Move, k.PageDown} }
func (b *textBody) copyText() (text, what string)   { return "", "" }

// jsonBody is a JSON value in the jsonview viewer: highlighted, folded
// where large, the value under the cursor copied by y.
type jsonBody struct {
	e    *env
	m    jsonview.Model
	what string // "parameters", "result", "raw event"
	w, h int
}

func newJSONBody(e *env, v jsontext.Value, what string) *jsonBody {
	return &jsonBody{e: e, what: what, m: jsonview.New(v, e.cs.json, jsonview.WithASCII(e.ascii))}
}

func (b *jsonBody) setSize(w, h int) tea.Cmd { b.w, b.h = w, h; b.m.SetSize(w, h); return nil }
func (b *jsonBody) update(msg tea.Msg, k keyMap) tea.Cmd {
	var cmd tea.Cmd
	b.m, cmd = b.m.Update(msg)
	return cmd
}
func (b *jsonBody) render() []string { return fitLines(b.m.View(), b.w, b.h, b.e.ascii) }
func (b *jsonBody) helpKeys(k keyMap) []key.Binding {
	j := b.m.KeyMap
	return []key.Binding{k.Move, j.Toggle, j.ExpandAll, j.FoldAll}
}
func (b *jsonBody) copyText() (text, what string) {
	sel, ok := b.m.Selected()
	if !ok {
		return "", ""
	}
	if sel.Path == "" || sel.Path == "$" {
		return sel.Text, "the " + b.what + " (JSON)"
	}
	return sel.Text, b.what + " " + sel.Path
}

// contentBody is an artifact snapshot shown by its kind (ui/content).
type contentBody struct {
	e    *env
	m    artcontent.Model
	w, h int
}

func newContentBody(e *env, c artcontent.Model) *contentBody { return &contentBody{e: e, m: c} }

// margin is the column left free before text content and diffs (JSON has
// its own gutter for the fold markers).
const margin = 1

func (b *contentBody) inner() int {
	if b.m.JSON() != nil {
		return b.w
	}
	return max(1, b.w-margin)
}

func (b *contentBody) setSize(w, h int) tea.Cmd {
	if w == b.w && h == b.h {
		return nil
	}
	b.w, b.h = w, h
	return b.m.SetSize(b.inner(), h)
}
func (b *contentBody) update(msg tea.Msg, k keyMap) tea.Cmd {
	var cmd tea.Cmd
	b.m, cmd = b.m.Update(msg)
	return cmd
}
func (b *contentBody) render() []string {
	if b.inner() == b.w {
		return fitLines(b.m.View(), b.w, b.h, b.e.ascii)
	}
	return indent(fitLines(b.m.View(), b.w-margin, b.h, b.e.ascii))
}

// indent puts the margin before each line.
func indent(lines []string) []string {
	for i, l := range lines {
		lines[i] = " " + l
	}
	return lines
}
func (b *contentBody) helpKeys(k keyMap) []key.Binding {
	if j := b.m.JSON(); j != nil {
		return []key.Binding{k.Move, j.KeyMap.Toggle, j.KeyMap.ExpandAll, j.KeyMap.FoldAll}
	}
	return []key.Binding{k.Move, k.PageDown}
}
func (b *contentBody) copyText() (text, what string) { return b.m.CopyText() }

// diffBody is what changed between two versions (ui/diff).
type diffBody struct {
	e    *env
	m    diff.Model
	w, h int
}

func (b *diffBody) setSize(w, h int) tea.Cmd {
	b.w, b.h = w, h
	b.m.SetSize(max(1, w-margin), h)
	return nil
}
func (b *diffBody) update(msg tea.Msg, k keyMap) tea.Cmd {
	var cmd tea.Cmd
	b.m, cmd = b.m.Update(msg)
	return cmd
}
func (b *diffBody) render() []string {
	return indent(fitLines(b.m.View(), max(1, b.w-margin), b.h, b.e.ascii))
}
func (b *diffBody) helpKeys(k keyMap) []key.Binding {
	return []key.Binding{k.Move, b.m.KeyMap.NextChange, b.m.KeyMap.PrevChange}
}
func (b *diffBody) copyText() (text, what string) { return "", "" }

// listBody is a list of rows with a cursor; it draws only the visible
// rows, asking for each (so a list of 100 000 events costs a screenful).
// enter opens the selected row's detail over the current view.
type listBody struct {
	e *env
	list
	w, h    int
	focused bool

	n     func() int
	row   func(i, w int, selected bool) string
	open  func(i int) Selection // nil: rows do not open
	copy  func(i int) (text, what string)
	moved func(i int) tea.Cmd // called when the cursor moved
	empty string
}

func (b *listBody) setSize(w, h int) tea.Cmd {
	b.w, b.h = w, h
	b.fix(b.n(), h)
	return nil
}

func (b *listBody) update(msg tea.Msg, k keyMap) tea.Cmd {
	n := b.n()
	old := b.sel
	// The cursor moves as a view's first line would, Bottom to the last row.
	next, moved := scroll.Move(msg, k.scrolling(), b.sel, max(1, b.h-1), n-1)
	if press, ok := msg.(tea.KeyPressMsg); ok && !moved && key.Matches(press, k.Enter) {
		if b.open == nil || n == 0 {
			return nil
		}
		sel := b.open(b.sel)
		if sel.Empty() {
			return nil
		}
		return func() tea.Msg { return openDetailMsg{sel: sel} }
	}
	b.sel = next
	b.fix(n, b.h)
	if b.sel != old && b.moved != nil {
		return b.moved(b.sel)
	}
	return nil
}

func (b *listBody) render() []string {
	n := b.n()
	b.fix(n, b.h)
	lines := make([]string, 0, b.h)
	if n == 0 && b.h > 0 {
		lines = append(lines, styled(b.e.st.Muted, " "+b.empty, b.w, b.e.ascii))
	}
	for i := b.off; i < min(n, b.off+b.h); i++ {
		lines = append(lines, b.row(i, b.w, b.focused && i == b.sel))
	}
	for len(lines) < b.h {
		lines = append(lines, blank(b.w))
	}
	return lines
}

func (b *listBody) helpKeys(k keyMap) []key.Binding {
	if b.open != nil {
		return []key.Binding{k.Move, k.Enter}
	}
	return []key.Binding{k.Move}
}

func (b *listBody) copyText() (text, what string) {
	if b.copy == nil || b.n() == 0 {
		return "", ""
	}
	return b.copy(b.sel)
}
