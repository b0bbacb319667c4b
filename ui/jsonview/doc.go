package jsonview

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/text"
)

// node is one JSON value of the document.
type node struct {
	kind     jsontext.Kind // 'n' 'f' 't' '"' '0' '{' '[', or kindText
	parent   *node
	children []*node
	key      string // decoded member name (unsanitised: shown through Quote)
	hasKey   bool
	index    int // position in the parent
	depth    int
	start    int // the value's bytes in the input
	end      int
	lines    int // lines when fully unfolded
	folded   bool

	disp string // display text: Quote'd string, number, literal; "" until needed
	has  bool   // disp computed
	row  int    // index of its first row in the last build
	gen  int    // build in which row was set
}

// kindText marks the lines of a value that is not JSON, shown as text;
// kindNote the note above them.
const (
	kindText jsontext.Kind = 'x'
	kindNote jsontext.Kind = '!'
)

func (n *node) container() bool { return n.kind == '{' || n.kind == '[' }

// foldable reports whether n can be folded: a non-empty container or a long
// string (not the root: there would be nothing left to see).
func (n *node) foldable(foldString int) bool {
	if n.parent == nil {
		return false
	}
	if n.container() {
		return len(n.children) > 0
	}
	return n.kind == '"' && n.end-n.start-2 > foldString
}

// doc is a parsed value: a tree of nodes over the input bytes, or the input
// as text when it is not JSON.
type doc struct {
	src  []byte
	root *node   // nil for text and for an absent value
	note *node   // "(no value)", "invalid JSON (...)"; nil for JSON
	text []*node // lines of a non-JSON value
}

var decodeOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// parse builds the document for v. Containers with more than foldLines
// lines and strings longer than foldString bytes start folded.
func parse(v jsontext.Value, foldLines, foldString int) *doc {
	d := &doc{src: v}
	if len(bytes.TrimSpace(v)) == 0 {
		d.setNote("(no value)")
		return d
	}
	dec := jsontext.NewDecoder(bytes.NewBuffer(v), decodeOpts...)
	root, err := parseValue(dec, nil, 0)
	if err == nil {
		if _, err2 := dec.ReadToken(); err2 != io.EOF {
			err = errors.New("more than one value")
			if err2 != nil {
				err = err2
			}
		}
	}
	if err != nil {
		d.setNote("invalid JSON (" + describe(err) + "): shown as text")
		lines := strings.Split(text.Sanitize(string(v)), "\n")
		for i, l := range lines {
			l = text.ExpandTabs(l)
			d.text = append(d.text, &node{kind: kindText, index: i, disp: l, has: true})
		}
		return d
	}
	d.root = root
	var initFold func(n *node)
	initFold = func(n *node) {
		if n.parent != nil {
			switch {
			case n.container():
				n.folded = n.lines > foldLines
			case n.kind == '"':
				n.folded = n.foldable(foldString)
			}
		}
		for _, c := range n.children {
			initFold(c)
		}
	}
	initFold(root)
	return d
}

func (d *doc) setNote(s string) {
	d.note = &node{kind: kindNote, disp: text.Sanitize(s), has: true}
}

func describe(err error) string {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		msg := strings.TrimPrefix(se.Error(), "jsontext: ")
		return text.Sanitize(msg)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end"
	}
	return text.Sanitize(err.Error())
}

