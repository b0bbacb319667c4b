// Package jsonview is a scrollable, syntax-highlighted JSON viewer with
// folding, for tool call parameters and results and JSON artifact snapshots.
//
// The value is parsed once (any JSON value, null included; input that is not
// JSON is shown as text under a note). Containers with more than FoldLines
// lines and strings longer than FoldString bytes start folded, shown as
// "{…} 42 keys", "[…] 120 items" or a string's beginning and its size; the
// root is always open. Rows are laid out once per width and fold state and
// only the visible rows are rendered, so a 5 MB value scrolls as fast as a
// small one.
//
// Everything shown is safe for a terminal: strings are shown as JSON string
// literals in which every character text.Sanitize would remove is written
// as a visible \uXXXX escape (see Quote), so the payload is shown exactly and
// nothing from it reaches the terminal raw.
//
// Keys (KeyMap): ↑/k ↓/j, pgup/pgdn, ctrl+u/ctrl+d, g/G, enter or space to
// fold or unfold the value under the cursor, →/l to unfold (or step into),
// ←/h to fold (or step out to the parent), L to unfold everything, H to fold
// everything. With the mouse on, the wheel scrolls.
//
// The Model is a small handle on shared state: copies of it are the same
// viewer. Use one per value shown.
package jsonview

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/ui/internal/scroll"
)

// Defaults for the initial folding.
const (
	DefaultFoldLines  = 40
	DefaultFoldString = 240
)

// Model is the viewer.
type Model struct {
	KeyMap KeyMap
	st     *state
}

type state struct {
	doc        *doc
	styles     Styles
	sym        symbols
	foldLines  int
	foldString int

	width, height int
	rows          []row
	built         bool
	builtWidth    int
	gen           int

	cursor, offset int

	paints map[*lipgloss.Style]paint
}

// paint is a style's SGR before and after a text: rendering spans with it is
// a concatenation instead of a lipgloss.Render call per span.
type paint struct{ pre, post string }

// paintOf returns the paint of one of the state's styles, computing it once
// by rendering a marker character.
func (st *state) paintOf(s *lipgloss.Style) paint {
	if p, ok := st.paints[s]; ok {
		return p
	}
	const marker = "\uE000" // private use: never in a style's own output
	out := s.Render(marker)
	var p paint
	if i := strings.Index(out, marker); i >= 0 && !strings.Contains(out[i+len(marker):], marker) {
		p = paint{out[:i], out[i+len(marker):]}
	}
	if st.paints == nil {
		st.paints = map[*lipgloss.Style]paint{}
	}
	st.paints[s] = p
	return p
}

// Option configures New.
type Option func(*state)

// WithASCII draws fold markers and ellipses in ASCII.
func WithASCII(ascii bool) Option {
	return func(s *state) {
		if ascii {
			s.sym = asciiSymbols
		}
	}
}

// WithFoldLines sets how many lines a container may have before it starts
// folded (DefaultFoldLines).
func WithFoldLines(n int) Option { return func(s *state) { s.foldLines = n } }

// WithFoldString sets how long a string may be, in bytes, before it starts
// folded (DefaultFoldString).
func WithFoldString(n int) Option { return func(s *state) { s.foldString = n } }

// New returns a viewer for v: any JSON value; nil or empty shows "(no
// value)"; anything else that is not JSON is shown as text with a note. v is
// kept, not copied: it must not change afterwards.
func New(v jsontext.Value, styles Styles, opts ...Option) Model {
	st := &state{styles: styles, sym: unicodeSymbols, foldLines: DefaultFoldLines, foldString: DefaultFoldString}
	for _, o := range opts {
		o(st)
	}
	st.doc = parse(v, st.foldLines, st.foldString)
	km := DefaultKeyMap()
	if st.sym == asciiSymbols {
		km = km.ASCII()
	}
	return Model{KeyMap: km, st: st}
}

// SetSize sets the box the viewer draws in.
func (m *Model) SetSize(width, height int) {
	m.st.width, m.st.height = max(width, 0), max(height, 0)
	m.clamp()
}

// Width and Height are the box's size.
func (m Model) Width() int  { return m.st.width }
func (m Model) Height() int { return m.st.height }

// Valid reports whether the value was JSON (not shown as text, not absent).
func (m Model) Valid() bool { return m.st.doc.root != nil }

