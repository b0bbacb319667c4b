package ansi

import (
	"io"
)

// A CodeBlockElement is used to render code blocks.
type CodeBlockElement struct {
	Code     string
	Language string
}

// Render renders a CodeBlockElement.
//
// firewatch patch: the code is rendered in the code block's style, without
// chroma's per-token highlighting. Importing chroma registers its ~250
// lexers and ~70 styles at program start (about 17 ms of CPU for every
// command firewatch runs, `firewatch version` included); code inside
// markdown artifacts is rare and reads well without it.
func (e *CodeBlockElement) Render(w io.Writer, ctx RenderContext) error {
	bs := ctx.blockStack

	var indentation uint
	var margin uint
	rules := ctx.options.Styles.CodeBlock
	if rules.Indent != nil {
		indentation = *rules.Indent
	}
	if rules.Margin != nil {
		margin = *rules.Margin
	}

	iw := NewIndentWriter(w, int(indentation+margin), func(_ io.Writer) {
		_, _ = renderText(w, bs.Current().Style.StylePrimitive, " ")
	})
	defer iw.Close() //nolint:errcheck

	_, _ = renderText(iw, bs.Current().Style.StylePrimitive, rules.BlockPrefix)
	el := &BaseElement{
		Token: e.Code,
		Style: rules.StylePrimitive,
	}
	if err := el.Render(iw, ctx); err != nil {
		return err
	}
	_, _ = renderText(iw, bs.Current().Style.StylePrimitive, rules.BlockSuffix)
	return nil
}
