package linediff

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/text"
)

// JSONLines is v pretty-printed for a line diff: two spaces an indent,
// members in the order sent (duplicates kept), strings as text.Quote shows
// them (safe for a terminal: a control character is written as its \u
// escape), numbers and literals as sent. ok is false, with no lines, when v
// is not one JSON value.
func JSONLines(v jsontext.Value) (lines []string, ok bool) {
	if len(bytes.TrimSpace(v)) == 0 {
		return nil, false
	}
	p := printer{dec: jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))}
	if err := p.value(0, ""); err != nil {
		return nil, false
	}
	if _, err := p.dec.ReadToken(); err != io.EOF {
		return nil, false // more than one value
	}
	return p.lines, true
}

type printer struct {
	dec   *jsontext.Decoder
	lines []string
}

// value prints the next value at depth, after prefix (a member's name).
func (p *printer) value(depth int, prefix string) error {
	indent := strings.Repeat("  ", depth)
	k := p.dec.PeekKind()
	if k != '{' && k != '[' {
		v, err := p.dec.ReadValue()
		if err != nil {
			return err
		}
		s := string(v)
		if v.Kind() == '"' {
			u, _ := jsontext.AppendUnquote(nil, v) // invalid UTF-8 replaced, never refused
			s = text.Quote(string(u))
		}
		p.lines = append(p.lines, indent+prefix+s)
		return nil
	}
	if _, err := p.dec.ReadToken(); err != nil {
		return err
	}
	closer := jsontext.Kind('}')
	if k == '[' {
		closer = ']'
	}
	open := len(p.lines)
	p.lines = append(p.lines, indent+prefix+string(k))
	n := 0
	for {
		switch p.dec.PeekKind() {
		case closer:
			if _, err := p.dec.ReadToken(); err != nil {
				return err
			}
			if n == 0 {
				p.lines[open] += string(closer)
			} else {
				p.lines = append(p.lines, indent+string(closer))
			}
			return nil
		case 0:
			if _, err := p.dec.ReadToken(); err != nil {
				return err
			}
			return errors.New("unexpected end")
		}
		if n > 0 {
			p.lines[len(p.lines)-1] += ","
		}
		name := ""
		if k == '{' {
			t, err := p.dec.ReadToken()
			if err != nil {
				return err
			}
			name = text.Quote(t.String()) + ": "
		}
		if err := p.value(depth+1, name); err != nil {
			return err
		}
		n++
	}
}