// Len is the number of rows at the current width and folds.
func (m Model) Len() int { return len(m.rows()) }

// Cursor is the cursor's row; Offset the first visible row.
func (m Model) Cursor() int { return m.st.cursor }
func (m Model) Offset() int { return m.st.offset }

// rows lays out the rows when the width or the folds changed.
func (m Model) rows() []row {
	st := m.st
	if !st.built || st.builtWidth != st.width {
		st.gen++
		st.rows = st.doc.build(st.rows, max(st.width, 1), st.gen)
		st.built, st.builtWidth = true, st.width
	}
	return st.rows
}

// relayout rebuilds the rows after a fold change and puts the cursor back
// on n (or the nearest visible ancestor).
func (m Model) relayout(n *node) {
	m.st.built = false
	rows := m.rows()
	if n == nil {
		m.clamp()
		return
	}
	// The first folded ancestor is the one on screen.
	var chain []*node
	for a := n; a != nil; a = a.parent {
		chain = append(chain, a)
	}
	target := n
	for i := len(chain) - 1; i >= 1; i-- {
		if chain[i].folded {
			target = chain[i]
			break
		}
	}
	if target.gen == m.st.gen && target.row < len(rows) {
		m.st.cursor = target.row
	}
	m.clamp()
}

// clamp keeps the cursor in the rows and on screen.
func (m Model) clamp() {
	st := m.st
	st.cursor, st.offset = scroll.Follow(st.cursor, st.offset, len(m.rows()), st.height)
}

// current is the node under the cursor, nil when none.
func (m Model) current() (*node, rowKind) {
	rows := m.rows()
	if m.st.cursor < 0 || m.st.cursor >= len(rows) {
		return nil, rowValue
	}
	r := rows[m.st.cursor]
	return r.n, r.kind
}

// Update handles the KeyMap's keys and the mouse wheel.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		k := m.KeyMap
		h := max(m.st.height, 1)
		switch {
		case key.Matches(msg, k.Up):
			m.MoveBy(-1)
		case key.Matches(msg, k.Down):
			m.MoveBy(1)
		case key.Matches(msg, k.PageUp):
			m.scrollBy(-h)
		case key.Matches(msg, k.PageDown):
			m.scrollBy(h)
		case key.Matches(msg, k.HalfUp):
			m.scrollBy(-max(h/2, 1))
		case key.Matches(msg, k.HalfDown):
			m.scrollBy(max(h/2, 1))
		case key.Matches(msg, k.Top):
			m.st.cursor = 0
			m.clamp()
		case key.Matches(msg, k.Bottom):
			m.st.cursor = len(m.rows()) - 1
			m.clamp()
		case key.Matches(msg, k.Toggle):
			m.Toggle()
		case key.Matches(msg, k.Expand):
			m.Expand()
		case key.Matches(msg, k.Collapse):
			m.Collapse()
		case key.Matches(msg, k.ExpandAll):
			m.ExpandAll()
		case key.Matches(msg, k.FoldAll):
			m.FoldAll()
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.scrollBy(-3)
		case tea.MouseWheelDown:
			m.scrollBy(3)
		}
	}
	return m, nil
}

// MoveBy moves the cursor by n rows.
func (m Model) MoveBy(n int) {
	m.st.cursor += n
	m.clamp()
}

// scrollBy moves the view and the cursor by n rows.
func (m Model) scrollBy(n int) {
	m.st.offset += n
	m.st.cursor += n
	m.clamp()
}

// Toggle folds or unfolds the value under the cursor (on a closing bracket,
// its container).
func (m Model) Toggle() {
	n, _ := m.current()
	if n == nil || !n.foldable(m.st.foldString) {
		return
	}
	n.folded = !n.folded
	m.relayout(n)
}

// Expand unfolds the value under the cursor; on an open container it steps
// to its first member.
func (m Model) Expand() {
	n, kind := m.current()
	if n == nil {
		return
	}
	switch {
	case n.folded:
		n.folded = false
		m.relayout(n)
	case n.container() && kind == rowValue && len(n.children) > 0:
		m.MoveBy(1)
	}
}