func parseValue(dec *jsontext.Decoder, parent *node, depth int) (*node, error) {
	n := &node{parent: parent, depth: depth}
	switch k := dec.PeekKind(); k {
	case '{', '[':
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		n.kind = tok.Kind()
		n.start = int(dec.InputOffset()) - 1
		closer := jsontext.Kind('}')
		if n.kind == '[' {
			closer = ']'
		}
		n.lines = 2
		for {
			pk := dec.PeekKind()
			if pk == closer {
				break
			}
			if pk == 0 {
				_, err := dec.ReadToken()
				if err == nil {
					err = io.ErrUnexpectedEOF
				}
				return nil, err
			}
			var name string
			if n.kind == '{' {
				t, err := dec.ReadToken()
				if err != nil {
					return nil, err
				}
				name = t.String()
			}
			c, err := parseValue(dec, n, depth+1)
			if err != nil {
				return nil, err
			}
			c.key, c.hasKey, c.index = name, n.kind == '{', len(n.children)
			n.children = append(n.children, c)
			n.lines += c.lines
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		n.end = int(dec.InputOffset())
		if len(n.children) == 0 {
			n.lines = 1
		}
	default:
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		n.kind = v.Kind()
		n.end = int(dec.InputOffset())
		n.start = n.end - len(v)
		n.lines = 1
	}
	return n, nil
}

// raw is the node's input bytes.
func (d *doc) raw(n *node) jsontext.Value { return jsontext.Value(d.src[n.start:n.end]) }

// display is the node's text as shown: the safe quoted form of a string, the
// number or literal as sent.
func (d *doc) display(n *node) string {
	if !n.has {
		switch n.kind {
		case '"':
			n.disp = text.Quote(unquote(d.raw(n)))
		default:
			n.disp = string(d.raw(n))
		}
		n.has = true
	}
	return n.disp
}

// rowKind is what a row shows of its node.
type rowKind uint8

const (
	rowValue rowKind = iota // a scalar, an empty or folded container, or a container's opening line
	rowClose                // a container's closing bracket
	rowCont                 // a continuation of a wrapped string or text line
)

// row is one screen line. For strings and text lines a and b delimit the
// part of the display text on this row.
type row struct {
	n    *node
	kind rowKind
	a, b int32
}

// layout is the geometry of a node's rows.
const (
	gutter     = 2 // fold marker column
	indentStep = 2
)

// keyWidthMax bounds how much of a row a member name may take.
func keyWidthMax(width int) int { return max(width/2, 8) }

// build lays out the rows of the document for width, the current folds and
// build generation gen.
func (d *doc) build(rows []row, width, gen int) []row {
	rows = rows[:0]
	if d.note != nil {
		d.note.row, d.note.gen = len(rows), gen
		rows = d.wrap(rows, d.note, width, width)
	}
	for _, t := range d.text {
		t.row, t.gen = len(rows), gen
		rows = d.wrap(rows, t, width-gutter, width-gutter)
	}
	if d.root != nil {
		rows = d.emit(rows, d.root, width, gen)
	}
	return rows
}

func (d *doc) emit(rows []row, n *node, width, gen int) []row {
	n.row, n.gen = len(rows), gen
	switch {
	case n.container():
		rows = append(rows, row{n: n})
		if n.folded || len(n.children) == 0 {
			return rows
		}
		for _, c := range n.children {
			rows = d.emit(rows, c, width, gen)
		}
		return append(rows, row{n: n, kind: rowClose})
	case n.kind == '"' && !n.folded:
		first := width - d.prefixWidth(n, width) - 1 // room for the comma
		cont := width - gutter - indentStep*(n.depth+1) - 1
		// Shown, a byte of input takes at most 3 columns (a C1 control,
		// 2 bytes, is shown as \u0085): skip measuring strings that cannot
		// wrap.
		if 3*(n.end-n.start) <= first {
			return append(rows, row{n: n, b: -1})
		}
		return d.wrap(rows, n, first, cont)
	}
	return append(rows, row{n: n, b: -1})
}

// prefixWidth is the width before a node's value: gutter, indent and name.
func (d *doc) prefixWidth(n *node, width int) int {
	w := gutter + indentStep*n.depth
	if n.hasKey {
		w += min(ansi.StringWidth(text.Quote(n.key)), keyWidthMax(width)) + 2
	}
	return w
}

// wrap appends the rows of a string or text line: the first part fits in
// first columns, the others in cont.
func (d *doc) wrap(rows []row, n *node, first, cont int) []row {
	s := d.display(n)
	first, cont = max(first, 8), max(cont, 8)
	if ansi.StringWidth(s) <= first {
		return append(rows, row{n: n, b: -1})
	}
	head := ansi.Truncate(s, first, "")
	if head == "" { // a character wider than the room
		_, size := firstRune(s)
		head = s[:size]
	}
	rows = append(rows, row{n: n, a: 0, b: int32(len(head))})
	off := len(head)
	for _, part := range strings.Split(ansi.Hardwrap(s[off:], cont, true), "\n") {
		if part == "" {
			continue
		}
		// Hardwrap only inserts newlines: the parts are consecutive.
		end := off + len(part)
		if end > len(s) || s[off:end] != part {
			// Defensive: never slice wrongly if that ever changes.
			rows = append(rows, row{n: n, kind: rowCont, a: int32(off), b: int32(len(s))})
			return rows
		}
		rows = append(rows, row{n: n, kind: rowCont, a: int32(off), b: int32(end)})
		off = end
	}
	return rows
}

func firstRune(s string) (rune, int) {
	for i, r := range s {
		if i > 0 {
			return r, i
		}
	}
	return 0, len(s)
}
