package ansi

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// RenderContext holds the current rendering options and state.
type RenderContext struct {
	options Options

	blockStack *BlockStack
	table      *TableElement
}

// NewRenderContext returns a new RenderContext.
func NewRenderContext(options Options) RenderContext {
	return RenderContext{
		options:    options,
		blockStack: &BlockStack{},
		table:      &TableElement{},
	}
}

// SanitizeHTML sanitizes HTML content: its text, without tags, comments
// or the content of the elements whose content is not text (script,
// style...), with character references decoded.
func (ctx RenderContext) SanitizeHTML(s string, trimSpaces bool) string {
	s = htmlText(s)
	if trimSpaces {
		s = strings.TrimSpace(s)
	}
	return s
}

// htmlText is what bluemonday's StrictPolicy kept of s, unescaped. It
// stands in for bluemonday, whose package-level regular expressions (and
// gorilla/css's) cost every command ~5 ms at start-up.
func htmlText(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	skip := 0 // depth inside elements whose content is dropped
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken:
			if name, _ := z.TagName(); skipContent(name) {
				skip++
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); skipContent(name) && skip > 0 {
				skip--
			}
		}
	}
}

// skipContent names the elements whose content bluemonday drops along
// with the element.
func skipContent(name []byte) bool {
	switch atom.Lookup(name) {
	case atom.Frame, atom.Frameset, atom.Iframe, atom.Noembed, atom.Noframes,
		atom.Noscript, atom.Object, atom.Script, atom.Style, atom.Title:
		return true
	}
	return string(name) == "nostyle"
}