// Collapse folds the value under the cursor; when it is not foldable or
// already folded, the cursor steps out to the parent.
func (m Model) Collapse() {
	n, _ := m.current()
	if n == nil {
		return
	}
	if n.foldable(m.st.foldString) && !n.folded {
		n.folded = true
		m.relayout(n)
		return
	}
	if n.parent != nil {
		m.relayout(n.parent)
	}
}

// ExpandAll unfolds everything.
func (m Model) ExpandAll() {
	n, _ := m.current()
	walk(m.st.doc.root, func(x *node) { x.folded = false })
	m.relayout(n)
}

// FoldAll folds every foldable value below the root.
func (m Model) FoldAll() {
	n, _ := m.current()
	walk(m.st.doc.root, func(x *node) { x.folded = x.foldable(m.st.foldString) })
	m.relayout(n)
}

func walk(n *node, fn func(*node)) {
	if n == nil {
		return
	}
	fn(n)
	for _, c := range n.children {
		walk(c, fn)
	}
}

// Selection is the value under the cursor.
type Selection struct {
	// Path is a JSONPath to the value: $, $.items[3].name, $["a b"].
	// Pointer is the RFC 6901 JSON Pointer: "", /items/3/name. Both are
	// empty for text that is not JSON.
	Path, Pointer string
	// Kind is the value's JSON kind ('{', '[', '"', '0', 't', 'f', 'n'), 0
	// for text.
	Kind jsontext.Kind
	// Raw is the value's bytes as received: untrusted, never to be shown
	// or copied as they are.
	Raw jsontext.Value
	// Text is what to copy: a string's content, otherwise the value's JSON
	// (or the whole text, for text), sanitised with text.Sanitize.
	Text string
}

// Selected returns the value under the cursor; ok is false when there is
// none (an absent value).
func (m Model) Selected() (sel Selection, ok bool) {
	d := m.st.doc
	n, _ := m.current()
	if n == nil {
		n = d.root
	}
	if n == nil || n.kind == kindText || n.kind == kindNote {
		if len(d.text) == 0 {
			return Selection{}, false
		}
		return Selection{Raw: d.src, Text: text.Sanitize(string(d.src))}, true
	}
	sel = Selection{Kind: n.kind, Raw: d.raw(n)}
	if n.kind == '"' {
		sel.Text = Text(sel.Raw)
	} else {
		sel.Text = text.Sanitize(string(sel.Raw))
	}
	var path, ptr []string
	for a := n; a.parent != nil; a = a.parent {
		if a.hasKey {
			path = append(path, keyText(a.key))
			ptr = append(ptr, "/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(text.Sanitize(a.key)))
		} else {
			path = append(path, "["+itoa(a.index)+"]")
			ptr = append(ptr, "/"+itoa(a.index))
		}
	}
	var b, p strings.Builder
	b.WriteString("$")
	for i := len(path) - 1; i >= 0; i-- {
		b.WriteString(path[i])
		p.WriteString(ptr[i])
	}
	sel.Path, sel.Pointer = b.String(), p.String()
	return sel, true
}

// View renders the visible rows: exactly Height lines (fewer when there
// are fewer rows), none wider than Width.
func (m Model) View() string {
	st := m.st
	if st.width <= 0 || st.height <= 0 {
		return ""
	}
	rows := m.rows()
	m.clamp()
	var b strings.Builder
	end := min(st.offset+st.height, len(rows))
	for i := st.offset; i < end; i++ {
		if i > st.offset {
			b.WriteByte('\n')
		}
		b.WriteString(m.renderRow(rows[i], i == st.cursor))
	}
	return b.String()
}

// span is a piece of a row with its style.
type span struct {
	text  string
	style *lipgloss.Style
}

func (m Model) renderRow(r row, cursor bool) string {
	st := m.st
	s := &st.styles
	var sp []span
	add := func(text string, style *lipgloss.Style) {
		if text != "" {
			sp = append(sp, span{text, style})
		}
	}
	n := r.n
	switch {
	case n.kind == kindNote:
		add(segment(n.disp, r), &s.Note)
	case n.kind == kindText:
		add(strings.Repeat(" ", gutter), nil)
		add(segment(n.disp, r), nil)
	case r.kind == rowCont:
		add(strings.Repeat(" ", gutter+indentStep*(n.depth+1)), nil)
		add(segment(n.disp, r), &s.String)
		if int(r.b) == len(n.disp) {
			m.comma(n, add)
		}
	case r.kind == rowClose:
		add(strings.Repeat(" ", gutter+indentStep*n.depth), nil)
		add(closer(n), &s.Punct)
		m.comma(n, add)
	default:
		m.head(n, add)
		m.value(n, r, add)
	}
	return m.paint(sp, cursor)
}

// head adds the gutter, the indent and the member name.
func (m Model) head(n *node, add func(string, *lipgloss.Style)) {
	st := m.st
	switch {
	case !n.foldable(st.foldString):
		add(strings.Repeat(" ", gutter), nil)
	case n.folded:
		add(st.sym.closed, &st.styles.Fold)
	default:
		add(st.sym.open, &st.styles.Fold)
	}
	add(strings.Repeat(" ", indentStep*n.depth), nil)
	if n.hasKey {
		k := text.Quote(n.key)
		if lim := keyWidthMax(st.width); ansi.StringWidth(k) > lim {
			k = ansi.Truncate(k, lim, st.sym.ellipsis)
		}
		add(k, &st.styles.Key)
		add(": ", &st.styles.Punct)
	}
}

func (m Model) value(n *node, r row, add func(string, *lipgloss.Style)) {
	st := m.st
	s := &st.styles
	d := st.doc
	switch n.kind {
	case '{', '[':
		switch {
		case len(n.children) == 0:
			add(string(n.kind)+closer(n), &s.Punct)
		case n.folded:
			unit := " items"
			if n.kind == '{' {
				unit = " keys"
				if len(n.children) == 1 {
					unit = " key"
				}
			} else if len(n.children) == 1 {
				unit = " item"
			}
			add(string(n.kind)+st.sym.ellipsis+closer(n)+" "+itoa(len(n.children))+unit, &s.Fold)
		default:
			add(string(n.kind), &s.Punct)
			return
		}
	case '"':
		if n.folded {
			size := " " + text.Size(n.end-n.start-2)
			room := st.width - d.prefixWidth(n, st.width) - ansi.StringWidth(size) - 1
			disp := d.display(n)
			inner := disp[1 : len(disp)-1]
			preview := ansi.Truncate(inner, max(room-2-ansi.StringWidth(st.sym.ellipsis), 1), "")
			add(`"`+preview+st.sym.ellipsis+`"`, &s.String)
			add(size, &s.Fold)
			break
		}
		add(segment(d.display(n), r), &s.String)
		if r.b >= 0 && int(r.b) < len(n.disp) {
			return // the comma goes after the last part
		}
	case '0':
		add(d.display(n), &s.Number)
	case 't', 'f':
		add(d.display(n), &s.Bool)
	default:
		add(d.display(n), &s.Null)
	}
	m.comma(n, add)
}

func (m Model) comma(n *node, add func(string, *lipgloss.Style)) {
	if p := n.parent; p != nil && n.index < len(p.children)-1 {
		add(",", &m.st.styles.Punct)
	}
}

func closer(n *node) string {
	if n.kind == '{' {
		return "}"
	}
	return "]"
}

// segment is the part of s a row shows.
func segment(s string, r row) string {
	if r.b < 0 {
		return s
	}
	return s[r.a:r.b]
}

// paint renders the spans cut to the width; the cursor row is drawn as
// plain text in the cursor style across the whole width.
func (m Model) paint(sp []span, cursor bool) string {
	width := m.st.width
	used := 0
	for i := range sp {
		w := ansi.StringWidth(sp[i].text)
		if used+w > width {
			sp[i].text = ansi.Truncate(sp[i].text, width-used, m.st.sym.ellipsis)
			sp = sp[:i+1]
			used += ansi.StringWidth(sp[i].text)
			break
		}
		used += w
	}
	var b strings.Builder
	if cursor {
		for _, x := range sp {
			b.WriteString(x.text)
		}
		b.WriteString(strings.Repeat(" ", max(width-used, 0)))
		return m.st.styles.Cursor.Render(b.String())
	}
	for _, x := range sp {
		if x.style == nil {
			b.WriteString(x.text)
			continue
		}
		p := m.st.paintOf(x.style)
		b.WriteString(p.pre)
		b.WriteString(x.text)
		b.WriteString(p.post)
	}
	return b.String()
}
